/* FEGCreateChebyshevInverse(): Chebyshev steps with Jacobi on an assembled (addto) matrix, one pass over the rows each.
   - its product equals PETSc's KSPCHEBYSHEV with the same eigenvalue bounds, PCJACOBI, a zero initial guess and the
     same number of iterations, on a P1 triangle mass matrix and a Q2 hexahedron mass-plus-stiffness matrix, for 1, 2, 5
     and 26 steps (the bounds need not hold for the two to agree);
   - with Wathen's bounds [1/2, 2] of the Jacobi-scaled P1 mass matrix, 26 steps solve it to 1e-11 against CG to 1e-14;
   - FEGOperatorGetJacobiBounds() gives [1/2, 2] (to 1e-5, and around it) for the P1 triangle mass matrix, and bounds around the Ritz values of
     CG with Jacobi (within the spectrum of diag(A)^{-1} A) for Q2 hexahedra, with constraints, on 1 and 2 processes;
   - bad bounds, no steps, a shell operator, a matrix on several processes and a non-symmetric form are refused by name.
   fegtest: nsize 1 2 */
#include "fegtest.h"
#include <petscksp.h>

/* x = PETSc's KSPCHEBYSHEV with PCJACOBI from zero, its iterations on [emin, emax] */
static PetscErrorCode cheb_petsc(Mat A, PetscReal emin, PetscReal emax, PetscInt its, Vec b, Vec x)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCHEBYSHEV));
  PetscCall(KSPChebyshevSetEigenvalues(ksp, emax, emin));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-50, 1e-50, PETSC_DEFAULT, its));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_chebyshev_petsc)
{
  const PetscInt       steps[4] = {1, 2, 5, 26};
  const DMPolytopeType ct       = _i ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TRIANGLE;
  const PetscReal      emin = _i ? 0.1 : 0.5, emax = _i ? 3.0 : 2.0;
  DM                   dm;
  Mat                  A, S;
  Vec                  b, x, y;
  PetscRandom          rnd;
  PetscMPIInt          size;

  TCHK(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size > 1) return;
  TCHK(fegtest_massstiff_operator(ct, _i ? 2 : 1, (PetscBool)(_i > 0), FEGOPADDTO, VECSTANDARD, &dm, &A));
  TCHK(MatCreateVecs(A, &x, &b));
  TCHK(VecDuplicate(x, &y));
  TCHK(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  TCHK(VecSetRandom(b, rnd));
  TCHK(PetscRandomDestroy(&rnd));
  for (int s = 0; s < 4; s++) {
    PetscReal rel;

    TCHK(FEGCreateChebyshevInverse(A, emin, emax, steps[s], &S));
    TCHK(MatMult(S, b, x));
    TCHK(cheb_petsc(A, emin, emax, steps[s], b, y));
    TCHK(fegtest_vecdiff(x, y, &rel));
    ck_assert_msg(rel <= 1e-12, "%s, %d steps: fegpu's Chebyshev is off PETSc's KSPCHEBYSHEV by %g relative", DMPolytopeTypes[ct], (int)steps[s], (double)rel);
    TCHK(MatDestroy(&S));
  }
  TCHK(VecDestroy(&x));
  TCHK(VecDestroy(&y));
  TCHK(VecDestroy(&b));
  TCHK(MatDestroy(&A));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* 26 steps on Wathen's bounds solve the P1 mass matrix to 1e-11 (the bound says 1e-12 in the energy norm); 10 do not */
START_TEST(test_chebyshev_converges)
{
  const PetscInt steps[2] = {26, 10};
  DM             dm;
  Mat            A, S;
  Vec            b, x, y;
  KSP            ksp;
  PetscRandom    rnd;
  PetscMPIInt    size;

  TCHK(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size > 1) return;
  TCHK(fegtest_massstiff_operator(DM_POLYTOPE_TRIANGLE, 1, PETSC_FALSE, FEGOPADDTO, VECSTANDARD, &dm, &A));
  TCHK(MatCreateVecs(A, &x, &b));
  TCHK(VecDuplicate(x, &y));
  TCHK(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  TCHK(VecSetRandom(b, rnd));
  TCHK(PetscRandomDestroy(&rnd));
  TCHK(KSPCreate(PETSC_COMM_WORLD, &ksp));
  TCHK(KSPSetOperators(ksp, A, A));
  TCHK(KSPSetType(ksp, KSPCG));
  TCHK(KSPSetTolerances(ksp, 1e-14, 1e-50, PETSC_DEFAULT, 1000));
  TCHK(KSPSolve(ksp, b, y));
  TCHK(KSPDestroy(&ksp));
  for (int s = 0; s < 2; s++) {
    PetscReal rel;

    TCHK(FEGCreateChebyshevInverse(A, 0.5, 2.0, steps[s], &S));
    TCHK(MatMult(S, b, x));
    TCHK(MatDestroy(&S));
    TCHK(fegtest_vecdiff(x, y, &rel));
    if (s == 0) ck_assert_msg(rel <= 1e-11, "26 Chebyshev steps on [1/2, 2] leave a relative error of %g", (double)rel);
    else ck_assert_msg(rel > 1e-8, "10 steps already reach %g: the step count does not matter", (double)rel);
  }
  TCHK(VecDestroy(&x));
  TCHK(VecDestroy(&y));
  TCHK(VecDestroy(&b));
  TCHK(MatDestroy(&A));
  TCHK(DMDestroy(&dm));
}
END_TEST

START_TEST(test_chebyshev_refused)
{
  DM          dm;
  Mat         A, S;
  PetscMPIInt size;

  TCHK(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  TCHK(fegtest_massstiff_operator(DM_POLYTOPE_TRIANGLE, 1, PETSC_FALSE, FEGOPADDTO, VECSTANDARD, &dm, &A));
  if (size > 1) {
    EXPECT_ERROR(FEGCreateChebyshevInverse(A, 0.5, 2.0, 26, &S), PETSC_ERR_SUP, "needs a MATSEQAIJ or MATSEQAIJCUSPARSE matrix on one process, not a mpiaij on 2");
  } else {
    EXPECT_ERROR(FEGCreateChebyshevInverse(A, 2.0, 0.5, 26, &S), PETSC_ERR_ARG_OUTOFRANGE, "Eigenvalue bounds [2., 0.5] are out of range: allowed are 0 < emin < emax");
    EXPECT_ERROR(FEGCreateChebyshevInverse(A, 0.0, 2.0, 26, &S), PETSC_ERR_ARG_OUTOFRANGE, "Eigenvalue bounds [0., 2.] are out of range");
    EXPECT_ERROR(FEGCreateChebyshevInverse(A, 0.5, 2.0, 0, &S), PETSC_ERR_ARG_OUTOFRANGE, "0 Chebyshev steps are out of range: allowed are 1 or more");
  }
  TCHK(MatDestroy(&A));
  TCHK(DMDestroy(&dm));
  /* a shell operator has no rows to pass over */
  TCHK(fegtest_massstiff_operator(DM_POLYTOPE_TRIANGLE, 1, PETSC_FALSE, FEGOPLMA, VECSTANDARD, &dm, &A));
  EXPECT_ERROR(FEGCreateChebyshevInverse(A, 0.5, 2.0, 26, &S), PETSC_ERR_SUP, "needs a MATSEQAIJ or MATSEQAIJCUSPARSE matrix on one process, not a shell");
  TCHK(MatDestroy(&A));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* Wathen's bounds from the element matrices */
START_TEST(test_chebyshev_bounds)
{
  DM        dm;
  Mat       A;
  PetscReal emin, emax;

  TCHK(fegtest_massstiff_operator(DM_POLYTOPE_TRIANGLE, 1, PETSC_FALSE, FEGOPADDTO, VECSTANDARD, &dm, &A));
  TCHK(FEGOperatorGetJacobiBounds(A, &emin, &emax));
  ck_assert_msg(emin <= 0.5 && emin > 0.5 - 1e-5 && emax >= 2.0 && emax < 2.0 + 1e-5, "P1 mass matrix bounds [%.10g, %.10g], not around [1/2, 2]", (double)emin, (double)emax);
  TCHK(MatDestroy(&A));
  TCHK(DMDestroy(&dm));
  /* Q2 hexahedra, mass plus stiffness, walls constrained: CG's Ritz values lie in the spectrum, so within the bounds */
  {
    const PetscScalar C[16] = {1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0};
    FEGForm           form;
    KSP               ksp;
    PC                pc;
    Vec               b, x;
    PetscReal         re[200], im[200];
    PetscInt          neig;

    TCHK(fegtest_box(PETSC_COMM_WORLD, DM_POLYTOPE_HEXAHEDRON, (PetscInt[]){4, 4, 4}, 0.2, 2, PETSC_TRUE, PETSC_TRUE, &dm));
    TCHK(FEGFormCreate(PETSC_COMM_WORLD, &form));
    TCHK(FEGFormSetConstant(form, C, NULL));
    TCHK(FEGCreateOperator(dm, form, &A));
    TCHK(FEGFormDestroy(&form));
    TCHK(FEGOperatorGetJacobiBounds(A, &emin, &emax));
    TCHK(MatCreateVecs(A, &x, &b));
    TCHK(VecSet(b, 1.0));
    TCHK(KSPCreate(PETSC_COMM_WORLD, &ksp));
    TCHK(KSPSetOperators(ksp, A, A));
    TCHK(KSPSetType(ksp, KSPCG));
    TCHK(KSPGetPC(ksp, &pc));
    TCHK(PCSetType(pc, PCJACOBI));
    TCHK(KSPSetComputeEigenvalues(ksp, PETSC_TRUE));
    TCHK(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, 200));
    TCHK(KSPSolve(ksp, b, x));
    TCHK(KSPComputeEigenvalues(ksp, 200, re, im, &neig));
    ck_assert_msg(neig > 5, "CG gave %d Ritz values", (int)neig);
    for (PetscInt i = 0; i < neig; i++) ck_assert_msg(re[i] >= emin * (1 - 1e-10) && re[i] <= emax * (1 + 1e-10), "Q2 Ritz value %g outside the bounds [%g, %g]", (double)re[i], (double)emin, (double)emax);
    /* the upper bound is tight; the lower one is loose where stiffness dominates an element (its near-constant mode),
       here 0.003 against 0.099, but positive */
    ck_assert_msg(emin > 0 && re[neig - 1] > emax / 2, "bounds [%g, %g] for Ritz values [%g, %g]", (double)emin, (double)emax, (double)re[0], (double)re[neig - 1]);
    TCHK(KSPDestroy(&ksp));
    TCHK(VecDestroy(&x));
    TCHK(VecDestroy(&b));
    TCHK(MatDestroy(&A));
    TCHK(DMDestroy(&dm));
  }
  /* a non-symmetric form */
  {
    const PetscScalar C[16] = {1.0, 0.5, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0};
    FEGForm           form;

    TCHK(fegtest_box(PETSC_COMM_WORLD, DM_POLYTOPE_TRIANGLE, (PetscInt[]){4, 4, 4}, 0.2, 1, PETSC_TRUE, PETSC_FALSE, &dm));
    TCHK(FEGFormCreate(PETSC_COMM_WORLD, &form));
    TCHK(FEGFormSetConstant(form, C, NULL));
    TCHK(FEGCreateOperator(dm, form, &A));
    TCHK(FEGFormDestroy(&form));
    EXPECT_ERROR(FEGOperatorGetJacobiBounds(A, &emin, &emax), PETSC_ERR_ARG_WRONG, "is not symmetric");
    TCHK(MatDestroy(&A));
    TCHK(DMDestroy(&dm));
  }
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc = tcase_create("chebyshev");

  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_chebyshev_petsc, 0, 2);
  tcase_add_test(tc, test_chebyshev_converges);
  tcase_add_test(tc, test_chebyshev_refused);
  tcase_add_test(tc, test_chebyshev_bounds);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "chebyshev", add_tests);
}
