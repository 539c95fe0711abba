/* p-multigrid through PCMG: DMCoarsen() of a DM with a form gives the same mesh at the next lower order, and
   DMCreateInterpolation() the transfer between them.
   - prolongation is exact for polynomials of the coarse degree on every cell type, continuous and discontinuous,
     halving and decrementing: P applied to PETSc's projection (DMProjectFunction()) on the coarse space equals PETSc's
     projection on the fine one;
   - restriction is the transpose of prolongation (the adjoint test), constrained dofs included, added products too;
   - CG with PCMG (Chebyshev-Jacobi smoothing, GAMG on the order-1 level) on -div(K grad u) + u = 1 reaches 1e-10 in
     a bounded number of iterations with every operator type, on hexahedra and tetrahedra, and gives Jacobi-CG's
     solution; GMRES with PCMG does the same for non-symmetric forms whose coefficient varies (an auxiliary field through
     a linear map, pointwise terms), evaluated on every level;
   - DMCoarsenHierarchy() gives the orders FEGDMGetOrderHierarchy() lists;
   - an order-1 DM is not coarsened, and too many levels, a form with quadrature-point values, or DMs of two meshes,
     are refused by name.
   fegtest: nsize 1 2 3 */
#include "fegtest.h"

/* (x + 2y - z + 0.3)^k (k in ctx), a polynomial of total degree k */
static PetscErrorCode pmg_poly(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  const PetscInt k = *(PetscInt *)ctx;
  PetscReal      s = x[0] + 2.0 * x[1] + (dim > 2 ? -x[2] : 0.0) + 0.3;

  u[0] = PetscPowRealInt(s, k);
  return PETSC_SUCCESS;
}

/* a DM of the cell type and order with the Laplacian-plus-mass form attached (FEGDMSetForm()), walls optional */
static PetscErrorCode pmg_dm(DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool bc, PetscReal perturb, PetscInt n, DM *dm)
{
  FEGForm  form;
  DM       aux;
  Vec      ax;
  PetscInt faces[3];

  PetscFunctionBegin;
  faces[0] = faces[1] = faces[2] = n;
  PetscCall(fegtest_box(PETSC_COMM_WORLD, ct, faces, perturb, order, cont, bc, dm));
  PetscCall(fegtest_make_form(*dm, FORM_MASSSTIFF, &aux, &ax, &form));
  PetscCall(FEGDMSetForm(*dm, form));
  PetscCall(FEGFormDestroy(&form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||P x_c - x_f||_inf / ||x_f||_inf for the projections of a polynomial of the coarse degree */
static PetscErrorCode pmg_exact(DMPolytopeType ct, PetscInt order, PetscBool cont, FEGCoarsenOrder type, PetscReal *err, PetscInt *pc)
{
  DM        dm, dmc;
  Mat       P;
  Vec       xc, xf, y;
  PetscReal nd, nf;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {pmg_poly};
  void    *ctx[1];
  PetscInt orders[9], n;

  PetscFunctionBegin;
  PetscCall(pmg_dm(ct, order, cont, PETSC_FALSE, 0.0, 2, &dm));
  PetscCall(FEGDMSetCoarsenOrder(dm, type));
  PetscCall(FEGDMGetOrderHierarchy(dm, &n, orders));
  *pc    = orders[1];
  ctx[0] = pc;
  PetscCall(DMCoarsen(dm, MPI_COMM_NULL, &dmc));
  PetscCall(DMCreateInterpolation(dmc, dm, &P, NULL));
  PetscCall(DMCreateGlobalVector(dmc, &xc));
  PetscCall(DMCreateGlobalVector(dm, &xf));
  PetscCall(VecDuplicate(xf, &y));
  PetscCall(DMProjectFunction(dmc, 0.0, funcs, ctx, INSERT_ALL_VALUES, xc));
  PetscCall(DMProjectFunction(dm, 0.0, funcs, ctx, INSERT_ALL_VALUES, xf));
  PetscCall(MatMult(P, xc, y));
  PetscCall(VecAXPY(y, -1.0, xf));
  PetscCall(VecNorm(y, NORM_INFINITY, &nd));
  PetscCall(VecNorm(xf, NORM_INFINITY, &nf));
  *err = nd / nf;
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xf));
  PetscCall(VecDestroy(&xc));
  PetscCall(MatDestroy(&P));
  PetscCall(DMDestroy(&dmc));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* five cell types x continuous (halve, decrement) and discontinuous (halve); fine order 3 (4 on hexahedra and
   quadrilaterals, halved to 2) */
START_TEST(test_pmg_exact)
{
  const DMPolytopeType ct    = fegtest_cells[_i % 5];
  const int            v     = _i / 5;
  const PetscBool      cont  = (PetscBool)(v < 2);
  const PetscInt       order = (ct == DM_POLYTOPE_HEXAHEDRON || ct == DM_POLYTOPE_QUADRILATERAL) ? 4 : 3;
  PetscReal            err;
  PetscInt             pc;

  TCHK(pmg_exact(ct, order, cont, v == 1 ? FEG_COARSEN_DECREMENT : FEG_COARSEN_HALVE, &err, &pc));
  ck_assert_msg(err < 1e-12, "%s order %d -> %d (%s): P times the coarse projection is off the fine projection by %g", DMPolytopeTypes[ct], (int)order, (int)pc, cont ? "continuous" : "discontinuous", (double)err);
}
END_TEST

/* (P x, y) = (x, P^T y), and the added products, with walls (constrained dofs) */
START_TEST(test_pmg_adjoint)
{
  const DMPolytopeType ct    = fegtest_cells[_i % 5];
  const PetscBool      cont  = (PetscBool)(_i < 5);
  const PetscInt       order = 3;
  DM                   dm, dmc;
  Mat                  P;
  Vec                  xc, yf, Px, Pty, zc, zf, w;
  PetscRandom          rnd;
  PetscScalar          a, b;
  PetscReal            n1, n2, e1, e2;

  TCHK(pmg_dm(ct, order, cont, cont, 0.2, 3, &dm));
  TCHK(FEGDMSetCoarsenOrder(dm, FEG_COARSEN_DECREMENT));
  TCHK(DMCoarsen(dm, MPI_COMM_NULL, &dmc));
  TCHK(DMCreateInterpolation(dmc, dm, &P, NULL));
  TCHK(DMCreateGlobalVector(dmc, &xc));
  TCHK(DMCreateGlobalVector(dm, &yf));
  TCHK(VecDuplicate(yf, &Px));
  TCHK(VecDuplicate(yf, &zf));
  TCHK(VecDuplicate(xc, &Pty));
  TCHK(VecDuplicate(xc, &zc));
  TCHK(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  TCHK(VecSetRandom(xc, rnd));
  TCHK(VecSetRandom(yf, rnd));
  TCHK(VecSetRandom(zf, rnd));
  TCHK(VecSetRandom(zc, rnd));
  TCHK(PetscRandomDestroy(&rnd));
  TCHK(MatMult(P, xc, Px));
  TCHK(MatMultTranspose(P, yf, Pty));
  TCHK(VecDot(Px, yf, &a));
  TCHK(VecDot(xc, Pty, &b));
  TCHK(VecNorm(Px, NORM_2, &n1));
  TCHK(VecNorm(yf, NORM_2, &n2));
  ck_assert_msg(PetscAbsScalar(a - b) <= 1e-12 * n1 * n2, "%s P3 -> P2 (%s): (Px, y) = %g, (x, P^T y) = %g", DMPolytopeTypes[ct], cont ? "continuous" : "discontinuous", (double)PetscRealPart(a), (double)PetscRealPart(b));
  /* the added products: z + P x and z + P^T y, into a third vector and in place */
  TCHK(VecDuplicate(yf, &w));
  TCHK(MatMultAdd(P, xc, zf, w));
  TCHK(VecAXPY(w, -1.0, zf));
  TCHK(VecAXPY(w, -1.0, Px));
  TCHK(VecNorm(w, NORM_2, &e1));
  TCHK(VecDestroy(&w));
  TCHK(VecDuplicate(xc, &w));
  TCHK(VecCopy(zc, w));
  TCHK(MatMultTransposeAdd(P, yf, w, w));
  TCHK(VecAXPY(w, -1.0, zc));
  TCHK(VecAXPY(w, -1.0, Pty));
  TCHK(VecNorm(w, NORM_2, &e2));
  TCHK(VecDestroy(&w));
  ck_assert_msg(e1 <= 1e-13 * n1 && e2 <= 1e-13 * n2, "added products differ by %g and %g", (double)e1, (double)e2);
  TCHK(VecDestroy(&xc));
  TCHK(VecDestroy(&yf));
  TCHK(VecDestroy(&Px));
  TCHK(VecDestroy(&zf));
  TCHK(VecDestroy(&Pty));
  TCHK(VecDestroy(&zc));
  TCHK(MatDestroy(&P));
  TCHK(DMDestroy(&dmc));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* CG + PCMG over every order of the hierarchy against Jacobi-CG, with the operator type on every level */
static PetscErrorCode pmg_solve(DMPolytopeType ct, PetscInt order, FEGOpType type, PetscInt *its, PetscReal *diff)
{
  DM       dm;
  Vec      u[2];
  KSP      ksp;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(fegtest_box(PETSC_COMM_WORLD, ct, (PetscInt[]){4, 4, 4}, 0.2, order, PETSC_TRUE, PETSC_TRUE, &dm));
  PetscCall(fegtest_dm_solve(dm, "ref_", type, NULL, "jacobi", &u[0], &ksp));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(FEGDMGetOrderHierarchy(dm, &n, NULL));
  PetscCall(fegtest_pmg_options(PETSC_TRUE));
  PetscCall(fegtest_dm_solve(dm, "mg_", type, NULL, "mg", &u[1], &ksp));
  PetscCall(fegtest_pmg_options(PETSC_FALSE));
  {
    PC       pc;
    PetscInt nl;

    /* no -pc_mg_levels: one level per order */
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCMGGetLevels(pc, &nl));
    PetscCheck(nl == n, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCMG has %" PetscInt_FMT " levels, the DM %" PetscInt_FMT " orders", nl, n);
  }
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(fegtest_vecdiff(u[1], u[0], diff));
  PetscCall(VecDestroy(&u[0]));
  PetscCall(VecDestroy(&u[1]));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* hexahedra Q4 (4, 2, 1) with matfree, lma and addto; tetrahedra P3 (3, 1) with matfree */
START_TEST(test_pmg_solve)
{
  const FEGOpType      types[4] = {FEGOPMATFREE, FEGOPLMA, FEGOPADDTO, FEGOPMATFREE};
  const DMPolytopeType ct       = _i < 3 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TETRAHEDRON;
  const PetscInt       order = _i < 3 ? 4 : 3, bound = _i < 3 ? 15 : 20;
  PetscInt             its;
  PetscReal            diff;

  TCHK(pmg_solve(ct, order, types[_i], &its, &diff));
  ck_assert_msg(its <= bound, "%s order %d with %s: PCMG took %d iterations, more than %d", DMPolytopeTypes[ct], (int)order, types[_i], (int)its, (int)bound);
  ck_assert_msg(diff < 1e-9, "%s order %d with %s: PCMG's solution is off Jacobi's by %g", DMPolytopeTypes[ct], (int)order, types[_i], (double)diff);
}
END_TEST

/* mixed precision (FEGDMSetMGPrecision()): lma levels in single precision, the finest level's smoother included, under
   CG with the double-precision operator; the same iteration bounds and Jacobi's solution to 1e-9 */
START_TEST(test_pmg_single)
{
  const DMPolytopeType ct    = _i ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_HEXAHEDRON;
  const PetscInt       order = _i ? 3 : 4, bound = _i ? 20 : 15;
  DM                   dm;
  Vec                  u[2];
  KSP                  ksp;
  PC                   pc;
  Mat                  A;
  FEGOp                op;
  FEGPrecision         prec;
  PetscInt             its, nl;
  PetscReal            diff;

  TCHK(fegtest_box(PETSC_COMM_WORLD, ct, (PetscInt[]){4, 4, 4}, 0.2, order, PETSC_TRUE, PETSC_TRUE, &dm));
  TCHK(fegtest_dm_solve(dm, "ref_", FEGOPLMA, NULL, "jacobi", &u[0], &ksp));
  TCHK(KSPDestroy(&ksp));
  TCHK(FEGDMSetMGPrecision(dm, FEG_PRECISION_SINGLE));
  TCHK(fegtest_pmg_options(PETSC_TRUE));
  TCHK(fegtest_dm_solve(dm, "mg_", FEGOPLMA, NULL, "mg", &u[1], &ksp));
  TCHK(fegtest_pmg_options(PETSC_FALSE));
  TCHK(KSPGetIterationNumber(ksp, &its));
  TCHK(fegtest_vecdiff(u[1], u[0], &diff));
  ck_assert_msg(its <= bound, "%s order %d, single-precision levels: PCMG took %d iterations, more than %d", DMPolytopeTypes[ct], (int)order, (int)its, (int)bound);
  ck_assert_msg(diff < 1e-9, "%s order %d, single-precision levels: PCMG's solution is off Jacobi's by %g", DMPolytopeTypes[ct], (int)order, (double)diff);
  /* the outer operator in double, every level's in single */
  TCHK(KSPGetOperators(ksp, &A, NULL));
  TCHK(FEGOperatorGetOp(A, &op));
  TCHK(FEGOpGetPrecision(op, &prec));
  ck_assert_msg(prec == FEG_PRECISION_DOUBLE, "the outer operator is in %s precision", FEGPrecisions[prec]);
  TCHK(KSPGetPC(ksp, &pc));
  TCHK(PCMGGetLevels(pc, &nl));
  for (PetscInt l = 0; l < nl; l++) {
    KSP s;

    TCHK(PCMGGetSmoother(pc, l, &s));
    TCHK(KSPGetOperators(s, &A, NULL));
    TCHK(FEGOperatorGetOp(A, &op));
    ck_assert_msg(op, "level %d's operator is not fegpu's", (int)l);
    TCHK(FEGOpGetPrecision(op, &prec));
    ck_assert_msg(prec == FEG_PRECISION_SINGLE, "level %d's operator is in %s precision", (int)l, FEGPrecisions[prec]);
  }
  TCHK(KSPDestroy(&ksp));
  TCHK(VecDestroy(&u[0]));
  TCHK(VecDestroy(&u[1]));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* a non-symmetric form with a coefficient that varies (a P1 auxiliary field through a linear map; pointwise terms) on
   every level: GMRES with PCMG against GMRES with Jacobi */
static PetscErrorCode pmg_solve_form(DMPolytopeType ct, PetscInt order, test_form kind, PetscInt *its, PetscReal *diff)
{
  const char *opts[2]   = {"-ref_ksp_type gmres -ref_ksp_gmres_restart 300 -ref_pc_type jacobi -ref_ksp_rtol 1e-12 -ref_ksp_max_it 5000",
                           "-mg_ksp_type gmres -mg_pc_type mg -mg_mg_levels_ksp_type chebyshev -mg_mg_levels_pc_type jacobi -mg_mg_coarse_pc_type redundant -mg_mg_coarse_redundant_pc_type lu -mg_ksp_rtol 1e-12 -mg_ksp_max_it 200"};
  const char *prefix[2] = {"ref_", "mg_"};
  DM          dm, aux;
  Vec         ax, u[2];
  FEGForm     form;

  PetscFunctionBegin;
  PetscCall(fegtest_box(PETSC_COMM_WORLD, ct, (PetscInt[]){4, 4, 4}, 0.2, order, PETSC_TRUE, PETSC_TRUE, &dm));
  PetscCall(fegtest_make_form(dm, kind, &aux, &ax, &form));
  PetscCall(FEGDMSetForm(dm, form));
  for (int k = 0; k < 2; k++) {
    KSP                ksp;
    KSPConvergedReason reason;

    PetscCall(PetscOptionsInsertString(NULL, opts[k]));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOptionsPrefix(ksp, prefix[k]));
    PetscCall(KSPSetDM(ksp, dm));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, NULL, NULL));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s did not converge: %s", prefix[k], KSPConvergedReasons[reason]);
    PetscCall(KSPGetIterationNumber(ksp, its));
    PetscCall(KSPGetSolution(ksp, &u[k]));
    PetscCall(PetscObjectReference((PetscObject)u[k]));
    PetscCall(KSPDestroy(&ksp));
  }
  for (int k = 0; k < 2; k++) {
    char buf[512], *tok, *save = NULL;

    PetscCall(PetscStrncpy(buf, opts[k], sizeof(buf)));
    for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
      if (tok[0] == '-' && (tok[1] < '0' || tok[1] > '9')) PetscCall(PetscOptionsClearValue(NULL, tok));
  }
  PetscCall(fegtest_vecdiff(u[1], u[0], diff));
  for (int k = 0; k < 2; k++) PetscCall(VecDestroy(&u[k]));
  PetscCall(VecDestroy(&ax));
  PetscCall(DMDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the linear map of an auxiliary field and the pointwise terms, hexahedra Q4 and tetrahedra P3 */
START_TEST(test_pmg_varying)
{
  const DMPolytopeType ct    = _i % 2 ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_HEXAHEDRON;
  const PetscInt       order = _i % 2 ? 3 : 4;
  const test_form      kind  = _i < 2 ? FORM_LINEAR : FORM_POINTWISE;
  PetscInt             its;
  PetscReal            diff;

  TCHK(pmg_solve_form(ct, order, kind, &its, &diff));
  ck_assert_msg(its <= 25, "%s order %d, %s form: GMRES with PCMG took %d iterations", DMPolytopeTypes[ct], (int)order, fegtest_form_name(kind), (int)its);
  ck_assert_msg(diff < 1e-9, "%s order %d, %s form: PCMG's solution is off Jacobi's by %g", DMPolytopeTypes[ct], (int)order, fegtest_form_name(kind), (double)diff);
}
END_TEST

/* DMCoarsenHierarchy() gives the orders of FEGDMGetOrderHierarchy() */
START_TEST(test_pmg_hierarchy)
{
  DM       dm, dms[3];
  PetscInt n, orders[9];

  TCHK(pmg_dm(DM_POLYTOPE_HEXAHEDRON, 8, PETSC_TRUE, PETSC_FALSE, 0.0, 1, &dm));
  TCHK(FEGDMGetOrderHierarchy(dm, &n, orders));
  ck_assert_msg(n == 4 && orders[0] == 8 && orders[1] == 4 && orders[2] == 2 && orders[3] == 1, "order 8 halves to %d orders", (int)n);
  TCHK(DMCoarsenHierarchy(dm, 3, dms));
  for (int l = 0; l < 3; l++) {
    PetscFE    fe;
    PetscSpace P;
    PetscInt   deg;

    TCHK(DMGetField(dms[l], 0, NULL, (PetscObject *)&fe));
    TCHK(PetscFEGetBasisSpace(fe, &P));
    TCHK(PetscSpaceGetDegree(P, &deg, NULL));
    ck_assert_msg(deg == orders[l + 1], "coarse DM %d has order %d, not %d", l, (int)deg, (int)orders[l + 1]);
  }
  for (int l = 0; l < 3; l++) TCHK(DMDestroy(&dms[l]));
  TCHK(FEGDMSetCoarsenOrder(dm, FEG_COARSEN_DECREMENT));
  TCHK(FEGDMGetOrderHierarchy(dm, &n, NULL));
  ck_assert_msg(n == 8, "order 8 decrements to %d orders, not 8", (int)n);
  TCHK(DMDestroy(&dm));
}
END_TEST

START_TEST(test_pmg_refused)
{
  DM  dm, dmc, other, dmc3;
  Mat P;

  TCHK(pmg_dm(DM_POLYTOPE_HEXAHEDRON, 1, PETSC_TRUE, PETSC_FALSE, 0.0, 2, &dm));
  EXPECT_ERROR(DMCoarsen(dm, MPI_COMM_NULL, &dmc), PETSC_ERR_ARG_OUTOFRANGE, "An order-1 space cannot be coarsened: order 1 with -feg_coarsen_order halve has 1 orders, so PCMG takes at most -pc_mg_levels 1");
  TCHK(DMDestroy(&dm));
  /* one level too many: order 4 halves to 2 and 1 */
  TCHK(pmg_dm(DM_POLYTOPE_HEXAHEDRON, 4, PETSC_TRUE, PETSC_FALSE, 0.0, 2, &dm));
  TCHK(DMCoarsen(dm, MPI_COMM_NULL, &dmc));
  {
    DM dmc2;

    TCHK(DMCoarsen(dmc, MPI_COMM_NULL, &dmc2));
    EXPECT_ERROR(DMCoarsen(dmc2, MPI_COMM_NULL, &dmc3), PETSC_ERR_ARG_OUTOFRANGE, "order 4 with -feg_coarsen_order halve has 3 orders, so PCMG takes at most -pc_mg_levels 3");
    TCHK(DMDestroy(&dmc2));
  }
  /* values at the fine order's quadrature points */
  {
    DM      qdm, aux;
    Vec     ax;
    FEGForm form;

    TCHK(fegtest_box(PETSC_COMM_WORLD, DM_POLYTOPE_HEXAHEDRON, (PetscInt[]){2, 2, 2}, 0.0, 2, PETSC_TRUE, PETSC_FALSE, &qdm));
    TCHK(fegtest_make_form(qdm, FORM_QPOINTS, &aux, &ax, &form));
    TCHK(FEGDMSetForm(qdm, form));
    EXPECT_ERROR(DMCoarsen(qdm, MPI_COMM_NULL, &dmc3), PETSC_ERR_SUP, "p-multigrid cannot coarsen a form with values at the quadrature points");
    TCHK(FEGFormDestroy(&form));
    TCHK(VecDestroy(&ax));
    TCHK(DMDestroy(&aux));
    TCHK(DMDestroy(&qdm));
  }
  /* two meshes */
  TCHK(pmg_dm(DM_POLYTOPE_HEXAHEDRON, 2, PETSC_TRUE, PETSC_FALSE, 0.0, 2, &other));
  EXPECT_ERROR(DMCreateInterpolation(other, dm, &P, NULL), PETSC_ERR_ARG_INCOMP, "fegpu interpolates between two orders on one mesh");
  TCHK(DMDestroy(&other));
  TCHK(DMDestroy(&dmc));
  TCHK(DMDestroy(&dm));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc = tcase_create("pmg");

  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_pmg_exact, 0, 15);
  tcase_add_loop_test(tc, test_pmg_adjoint, 0, 10);
  tcase_add_loop_test(tc, test_pmg_solve, 0, 4);
  tcase_add_loop_test(tc, test_pmg_varying, 0, 4);
  tcase_add_loop_test(tc, test_pmg_single, 0, 2);
  tcase_add_test(tc, test_pmg_hierarchy);
  tcase_add_test(tc, test_pmg_refused);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "pmg", add_tests);
}
