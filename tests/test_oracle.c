/* fegpu's assembled operator and right-hand side equal PETSc's own DMPlex FEM assembly of the same form, on perturbed
   (non-affine where the cell allows) meshes, with a non-constant coefficient field and an x-dependent pointwise part */
#include "fegtest.h"

typedef struct {
  PetscReal mat, rhs;
} oracle_result;

static PetscErrorCode compare_with_oracle(DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool bc, PetscInt n, oracle_result *r)
{
  DM      dm, auxdm;
  Vec     aux, F, b;
  FEGForm form;
  Mat     A, J;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, ct, order, cont, bc, n, &dm));
  PetscCall(fegtest_aux(dm, &auxdm, &aux));
  PetscCall(fegtest_form(PETSC_COMM_SELF, auxdm, aux, PETSC_TRUE, &form));
  PetscCall(FEGFormSetStrategy(form, FEG_STRATEGY_ADDTO));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscCall(fegtest_oracle(dm, auxdm, aux, PETSC_TRUE, &J, &F));
  PetscCall(fegtest_matdiff(A, J, &r->mat));
  PetscCall(VecScale(F, -1.0));
  PetscCall(fegtest_vecdiff(b, F, &r->rhs));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void check_case(DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool bc, PetscInt n)
{
  oracle_result r;

  TCHK(compare_with_oracle(ct, order, cont, bc, n, &r));
  ck_assert_msg(r.mat < 1e-12, "%s order %d %s%s: matrix differs from PETSc's by %g (relative, Frobenius)", DMPolytopeTypes[ct], (int)order, cont ? "continuous" : "discontinuous", bc ? " with Dirichlet" : "", (double)r.mat);
  ck_assert_msg(r.rhs < 1e-12, "%s order %d %s%s: right-hand side differs from PETSc's by %g (relative)", DMPolytopeTypes[ct], (int)order, cont ? "continuous" : "discontinuous", bc ? " with Dirichlet" : "", (double)r.rhs);
}

/* _i is the loop index of a Check loop test: cell type, then orders 1..4, continuous or not */
START_TEST(test_orders_1_to_4)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 8];
  const PetscInt       order = 1 + (_i % 8) / 2;
  const PetscBool      cont  = (PetscBool)(_i % 2 == 0);
  const PetscInt       dim   = fegtest_dim(ct);
  /* keep the 3D order-4 cases small */
  const PetscInt n = dim == 2 ? 3 : (order <= 2 ? 2 : 1);

  if (ct == DM_POLYTOPE_TRI_PRISM && cont && order > 1) {
    /* PETSc gives quadrilateral faces of prisms no dofs: fegpu must refuse clearly instead of computing garbage */
    DM          dm;
    fegtest_err err = {"", 0};

    TCHK(PetscPushErrorHandler(fegtest_errhandler, &err));
    ck_assert_int_eq(fegtest_setup(PETSC_COMM_SELF, ct, order, cont, PETSC_FALSE, 1, &dm), PETSC_ERR_SUP);
    TCHK(PetscPopErrorHandler());
    ck_assert_msg(strstr(err.msg, "Continuous Lagrange prisms of order") != NULL, "unexpected message: %s", err.msg);
    return;
  }
  check_case(ct, order, cont, cont, n);
}
END_TEST

START_TEST(test_high_order)
{
  /* one high-order case per cell type */
  const DMPolytopeType ct[5]    = {DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TRI_PRISM};
  const PetscInt       order[5] = {8, 8, 6, 5, 6};
  const PetscBool      cont[5]  = {PETSC_TRUE, PETSC_FALSE, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE};

  check_case(ct[_i], order[_i], cont[_i], cont[_i], fegtest_dim(ct[_i]) == 2 ? 2 : 1);
}
END_TEST

START_TEST(test_no_aux_constant)
{
  /* constant coefficients only, no boundary conditions: the simplest path */
  DM        dm;
  FEGForm   form;
  Mat       A, J;
  PetscReal rel;

  TCHK(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  TCHK(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  TCHK(FEGCreateOperator(dm, form, &A));
  TCHK(fegtest_oracle(dm, NULL, NULL, PETSC_FALSE, &J, NULL));
  TCHK(fegtest_matdiff(A, J, &rel));
  ck_assert_msg(rel < 1e-12, "constant-coefficient P2 tetrahedra differ by %g", (double)rel);
  TCHK(MatDestroy(&A));
  TCHK(MatDestroy(&J));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

START_TEST(test_oracle_can_fail)
{
  /* the comparison must notice a wrong coefficient: perturb one entry of C and expect a difference */
  DM          dm;
  FEGForm     form;
  Mat         A, J;
  PetscReal   rel;
  PetscScalar C[16];

  TCHK(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_QUADRILATERAL, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  TCHK(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  TCHK(FEGFormGetConstant(form, C, NULL));
  C[1 * 4 + 2] += 1e-6;
  TCHK(FEGFormSetConstant(form, C, NULL));
  TCHK(FEGCreateOperator(dm, form, &A));
  TCHK(fegtest_oracle(dm, NULL, NULL, PETSC_FALSE, &J, NULL));
  TCHK(fegtest_matdiff(A, J, &rel));
  ck_assert_msg(rel > 1e-9, "a changed coefficient went unnoticed (difference %g)", (double)rel);
  TCHK(MatDestroy(&A));
  TCHK(MatDestroy(&J));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

int main(int argc, char **argv)
{
  Suite *s;
  TCase *tc;
  int    nf;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  s  = suite_create("oracle");
  tc = tcase_create("assembly");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_orders_1_to_4, 0, 5 * 8);
  tcase_add_loop_test(tc, test_high_order, 0, 5);
  tcase_add_test(tc, test_no_aux_constant);
  tcase_add_test(tc, test_oracle_can_fail);
  suite_add_tcase(s, tc);
  nf = fegtest_run(s);
  PetscCall(PetscFinalize());
  return nf ? 1 : 0;
}
