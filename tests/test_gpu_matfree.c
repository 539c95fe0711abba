/* Every GPU matfree kernel gives the host's products and diagonal: refop, gemm and mma on simplices, sumfact on
   quadrilaterals and hexahedra (Gauss, GLL and collocated spaces, pairs per element on affine cells), qp everywhere;
   mma's tile shapes, the factored and nodal forms; large meshes on several setup threads.
   Needs a GPU (make check-gpu).
   fegtest: nsize 1 2 */
#include "gputest.h"

/* the mesh and space of compare_matfree() */
typedef struct {
  PetscInt  gauss_extra;  /* this many more Gauss points per direction than nodes (tensor cells: the BP1 and BP3
                             discretization, Q = P + 1) */
  PetscReal mesh_perturb; /* 0: an affine box */
  PetscInt  mesh_n;       /* faces per direction of the perturbed box */
} matfree_setup;

/* the DM's field again, a Lagrange space of the order with extra more Gauss points per direction than nodes */
static PetscErrorCode set_gauss_rule(DM dm, DMPolytopeType ct, PetscInt order, PetscBool cont, PetscInt extra)
{
  PetscFE         fe;
  PetscQuadrature q;
  const PetscInt  dim = fegtest_dim(ct);

  PetscFunctionBegin;
  PetscCall(FEGCreateFE(PETSC_COMM_SELF, dim, ct, order, cont, &fe));
  PetscCall(PetscDTGaussTensorQuadrature(dim, 1, order + 1 + extra, -1.0, 1.0, &q));
  PetscCall(PetscFESetQuadrature(fe, q));
  PetscCall(PetscQuadratureDestroy(&q));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(PetscFEDestroy(&fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode setup_matfree_dm(const matfree_setup *ms, DMPolytopeType ct, PetscInt order, PetscBool cont, DM *dm)
{
  const matfree_setup plain = {0, 0.2, 2};
  PetscInt            gauss_extra, mesh_n;
  PetscReal           mesh_perturb;

  PetscFunctionBegin;
  if (!ms) ms = &plain;
  gauss_extra  = ms->gauss_extra;
  mesh_perturb = ms->mesh_perturb;
  mesh_n       = ms->mesh_n;
  if (mesh_perturb == 0.2) PetscCall(fegtest_setup(PETSC_COMM_SELF, ct, order, cont, cont, mesh_n, dm));
  else {
    PetscInt faces[3];

    faces[0] = faces[1] = faces[2] = fegtest_faces(order, cont, 2);
    PetscCall(fegtest_box(PETSC_COMM_SELF, ct, faces, mesh_perturb, order, cont, cont, dm));
  }
  if (gauss_extra) PetscCall(set_gauss_rule(*dm, ct, order, cont, gauss_extra));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GPU matfree kernel mfk (scatter by atomics or gather) against the host's own kernel, for one form */
static PetscErrorCode compare_matfree_view(const matfree_setup *ms, DMPolytopeType ct, PetscInt order, PetscBool cont, test_form kind, const char *mfk, const char *scatter, PetscReal *err, char *view, size_t len)
{
  DM          dm[2], aux[2];
  Vec         ax[2], x[2], z[2];
  FEGForm     f[2];
  Mat         A[2];
  PetscRandom rnd;

  char      fac[8] = "";
  PetscBool hasfac;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-feg_op_matfree_factored", fac, sizeof(fac), &hasfac));
  for (int g = 0; g < 2; g++) {
    PetscCall(setup_matfree_dm(ms, ct, order, cont, &dm[g]));
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
  PetscCall(fegtest_opdiff(A, x, z, err));
  if (view) PetscCall(fegtest_view_text(A[1], view, len));
  for (int g = 0; g < 2; g++) {
    PetscCall(VecDestroy(&x[g]));
    PetscCall(VecDestroy(&z[g]));
    PetscCall(MatDestroy(&A[g]));
    PetscCall(VecDestroy(&ax[g]));
    PetscCall(FEGFormDestroy(&f[g]));
    PetscCall(DMDestroy(&aux[g]));
    PetscCall(DMDestroy(&dm[g]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode compare_matfree(const matfree_setup *ms, DMPolytopeType ct, PetscInt order, PetscBool cont, test_form kind, const char *mfk, const char *scatter, PetscReal *err)
{
  return compare_matfree_view(ms, ct, order, cont, kind, mfk, scatter, err, NULL, 0);
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
      TCHK(compare_matfree(NULL, ct, order, cont, (test_form)f, kernels[kk], scatter, &err));
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

    TCHK(compare_matfree_view(NULL, DM_POLYTOPE_TETRAHEDRON, order, cont, forms[f], "mma", f ? "gather" : "atomic", &err, view, sizeof(view)));
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
    TCHK(compare_matfree_view(NULL, DM_POLYTOPE_TETRAHEDRON, order, cont, fac ? FORM_POISSON : FORM_MASSSTIFF, "mma", cont ? "gather" : "atomic", &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "tetrahedra P%d%s mma %s (%s form, %s warp columns): GPU differs from host by %g", (int)order, cont ? "" : " (DG)", fac ? "factored" : "unfactored", fegtest_form_name(fac ? FORM_POISSON : FORM_MASSSTIFF), nb[shape], (double)err);
    ck_assert_msg(!strstr(view, "operators factored") == !fac, "P%d: mma with -feg_op_matfree_factored %d, but the view says:\n%s", (int)order, fac, view);
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_factored"));
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_nb"));
  /* refop takes one thread per element up to 10 dofs unless a block shape is asked for: the block kernel there too */
  if (order <= 2) {
    PetscReal err;

    TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_nr", "1"));
    TCHK(compare_matfree_view(NULL, DM_POLYTOPE_TETRAHEDRON, order, cont, FORM_CELLWISE, "refop", "atomic", &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "tetrahedra P%d%s refop block kernel: GPU differs from host by %g", (int)order, cont ? "" : " (DG)", (double)err);
    ck_assert_msg(strstr(view, "elements per thread") != NULL, "P%d: -feg_op_matfree_nr 1 did not give the block refop kernel:\n%s", (int)order, view);
    TCHK(compare_matfree_view(NULL, DM_POLYTOPE_TRIANGLE, order, cont, FORM_CELLWISE, "refop", "gather", &err, NULL, 0));
    ck_assert_msg(err < 1e-12, "triangles P%d%s refop block kernel: GPU differs from host by %g", (int)order, cont ? "" : " (DG)", (double)err);
    TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_nr"));
    TCHK(compare_matfree_view(NULL, DM_POLYTOPE_TETRAHEDRON, order, cont, FORM_CELLWISE, "refop", "atomic", &err, view, sizeof(view)));
    ck_assert_msg(strstr(view, "one thread per element") != NULL, "P%d: refop on %d-dof elements is not the per-thread kernel:\n%s", (int)order, order == 1 ? 4 : 10, view);
    /* diffusion forms take the factored gradient operators there (fac 2; at P2 through the P1 nodal values with the
       tables compiled in, fac 1 with -feg_op_matfree_nodal 0 the factors of any space), -feg_op_matfree_factored 0 the
       operators as they are (fac 0); all against the host's unfactored refop, and each must say which it ran */
    for (int fac = 0; fac < 3; fac++) {
      const test_form dforms[2] = {FORM_MASSSTIFF, FORM_POISSON};

      TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_factored", fac ? "1" : "0"));
      TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_nodal", fac == 2 ? "1" : "0"));
      for (int f = 0; f < 2; f++) {
        TCHK(compare_matfree_view(NULL, DM_POLYTOPE_TETRAHEDRON, order, cont, dforms[f], "refop", f ? "gather" : "atomic", &err, view, sizeof(view)));
        ck_assert_msg(err < 1e-12, "tetrahedra P%d%s refop %s (%s form): GPU differs from host by %g", (int)order, cont ? "" : " (DG)", fac ? (fac == 2 ? "factored (nodal)" : "factored") : "unfactored", fegtest_form_name(dforms[f]), (double)err);
        ck_assert_msg(!strstr(view, "operators factored") == !fac, "P%d: -feg_op_matfree_factored %d, but the view says:\n%s", (int)order, fac > 0, view);
        ck_assert_msg(!strstr(view, "nodal values") == !(fac == 2 && order == 2), "P%d: -feg_op_matfree_nodal %d, but the view says:\n%s", (int)order, fac == 2, view);
        TCHK(compare_matfree_view(NULL, DM_POLYTOPE_TRIANGLE, order + 1, cont, dforms[f], "refop", f ? "atomic" : "gather", &err, view, sizeof(view)));
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
  matfree_setup ms = {variant == 3 ? 1 : 0, 0.2, 2};

  if (variant == 1 || variant == 2) TCHK(PetscOptionsSetValue(NULL, "-feg_fe_nodes", names[variant]));
  for (int f = FORM_POINTWISE; f < NFORMS + 1; f++) {
    const PetscBool perturbed = (PetscBool)(f == NFORMS), per = (PetscBool)(f != FORM_POINTWISE && !perturbed);
    const test_form form = perturbed ? FORM_POISSON : (test_form)f;
    PetscReal       err;

    ms.mesh_perturb = perturbed ? 0.2 : 0.0;
    TCHK(compare_matfree_view(&ms, DM_POLYTOPE_HEXAHEDRON, order, cont, form, "sumfact", f % 2 ? "gather" : "atomic", &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "affine hexahedra P%d%s %s (%s form%s): GPU differs from host by %g", (int)order, cont ? "" : " (DG)", names[variant], fegtest_form_name(form), perturbed ? ", perturbed" : "", (double)err);
    ck_assert_msg((strstr(view, "pairs stored per element") != NULL) == per, "P%d %s (%s form%s): expected the pairs per %s, the view says\n%s", (int)order, names[variant], fegtest_form_name(form), perturbed ? ", perturbed" : "", per ? "element" : "point", view);
  }
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
  const matfree_setup ms = {variant == 2 ? 1 : 0, 0.2, 2};

  if (variant < 2) TCHK(PetscOptionsSetValue(NULL, "-feg_fe_nodes", names[variant]));
  for (int f = FORM_POINTWISE; f < NFORMS; f++) {
    const char *scatter = f % 2 ? "gather" : "atomic";
    PetscReal   err;

    TCHK(compare_matfree(&ms, ct, order, cont, (test_form)f, "sumfact", scatter, &err));
    ck_assert_msg(err < 1e-12, "%s P%d%s sumfact %s (%s scatter, %s form): GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, cont ? "" : " (DG)", names[variant], scatter, fegtest_form_name(f), (double)err);
  }
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
  const matfree_setup  large = {0, 0.2, 20};
  PetscMPIInt          size;
  PetscReal            err;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  TCHK(PetscOptionsSetValue(NULL, "-feg_setup_threads", "3"));
  TCHK(compare_matfree(&large, ct[c], 2, PETSC_TRUE, FORM_CONSTANT, mfk[c], scatter[k], &err));
  ck_assert_msg(err < 1e-12, "%s P2 on a 20^3 box, matfree %s (%s scatter) on three setup threads: GPU differs from host by %g", DMPolytopeTypes[ct[c]], mfk[c], scatter[k], (double)err);
  TCHK(PetscOptionsClearValue(NULL, "-feg_setup_threads"));
}
END_TEST

/* sumfact with the geometry computed in the kernel (from 4 or 8 vertices, 9 or 27 second-order nodes) on the GPU
   against the host's stored geometry: Kershaw-deformed boxes and the curved annuli, every constant form (the
   Laplacian with the identity shortcut too), Q = P and P + 1 Gauss points and collocated GLL (BP1, BP3, BP5) */
static PetscErrorCode compare_geometry_gpu(DMPolytopeType ct, PetscBool curved, PetscInt order, PetscInt variant, test_form kind, PetscReal *err, char *view, size_t len)
{
  DM          dm[2], aux[2];
  Vec         ax[2], x[2], z[2];
  FEGForm     f[2];
  Mat         A[2];
  PetscRandom rnd;

  PetscFunctionBegin;
  if (variant == 2) PetscCall(PetscOptionsSetValue(NULL, "-feg_fe_nodes", "gll_collocated"));
  for (int g = 0; g < 2; g++) {
    const PetscBool bc = fegtest_walls(PETSC_TRUE, order);

    if (curved) {
      PetscCall(PetscOptionsSetValue(NULL, "-geo_feg_mesh_file", ct == DM_POLYTOPE_HEXAHEDRON ? "../share/meshes/annulus_hex2.msh" : "meshes/annulus_quad2.msh"));
      PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_SELF, "geo_", &dm[g]));
      PetscCall(PetscOptionsClearValue(NULL, "-geo_feg_mesh_file"));
    } else {
      PetscInt faces[3];

      faces[0] = faces[1] = faces[2] = fegtest_faces(order, bc, 3);
      PetscCall(FEGCreateBoxMesh(PETSC_COMM_SELF, ct, faces, NULL, NULL, 0.0, &dm[g]));
      PetscCall(FEGMeshKershaw(dm[g], 0.3));
    }
    if (variant == 1) PetscCall(set_gauss_rule(dm[g], ct, order, PETSC_TRUE, 1));
    else PetscCall(FEGSetUpDiscretization(dm[g], order, PETSC_TRUE, "u"));
    if (bc) PetscCall(fegtest_wall(dm[g], fegtest_bcfunc));
    if (g) PetscCall(DMSetVecType(dm[g], VECCUDA));
    PetscCall(fegtest_make_form(dm[g], kind, &aux[g], &ax[g], &f[g]));
    PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_geometry", g ? "computed" : "stored"));
    PetscCall(fegtest_operator(dm[g], f[g], FEGOPMATFREE, &A[g]));
    PetscCall(MatCreateVecs(A[g], &x[g], NULL));
    PetscCall(VecDuplicate(x[g], &z[g]));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_geometry"));
  PetscCall(PetscOptionsClearValue(NULL, "-feg_fe_nodes"));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(VecSetRandom(x[0], rnd));
  PetscCall(VecSetRandom(z[0], rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecCopy(x[0], x[1]));
  PetscCall(VecCopy(z[0], z[1]));
  PetscCall(fegtest_opdiff(A, x, z, err));
  if (view) PetscCall(fegtest_view_text(A[1], view, len));
  for (int g = 0; g < 2; g++) {
    PetscCall(VecDestroy(&x[g]));
    PetscCall(VecDestroy(&z[g]));
    PetscCall(MatDestroy(&A[g]));
    PetscCall(VecDestroy(&ax[g]));
    PetscCall(FEGFormDestroy(&f[g]));
    PetscCall(DMDestroy(&aux[g]));
    PetscCall(DMDestroy(&dm[g]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_gpu_matfree_geometry)
{
  const DMPolytopeType ct      = _i / 24 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const PetscInt       variant = (_i / 8) % 3, order = 1 + _i % 8;
  const PetscBool      curved   = (PetscBool)(_i % 2);
  const char          *names[3] = {"Gauss Q = P", "Gauss Q = P + 1", "GLL collocated"};
  const test_form      forms[6] = {FORM_CONSTANT, FORM_SYMMETRIC, FORM_MASSSTIFF, FORM_POISSON, FORM_MASS, FORM_LAPLACE};
  char                 view[4096];
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1 || (ct == DM_POLYTOPE_HEXAHEDRON && order > 6) || (variant == 1 && order == 8)) return;
  for (int f = 0; f < 6; f++) {
    PetscReal err;

    TCHK(compare_geometry_gpu(ct, curved, order, variant, forms[f], &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "%s Q%d %s, %s mesh, %s form: the GPU's computed geometry differs from the host's stored one by %g", DMPolytopeTypes[ct], (int)order, names[variant], curved ? "curved" : "Kershaw", fegtest_form_name(forms[f]), (double)err);
    ck_assert_msg(strstr(view, "pairs computed in the kernel") != NULL, "%s Q%d: the GPU view does not say the pairs are computed:\n%s", DMPolytopeTypes[ct], (int)order, view);
  }
}
END_TEST

/* 20 CG iterations (Jacobi) of the Laplacian on a Kershaw-deformed box and the curved annulus: the GPU's iterates
   with the computed geometry against the host's with the stored one, to 1e-12 */
START_TEST(test_gpu_matfree_geometry_iterates)
{
  const DMPolytopeType ct     = _i % 2 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const PetscBool      curved = (PetscBool)(_i / 2);
  const PetscInt       order  = ct == DM_POLYTOPE_HEXAHEDRON ? 3 : 4;
  Vec                  u[2], uh;
  PetscReal            err;
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  for (int g = 0; g < 2; g++) {
    DM      dm, aux;
    FEGForm form;
    Mat     A;
    Vec     b, ax;

    if (curved) {
      TCHK(PetscOptionsSetValue(NULL, "-geo_feg_mesh_file", ct == DM_POLYTOPE_HEXAHEDRON ? "../share/meshes/annulus_hex2.msh" : "meshes/annulus_quad2.msh"));
      TCHK(FEGCreateMeshFromOptions(PETSC_COMM_SELF, "geo_", &dm));
      TCHK(PetscOptionsClearValue(NULL, "-geo_feg_mesh_file"));
    } else {
      const PetscInt faces[3] = {4, 4, 4};

      TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, ct, faces, NULL, NULL, 0.0, &dm));
      TCHK(FEGMeshKershaw(dm, 0.3));
    }
    TCHK(FEGSetUpDiscretization(dm, order, PETSC_TRUE, "u"));
    TCHK(fegtest_wall(dm, fegtest_bcfunc));
    if (g) TCHK(DMSetVecType(dm, VECCUDA));
    TCHK(fegtest_make_form(dm, FORM_LAPLACE, &aux, &ax, &form));
    TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_geometry", g ? "computed" : "stored"));
    TCHK(fegtest_operator(dm, form, FEGOPMATFREE, &A));
    TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_geometry"));
    TCHK(MatCreateVecs(A, &u[g], &b));
    TCHK(FEGComputeRHS(dm, form, b));
    TCHK(fegtest_cg_iterates(A, b, 20, u[g]));
    TCHK(VecDestroy(&b));
    TCHK(MatDestroy(&A));
    TCHK(VecDestroy(&ax));
    TCHK(DMDestroy(&aux));
    TCHK(FEGFormDestroy(&form));
    TCHK(DMDestroy(&dm));
  }
  /* the GPU's iterate on the host, to compare with the host's */
  TCHK(VecDuplicate(u[0], &uh));
  {
    const PetscScalar *a;
    PetscScalar       *h;
    PetscInt           n;

    TCHK(VecGetLocalSize(u[0], &n));
    TCHK(VecGetArrayRead(u[1], &a));
    TCHK(VecGetArray(uh, &h));
    for (PetscInt i = 0; i < n; i++) h[i] = a[i];
    TCHK(VecRestoreArray(uh, &h));
    TCHK(VecRestoreArrayRead(u[1], &a));
  }
  TCHK(fegtest_vecdiff(uh, u[0], &err));
  ck_assert_msg(err < 1e-12, "%s Q%d, %s mesh: 20 CG iterates on the GPU with computed geometry differ from the host's with stored by %g", DMPolytopeTypes[ct], (int)order, curved ? "curved" : "Kershaw", (double)err);
  TCHK(VecDestroy(&uh));
  TCHK(VecDestroy(&u[0]));
  TCHK(VecDestroy(&u[1]));
}
END_TEST

/* auto on the GPU computes the geometry on a deformed box and keeps one value per element on an affine one */
START_TEST(test_gpu_matfree_geometry_auto)
{
  const PetscBool deformed = (PetscBool)_i;
  DM              dm, aux;
  Vec             ax;
  FEGForm         form;
  Mat             A;
  PetscInt        faces[3] = {3, 3, 3};
  char            view[4096];
  PetscMPIInt     size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, DM_POLYTOPE_HEXAHEDRON, faces, NULL, NULL, 0.0, &dm));
  if (deformed) TCHK(FEGMeshKershaw(dm, 0.5));
  TCHK(FEGSetUpDiscretization(dm, 2, PETSC_TRUE, "u"));
  TCHK(DMSetVecType(dm, VECCUDA));
  TCHK(fegtest_make_form(dm, FORM_POISSON, &aux, &ax, &form));
  TCHK(fegtest_operator(dm, form, FEGOPMATFREE, &A));
  TCHK(fegtest_view_text(A, view, sizeof(view)));
  ck_assert_msg(strstr(view, deformed ? "pairs computed in the kernel" : "pairs stored per element") != NULL, "auto on a%s box: expected the pairs %s, the view says\n%s", deformed ? " Kershaw-deformed" : "n affine", deformed ? "computed" : "stored per element", view);
  TCHK(MatDestroy(&A));
  TCHK(VecDestroy(&ax));
  TCHK(DMDestroy(&aux));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* the computed geometry's diagonal in chunks of elements (64 MB of pairs each): a 40^3 box of Q2 hexahedra with all 16
   pairs (221 MB: 4 chunks) against the host's own computed pairs */
START_TEST(test_gpu_matfree_geometry_chunks)
{
  const matfree_setup large = {0, 0.2, 40};
  PetscMPIInt         size;
  PetscReal           err;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_geometry", "computed"));
  TCHK(compare_matfree(&large, DM_POLYTOPE_HEXAHEDRON, 2, PETSC_TRUE, FORM_CONSTANT, "sumfact", "atomic", &err));
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_geometry"));
  ck_assert_msg(err < 1e-12, "hexahedra Q2 on a 40^3 box, computed geometry: GPU (diagonal in chunks) differs from host by %g", (double)err);
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  /* separate cases so CK_RUN_CASE=<case> runs one under compute-sanitizer (share/fegpu/sanitize.sh) */
  tc = tcase_create("matfree");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_matfree, 0, 4 * 8);
  tcase_add_loop_test(tc, test_gpu_matfree_spaces, 0, 2 * 3 * 8);
  tcase_add_loop_test(tc, test_gpu_matfree_affine, 0, 4 * 4);
  tcase_add_loop_test(tc, test_gpu_matfree_mma, 0, 8 * 3);
  tcase_add_loop_test(tc, test_gpu_large_setup, 0, 4);
  suite_add_tcase(s, tc);
  tc = tcase_create("geometry");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_matfree_geometry, 0, 2 * 3 * 8);
  tcase_add_loop_test(tc, test_gpu_matfree_geometry_auto, 0, 2);
  tcase_add_test(tc, test_gpu_matfree_geometry_chunks);
  tcase_add_loop_test(tc, test_gpu_matfree_geometry_iterates, 0, 4);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "gpu_matfree", add_tests);
}
