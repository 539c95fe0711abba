/* The GPU backend gives the host result: addto (atomic, coloured, COO) matrices, lma MatMult, MatMultTranspose,
   MatMultAdd and diagonal (atomic and gather scatter), right-hand sides with Dirichlet lifting, for every cell type and
   orders 1..4, with linear-field and pointwise coefficients; a CG + Jacobi solve matches the host solve and copies
   nothing between host and device; on two processes the same comparisons on the distributed mesh (addto through the
   diagonal and off-diagonal blocks and a PetscSF), and distributed GPU operators match the serial host one; the
   overlapped apply (interior elements while the halo moves) equals the host and the plain one; lma with single-precision
   element matrices equals the host's single lma, and lma's grouped storage (Q3 quadrilaterals, P3 tetrahedra) and a
   symmetric form's upper triangles (3-27 dofs; the product tile by tile too) the host's through every integration
   kernel; -feg_op_type auto becomes a type that applies the host's operator; coefficients given at the quadrature
   points on CUDA vectors give the host's results.
   Needs a GPU (make check-gpu).
   fegtest: nsize 1 2 */
#include "fegtest.h"
#include <petscdevice_cuda.h>

typedef struct {
  FEGOpType   strategy;
  const char *mode; /* -feg_op_addto_mode or -feg_op_scatter */
} gpu_variant;

static const gpu_variant variants[] = {
  {FEGOPADDTO,   "atomic"},
  {FEGOPADDTO,   "color" },
  {FEGOPADDTO,   "coo"   },
  {FEGOPLMA,     "atomic"},
  {FEGOPLMA,     "gather"},
  {FEGOPMATFREE, "atomic"},
  {FEGOPMATFREE, "gather"},
  {FEGOPADDTO,   "gather"}
};
#define NVARIANTS 8

static PetscBool with_qpoints   = PETSC_FALSE;   /* build() adds values at the quadrature points to the form */
static PetscBool with_constant  = PETSC_FALSE;   /* build() makes a constant-C form on an unperturbed box, */
static test_form constant_form  = FORM_CONSTANT; /* this one */
static PetscBool with_symmetric = PETSC_FALSE;   /* build() makes FORM_SYMMETRIC on the perturbed mesh (4 faces a side at order 1) */

static PetscErrorCode build(MPI_Comm comm, DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool gpu, PetscBool pointwise, DM *dm, DM *auxdm, Vec *aux, FEGForm *form)
{
  PetscFunctionBegin;
  if (with_constant) {
    PetscInt faces[3] = {2, 2, 2};

    PetscCall(FEGCreateBoxMesh(comm, ct, faces, NULL, NULL, 0.0, dm));
    PetscCall(FEGSetUpDiscretization(*dm, order, cont, "u"));
    if (cont) PetscCall(fegtest_wall(*dm, fegtest_bcfunc));
  } else PetscCall(fegtest_setup(comm, ct, order, cont, cont, with_symmetric && order == 1 ? 4 : 2, dm)); /* P1 on 2 faces a side with walls: one free dof */
  if (gpu) PetscCall(DMSetVecType(*dm, VECCUDA));
  if (with_qpoints || with_constant || with_symmetric) {
    PetscCall(fegtest_make_form(*dm, with_qpoints ? FORM_QPOINTS : (with_symmetric ? FORM_SYMMETRIC : constant_form), auxdm, aux, form));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(fegtest_aux(*dm, auxdm, aux));
  PetscCall(fegtest_form(comm, *auxdm, *aux, pointwise, form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode destroy(DM *dm, DM *auxdm, Vec *aux, FEGForm *form)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(aux));
  PetscCall(FEGFormDestroy(form));
  PetscCall(DMDestroy(auxdm));
  PetscCall(DMDestroy(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest relative difference of the GPU's preconditioning matrix Pg (AIJCUSPARSE) and the host's Ph */
static PetscErrorCode pmat_diff(Mat Pg, Mat Ph, PetscReal *err)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatConvert(Pg, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(fegtest_matdiff(C, Ph, err));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a host (0) and GPU (1) pair of operators and what build() made for them */
static PetscErrorCode destroy_pair(Mat A[2], DM dm[2], DM aux[2], Vec ax[2], FEGForm f[2])
{
  PetscFunctionBegin;
  for (int g = 0; g < 2; g++) {
    PetscCall(MatDestroy(&A[g]));
    PetscCall(destroy(&dm[g], &aux[g], &ax[g], &f[g]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest relative difference of A and B (host) over MatMult, MatMultTranspose, MatMultAdd and, with diag,
   MatGetDiagonal */
static PetscErrorCode apply_diff(Mat A, DM dm, Mat B, DM dmh, PetscBool diag, PetscReal *err)
{
  Vec         x, y, z, xh, yh, zh;
  PetscRandom rnd;
  PetscReal   r;

  PetscFunctionBegin;
  *err = 0.0;
  PetscCall(DMCreateGlobalVector(dmh, &xh));
  PetscCall(VecDuplicate(xh, &yh));
  PetscCall(VecDuplicate(xh, &zh));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)dmh), &rnd));
  PetscCall(VecSetRandom(xh, rnd));
  PetscCall(VecSetRandom(zh, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecCopy(xh, x));
  PetscCall(VecCopy(zh, z));
  for (int k = 0; k < (diag ? 4 : 3); k++) {
    if (k == 0) {
      PetscCall(MatMult(B, xh, yh));
      PetscCall(MatMult(A, x, y));
    } else if (k == 1) {
      PetscCall(MatMultTranspose(B, xh, yh));
      PetscCall(MatMultTranspose(A, x, y));
    } else if (k == 2) {
      PetscCall(MatMultAdd(B, xh, zh, yh));
      PetscCall(MatMultAdd(A, x, z, y));
    } else {
      PetscCall(MatGetDiagonal(B, yh));
      PetscCall(MatGetDiagonal(A, y));
    }
    PetscCall(fegtest_vecdiff(y, yh, &r));
    *err = PetscMax(*err, r);
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&zh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* largest relative difference between the GPU and host operator (and right-hand side) */
static const char *kernel_options = NULL;

static PetscErrorCode compare_variant(MPI_Comm comm, DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool pointwise, const gpu_variant *v, PetscReal *err)
{
  DM        dmh, dmg, auxh, auxg;
  Vec       axh, axg, bh, bg;
  FEGForm   fh, fg;
  Mat       Ah, Ag;
  PetscReal r;
  PetscBool addto;

  PetscFunctionBegin;
  *err = 0.0;
  PetscCall(PetscStrcmp(v->strategy, FEGOPADDTO, &addto));
  PetscCall(build(comm, ct, order, cont, PETSC_FALSE, pointwise, &dmh, &auxh, &axh, &fh));
  PetscCall(build(comm, ct, order, cont, PETSC_TRUE, pointwise, &dmg, &auxg, &axg, &fg));
  PetscCall(FEGFormSetOptionsPrefix(fg, "gpu_"));
  PetscCall(PetscOptionsSetValue(NULL, addto ? "-gpu_feg_op_addto_mode" : "-gpu_feg_op_scatter", v->mode));
  PetscCall(fegtest_operator(dmh, fh, v->strategy, &Ah));
  if (kernel_options) PetscCall(PetscOptionsInsertString(NULL, kernel_options));
  PetscCall(fegtest_operator(dmg, fg, v->strategy, &Ag));
  if (kernel_options) PetscCall(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_kernel"));
  PetscCall(PetscOptionsClearValue(NULL, addto ? "-gpu_feg_op_addto_mode" : "-gpu_feg_op_scatter"));
  if (addto) {
    Mat C;

    PetscCall(MatConvert(Ag, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(fegtest_matdiff(C, Ah, &r));
    *err = PetscMax(*err, r);
    PetscCall(MatDestroy(&C));
  } else {
    PetscCall(apply_diff(Ag, dmg, Ah, dmh, PETSC_TRUE, &r));
    *err = PetscMax(*err, r);
  }
  PetscCall(DMCreateGlobalVector(dmh, &bh));
  PetscCall(DMCreateGlobalVector(dmg, &bg));
  PetscCall(FEGComputeRHS(dmh, fh, bh));
  PetscCall(FEGComputeRHS(dmg, fg, bg));
  PetscCall(fegtest_vecdiff(bg, bh, &r));
  *err = PetscMax(*err, r);
  PetscCall(VecDestroy(&bh));
  PetscCall(VecDestroy(&bg));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&Ag));
  PetscCall(destroy(&dmh, &auxh, &axh, &fh));
  PetscCall(destroy(&dmg, &auxg, &axg, &fg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_gpu_equals_host)
{
  const DMPolytopeType ct        = fegtest_cells[_i / 8];
  const PetscInt       order     = 1 + (_i % 8) / 2;
  const PetscBool      pointwise = (PetscBool)(_i % 2);
  const PetscBool      cont      = PETSC_TRUE;
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  /* on several processes the same distributed mesh on host and GPU (addto: entry by entry, through the diagonal and
     off-diagonal blocks and the PetscSF for rows owned elsewhere), orders 1 and 2 */
  if (size > 1 && (order > 2 || pointwise)) return;
  for (PetscInt v = 0; v < NVARIANTS; v++) {
    PetscReal err;

    TCHK(compare_variant(PETSC_COMM_WORLD, ct, order, cont, pointwise, &variants[v], &err));
    ck_assert_msg(err < 1e-12, "%s P%d%s %s/%s (%s coefficient): GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, cont ? "" : " (DG)", variants[v].strategy, variants[v].mode, pointwise ? "pointwise" : "linear-field", (double)err);
  }
}
END_TEST

/* A DM's later operators share its device geometry (kept for affine cells once an integrating type used it, freed with
   its last user otherwise) and, with constraints on one process, lma's global dof map: on one GPU DM, matfree; lma
   destroyed and made again; a second lma beside it and the right-hand side; then, the others destroyed, the remaining
   lma assembled again. Each against the host's operator of its type; P2 tetrahedra (affine) and perturbed Q2
   hexahedra (not); np 1 and 2 */
START_TEST(test_gpu_later_operators)
{
  const DMPolytopeType ct = _i ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TETRAHEDRON;
  DM                   dmh, dmg, auxh, auxg;
  Vec                  axh, axg, bh, bg;
  FEGForm              fh, fg;
  Mat                  Hl, Hm, G[3];
  PetscReal            r;

  TCHK(build(PETSC_COMM_WORLD, ct, 2, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, &dmh, &auxh, &axh, &fh));
  TCHK(build(PETSC_COMM_WORLD, ct, 2, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, &dmg, &auxg, &axg, &fg));
  TCHK(fegtest_operator(dmh, fh, FEGOPLMA, &Hl));
  TCHK(fegtest_operator(dmh, fh, FEGOPMATFREE, &Hm));
  TCHK(fegtest_operator(dmg, fg, FEGOPMATFREE, &G[0]));
  TCHK(fegtest_operator(dmg, fg, FEGOPLMA, &G[1]));
  TCHK(MatDestroy(&G[1]));
  TCHK(fegtest_operator(dmg, fg, FEGOPLMA, &G[1]));
  TCHK(fegtest_operator(dmg, fg, FEGOPLMA, &G[2]));
  TCHK(DMCreateGlobalVector(dmh, &bh));
  TCHK(DMCreateGlobalVector(dmg, &bg));
  TCHK(FEGComputeRHS(dmh, fh, bh));
  TCHK(FEGComputeRHS(dmg, fg, bg));
  TCHK(fegtest_vecdiff(bg, bh, &r));
  ck_assert_msg(r < 1e-12, "%s: the right-hand side beside the operators differs from the host's by %g", DMPolytopeTypes[ct], (double)r);
  for (int k = 0; k < 3; k++) {
    TCHK(apply_diff(G[k], dmg, k ? Hl : Hm, dmh, PETSC_TRUE, &r));
    ck_assert_msg(r < 1e-12, "%s: operator %d (%s) differs from the host's by %g", DMPolytopeTypes[ct], k + 1, k ? "lma" : "matfree", (double)r);
  }
  TCHK(MatDestroy(&G[0]));
  TCHK(MatDestroy(&G[2]));
  TCHK(FEGOperatorAssemble(G[1], fg));
  TCHK(apply_diff(G[1], dmg, Hl, dmh, PETSC_TRUE, &r));
  ck_assert_msg(r < 1e-12, "%s: lma assembled again after the other operators went differs from the host's by %g", DMPolytopeTypes[ct], (double)r);
  TCHK(VecDestroy(&bh));
  TCHK(VecDestroy(&bg));
  TCHK(MatDestroy(&G[1]));
  TCHK(MatDestroy(&Hl));
  TCHK(MatDestroy(&Hm));
  TCHK(destroy(&dmh, &auxh, &axh, &fh));
  TCHK(destroy(&dmg, &auxg, &axg, &fg));
}
END_TEST

/* Coefficients given at the quadrature points (FEGFormSetQuadratureCoefficient) on CUDA vectors: the points the GPU
   computes equal the host's, and every type and mode with them gives the host's matrix, products and right-hand side;
   _i: cell type, then P2 continuous with boundary values or P1 discontinuous; np 1 and 2 */
START_TEST(test_gpu_qpoints)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 2];
  const PetscBool      cont  = (PetscBool)(_i % 2 == 0);
  const PetscInt       order = cont ? 2 : 1;
  DM                   dm[2];
  Vec                  X[2];
  PetscBool            cuda;
  PetscReal            err;

  for (int g = 0; g < 2; g++) {
    TCHK(fegtest_setup(PETSC_COMM_WORLD, ct, order, cont, cont, 2, &dm[g]));
    if (g) TCHK(DMSetVecType(dm[g], VECCUDA));
    TCHK(FEGDMCreateQuadratureCoordinates(dm[g], &X[g]));
  }
  TCHK(PetscObjectTypeCompareAny((PetscObject)X[1], &cuda, VECSEQCUDA, VECMPICUDA, ""));
  ck_assert_msg(cuda, "%s: the quadrature points of a CUDA DM are not a CUDA vector", DMPolytopeTypes[ct]);
  TCHK(fegtest_vecdiff(X[1], X[0], &err));
  ck_assert_msg(err < 1e-14, "%s P%d: quadrature points computed on the GPU differ from the host's by %g", DMPolytopeTypes[ct], (int)order, (double)err);
  for (int g = 0; g < 2; g++) {
    TCHK(VecDestroy(&X[g]));
    TCHK(DMDestroy(&dm[g]));
  }
  with_qpoints = PETSC_TRUE;
  for (PetscInt v = 0; v < NVARIANTS; v++) {
    TCHK(compare_variant(PETSC_COMM_WORLD, ct, order, cont, PETSC_FALSE, &variants[v], &err));
    ck_assert_msg(err < 1e-12, "%s P%d%s %s/%s with quadrature-point coefficients: GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, cont ? "" : " (DG)", variants[v].strategy, variants[v].mode, (double)err);
  }
  with_qpoints = PETSC_FALSE;
}
END_TEST

/* Constant C on affine cells (an unperturbed box): the reference-tensor kernels, with C non-symmetric (FORM_CONSTANT:
   every split tensor) and symmetric (FORM_MASSSTIFF: the symmetric ones alone). More than 10 dofs per element: addto
   with one entry per thread and element-major positions (atomic, colour) and COO values; lma one element per thread up
   to 20 dofs, one row of 32 elements per warp above. Triangles P4, quadrilaterals Q3, tetrahedra P3 and P4, hexahedra
   Q2 and Q3, prisms P2; np 1 and 2. Up to 10 dofs (one element per thread, its size compiled in, each pair a <= b
   once): triangles P1 and P2, quadrilaterals Q1 and Q2, tetrahedra P1 and P2, hexahedra Q1, prisms P1; np 1 */
START_TEST(test_gpu_constant_affine)
{
  const DMPolytopeType ct[15]    = {DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON,   DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON,  DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TRI_PRISM, DM_POLYTOPE_TRIANGLE,
                                    DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TRI_PRISM};
  const PetscInt       order[15] = {4, 3, 3, 4, 2, 3, 2, 1, 2, 1, 2, 1, 2, 1, 1};
  const test_form      forms[2]  = {FORM_CONSTANT, FORM_MASSSTIFF};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1 && _i != 2 && _i != 4 && _i != 12) return; /* several processes: P3 and P2 tetrahedra, Q2 hexahedra */
  with_constant = PETSC_TRUE;
  for (PetscInt f = 0; f < 2; f++) {
    constant_form = forms[f];
    /* then the entries kernel asked for at every size (auto takes it at some, FEGDevAutoKernel()): the types that
       integrate, on several processes addto atomic alone */
    for (PetscInt k = 0; k < 2; k++) {
      kernel_options = k ? "-gpu_feg_op_integration_kernel entries" : NULL;
      for (PetscInt v = 0; v < NVARIANTS; v++) {
        PetscReal err;
        PetscBool matfree;

        TCHK(PetscStrcmp(variants[v].strategy, FEGOPMATFREE, &matfree));
        if (k && (matfree || (size > 1 && v != 0))) continue;
        TCHK(compare_variant(PETSC_COMM_WORLD, ct[_i], order[_i], PETSC_TRUE, PETSC_FALSE, &variants[v], &err));
        ck_assert_msg(err < 1e-12, "%s P%d %s/%s%s%s (%s constant coefficient, affine cells): GPU differs from host by %g", DMPolytopeTypes[ct[_i]], (int)order[_i], variants[v].strategy, variants[v].mode, k ? " with " : "", k ? kernel_options : "", fegtest_form_name(forms[f]), (double)err);
      }
    }
    kernel_options = NULL;
  }
  constant_form = FORM_CONSTANT;
  with_constant = PETSC_FALSE;
}
END_TEST

/* every integration kernel (one element per thread, per block with its tuning options, GEMM) on every cell type */
START_TEST(test_gpu_kernels)
{
  const char *opts[4] = {"-gpu_feg_op_integration_kernel thread", "-gpu_feg_op_integration_kernel block", "-gpu_feg_op_integration_kernel block -gpu_feg_op_integration_nentpt 2 -gpu_feg_op_integration_qchunk 3 -gpu_feg_op_integration_jacobian_shared 0 -gpu_feg_op_integration_block_size 32", "-gpu_feg_op_integration_kernel gemm"};
  const DMPolytopeType ct = fegtest_cells[_i / 4];
  const PetscInt       k = _i % 4, order = (k == 0 && ct == DM_POLYTOPE_HEXAHEDRON) ? 1 : 2; /* Q2: 27 > 20 dofs */
  const PetscBool      cont = PETSC_TRUE;
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  kernel_options = opts[k];
  for (PetscInt v = 0; v < NVARIANTS; v += 3) { /* addto atomic and lma atomic */
    PetscReal err;

    TCHK(compare_variant(PETSC_COMM_SELF, ct, order, cont, PETSC_TRUE, &variants[v], &err));
    ck_assert_msg(err < 1e-12, "%s P%d %s with %s: GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, variants[v].strategy, opts[k], (double)err);
  }
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_nentpt"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_qchunk"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_jacobian_shared"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_block_size"));
  kernel_options = NULL;
}
END_TEST

/* when set, compare_matfree's space has this many more Gauss points per direction than nodes (tensor cells: the BP1
   and BP3 discretization, Q = P + 1) */
static PetscInt  gauss_extra  = 0;
static PetscReal mesh_perturb = 0.2; /* 0: an affine box */
static PetscInt  mesh_n       = 2;   /* faces per direction of the perturbed box */

static PetscErrorCode setup_matfree_dm(DMPolytopeType ct, PetscInt order, PetscBool cont, DM *dm)
{
  PetscFunctionBegin;
  if (mesh_perturb == 0.2) PetscCall(fegtest_setup(PETSC_COMM_SELF, ct, order, cont, cont, mesh_n, dm));
  else {
    PetscInt faces[3] = {2, 2, 2};

    PetscCall(FEGCreateBoxMesh(PETSC_COMM_SELF, ct, faces, NULL, NULL, mesh_perturb, dm));
    PetscCall(FEGSetUpDiscretization(*dm, order, cont, "u"));
    if (cont) PetscCall(fegtest_wall(*dm, fegtest_bcfunc));
  }
  if (gauss_extra) {
    PetscFE         fe;
    PetscQuadrature q;
    PetscInt        dim;

    PetscCall(DMGetDimension(*dm, &dim));
    PetscCall(FEGCreateFE(PETSC_COMM_SELF, dim, ct, order, cont, &fe));
    PetscCall(PetscDTGaussTensorQuadrature(dim, 1, order + 1 + gauss_extra, -1.0, 1.0, &q));
    PetscCall(PetscFESetQuadrature(fe, q));
    PetscCall(PetscQuadratureDestroy(&q));
    PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
    PetscCall(DMCreateDS(*dm));
    PetscCall(PetscFEDestroy(&fe));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GPU matfree kernel mfk (scatter by atomics or gather) against the host's own kernel, for one form */
static PetscErrorCode compare_matfree_view(DMPolytopeType ct, PetscInt order, PetscBool cont, test_form kind, const char *mfk, const char *scatter, PetscReal *err, char *view, size_t len)
{
  DM          dm[2], aux[2];
  Vec         ax[2], x[2], y[2], z[2];
  FEGForm     f[2];
  Mat         A[2];
  PetscRandom rnd;
  PetscReal   r;

  char      fac[8] = "";
  PetscBool hasfac;

  PetscFunctionBegin;
  *err = 0.0;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-feg_op_matfree_factored", fac, sizeof(fac), &hasfac));
  for (int g = 0; g < 2; g++) {
    PetscCall(setup_matfree_dm(ct, order, cont, &dm[g]));
    if (g) PetscCall(DMSetVecType(dm[g], VECCUDA));
    PetscCall(fegtest_make_form(dm[g], kind, &aux[g], &ax[g], &f[g]));
    /* the host has no gemm or mma: it checks them against refop, with the operators as they are (not factored, so
       the GPU's factored kernels meet an independent result) */
    PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_kernel", g || (strcmp(mfk, "gemm") && strcmp(mfk, "mma")) ? mfk : "refop"));
    PetscCall(PetscOptionsSetValue(NULL, "-feg_op_scatter", scatter));
    if (!g) PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_factored", "0"));
    else if (hasfac) PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_factored", fac));
    else PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_factored"));
    PetscCall(fegtest_operator(dm[g], f[g], FEGOPMATFREE, &A[g]));
    PetscCall(DMCreateGlobalVector(dm[g], &x[g]));
    PetscCall(VecDuplicate(x[g], &y[g]));
    PetscCall(VecDuplicate(x[g], &z[g]));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_kernel"));
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_scatter"));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(VecSetRandom(x[0], rnd));
  PetscCall(VecSetRandom(z[0], rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecCopy(x[0], x[1]));
  PetscCall(VecCopy(z[0], z[1]));
  for (int op = 0; op < 4; op++) {
    for (int g = 0; g < 2; g++) {
      if (op == 0) PetscCall(MatMult(A[g], x[g], y[g]));
      else if (op == 1) PetscCall(MatMultTranspose(A[g], x[g], y[g]));
      else if (op == 2) PetscCall(MatMultAdd(A[g], x[g], z[g], y[g]));
      else PetscCall(MatGetDiagonal(A[g], y[g]));
    }
    PetscCall(fegtest_vecdiff(y[1], y[0], &r));
    *err = PetscMax(*err, r);
  }
  if (view) PetscCall(fegtest_view_text(A[1], view, len));
  for (int g = 0; g < 2; g++) {
    PetscCall(VecDestroy(&x[g]));
    PetscCall(VecDestroy(&y[g]));
    PetscCall(VecDestroy(&z[g]));
    PetscCall(MatDestroy(&A[g]));
    PetscCall(VecDestroy(&ax[g]));
    PetscCall(FEGFormDestroy(&f[g]));
    PetscCall(DMDestroy(&aux[g]));
    PetscCall(DMDestroy(&dm[g]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode compare_matfree(DMPolytopeType ct, PetscInt order, PetscBool cont, test_form kind, const char *mfk, const char *scatter, PetscReal *err)
{
  return compare_matfree_view(ct, order, cont, kind, mfk, scatter, err, NULL, 0);
}

/* every matfree kernel on the GPU equals the host: refop, gemm and mma on triangles and tetrahedra, sumfact on
   quadrilaterals and hexahedra, qp everywhere; orders 1..8 (2D) and 1..6 (3D), CG (with constraints) and DG (plain
   stores), atomic and gather scatter, every stored-pair set and a pointwise coefficient */
START_TEST(test_gpu_matfree)
{
  const DMPolytopeType cells[] = {DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON};
  const DMPolytopeType ct      = cells[_i / 8];
  const PetscInt       dim = fegtest_dim(ct), k = _i % 8;
  const PetscInt       order = dim == 2 ? 1 + k : 1 + k % 6;
  const PetscBool      cont = (PetscBool)(k % 2 == 0), simplex = (PetscBool)(ct == DM_POLYTOPE_TRIANGLE || ct == DM_POLYTOPE_TETRAHEDRON);
  const char          *kernels[4] = {simplex ? "refop" : "sumfact", simplex ? "gemm" : "qp", "mma", "qp"};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  for (int f = simplex ? FORM_CONSTANT : FORM_POINTWISE; f < NFORMS; f++) {
    for (int kk = 0; kk < (simplex ? 4 : 2); kk++) {
      const char *scatter = (f + kk) % 2 ? "gather" : "atomic";
      PetscReal   err;

      if (!strcmp(kernels[kk], "qp") && f != FORM_POINTWISE && f != FORM_CONSTANT) continue;
      TCHK(compare_matfree(ct, order, cont, (test_form)f, kernels[kk], scatter, &err));
      ck_assert_msg(err < 1e-12, "%s P%d%s matfree %s (%s scatter, %s form): GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, cont ? "" : " (DG)", kernels[kk], scatter, fegtest_form_name(f), (double)err);
    }
  }
}
END_TEST

/* mma's tile shapes (8-row tiles x 8-element tiles per warp, warps across the elements) on tetrahedra of orders 1-8,
   down to row tiles left empty and blocks that overhang the last element, against the host's refop: a symmetric and
   a non-symmetric form (the transpose takes the other factors), CG with atomics or the gather and DG with plain stores.
   At orders 1 and 2 also refop's block kernel, which the per-thread one replaces by default there */
START_TEST(test_gpu_matfree_mma)
{
  const PetscInt  order = 1 + _i / 3, shape = _i % 3;
  const PetscBool cont  = (PetscBool)(_i % 2 == 0);
  const char     *ne[3] = {"2", "8", "4"}, *nr[3] = {"1", "2", "4"}, *nb[3] = {"3", "1", "2"};
  const test_form forms[2]   = {FORM_MASSSTIFF, FORM_CELLWISE};
  char            view[4096] = "";
  PetscMPIInt     size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  /* 2 x 8 tiles only with 1 row tile: 16 accumulator tiles at most */
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_ne", ne[shape]));
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_nr", nr[shape]));
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_nb", nb[shape]));
  for (int f = 0; f < 2; f++) {
    PetscReal err;

    TCHK(compare_matfree_view(DM_POLYTOPE_TETRAHEDRON, order, cont, forms[f], "mma", f ? "gather" : "atomic", &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "tetrahedra P%d%s mma %s x %s tiles, %s warp columns (%s form): GPU differs from host by %g", (int)order, cont ? "" : " (DG)", nr[shape], ne[shape], nb[shape], fegtest_form_name(forms[f]), (double)err);
    ck_assert_msg(strstr(view, "GPU matfree mma") != NULL, "P%d: the view does not name the mma kernel:\n%s", (int)order, view);
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_ne"));
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_nb"));
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_nr"));
  /* diffusion forms: mma with the gradient operators factored (element tiles per block from -feg_op_matfree_nb, here 1 to
     3: blocks overhang the last element), and with -feg_op_matfree_factored 0 the operators as they are */
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_nb", nb[shape]));
  for (int fac = 0; fac < 2; fac++) {
    PetscReal err;

    TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_factored", fac ? "1" : "0"));
    TCHK(compare_matfree_view(DM_POLYTOPE_TETRAHEDRON, order, cont, fac ? FORM_POISSON : FORM_MASSSTIFF, "mma", cont ? "gather" : "atomic", &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "tetrahedra P%d%s mma %s (%s form, %s warp columns): GPU differs from host by %g", (int)order, cont ? "" : " (DG)", fac ? "factored" : "unfactored", fegtest_form_name(fac ? FORM_POISSON : FORM_MASSSTIFF), nb[shape], (double)err);
    ck_assert_msg(!strstr(view, "operators factored") == !fac, "P%d: mma with -feg_op_matfree_factored %d, but the view says:\n%s", (int)order, fac, view);
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_factored"));
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_nb"));
  /* refop takes one thread per element up to 10 dofs unless a block shape is asked for: the block kernel there too */
  if (order <= 2) {
    PetscReal err;

    TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_nr", "1"));
    TCHK(compare_matfree_view(DM_POLYTOPE_TETRAHEDRON, order, cont, FORM_CELLWISE, "refop", "atomic", &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "tetrahedra P%d%s refop block kernel: GPU differs from host by %g", (int)order, cont ? "" : " (DG)", (double)err);
    ck_assert_msg(strstr(view, "elements per thread") != NULL, "P%d: -feg_op_matfree_nr 1 did not give the block refop kernel:\n%s", (int)order, view);
    TCHK(compare_matfree_view(DM_POLYTOPE_TRIANGLE, order, cont, FORM_CELLWISE, "refop", "gather", &err, NULL, 0));
    ck_assert_msg(err < 1e-12, "triangles P%d%s refop block kernel: GPU differs from host by %g", (int)order, cont ? "" : " (DG)", (double)err);
    TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_nr"));
    TCHK(compare_matfree_view(DM_POLYTOPE_TETRAHEDRON, order, cont, FORM_CELLWISE, "refop", "atomic", &err, view, sizeof(view)));
    ck_assert_msg(strstr(view, "one thread per element") != NULL, "P%d: refop on %d-dof elements is not the per-thread kernel:\n%s", (int)order, order == 1 ? 4 : 10, view);
    /* diffusion forms take the factored gradient operators there (fac 2; at P2 through the P1 nodal values with the
       tables compiled in, fac 1 with -feg_op_matfree_nodal 0 the factors of any space), -feg_op_matfree_factored 0 the
       operators as they are (fac 0); all against the host's unfactored refop, and each must say which it ran */
    for (int fac = 0; fac < 3; fac++) {
      const test_form dforms[2] = {FORM_MASSSTIFF, FORM_POISSON};

      TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_factored", fac ? "1" : "0"));
      TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_nodal", fac == 2 ? "1" : "0"));
      for (int f = 0; f < 2; f++) {
        TCHK(compare_matfree_view(DM_POLYTOPE_TETRAHEDRON, order, cont, dforms[f], "refop", f ? "gather" : "atomic", &err, view, sizeof(view)));
        ck_assert_msg(err < 1e-12, "tetrahedra P%d%s refop %s (%s form): GPU differs from host by %g", (int)order, cont ? "" : " (DG)", fac ? (fac == 2 ? "factored (nodal)" : "factored") : "unfactored", fegtest_form_name(dforms[f]), (double)err);
        ck_assert_msg(!strstr(view, "operators factored") == !fac, "P%d: -feg_op_matfree_factored %d, but the view says:\n%s", (int)order, fac > 0, view);
        ck_assert_msg(!strstr(view, "nodal values") == !(fac == 2 && order == 2), "P%d: -feg_op_matfree_nodal %d, but the view says:\n%s", (int)order, fac == 2, view);
        TCHK(compare_matfree_view(DM_POLYTOPE_TRIANGLE, order + 1, cont, dforms[f], "refop", f ? "atomic" : "gather", &err, view, sizeof(view)));
        ck_assert_msg(err < 1e-12, "triangles P%d%s refop %s (%s form): GPU differs from host by %g", (int)order + 1, cont ? "" : " (DG)", fac ? (fac == 2 ? "factored (nodal)" : "factored") : "unfactored", fegtest_form_name(dforms[f]), (double)err);
        ck_assert_msg(!strstr(view, "operators factored") == !fac, "triangles P%d: -feg_op_matfree_factored %d, but the view says:\n%s", (int)order + 1, fac > 0, view);
        ck_assert_msg(!strstr(view, "nodal values") == !(fac == 2 && order + 1 == 2), "triangles P%d: -feg_op_matfree_nodal %d, but the view says:\n%s", (int)order + 1, fac == 2, view);
      }
    }
    TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_nodal"));
    TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_factored"));
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_nr"));
}
END_TEST

/* sumfact's other spaces on the GPU against the host: GLL nodes with the Gauss rule, GLL nodes collocated with the GLL
   rule (the kernels skip the interpolation), and Q = P + 1 Gauss points (BP1, BP3); every form, the mass-only one too */
/* sumfact on affine hexahedra (an unperturbed box): the GPU keeps pairs that are the weights times one value per cell
   once per cell. It must equal the host's per-point kernel for every form on Gauss (Q = P, P + 1), GLL and collocated
   spaces, and say which storage it took: per element exactly when C is constant in each cell (not for the pointwise
   form), per point again on a perturbed mesh */
START_TEST(test_gpu_matfree_affine)
{
  const PetscInt  variant = _i / 4, order = 1 + _i % 4;
  const PetscBool cont     = (PetscBool)(_i % 2 == 0);
  const char     *names[4] = {"gauss", "gll", "gll_collocated", "Q = P + 1"};
  char            view[4096];
  PetscMPIInt     size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  if (variant == 1 || variant == 2) TCHK(PetscOptionsSetValue(NULL, "-feg_fe_nodes", names[variant]));
  gauss_extra = variant == 3 ? 1 : 0;
  for (int f = FORM_POINTWISE; f < NFORMS + 1; f++) {
    const PetscBool perturbed = (PetscBool)(f == NFORMS), per = (PetscBool)(f != FORM_POINTWISE && !perturbed);
    const test_form form = perturbed ? FORM_POISSON : (test_form)f;
    PetscReal       err;

    mesh_perturb = perturbed ? 0.2 : 0.0;
    TCHK(compare_matfree_view(DM_POLYTOPE_HEXAHEDRON, order, cont, form, "sumfact", f % 2 ? "gather" : "atomic", &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "affine hexahedra P%d%s %s (%s form%s): GPU differs from host by %g", (int)order, cont ? "" : " (DG)", names[variant], fegtest_form_name(form), perturbed ? ", perturbed" : "", (double)err);
    ck_assert_msg((strstr(view, "pairs stored per element") != NULL) == per, "P%d %s (%s form%s): expected the pairs per %s, the view says\n%s", (int)order, names[variant], fegtest_form_name(form), perturbed ? ", perturbed" : "", per ? "element" : "point", view);
  }
  mesh_perturb = 0.2;
  gauss_extra  = 0;
  TCHK(PetscOptionsClearValue(NULL, "-feg_fe_nodes"));
}
END_TEST

START_TEST(test_gpu_matfree_spaces)
{
  const DMPolytopeType ct      = _i / 24 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const PetscInt       variant = (_i / 8) % 3, k = _i % 8, order = ct == DM_POLYTOPE_QUADRILATERAL ? 1 + k : 1 + k % 6;
  const PetscBool      cont     = (PetscBool)(k % 2 == 0);
  const char          *names[3] = {"gll", "gll_collocated", "Q = P + 1"};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  if (variant < 2) TCHK(PetscOptionsSetValue(NULL, "-feg_fe_nodes", names[variant]));
  gauss_extra = variant == 2 ? 1 : 0;
  for (int f = FORM_POINTWISE; f < NFORMS; f++) {
    const char *scatter = f % 2 ? "gather" : "atomic";
    PetscReal   err;

    TCHK(compare_matfree(ct, order, cont, (test_form)f, "sumfact", scatter, &err));
    ck_assert_msg(err < 1e-12, "%s P%d%s sumfact %s (%s scatter, %s form): GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, cont ? "" : " (DG)", names[variant], scatter, fegtest_form_name(f), (double)err);
  }
  gauss_extra = 0;
  TCHK(PetscOptionsClearValue(NULL, "-feg_fe_nodes"));
}
END_TEST

/* meshes of more than 65536 local dofs (20^3 Q2 hexahedra and P2 tetrahedra, 69k dofs each) on three setup threads,
   so the host's setup loops run in uneven blocks (the local-to-global map, the owned pairs, sum factorisation's index
   permutation): the GPU operators still equal the host's, with atomics (global indices) and with the gather (local
   work vectors, the owned pairs copying x in and y out) */
START_TEST(test_gpu_large_setup)
{
  const DMPolytopeType ct[2]  = {DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TETRAHEDRON};
  const char          *mfk[2] = {"sumfact", "refop"}, *scatter[2] = {"atomic", "gather"};
  const PetscInt       c = _i / 2, k = _i % 2;
  PetscMPIInt          size;
  PetscReal            err;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  mesh_n = 20;
  TCHK(PetscOptionsSetValue(NULL, "-feg_setup_threads", "3"));
  TCHK(compare_matfree(ct[c], 2, PETSC_TRUE, FORM_CONSTANT, mfk[c], scatter[k], &err));
  ck_assert_msg(err < 1e-12, "%s P2 on a 20^3 box, matfree %s (%s scatter) on three setup threads: GPU differs from host by %g", DMPolytopeTypes[ct[c]], mfk[c], scatter[k], (double)err);
  TCHK(PetscOptionsClearValue(NULL, "-feg_setup_threads"));
  mesh_n = 2;
}
END_TEST

/* CG + Jacobi with a GPU lma or addto operator: same iterations and solution as the host, and no vector or matrix
   copies between host and device inside KSPSolve */
static PetscErrorCode solve(PetscBool gpu, FEGOpType s, PetscInt *its, Vec *xout, PetscLogDouble *copies)
{
  const PetscScalar Csym[16] = {1.0, 0, 0, 0, 0, 1.0, 0.3, 0.1, 0, 0.3, 2.0, 0.2, 0, 0.1, 0.2, 1.5}, D[4] = {1, 0.5, 0, 0};
  DM                dm;
  FEGForm           form;
  Mat               A;
  Vec               b, x;
  KSP               ksp;
  PC                pc;
  PetscLogDouble    c0, g0;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_TRUE, 4, &dm));
  if (gpu) PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(FEGFormCreate(PETSC_COMM_SELF, &form));
  PetscCall(FEGFormSetConstant(form, Csym, D));
  PetscCall(fegtest_operator(dm, form, s, &A));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetUp(ksp));
  /* the first solve also sets up device index arrays of PETSc's star forests (counted as copies); the second must
     move nothing between host and device */
  for (PetscInt k = 0; k < 2; k++) {
    PetscLogDouble cs = petsc_ctog_sz, gs = petsc_gtoc_sz;

    c0 = petsc_ctog_ct;
    g0 = petsc_gtoc_ct;
    PetscCall(VecZeroEntries(x));
    PetscCall(KSPSolve(ksp, b, x));
    *copies = (petsc_ctog_ct - c0) + (petsc_gtoc_ct - g0);
    if (gpu) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s solve %d: %g CpuToGpu copies (%g bytes), %g GpuToCpu copies (%g bytes)\n", s, (int)k, petsc_ctog_ct - c0, petsc_ctog_sz - cs, petsc_gtoc_ct - g0, petsc_gtoc_sz - gs));
  }
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 0, xout));
  PetscCall(VecDestroy(xout));
  PetscCall(VecDuplicate(x, xout));
  PetscCall(VecCopy(x, *xout));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_gpu_solve_no_copies)
{
  const FEGOpType s = _i ? FEGOPLMA : FEGOPADDTO;
  PetscInt        ih, ig;
  Vec             xh, xg, xgh;
  PetscLogDouble  ch, cg;
  PetscReal       err;
  PetscMPIInt     size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  TCHK(solve(PETSC_FALSE, s, &ih, &xh, &ch));
  TCHK(solve(PETSC_TRUE, s, &ig, &xg, &cg));
  TCHK(VecDuplicate(xh, &xgh));
  TCHK(VecCopy(xg, xgh));
  TCHK(fegtest_vecdiff(xgh, xh, &err));
  ck_assert_msg(ig == ih, "%s: GPU CG took %d iterations, host %d", s, (int)ig, (int)ih);
  ck_assert_msg(err < 1e-10, "%s: GPU solution differs from host by %g", s, (double)err);
  ck_assert_msg(cg == 0, "%s: KSPSolve with the GPU operator made %g host/device copies", s, (double)cg);
  TCHK(VecDestroy(&xh));
  TCHK(VecDestroy(&xg));
  TCHK(VecDestroy(&xgh));
}
END_TEST

/* distributed GPU operators against the serial host one, through permutation-invariant quantities */
static PetscErrorCode fx(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = PetscSinReal(3.0 * x[0] + 0.5) * PetscCosReal(2.0 * x[1]) + (dim == 3 ? x[2] * x[2] : 0.0);
  return PETSC_SUCCESS;
}

static PetscErrorCode invariants(MPI_Comm comm, PetscBool gpu, DMPolytopeType ct, FEGOpType s, PetscReal v[3])
{
  DM          dm, auxdm;
  Vec         aux, x, y, b;
  FEGForm     form;
  Mat         A;
  PetscScalar dot;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fx};

  PetscFunctionBegin;
  PetscCall(build(comm, ct, 2, PETSC_TRUE, gpu, PETSC_FALSE, &dm, &auxdm, &aux, &form));
  if (!strcmp(s, FEGOPMATFREE) && ct == DM_POLYTOPE_TETRAHEDRON) {
    /* a constant C, so tetrahedra use refop (hexahedra use sumfact with the field) */
    PetscCall(VecDestroy(&aux));
    PetscCall(DMDestroy(&auxdm));
    PetscCall(FEGFormDestroy(&form));
    PetscCall(fegtest_make_form(dm, FORM_CONSTANT, &auxdm, &aux, &form));
  }
  PetscCall(fegtest_operator(dm, form, s, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(DMProjectFunction(dm, 0.0, funcs, NULL, INSERT_VALUES, x));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecNorm(y, NORM_2, &v[0]));
  PetscCall(VecDot(y, x, &dot));
  v[1] = PetscRealPart(dot);
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscCall(VecNorm(b, NORM_2, &v[2]));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(destroy(&dm, &auxdm, &aux, &form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_gpu_parallel)
{
  const DMPolytopeType ct       = _i / 3 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TETRAHEDRON;
  const FEGOpType      types[3] = {FEGOPADDTO, FEGOPLMA, FEGOPMATFREE}, s = types[_i % 3];
  PetscReal            vp[3], vs[3], err = 0.0;

  TCHK(invariants(PETSC_COMM_WORLD, PETSC_TRUE, ct, s, vp));
  TCHK(invariants(PETSC_COMM_SELF, PETSC_FALSE, ct, s, vs));
  for (PetscInt i = 0; i < 3; i++) err = PetscMax(err, PetscAbsReal(vp[i] - vs[i]) / PetscAbsReal(vs[i]));
  ck_assert_msg(err < 1e-12, "%s %s: distributed GPU and serial host differ by %g", DMPolytopeTypes[ct], s, (double)err);
}
END_TEST

/* Shells on the GPU give PCs that need values an assembled matrix on the device: lma from its device element matrices
   (MatSetValuesCOO in their interleaved order), matfree by the GPU addto; both equal the host's assembled matrix,
   and CG with ILU or GAMG gives the host's solution */
static PetscErrorCode pmat_matrix(FEGOpType type, PetscReal *err)
{
  DM      dm[2], aux[2];
  Vec     ax[2];
  FEGForm f[2];
  Mat     A[2], P;

  PetscFunctionBegin;
  for (int g = 0; g < 2; g++) {
    PetscCall(build(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, (PetscBool)g, PETSC_FALSE, &dm[g], &aux[g], &ax[g], &f[g]));
    PetscCall(fegtest_operator(dm[g], f[g], g ? type : FEGOPADDTO, &A[g]));
  }
  PetscCall(FEGOperatorGetPmat(A[1], &P));
  PetscCall(pmat_diff(P, A[0], err));
  PetscCall(destroy_pair(A, dm, aux, ax, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode pmat_solve(PetscBool gpu, FEGOpType type, PCType pctype, Vec *xout)
{
  const PetscScalar  Csym[16] = {1.0, 0, 0, 0, 0, 1.0, 0.3, 0.1, 0, 0.3, 2.0, 0.2, 0, 0.1, 0.2, 1.5}, D[4] = {1, 0.5, 0, 0};
  DM                 dm;
  FEGForm            form;
  KSP                ksp;
  PC                 pc;
  Vec                x;
  PetscInt           n;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_TRUE, 3, &dm));
  if (gpu) PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(FEGFormCreate(PETSC_COMM_SELF, &form));
  PetscCall(FEGFormSetConstant(form, Csym, D));
  PetscCall(FEGFormSetOptionsPrefix(form, "pm_"));
  PetscCall(PetscOptionsSetValue(NULL, "-pm_feg_op_type", type));
  PetscCall(FEGDMSetForm(dm, form));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, 1000));
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(PetscOptionsClearValue(NULL, "-pm_feg_op_type"));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "%s with %s did not converge: %s", type, pctype, KSPConvergedReasons[reason]);
  PetscCall(KSPGetSolution(ksp, &x));
  /* a host copy, so that the host and GPU solutions compare as Vecs of one type */
  PetscCall(VecGetSize(x, &n));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, xout));
  PetscCall(VecCopy(x, *xout));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_gpu_pmat)
{
  const FEGOpType types[2] = {FEGOPLMA, FEGOPMATFREE};
  const PCType    pcs[2]   = {PCILU, PCGAMG};
  PetscMPIInt     size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  for (int t = 0; t < 2; t++) {
    PetscReal err;

    TCHK(pmat_matrix(types[t], &err));
    ck_assert_msg(err < 1e-12, "GPU %s: the preconditioning matrix differs from the host's assembled matrix by %g", types[t], (double)err);
    for (int p = 0; p < 2; p++) {
      Vec xh, xg;

      TCHK(pmat_solve(PETSC_FALSE, types[t], pcs[p], &xh));
      TCHK(pmat_solve(PETSC_TRUE, types[t], pcs[p], &xg));
      TCHK(fegtest_vecdiff(xg, xh, &err));
      ck_assert_msg(err < 1e-9, "GPU %s with %s: solution differs from the host's by %g", types[t], pcs[p], (double)err);
      TCHK(VecDestroy(&xh));
      TCHK(VecDestroy(&xg));
    }
  }
}
END_TEST

/* -feg_op_precision single: GPU lma keeps float element matrices that equal the host's single ones (both integrate in
   double and round once; products and sums in double): MatMult, transpose, MatMultAdd and the diagonal with atomics
   and the gather, through every integration kernel's store (thread, block, GEMM), and the preconditioning matrix
   assembled from them */
START_TEST(test_gpu_lma_single)
{
  const char          *opts[3] = {"-gpu_feg_op_integration_kernel thread", "-gpu_feg_op_integration_kernel block", "-gpu_feg_op_integration_kernel gemm"};
  const DMPolytopeType ct      = fegtest_cells[_i / 3];
  const PetscInt       order   = 1 + _i % 3;
  const PetscBool      cont    = PETSC_TRUE;
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1 && order > 2) return;
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_precision", "single"));
  TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_precision", "single"));
  for (int k = -1; k < (order == 2 && size == 1 ? 3 : 0); k++) {
    if (k == 0 && ct == DM_POLYTOPE_HEXAHEDRON) continue; /* Q2: 27 dofs, more than one thread keeps */
    kernel_options = k < 0 ? NULL : opts[k];
    for (int v = 3; v <= (k < 0 ? 4 : 3); v++) { /* lma atomic, lma gather */
      PetscReal err;

      TCHK(compare_variant(PETSC_COMM_WORLD, ct, order, cont, PETSC_TRUE, &variants[v], &err));
      ck_assert_msg(err < 1e-12, "%s P%d single lma/%s %s: GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, variants[v].mode, kernel_options ? kernel_options : "", (double)err);
    }
  }
  kernel_options = NULL;
  if (size == 1 && order == 2) {
    DM        dm[2], aux[2];
    Vec       ax[2];
    FEGForm   f[2];
    Mat       A[2], P[2];
    PetscReal err;
    char      text[4096] = "";

    for (int g = 0; g < 2; g++) {
      TCHK(build(PETSC_COMM_SELF, ct, order, cont, (PetscBool)g, PETSC_FALSE, &dm[g], &aux[g], &ax[g], &f[g]));
      TCHK(fegtest_operator(dm[g], f[g], FEGOPLMA, &A[g]));
      TCHK(FEGOperatorGetPmat(A[g], &P[g]));
    }
    TCHK(pmat_diff(P[1], P[0], &err));
    ck_assert_msg(err < 1e-12, "%s P2 single lma: the GPU preconditioning matrix differs from the host's by %g", DMPolytopeTypes[ct], (double)err);
    TCHK(fegtest_view_text(A[1], text, sizeof(text)));
    ck_assert_msg(strstr(text, "element-interleaved matrices in single precision") != NULL, "the view does not say single: %s", text);
    TCHK(destroy_pair(A, dm, aux, ax, f));
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_precision"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_precision"));
}
END_TEST

/* lma's grouped storage (single at 16 and 20 dofs, double at 16), Q3 quadrilaterals and P3 tetrahedra in double and
   single, written by every integration kernel (auto, thread, block, GEMM; a linear-field coefficient and a constant C,
   non-symmetric and symmetric, on affine cells: the reference tensors) and read by the group kernel: MatMult,
   transpose, MatMultAdd and the diagonal equal the host's, and so does the preconditioning matrix, handed to
   MatSetValuesCOO() ungrouped */
START_TEST(test_gpu_lma_grouped)
{
  const DMPolytopeType ct      = _i / 2 ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const PetscBool      single  = (PetscBool)(_i % 2);
  const char          *opts[4] = {NULL, "-gpu_feg_op_integration_kernel thread", "-gpu_feg_op_integration_kernel block", "-gpu_feg_op_integration_kernel gemm"};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  if (single) {
    TCHK(PetscOptionsSetValue(NULL, "-feg_op_precision", "single"));
    TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_precision", "single"));
  }
  for (int constant = 0; constant < 3; constant++) /* a linear field, C constant and non-symmetric, and symmetric */
    for (int k = 0; k < 4; k++) {
      DM        dm[2], aux[2];
      Vec       ax[2];
      FEGForm   f[2];
      Mat       A[2], P[2];
      PetscReal err, perr;

      with_constant = (PetscBool)(constant > 0);
      constant_form = constant == 2 ? FORM_MASSSTIFF : FORM_CONSTANT;
      for (int g = 0; g < 2; g++) {
        TCHK(build(PETSC_COMM_SELF, ct, 3, PETSC_TRUE, (PetscBool)g, PETSC_FALSE, &dm[g], &aux[g], &ax[g], &f[g]));
        if (g) TCHK(FEGFormSetOptionsPrefix(f[g], "gpu_"));
        if (g && opts[k]) TCHK(PetscOptionsInsertString(NULL, opts[k]));
        TCHK(fegtest_operator(dm[g], f[g], FEGOPLMA, &A[g]));
        if (g && opts[k]) TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_kernel"));
        TCHK(FEGOperatorGetPmat(A[g], &P[g]));
      }
      with_constant = PETSC_FALSE;
      constant_form = FORM_CONSTANT;
      TCHK(apply_diff(A[1], dm[1], A[0], dm[0], PETSC_TRUE, &err));
      TCHK(pmat_diff(P[1], P[0], &perr));
      ck_assert_msg(err < 1e-12 && perr < 1e-12, "%s P3 %s lma (%s, %s): GPU differs from host by %g (products), %g (preconditioning matrix)", DMPolytopeTypes[ct], single ? "single" : "double", constant == 2 ? "symmetric constant C" : (constant ? "constant C" : "linear field"), opts[k] ? opts[k] : "auto kernel", (double)err, (double)perr);
      TCHK(destroy_pair(A, dm, aux, ax, f));
    }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_precision"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_precision"));
}
END_TEST

/* A symmetric form's lma element matrices kept as their upper triangles (FEGLMASymmetricSize(): 3-10, 15, 18 and 27
   dofs, and 20 in double), written by every integration kernel (auto, thread, block, GEMM through its buffer) and read
   by the one-element kernel (double, and single above 10 dofs) and the pair kernel (single up to 10), with atomics and
   with the gather: MatMult, transpose, MatMultAdd and the diagonal equal the host's full matrices, and so does the
   preconditioning matrix, unpacked for MatSetValuesCOO(). FORM_SYMMETRIC (with value-gradient terms) on the perturbed
   mesh (quadrature on quadrilaterals, hexahedra and prisms, reference tensors on simplices): triangles P1-P4,
   quadrilaterals Q1-Q3, tetrahedra P1-P3, hexahedra Q1-Q2, prisms P1-P2 (order 1 on 4 faces a side); Q3
   quadrilaterals (16 dofs) and single P3 tetrahedra (20) keep full matrices. The view says which, and
   -feg_op_lma_symmetric false keeps them full. With atomics P1 tetrahedra run the product tile by tile (-feg_op_lma_tiles,
   the view says so), and -feg_op_lma_tiles true every size up to 10 dofs. Two processes: order 1, the kernels that read
   through the halo's codes */
START_TEST(test_gpu_lma_symmetric)
{
  const DMPolytopeType cts[14]  = {DM_POLYTOPE_TRIANGLE,    DM_POLYTOPE_TRIANGLE,    DM_POLYTOPE_TRIANGLE,    DM_POLYTOPE_TRIANGLE,   DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_QUADRILATERAL,
                                   DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_HEXAHEDRON,    DM_POLYTOPE_TRI_PRISM,     DM_POLYTOPE_TRI_PRISM};
  const PetscInt       ords[14] = {1, 2, 3, 4, 1, 2, 3, 1, 2, 3, 1, 2, 1, 2};
  const PetscInt       nbs[14]  = {3, 6, 10, 15, 4, 9, 16, 4, 10, 20, 8, 27, 6, 18}; /* dofs per element */
  const DMPolytopeType ct       = cts[_i];
  const PetscInt       order = ords[_i], Nb = nbs[_i];
  const char          *name[7]  = {NULL, "-gpu_feg_op_integration_kernel", "-gpu_feg_op_integration_kernel", "-gpu_feg_op_integration_kernel", "-gpu_feg_op_scatter", "-gpu_feg_op_lma_symmetric", "-gpu_feg_op_lma_tiles"};
  const char          *value[7] = {NULL, "thread", "block", "gemm", "gather", "false", "true"};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1 && order > 1) return;
  with_symmetric = PETSC_TRUE;
  for (int single = 0; single < 2; single++) {
    if (single) {
      TCHK(PetscOptionsSetValue(NULL, "-feg_op_precision", "single"));
      TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_precision", "single"));
    }
    for (int k = 0; k < 7; k++) {
      DM        dm[2], aux[2];
      Vec       ax[2];
      FEGForm   f[2];
      Mat       A[2], P[2];
      PetscReal err, perr = 0.0;
      char      text[4096] = "";
      PetscBool says, saystiles;

      const PetscBool packed = (PetscBool)(k != 5 && (Nb <= 10 || Nb == 15 || Nb == 18 || Nb == 27 || (Nb == 20 && !single)));
      const PetscBool tiled  = (PetscBool)(k != 4 && Nb <= 10 && (k == 6 || (ct == DM_POLYTOPE_TETRAHEDRON && order == 1)));

      if (size > 1 && k > 0 && k < 4) continue; /* the integration kernels on one process */
      if (k == 1 && Nb > 20) continue;          /* more than one thread keeps */

      for (int g = 0; g < 2; g++) {
        TCHK(build(PETSC_COMM_WORLD, ct, order, PETSC_TRUE, (PetscBool)g, PETSC_FALSE, &dm[g], &aux[g], &ax[g], &f[g]));
        if (g) TCHK(FEGFormSetOptionsPrefix(f[g], "gpu_"));
        if (g && name[k]) TCHK(PetscOptionsSetValue(NULL, name[k], value[k]));
        TCHK(fegtest_operator(dm[g], f[g], FEGOPLMA, &A[g]));
        if (g && name[k]) TCHK(PetscOptionsClearValue(NULL, name[k]));
        if (size == 1) TCHK(FEGOperatorGetPmat(A[g], &P[g]));
      }
      TCHK(apply_diff(A[1], dm[1], A[0], dm[0], PETSC_TRUE, &err));
      if (size == 1) TCHK(pmat_diff(P[1], P[0], &perr));
      ck_assert_msg(err < 1e-12 && perr < 1e-12, "%s P%d %s lma, symmetric form (%s %s): GPU differs from host by %g (products), %g (preconditioning matrix)", DMPolytopeTypes[ct], (int)order, single ? "single" : "double", name[k] ? name[k] : "defaults", value[k] ? value[k] : "", (double)err, (double)perr);
      if (size == 1) { /* the view's text is rank 0's */
        TCHK(fegtest_view_text(A[1], text, sizeof(text)));
        says = (PetscBool)(strstr(text, "symmetric: upper triangles only") != NULL);
        ck_assert_msg(says == packed, "%s P%d %s lma (%s %s): the view %s upper triangles: %s", DMPolytopeTypes[ct], (int)order, single ? "single" : "double", name[k] ? name[k] : "defaults", value[k] ? value[k] : "", says ? "says" : "does not say", text);
        saystiles = (PetscBool)(strstr(text, "per tile of elements") != NULL);
        ck_assert_msg(saystiles == tiled, "%s P%d %s lma (%s %s): the view %s tiles: %s", DMPolytopeTypes[ct], (int)order, single ? "single" : "double", name[k] ? name[k] : "defaults", value[k] ? value[k] : "", saystiles ? "says" : "does not say", text);
      }
      TCHK(destroy_pair(A, dm, aux, ax, f));
    }
  }
  with_symmetric = PETSC_FALSE;
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_precision"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_precision"));
}
END_TEST

/* FEGComputeRHS on the GPU in each vector layout it treats apart: one process without constraints (straight into b),
   discontinuous (stores instead of atomics, no zeroing when the elements cover every dof), with essential boundary
   conditions (local vector and DMLocalToGlobal), atomic and gather, pointwise and constant coefficients (affine
   simplices: the reference-tensor form), elements of one and of several chunks of basis functions per thread; equal to
   the host's to 1e-12 */
START_TEST(test_gpu_rhs_layouts)
{
  const DMPolytopeType ct   = fegtest_cells[_i / 4];
  const PetscBool      cont = (PetscBool)(_i % 2), bc = (PetscBool)((_i / 2) % 2);
  const PetscInt       order      = _i % 4 == 1 ? 3 : 2; /* P3: more basis functions than one thread takes (tetrahedra too) */
  const char          *scatter[2] = {"atomic", "gather"};

  for (int k = 0; k < 4; k++) { /* atomic, gather; pointwise coefficients, then constant ones (on simplices the
                                   reference-tensor form) */
    const PetscBool constant = (PetscBool)(k / 2);
    DM              dm[2], auxdm[2] = {NULL, NULL};
    Vec             b[2], aux[2]    = {NULL, NULL};
    FEGForm         form[2];
    PetscReal       err;

    TCHK(PetscOptionsSetValue(NULL, "-feg_form_rhs_scatter", scatter[k % 2]));
    for (int g = 0; g < 2; g++) {
      TCHK(fegtest_setup(PETSC_COMM_WORLD, ct, order, cont, bc, 2, &dm[g]));
      if (g) TCHK(DMSetVecType(dm[g], VECCUDA));
      if (!constant) TCHK(fegtest_aux(dm[g], &auxdm[g], &aux[g]));
      TCHK(fegtest_form(PETSC_COMM_WORLD, auxdm[g], aux[g], (PetscBool)!constant, &form[g]));
      TCHK(DMCreateGlobalVector(dm[g], &b[g]));
      TCHK(VecSet(b[g], 7.0)); /* what was there must not survive */
      TCHK(FEGComputeRHS(dm[g], form[g], b[g]));
    }
    TCHK(fegtest_vecdiff(b[1], b[0], &err));
    ck_assert_msg(err < 1e-12, "%s P%d %s %s, %s, %s coefficients: GPU right-hand side differs from the host's by %g", DMPolytopeTypes[ct], (int)order, cont ? "continuous" : "discontinuous", bc ? "with boundary conditions" : "without", scatter[k % 2], constant ? "constant" : "pointwise", (double)err);
    for (int g = 0; g < 2; g++) {
      TCHK(VecDestroy(&b[g]));
      TCHK(destroy(&dm[g], &auxdm[g], &aux[g], &form[g]));
    }
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_form_rhs_scatter"));
}
END_TEST

/* a registered type without a GPU implementation is refused on CUDA vectors, with its name */
static PetscErrorCode NoDeviceCreate(FEGOp op)
{
  return PETSC_SUCCESS;
}

START_TEST(test_gpu_type_without_device)
{
  DM             dm, auxdm;
  Vec            aux;
  FEGForm        form;
  Mat            A;
  fegtest_err    e = {"", 0};
  PetscErrorCode ierr;
  PetscMPIInt    size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  TCHK(FEGOpRegister("hostonly", NoDeviceCreate));
  TCHK(build(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, &dm, &auxdm, &aux, &form));
  TCHK(PetscPushErrorHandler(fegtest_errhandler, &e));
  ierr = fegtest_operator(dm, form, "hostonly", &A);
  TCHK(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_SUP && strstr(e.msg, "Operator type hostonly has no GPU implementation"), "error %d: %s", (int)ierr, e.msg);
  TCHK(destroy(&dm, &auxdm, &aux, &form));
}
END_TEST

/* -feg_op_integration_kernel entries on an operator without reference tensors (a pointwise coefficient) is an error naming why */
START_TEST(test_gpu_entries_refused)
{
  DM             dm, auxdm;
  Vec            aux;
  FEGForm        form;
  Mat            A = NULL;
  PetscErrorCode ierr;
  fegtest_err    e = {"", 0};
  PetscMPIInt    size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  TCHK(build(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, &dm, &auxdm, &aux, &form));
  TCHK(FEGFormSetOptionsPrefix(form, "gpu_"));
  TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_integration_kernel", "entries"));
  TCHK(PetscPushErrorHandler(fegtest_errhandler, &e));
  ierr = fegtest_operator(dm, form, FEGOPLMA, &A);
  TCHK(PetscPopErrorHandler());
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_kernel"));
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE && strstr(e.msg, "-feg_op_integration_kernel entries needs reference tensors") && strstr(e.msg, "non-constant coefficient"), "error %d: %s", (int)ierr, e.msg);
  TCHK(destroy(&dm, &auxdm, &aux, &form));
}
END_TEST

/* A host copy of a (device) vector's values */
static PetscErrorCode host_copy(Vec v, Vec *h)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, h));
  PetscCall(VecGetArrayRead(v, &a));
  PetscCall(VecGetArrayWrite(*h, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayWrite(*h, &b));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One run of a strategy in a given scatter/addto mode, right-hand sides gathered: host copies of the matrix (addto),
   of y = A x, of b and of the CG solution */
static PetscErrorCode det_run(FEGOpType s, const char *mode, Mat *Ah, Vec *yh, Vec *bh, Vec *uh)
{
  DM        dm, auxdm;
  Vec       aux, x, y, b, u;
  FEGForm   form;
  Mat       A;
  KSP       ksp;
  PC        pc;
  PetscBool addto;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(s, FEGOPADDTO, &addto));
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_TRUE, 6, &dm));
  PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(fegtest_aux(dm, &auxdm, &aux));
  PetscCall(fegtest_form(PETSC_COMM_SELF, auxdm, aux, PETSC_FALSE, &form));
  PetscCall(FEGFormSetOptionsPrefix(form, "det_"));
  PetscCall(PetscOptionsSetValue(NULL, addto ? "-det_feg_op_addto_mode" : "-det_feg_op_scatter", mode));
  PetscCall(PetscOptionsSetValue(NULL, "-det_feg_form_rhs_scatter", "gather"));
  PetscCall(fegtest_operator(dm, form, s, &A));
  *Ah = NULL;
  if (addto) PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, Ah));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &u));
  {
    PetscScalar *a;
    PetscInt     n;

    PetscCall(VecGetLocalSize(x, &n));
    PetscCall(VecGetArrayWrite(x, &a));
    for (PetscInt i = 0; i < n; i++) a[i] = PetscSinReal(0.7 * (PetscReal)i);
    PetscCall(VecRestoreArrayWrite(x, &a));
  }
  PetscCall(MatMult(A, x, y));
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, 1e-50, PETSC_DEFAULT, 500));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(PetscOptionsClearValue(NULL, addto ? "-det_feg_op_addto_mode" : "-det_feg_op_scatter"));
  PetscCall(PetscOptionsClearValue(NULL, "-det_feg_form_rhs_scatter"));
  PetscCall(host_copy(y, yh));
  PetscCall(host_copy(b, bh));
  PetscCall(host_copy(u, uh));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(destroy(&dm, &auxdm, &aux, &form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* addto in a deterministic mode on this communicator (a distributed mesh on several processes), its host copy */
static PetscErrorCode det_addto(const char *mode, Mat *Ah)
{
  DM      dm, auxdm;
  Vec     aux;
  FEGForm form;
  Mat     A;

  PetscFunctionBegin;
  PetscCall(build(PETSC_COMM_WORLD, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, &dm, &auxdm, &aux, &form));
  PetscCall(FEGFormSetOptionsPrefix(form, "detp_"));
  PetscCall(PetscOptionsSetValue(NULL, "-detp_feg_op_addto_mode", mode));
  PetscCall(fegtest_operator(dm, form, FEGOPADDTO, &A));
  PetscCall(PetscOptionsClearValue(NULL, "-detp_feg_op_addto_mode"));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, Ah));
  PetscCall(MatDestroy(&A));
  PetscCall(destroy(&dm, &auxdm, &aux, &form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* _i: addto gather, addto colour, on every process count: two assemblies give the same bits (on several processes the
   values other processes send are summed in the order of their senders, not by atomics) */
START_TEST(test_gpu_deterministic_addto)
{
  const char *modes[2] = {"gather", "color"};
  Mat         A[2];
  PetscBool   eq;

  for (int r = 0; r < 2; r++) TCHK(det_addto(modes[_i], &A[r]));
  TCHK(MatEqual(A[0], A[1], &eq));
  ck_assert_msg(eq, "addto %s: two assemblies differ", modes[_i]);
  for (int r = 0; r < 2; r++) TCHK(MatDestroy(&A[r]));
}
END_TEST

/* _i: coloured addto, gather lma, gather matfree, gather addto. Two runs give the same bits (README: the atomic modes do
   not) */
START_TEST(test_gpu_deterministic)
{
  const FEGOpType types[4] = {FEGOPADDTO, FEGOPLMA, FEGOPMATFREE, FEGOPADDTO};
  const char     *modes[4] = {"color", "gather", "gather", "gather"};
  Mat             A[2];
  Vec             y[2], b[2], u[2];
  PetscBool       eq;
  PetscMPIInt     size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  for (int r = 0; r < 2; r++) TCHK(det_run(types[_i], modes[_i], &A[r], &y[r], &b[r], &u[r]));
  if (A[0]) {
    TCHK(MatEqual(A[0], A[1], &eq));
    ck_assert_msg(eq, "%s %s: two assemblies differ", types[_i], modes[_i]);
  }
  TCHK(VecEqual(y[0], y[1], &eq));
  ck_assert_msg(eq, "%s %s: two MatMults differ", types[_i], modes[_i]);
  TCHK(VecEqual(b[0], b[1], &eq));
  ck_assert_msg(eq, "%s: two gathered right-hand sides differ", types[_i]);
  TCHK(VecEqual(u[0], u[1], &eq));
  ck_assert_msg(eq, "%s %s: two solutions differ", types[_i], modes[_i]);
  for (int r = 0; r < 2; r++) {
    TCHK(MatDestroy(&A[r]));
    TCHK(VecDestroy(&y[r]));
    TCHK(VecDestroy(&b[r]));
    TCHK(VecDestroy(&u[r]));
  }
}
END_TEST

/* Out of device memory at setup: fegpu says how many bytes it asked for and how many were free, the operator can be
   destroyed, and the process goes on (the same operator once memory is back, a host operator) */
START_TEST(test_gpu_out_of_memory)
{
  DM             dm, dmh;
  FEGForm        form;
  FEGOp          op;
  Mat            A;
  void          *ballast = NULL;
  size_t         fr, tot;
  fegtest_err    e = {"", 0};
  PetscErrorCode ierr;
  PetscMPIInt    size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  /* P3 tetrahedra: lma keeps 20 x 20 doubles per element, 64k elements, about 200 MB */
  TCHK(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 3, PETSC_TRUE, PETSC_FALSE, 22, &dm));
  TCHK(DMSetVecType(dm, VECCUDA));
  TCHK(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  TCHK(FEGOpCreate(PETSC_COMM_SELF, &op));
  TCHK(FEGOpSetDM(op, dm));
  TCHK(FEGOpSetForm(op, form));
  TCHK(FEGOpSetType(op, FEGOPLMA));
  /* leave 64 MB free: PETSc's own small allocations fit, fegpu's element matrices do not */
  ck_assert(cudaMemGetInfo(&fr, &tot) == cudaSuccess);
  ck_assert(cudaMalloc(&ballast, fr - ((size_t)64 << 20)) == cudaSuccess);
  TCHK(PetscPushErrorHandler(fegtest_errhandler, &e));
  ierr = FEGOpSetUp(op);
  TCHK(PetscPopErrorHandler());
  ck_assert(cudaFree(ballast) == cudaSuccess);
  ck_assert_msg(ierr == PETSC_ERR_MEM && strstr(e.msg, "GPU out of memory: fegpu asked for ") && strstr(e.msg, " bytes with "), "error %d: %s", (int)ierr, e.msg);
  TCHK(FEGOpDestroy(&op));
  /* memory back: the same operator works */
  TCHK(fegtest_operator(dm, form, FEGOPLMA, &A));
  TCHK(MatDestroy(&A));
  /* and on the host */
  TCHK(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 3, PETSC_TRUE, PETSC_FALSE, 4, &dmh));
  TCHK(fegtest_operator(dmh, form, FEGOPLMA, &A));
  TCHK(MatDestroy(&A));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dmh));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* The overlapped apply (-feg_op_halo_overlap, the default wherever there are ghosts or constraints) equals the host
   operator and DMGlobalToLocal() around one kernel, for lma and matfree (refop on tetrahedra, sumfact on hexahedra),
   atomic and gather, MatMult, MatMultTranspose and MatMultAdd, on a box whose cells that touch a ghost point come
   last (FEGCreateBoxMesh() distributes it so); the view shows how many elements ran while messages moved, except for
   sumfact with atomic adds on one process, whose kernel indexes the global vector (no copies, no halo) */
static PetscErrorCode overlap_build(DMPolytopeType ct, PetscBool gpu, DM *dm, FEGForm *form)
{
  DM  auxdm;
  Vec aux;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_WORLD, ct, 2, PETSC_TRUE, PETSC_TRUE, 4, dm));
  if (gpu) PetscCall(DMSetVecType(*dm, VECCUDA));
  PetscCall(fegtest_make_form(*dm, FORM_CONSTANT, &auxdm, &aux, form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* from A's view: on each process the elements before the first that touches a ghost (all on one process; on several,
   some on at least one process and not all on every one: a small mesh on many processes can leave a process whose
   every element touches a ghost), and of them half (atomic) or all (gather) applied while ghost values arrive */
static PetscErrorCode overlap_split(Mat A, PetscBool gather, PetscBool *ok)
{
  PetscViewer viewer;
  PetscMPIInt rank, size;
  const char *file     = "test_gpu_overlap_view.txt";
  int         lines    = 0;
  PetscBool   boundary = PETSC_FALSE; /* some process has elements that touch ghosts (the owner of shared points may not) */
  PetscBool   interior = PETSC_FALSE; /* some process has elements that touch none */

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, file, &viewer));
  PetscCall(MatView(A, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  if (rank == 0) {
    FILE *fp = fopen(file, "r");
    char  line[1024];

    *ok = (PetscBool)(fp != NULL);
    while (fp && fgets(line, sizeof(line), fp)) {
      const char *p = strstr(line, "the first ");
      int         nint, ne, nfirst;

      if (!p) continue;
      lines++;
      if (sscanf(p, "the first %d of %d elements touch no ghost dof, %d of them", &nint, &ne, &nfirst) != 3) *ok = PETSC_FALSE;
      else if (!(nint >= 0 && nint <= ne) || (size == 1 && nint != ne)) *ok = PETSC_FALSE;
      else if (gather ? nfirst != nint : nfirst != nint / 2) *ok = PETSC_FALSE;
      else {
        if (nint < ne) boundary = PETSC_TRUE;
        if (nint > 1) interior = PETSC_TRUE;
      }
    }
    if (fp) fclose(fp);
    if (lines != size || (size > 1 && !boundary) || !interior) *ok = PETSC_FALSE;
    remove(file);
  }
  PetscCallMPI(MPI_Bcast(ok, 1, MPIU_BOOL, 0, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_gpu_overlap)
{
  const DMPolytopeType ct = _i / 4 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TETRAHEDRON;
  const FEGOpType      s  = (_i / 2) % 2 ? FEGOPMATFREE : FEGOPLMA;
  const char          *sc = _i % 2 ? "gather" : "atomic";
  DM                   dmh, dmg;
  FEGForm              fh, fg;
  Mat                  Ah, Ag, An, Ap, Apin;
  PetscReal            e1, e2, e3, e4;
  PetscBool            split, gindex;
  PetscMPIInt          size;

  TCHK(overlap_build(ct, PETSC_FALSE, &dmh, &fh));
  TCHK(overlap_build(ct, PETSC_TRUE, &dmg, &fg));
  TCHK(FEGFormSetOptionsPrefix(fg, "gpu_"));
  TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_scatter", sc));
  TCHK(fegtest_operator(dmh, fh, s, &Ah));
  TCHK(fegtest_operator(dmg, fg, s, &Ag));
  TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_halo_overlap", "false"));
  TCHK(fegtest_operator(dmg, fg, s, &An));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_halo_overlap"));
  /* the ghosts moved by PetscSF instead of fegpu's own messages */
  TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_halo_exchange", "petscsf"));
  TCHK(fegtest_operator(dmg, fg, s, &Ap));
  /* through pinned host buffers (the default, auto, moves them device to device where the processes share a node) */
  TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_halo_exchange", "pinned"));
  TCHK(fegtest_operator(dmg, fg, s, &Apin));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_halo_exchange"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_scatter"));
  TCHK(apply_diff(Ag, dmg, Ah, dmh, PETSC_TRUE, &e1));
  TCHK(apply_diff(An, dmg, Ah, dmh, PETSC_TRUE, &e2));
  TCHK(apply_diff(Ap, dmg, Ah, dmh, PETSC_TRUE, &e3));
  TCHK(apply_diff(Apin, dmg, Ah, dmh, PETSC_TRUE, &e4));
  ck_assert_msg(e1 < 1e-12, "%s %s %s overlapped apply: differs from the host by %g", DMPolytopeTypes[ct], s, sc, (double)e1);
  ck_assert_msg(e2 < 1e-12, "%s %s %s with -feg_op_halo_overlap false: differs from the host by %g", DMPolytopeTypes[ct], s, sc, (double)e2);
  ck_assert_msg(e3 < 1e-12, "%s %s %s with -feg_op_halo_exchange petscsf: differs from the host by %g", DMPolytopeTypes[ct], s, sc, (double)e3);
  ck_assert_msg(e4 < 1e-12, "%s %s %s with -feg_op_halo_exchange pinned: differs from the host by %g", DMPolytopeTypes[ct], s, sc, (double)e4);
  {
    Vec       d1, d2, dh;
    PetscReal e5;

    /* two diagonals in a row send sums the same way twice (the device-to-device exchange then waits for every stream),
       and a product after them still equals the host's */
    TCHK(MatCreateVecs(Ag, &d1, NULL));
    TCHK(VecDuplicate(d1, &d2));
    TCHK(MatCreateVecs(Ah, &dh, NULL));
    TCHK(MatGetDiagonal(Ag, d1));
    TCHK(MatGetDiagonal(Ag, d2));
    TCHK(MatGetDiagonal(Ah, dh));
    TCHK(fegtest_vecdiff(d2, dh, &e5));
    ck_assert_msg(e5 < 1e-12, "%s %s %s: a second diagonal differs from the host's by %g", DMPolytopeTypes[ct], s, sc, (double)e5);
    TCHK(apply_diff(Ag, dmg, Ah, dmh, PETSC_FALSE, &e5));
    ck_assert_msg(e5 < 1e-12, "%s %s %s: products after two diagonals differ from the host's by %g", DMPolytopeTypes[ct], s, sc, (double)e5);
    TCHK(VecDestroy(&d1));
    TCHK(VecDestroy(&d2));
    TCHK(VecDestroy(&dh));
  }
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  /* the kernels that index the global vectors: lma, and sum factorisation (hexahedral matfree), with atomic adds */
  gindex = (PetscBool)(_i % 2 == 0 && (!strcmp(s, FEGOPLMA) || ct == DM_POLYTOPE_HEXAHEDRON));
  if (size == 1 && gindex) {
    char view[4096];

    /* with atomic adds on one process: no halo, and no copies either, the kernel indexing the global vector */
    TCHK(fegtest_view_text(Ag, view, sizeof(view)));
    ck_assert_msg(strstr(view, "one kernel on the global vectors through global indices") != NULL, "%s %s atomic on one process: expected the global-index apply, the view says\n%s", DMPolytopeTypes[ct], s, view);
  } else {
    if (gindex) {
      char view[8192];

      /* on several processes too: the owned values read in place, the ghosts' in the exchange's buffers */
      TCHK(fegtest_view_text(Ag, view, sizeof(view)));
      ck_assert_msg(strstr(view, "read and summed in place through global indices") != NULL, "%s %s atomic on %d processes: expected the global-index apply, the view says\n%s", DMPolytopeTypes[ct], s, (int)size, view);
    }
    TCHK(overlap_split(Ag, (PetscBool)(_i % 2), &split));
    ck_assert_msg(split, "%s %s %s: the view does not show the interior elements split around the messages", DMPolytopeTypes[ct], s, sc);
  }
  TCHK(MatDestroy(&Ah));
  TCHK(MatDestroy(&Ag));
  TCHK(MatDestroy(&An));
  TCHK(MatDestroy(&Ap));
  TCHK(MatDestroy(&Apin));
  TCHK(FEGFormDestroy(&fh));
  TCHK(FEGFormDestroy(&fg));
  TCHK(DMDestroy(&dmh));
  TCHK(DMDestroy(&dmg));
}
END_TEST

/* -feg_op_type auto on the GPU (the device's cost model, its free memory) becomes a registered type that applies the
   host's operator, for few and many applications */
START_TEST(test_gpu_auto)
{
  const DMPolytopeType ct         = fegtest_cells[_i / 2];
  const PetscInt       order      = 1 + _i % 2;
  const char          *applies[2] = {"1", "1000"};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  for (int k = 0; k < 2; k++) {
    DM        dmh, dmg, auxh, auxg;
    Vec       axh, axg;
    FEGForm   fh, fg;
    Mat       Ah, Ag;
    FEGOpType t;
    PetscReal err;

    TCHK(build(PETSC_COMM_WORLD, ct, order, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE, &dmh, &auxh, &axh, &fh));
    TCHK(build(PETSC_COMM_WORLD, ct, order, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, &dmg, &auxg, &axg, &fg));
    TCHK(FEGFormSetOptionsPrefix(fg, "gpu_"));
    TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_auto_applies", applies[k]));
    TCHK(fegtest_operator(dmh, fh, FEGOPADDTO, &Ah));
    TCHK(fegtest_operator(dmg, fg, FEGOPAUTO, &Ag));
    TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_auto_applies"));
    TCHK(FEGOperatorGetType(Ag, &t));
    ck_assert_msg(strcmp(t, FEGOPAUTO), "%s P%d: auto stayed auto", DMPolytopeTypes[ct], (int)order);
    TCHK(apply_diff(Ag, dmg, Ah, dmh, PETSC_TRUE, &err));
    ck_assert_msg(err < 1e-12, "%s P%d, %s applications: GPU auto (%s) differs from the host's operator by %g", DMPolytopeTypes[ct], (int)order, applies[k], t, (double)err);
    TCHK(MatDestroy(&Ah));
    TCHK(MatDestroy(&Ag));
    TCHK(destroy(&dmh, &auxh, &axh, &fh));
    TCHK(destroy(&dmg, &auxg, &axg, &fg));
  }
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  /* separate cases so CK_RUN_CASE=kernels (say) runs one under compute-sanitizer */
  tc = tcase_create("equal");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_equals_host, 0, 5 * 8);
  suite_add_tcase(s, tc);
  tc = tcase_create("kernels");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_kernels, 0, 5 * 4);
  tcase_add_loop_test(tc, test_gpu_constant_affine, 0, 15);
  suite_add_tcase(s, tc);
  tc = tcase_create("matfree");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_matfree, 0, 4 * 8);
  tcase_add_loop_test(tc, test_gpu_matfree_spaces, 0, 2 * 3 * 8);
  tcase_add_loop_test(tc, test_gpu_matfree_affine, 0, 4 * 4);
  tcase_add_loop_test(tc, test_gpu_matfree_mma, 0, 8 * 3);
  tcase_add_loop_test(tc, test_gpu_large_setup, 0, 4);
  suite_add_tcase(s, tc);
  tc = tcase_create("solve");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_solve_no_copies, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("pmat");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_gpu_pmat);
  tcase_add_test(tc, test_gpu_type_without_device);
  tcase_add_test(tc, test_gpu_entries_refused);
  suite_add_tcase(s, tc);
  tc = tcase_create("auto");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_gpu_auto, 0, 5 * 2);
  suite_add_tcase(s, tc);

  tc = tcase_create("rhs");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_rhs_layouts, 0, 5 * 4);
  suite_add_tcase(s, tc);
  tc = tcase_create("later");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_gpu_later_operators, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("qpoints");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_gpu_qpoints, 0, 5 * 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("single");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_lma_single, 0, 5 * 3);
  tcase_add_loop_test(tc, test_gpu_lma_grouped, 0, 4);
  suite_add_tcase(s, tc);
  tc = tcase_create("symmetric");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_lma_symmetric, 0, 14);
  suite_add_tcase(s, tc);
  tc = tcase_create("deterministic");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_deterministic, 0, 4);
  tcase_add_loop_test(tc, test_gpu_deterministic_addto, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("oom");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_gpu_out_of_memory);
  suite_add_tcase(s, tc);
  tc = tcase_create("parallel");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_parallel, 0, 6);
  suite_add_tcase(s, tc);
  tc = tcase_create("overlap");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_overlap, 0, 8);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "gpu", add_tests);
}
