/* Shell operators (lma, matfree) under preconditioners that need matrix values: through FEGDMSetForm() the KSP's PC
   gets an assembled preconditioning matrix (-feg_op_pmat auto: from lma's stored element matrices, by the addto type for
   matfree; or as -feg_op_pmat says), and ILU, LU, GAMG and Jacobi all converge to the assembled operator's solution.
   fegtest: nsize 1 2 */
#include "fegtest.h"

typedef enum {
  PMAT_IS_OPERATOR, /* the PC got the operator itself */
  PMAT_IS_VALUES,   /* an AIJ assembled from the operator's element matrices */
  PMAT_IS_ADDTO     /* an addto operator of the form */
} pmat_kind;

/* the solution with the DM's operator of type under CG and pc, and what the PC got as its matrix */
static PetscErrorCode solve(DM dm, const char *type, const char *pmat, const char *pc, Vec *sol, pmat_kind *kind)
{
  KSP   ksp = NULL;
  Mat   A, P;
  FEGOp pop;

  PetscFunctionBegin;
  PetscCall(fegtest_dm_solve(dm, "pm_", type, pmat, pc, sol, &ksp));
  PetscCall(KSPGetOperators(ksp, &A, &P));
  PetscCall(FEGOperatorGetOp(P, &pop));
  *kind = P == A ? PMAT_IS_OPERATOR : (pop ? PMAT_IS_ADDTO : PMAT_IS_VALUES);
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  const char *type, *pmat, *pc;
  pmat_kind   expect;
  PetscBool   serialonly;
} pmat_case;

static const pmat_case cases[] = {
  {FEGOPLMA,     NULL,    PCJACOBI,  PMAT_IS_OPERATOR, PETSC_FALSE},
  {FEGOPLMA,     NULL,    PCBJACOBI, PMAT_IS_VALUES,   PETSC_FALSE}, /* ILU on each process's block */
  {FEGOPLMA,     NULL,    PCILU,     PMAT_IS_VALUES,   PETSC_TRUE },
  {FEGOPLMA,     NULL,    PCLU,      PMAT_IS_VALUES,   PETSC_TRUE },
  {FEGOPLMA,     NULL,    PCGAMG,    PMAT_IS_VALUES,   PETSC_FALSE},
  {FEGOPLMA,     "addto", PCBJACOBI, PMAT_IS_ADDTO,    PETSC_FALSE},
  {FEGOPLMA,     "lma",   PCJACOBI,  PMAT_IS_VALUES,   PETSC_FALSE},
  {FEGOPMATFREE, NULL,    PCJACOBI,  PMAT_IS_OPERATOR, PETSC_FALSE},
  {FEGOPMATFREE, NULL,    PCBJACOBI, PMAT_IS_ADDTO,    PETSC_FALSE},
  {FEGOPMATFREE, NULL,    PCILU,     PMAT_IS_ADDTO,    PETSC_TRUE },
  {FEGOPMATFREE, NULL,    PCLU,      PMAT_IS_ADDTO,    PETSC_TRUE },
  {FEGOPMATFREE, NULL,    PCGAMG,    PMAT_IS_ADDTO,    PETSC_FALSE},
  {FEGOPMATFREE, "addto", PCJACOBI,  PMAT_IS_ADDTO,    PETSC_FALSE}
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

START_TEST(test_shell_with_pcs)
{
  const DMPolytopeType ct      = _i ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_TRIANGLE;
  const char          *names[] = {"the operator", "values from its element matrices", "an addto operator"};
  DM                   dm;
  Vec                  xref, x;
  pmat_kind            kind;
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  TCHK(fegtest_setup(PETSC_COMM_WORLD, ct, 2, PETSC_TRUE, PETSC_TRUE, 4, &dm));
  TCHK(solve(dm, FEGOPADDTO, NULL, PCJACOBI, &xref, &kind));
  for (int c = 0; c < NCASES; c++) {
    PetscReal err;

    if (size > 1 && cases[c].serialonly) continue;
    TCHK(solve(dm, cases[c].type, cases[c].pmat, cases[c].pc, &x, &kind));
    TCHK(fegtest_vecdiff(x, xref, &err));
    ck_assert_msg(err < 1e-9, "%s %s with PC %s (-feg_op_pmat %s): solution differs from the assembled operator's by %g", DMPolytopeTypes[ct], cases[c].type, cases[c].pc, cases[c].pmat ? cases[c].pmat : "auto", (double)err);
    ck_assert_msg(kind == cases[c].expect, "%s %s with PC %s (-feg_op_pmat %s): the PC got %s, expected %s", DMPolytopeTypes[ct], cases[c].type, cases[c].pc, cases[c].pmat ? cases[c].pmat : "auto", names[kind], names[cases[c].expect]);
    TCHK(VecDestroy(&x));
  }
  TCHK(VecDestroy(&xref));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* without a preconditioning matrix (-feg_op_pmat none) the PC gets the shell, and ILU cannot factor it: the
   comparison above would notice a missing one */
START_TEST(test_pmat_none_fails)
{
  DM             dm;
  Vec            x = NULL;
  pmat_kind      kind;
  PetscErrorCode ierr;
  PetscMPIInt    size;
  fegtest_err    err = {"", 0};

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  TCHK(fegtest_setup(PETSC_COMM_WORLD, DM_POLYTOPE_TRIANGLE, 2, PETSC_TRUE, PETSC_TRUE, 4, &dm));
  TCHK(PetscPushErrorHandler(fegtest_errhandler, &err));
  ierr = solve(dm, FEGOPLMA, "none", size > 1 ? PCBJACOBI : PCILU, &x, &kind);
  TCHK(PetscPopErrorHandler());
  TCHK(PetscOptionsClearValue(NULL, "-pm_feg_op_type"));
  TCHK(PetscOptionsClearValue(NULL, "-pm_feg_op_pmat"));
  TCHK(PetscOptionsClearValue(NULL, "-pm_pc_type"));
  ck_assert_msg(ierr == PETSC_ERR_MISSING_FACTOR || ierr == PETSC_ERR_SUP, "ILU on an lma shell with -feg_op_pmat none gave error %d, expected %d (no factorization of a shell) or %d", (int)ierr, (int)PETSC_ERR_MISSING_FACTOR, (int)PETSC_ERR_SUP);
  ck_assert_msg(strstr(err.msg, "matrix type shell"), "ILU on an lma shell with -feg_op_pmat none: message %s", err.msg);
  TCHK(VecDestroy(&x));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* the preconditioning matrix follows the operator: after new coefficients both are assembled again */
START_TEST(test_pmat_follows_operator)
{
  DM          dm;
  FEGForm     form;
  Mat         A, P, Ad;
  Vec         x, y, z;
  PetscScalar C[16];
  PetscReal   err;

  TCHK(fegtest_setup(PETSC_COMM_WORLD, DM_POLYTOPE_QUADRILATERAL, 2, PETSC_TRUE, PETSC_TRUE, 3, &dm));
  TCHK(fegtest_form(PETSC_COMM_WORLD, NULL, NULL, PETSC_FALSE, &form));
  TCHK(fegtest_operator(dm, form, FEGOPLMA, &A));
  TCHK(FEGOperatorGetPmat(A, &P));
  TCHK(FEGFormGetConstant(form, C, NULL));
  C[0] += 3.0;
  TCHK(FEGFormSetConstant(form, C, NULL));
  TCHK(FEGOperatorAssemble(A, NULL));
  TCHK(FEGOperatorGetPmat(A, &P));
  TCHK(fegtest_operator(dm, form, FEGOPADDTO, &Ad));
  TCHK(MatCreateVecs(A, &x, &y));
  TCHK(VecDuplicate(y, &z));
  { /* a random vector: every entry of the matrices counts, not only the row sums a vector of ones would compare */
    PetscRandom rnd;

    TCHK(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
    TCHK(PetscRandomSetSeed(rnd, 7));
    TCHK(PetscRandomSeed(rnd));
    TCHK(VecSetRandom(x, rnd));
    TCHK(PetscRandomDestroy(&rnd));
  }
  TCHK(MatMult(P, x, y));
  TCHK(MatMult(Ad, x, z));
  TCHK(fegtest_vecdiff(y, z, &err));
  ck_assert_msg(err < 1e-12, "the preconditioning matrix of a reassembled lma operator differs from addto by %g", (double)err);
  TCHK(VecDestroy(&x));
  TCHK(VecDestroy(&y));
  TCHK(VecDestroy(&z));
  TCHK(MatDestroy(&A));
  TCHK(MatDestroy(&Ad));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("pmat");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_shell_with_pcs, 0, 2);
  tcase_add_test(tc, test_pmat_none_fails);
  tcase_add_test(tc, test_pmat_follows_operator);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "pmat", add_tests);
}
