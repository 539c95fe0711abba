/* Manufactured solutions converge at the optimal L2 rate p+1 for p = 1, 2, 3 (and 4 on prisms): a symmetric diffusion-reaction form
   solved with CG on the LMA operator, and a non-symmetric CDR form solved with GMRES on the assembled one, both
   through FEGDMSetForm() and KSPSetDM(), with non-zero Dirichlet data */
#include "fegtest.h"

/* D_0 = f for the form's own C (pointwise, so the same function serves both forms) */
static PetscErrorCode source(PetscInt dim, PetscInt Nw, const PetscReal x[], const PetscScalar w[], const PetscScalar gradw[], PetscScalar C[], PetscScalar D[], void *ctx)
{
  D[0] = fegtest_source(dim, C, x);
  return PETSC_SUCCESS;
}

static PetscErrorCode solve(DMPolytopeType ct, PetscInt order, PetscInt n, PetscBool symmetric, PetscReal *err, PetscInt *its)
{
  const PetscInt     faces[3] = {n, n, n};
  const PetscScalar  Csym[16] = {1.0, 0, 0, 0, 0, 1.0, 0.3, 0.1, 0, 0.3, 2.0, 0.2, 0, 0.1, 0.2, 1.5};
  DM                 dm;
  FEGForm            form;
  KSP                ksp;
  Vec                u;
  KSPConvergedReason reason;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fegtest_exact};

  PetscFunctionBegin;
  PetscCall(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, NULL, NULL, 0.1, &dm));
  PetscCall(FEGSetUpDiscretization(dm, order, PETSC_TRUE, "u"));
  PetscCall(fegtest_wall(dm, fegtest_exact));
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, symmetric ? Csym : fegtest_C0, NULL));
  PetscCall(FEGFormSetPointwiseCoefficient(form, source, NULL));
  /* the DM's operators read their type from the options, with the form's prefix */
  PetscCall(FEGFormSetOptionsPrefix(form, "conv_"));
  PetscCall(PetscOptionsSetValue(NULL, "-conv_feg_op_type", symmetric ? FEGOPLMA : FEGOPADDTO));
  PetscCall(FEGDMSetForm(dm, form));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetType(ksp, symmetric ? KSPCG : KSPGMRES));
  if (!symmetric) PetscCall(KSPGMRESSetRestart(ksp, 300));
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-14, PETSC_DEFAULT, 10000));
  {
    PC pc;

    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(PetscOptionsClearValue(NULL, "-conv_feg_op_type"));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "KSP did not converge: %s", KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetSolution(ksp, &u));
  PetscCall(DMComputeL2Diff(dm, 0.0, funcs, NULL, u, err));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_rates)
{
  const DMPolytopeType ct[5] = {DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TRI_PRISM};
  const DMPolytopeType c     = ct[_i / 3];
  const PetscInt       order = 1 + _i % 3;
  const PetscInt       n0    = fegtest_dim(c) == 2 ? 4 : 3;
  const PetscBool      sym   = (PetscBool)((_i / 3) % 2 == 0);
  PetscReal            e0, e1, rate;
  PetscInt             i0, i1;

  TCHK(solve(c, order, n0, sym, &e0, &i0));
  TCHK(solve(c, order, 2 * n0, sym, &e1, &i1));
  rate = PetscLog2Real(e0 / e1);
  TCHK(PetscPrintf(PETSC_COMM_WORLD, "%-14s P%d %-12s errors %.3e %.3e rate %.2f iterations %d %d\n", DMPolytopeTypes[c], (int)order, sym ? "CG, lma" : "GMRES, addto", (double)e0, (double)e1, (double)rate, (int)i0, (int)i1));
  ck_assert_msg(rate > order + 1 - 0.3, "%s P%d (%s): L2 rate %.2f (errors %.3e, %.3e), expected about %d", DMPolytopeTypes[c], (int)order, sym ? "CG, lma" : "GMRES, addto", (double)rate, (double)e0, (double)e1, (int)order + 1);
}
END_TEST

/* P4 prisms: their triangular faces carry 3 interior dofs and their quadrilateral faces 9, which meet at every
   orientation; a wrong permutation of either loses the rate (FEGDMSetUpSection()) */
START_TEST(test_prism_p4)
{
  PetscReal e0, e1, rate;
  PetscInt  i0, i1;

  TCHK(solve(DM_POLYTOPE_TRI_PRISM, 4, 2, PETSC_TRUE, &e0, &i0));
  TCHK(solve(DM_POLYTOPE_TRI_PRISM, 4, 4, PETSC_TRUE, &e1, &i1));
  rate = PetscLog2Real(e0 / e1);
  TCHK(PetscPrintf(PETSC_COMM_WORLD, "%-14s P4 CG, lma      errors %.3e %.3e rate %.2f iterations %d %d\n", DMPolytopeTypes[DM_POLYTOPE_TRI_PRISM], (double)e0, (double)e1, (double)rate, (int)i0, (int)i1));
  ck_assert_msg(rate > 5 - 0.5, "triangular_prism P4: L2 rate %.2f (errors %.3e, %.3e), expected about 5", (double)rate, (double)e0, (double)e1);
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("manufactured");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_rates, 0, 5 * 3);
  tcase_add_test(tc, test_prism_p4);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "convergence", add_tests);
}
