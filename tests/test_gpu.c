/* The GPU backend gives the host's result, through every type: addto (atomic, coloured, COO, gather) matrices, lma
   and matfree products, transposes and diagonals (atomic and gather), right-hand sides with Dirichlet lifting, for
   every cell type and orders 1..4, with linear-field, pointwise and quadrature-point coefficients; operators made
   later on one DM; a CG + Jacobi solve matches the host solve and copies nothing between host and device; on two
   processes the same comparisons on the distributed mesh, and distributed GPU operators match the serial host one,
   their shells' own vectors (MatCreateVecs()) made on the device without a host copy and giving the same products;
   the overlapped apply (interior elements while the halo moves) equals the host and the plain one; shells give PCs
   an assembled matrix; the deterministic modes give the same bits twice; an out-of-memory is reported and survived;
   the auto type becomes a type that applies the host's operator; the process's GPU is PETSc's device, started by
   fegpu, with no context on another GPU.
   Needs a GPU (make check-gpu).
   fegtest: nsize 1 2 */
#include "gputest.h"

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
  for (PetscInt v = 0; v < GPUTEST_NVARIANTS; v++) {
    PetscReal err;

    TCHK(gputest_compare_variant(NULL, PETSC_COMM_WORLD, ct, order, cont, pointwise, &gputest_variants[v], &err));
    ck_assert_msg(err < 1e-12, "%s P%d%s %s/%s (%s coefficient): GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, cont ? "" : " (DG)", gputest_variants[v].strategy, gputest_variants[v].mode, pointwise ? "pointwise" : "linear-field", (double)err);
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

  TCHK(gputest_build(NULL, PETSC_COMM_WORLD, ct, 2, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, &dmh, &auxh, &axh, &fh));
  TCHK(gputest_build(NULL, PETSC_COMM_WORLD, ct, 2, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, &dmg, &auxg, &axg, &fg));
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
    TCHK(gputest_apply_diff(G[k], dmg, k ? Hl : Hm, dmh, PETSC_TRUE, &r));
    ck_assert_msg(r < 1e-12, "%s: operator %d (%s) differs from the host's by %g", DMPolytopeTypes[ct], k + 1, k ? "lma" : "matfree", (double)r);
  }
  TCHK(MatDestroy(&G[0]));
  TCHK(MatDestroy(&G[2]));
  TCHK(FEGOperatorAssemble(G[1], fg));
  TCHK(gputest_apply_diff(G[1], dmg, Hl, dmh, PETSC_TRUE, &r));
  ck_assert_msg(r < 1e-12, "%s: lma assembled again after the other operators went differs from the host's by %g", DMPolytopeTypes[ct], (double)r);
  TCHK(VecDestroy(&bh));
  TCHK(VecDestroy(&bg));
  TCHK(MatDestroy(&G[1]));
  TCHK(MatDestroy(&Hl));
  TCHK(MatDestroy(&Hm));
  TCHK(gputest_destroy(&dmh, &auxh, &axh, &fh));
  TCHK(gputest_destroy(&dmg, &auxg, &axg, &fg));
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
  const gputest_setup  st = {PETSC_TRUE, PETSC_FALSE, FORM_CONSTANT, PETSC_FALSE, NULL};

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
  for (PetscInt v = 0; v < GPUTEST_NVARIANTS; v++) {
    TCHK(gputest_compare_variant(&st, PETSC_COMM_WORLD, ct, order, cont, PETSC_FALSE, &gputest_variants[v], &err));
    ck_assert_msg(err < 1e-12, "%s P%d%s %s/%s with quadrature-point coefficients: GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, cont ? "" : " (DG)", gputest_variants[v].strategy, gputest_variants[v].mode, (double)err);
  }
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

/* the operator's own vectors (MatCreateVecs(), which KSP's work vectors come from): CUDA vectors of the DM's layout,
   zero, and on several processes with no host copy until one is read (*lazy); a product into them equals the one into
   the DM's vectors, on the device and in the host copy made when read (*err) */
static PetscErrorCode own_vecs(Mat A, Vec x, Vec y, PetscBool *lazy, PetscReal *err)
{
  Vec                xr, yl;
  PetscInt           n, nd;
  PetscReal          nrm;
  PetscOffloadMask   mask;
  PetscBool          cuda;
  PetscMPIInt        size;
  const PetscScalar *a, *b;
  VecType            type;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatCreateVecs(A, &xr, &yl));
  PetscCall(VecGetType(yl, &type));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)yl, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscCheck(cuda, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatCreateVecs() gave a %s, not a CUDA vector", type);
  PetscCall(VecGetLocalSize(yl, &n));
  PetscCall(VecGetLocalSize(y, &nd));
  PetscCheck(n == nd, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatCreateVecs() gave %" PetscInt_FMT " local entries, the DM's vectors have %" PetscInt_FMT, n, nd);
  PetscCall(VecGetOffloadMask(yl, &mask));
  *lazy = (PetscBool)(size == 1 || mask == PETSC_OFFLOAD_GPU);
  PetscCall(VecNorm(yl, NORM_INFINITY, &nrm));
  PetscCheck(nrm == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatCreateVecs() gave a vector of norm %g, not zero", (double)nrm);
  PetscCall(VecCopy(x, xr));
  PetscCall(MatMult(A, xr, yl));
  PetscCall(VecGetArrayRead(yl, &a));
  PetscCall(VecGetArrayRead(y, &b));
  *err = 0.0;
  for (PetscInt i = 0; i < n; i++) *err = PetscMax(*err, PetscAbsScalar(a[i] - b[i]));
  PetscCall(VecRestoreArrayRead(yl, &a));
  PetscCall(VecRestoreArrayRead(y, &b));
  PetscCall(VecAXPY(yl, -1.0, y));
  PetscCall(VecNorm(yl, NORM_INFINITY, &nrm));
  *err = PetscMax(*err, nrm);
  PetscCall(VecNorm(y, NORM_INFINITY, &nrm));
  *err /= nrm;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, err, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A)));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* with lazy: MatCreateVecs()'s vectors (own_vecs()) and the DM's global vector against PETSc's (gvwhat, "" when they
   agree; *gvcopy: it had a host copy at once) */
static PetscErrorCode invariants(MPI_Comm comm, PetscBool gpu, DMPolytopeType ct, FEGOpType s, PetscReal v[3], PetscBool *lazy, PetscReal *everr, char gvwhat[], size_t gvlen, PetscBool *gvcopy)
{
  DM          dm, auxdm;
  Vec         aux, x, y, b;
  FEGForm     form;
  Mat         A;
  PetscScalar dot;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fx};

  PetscFunctionBegin;
  PetscCall(gputest_build(NULL, comm, ct, 2, PETSC_TRUE, gpu, PETSC_FALSE, &dm, &auxdm, &aux, &form));
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
  if (lazy) {
    PetscCall(own_vecs(A, x, y, lazy, everr));
    PetscCall(fegtest_global_vector(dm, gvwhat, gvlen, gvcopy));
  }
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscCall(VecNorm(b, NORM_2, &v[2]));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(gputest_destroy(&dm, &auxdm, &aux, &form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_gpu_parallel)
{
  const DMPolytopeType ct       = _i / 3 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TETRAHEDRON;
  const FEGOpType      types[3] = {FEGOPADDTO, FEGOPLMA, FEGOPMATFREE}, s = types[_i % 3];
  PetscReal            vp[3], vs[3], err = 0.0, everr;
  PetscBool            lazy, shell, gvcopy;
  PetscMPIInt          size;
  char                 gvwhat[512];

  TCHK(invariants(PETSC_COMM_WORLD, PETSC_TRUE, ct, s, vp, &lazy, &everr, gvwhat, sizeof(gvwhat), &gvcopy));
  TCHK(invariants(PETSC_COMM_SELF, PETSC_FALSE, ct, s, vs, NULL, NULL, NULL, 0, NULL));
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  for (PetscInt i = 0; i < 3; i++) err = PetscMax(err, PetscAbsReal(vp[i] - vs[i]) / PetscAbsReal(vs[i]));
  ck_assert_msg(err < 1e-12, "%s %s: distributed GPU and serial host differ by %g", DMPolytopeTypes[ct], s, (double)err);
  ck_assert_msg(everr < 1e-12, "%s %s: a product into MatCreateVecs()'s vectors differs from one into the DM's by %g", DMPolytopeTypes[ct], s, (double)everr);
  /* addto's matrix is PETSc's (its vectors too); lma and matfree are fegpu's shells */
  shell = (PetscBool)strcmp(s, FEGOPADDTO);
  ck_assert_msg(lazy || !shell, "%s %s: MatCreateVecs() on several processes made a host copy at once", DMPolytopeTypes[ct], s);
  /* the DM's global vector is PETSc's, made without its host copy on several processes (FEGPlexCreateGlobalVector()) */
  ck_assert_msg(!gvwhat[0], "%s %s: %s", DMPolytopeTypes[ct], s, gvwhat);
  ck_assert_msg(size == 1 || !gvcopy, "%s %s: DMCreateGlobalVector() on several processes made a host copy at once", DMPolytopeTypes[ct], s);
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
    PetscCall(gputest_build(NULL, PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, (PetscBool)g, PETSC_FALSE, &dm[g], &aux[g], &ax[g], &f[g]));
    PetscCall(fegtest_operator(dm[g], f[g], g ? type : FEGOPADDTO, &A[g]));
  }
  PetscCall(FEGOperatorGetPmat(A[1], &P));
  PetscCall(gputest_pmat_diff(P, A[0], err));
  PetscCall(gputest_destroy_pair(A, dm, aux, ax, f));
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
      TCHK(gputest_destroy(&dm[g], &auxdm[g], &aux[g], &form[g]));
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
  TCHK(gputest_build(NULL, PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, &dm, &auxdm, &aux, &form));
  TCHK(PetscPushErrorHandler(fegtest_errhandler, &e));
  ierr = fegtest_operator(dm, form, "hostonly", &A);
  TCHK(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_SUP && strstr(e.msg, "Operator type hostonly has no GPU implementation"), "error %d: %s", (int)ierr, e.msg);
  TCHK(gputest_destroy(&dm, &auxdm, &aux, &form));
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
  PetscCall(gputest_destroy(&dm, &auxdm, &aux, &form));
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
  PetscCall(gputest_build(NULL, PETSC_COMM_WORLD, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, &dm, &auxdm, &aux, &form));
  PetscCall(FEGFormSetOptionsPrefix(form, "detp_"));
  PetscCall(PetscOptionsSetValue(NULL, "-detp_feg_op_addto_mode", mode));
  PetscCall(fegtest_operator(dm, form, FEGOPADDTO, &A));
  PetscCall(PetscOptionsClearValue(NULL, "-detp_feg_op_addto_mode"));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, Ah));
  PetscCall(MatDestroy(&A));
  PetscCall(gputest_destroy(&dm, &auxdm, &aux, &form));
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
  TCHK(gputest_apply_diff(Ag, dmg, Ah, dmh, PETSC_TRUE, &e1));
  TCHK(gputest_apply_diff(An, dmg, Ah, dmh, PETSC_TRUE, &e2));
  TCHK(gputest_apply_diff(Ap, dmg, Ah, dmh, PETSC_TRUE, &e3));
  TCHK(gputest_apply_diff(Apin, dmg, Ah, dmh, PETSC_TRUE, &e4));
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
    TCHK(gputest_apply_diff(Ag, dmg, Ah, dmh, PETSC_FALSE, &e5));
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

    TCHK(gputest_build(NULL, PETSC_COMM_WORLD, ct, order, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE, &dmh, &auxh, &axh, &fh));
    TCHK(gputest_build(NULL, PETSC_COMM_WORLD, ct, order, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, &dmg, &auxg, &axg, &fg));
    TCHK(FEGFormSetOptionsPrefix(fg, "gpu_"));
    TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_auto_applies", applies[k]));
    TCHK(fegtest_operator(dmh, fh, FEGOPADDTO, &Ah));
    TCHK(fegtest_operator(dmg, fg, FEGOPAUTO, &Ag));
    TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_auto_applies"));
    TCHK(FEGOperatorGetType(Ag, &t));
    ck_assert_msg(strcmp(t, FEGOPAUTO), "%s P%d: auto stayed auto", DMPolytopeTypes[ct], (int)order);
    TCHK(gputest_apply_diff(Ag, dmg, Ah, dmh, PETSC_TRUE, &err));
    ck_assert_msg(err < 1e-12, "%s P%d, %s applications: GPU auto (%s) differs from the host's operator by %g", DMPolytopeTypes[ct], (int)order, applies[k], t, (double)err);
    TCHK(MatDestroy(&Ah));
    TCHK(MatDestroy(&Ag));
    TCHK(gputest_destroy(&dmh, &auxh, &axh, &fh));
    TCHK(gputest_destroy(&dmg, &auxg, &axg, &fg));
  }
}
END_TEST

/* the process's GPU is PETSc's device, fegpu started it, and no other GPU has a context of this process: PETSc's own
   start would also make one on device 0 in every process that sees several GPUs (two processes on a node of two GPUs
   check it) */
START_TEST(test_gpu_device)
{
  PetscInt           id, pid;
  PetscDeviceContext dctx;
  PetscDevice        dev;
  int                cur, nother;

  TCHK(FEGDeviceInitialize());
  TCHK(FEGDeviceGetStarted(&id));
  TCHK(PetscDeviceContextGetCurrentContext(&dctx));
  TCHK(PetscDeviceContextGetDevice(dctx, &dev));
  TCHK(PetscDeviceGetDeviceId(dev, &pid));
  ck_assert_msg(id == pid, "fegpu started device %d, PETSc's device is %d", (int)id, (int)pid);
  ck_assert_int_eq(cudaGetDevice(&cur), cudaSuccess);
  ck_assert_msg(cur == pid, "the process is on device %d, PETSc's device is %d", cur, (int)pid);
  TCHK(gputest_other_contexts(cur, &nother));
  ck_assert_msg(nother == 0, "%d GPUs besides device %d have a context of this process", nother, cur);
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  /* separate cases so CK_RUN_CASE=<case> runs one under compute-sanitizer (share/fegpu/sanitize.sh) */
  tc = tcase_create("device");
  tcase_add_test(tc, test_gpu_device);
  suite_add_tcase(s, tc);
  tc = tcase_create("equal");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_equals_host, 0, 5 * 8);
  suite_add_tcase(s, tc);
  tc = tcase_create("solve");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_solve_no_copies, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("pmat");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_gpu_pmat);
  tcase_add_test(tc, test_gpu_type_without_device);
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
