/* FEGCreateChebyshevInverse() on the GPU against the host: the product with a MATSEQAIJCUSPARSE addto matrix (one
   kernel per step, 4, 16 and 32 threads per row) equals the product with the host's MATSEQAIJ of the same form, for 1
   and 26 steps, on P1 triangles (mass), Q1 and Q2 hexahedra (mass plus stiffness). Needs a GPU.
   fegtest: nsize 1 */
#include "gputest.h"

START_TEST(test_gpu_chebyshev)
{
  const DMPolytopeType cts[3]  = {DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_HEXAHEDRON};
  const PetscInt       ords[3] = {1, 1, 2}, steps[2] = {1, 26};
  DM                   dm[2];
  Mat                  A[2], S;
  Vec                  b[2], x[2];
  PetscRandom          rnd;
  PetscBool            cusparse;
  MatType              mt;

  for (int g = 0; g < 2; g++) {
    TCHK(fegtest_massstiff_operator(cts[_i], ords[_i], (PetscBool)(cts[_i] != DM_POLYTOPE_TRIANGLE), NULL, g ? VECCUDA : VECSTANDARD, &dm[g], &A[g]));
    TCHK(MatCreateVecs(A[g], &x[g], &b[g]));
  }
  TCHK(PetscObjectTypeCompare((PetscObject)A[1], MATSEQAIJCUSPARSE, &cusparse));
  TCHK(MatGetType(A[1], &mt));
  ck_assert_msg(cusparse, "the GPU addto matrix is a %s", mt);
  TCHK(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  TCHK(VecSetRandom(b[0], rnd));
  TCHK(PetscRandomDestroy(&rnd));
  TCHK(VecCopy(b[0], b[1]));
  for (int s = 0; s < 2; s++) {
    PetscReal rel;

    for (int g = 0; g < 2; g++) {
      TCHK(FEGCreateChebyshevInverse(A[g], 0.3, 2.5, steps[s], &S));
      TCHK(MatMult(S, b[g], x[g]));
      TCHK(MatDestroy(&S));
    }
    TCHK(fegtest_vecdiff(x[1], x[0], &rel));
    ck_assert_msg(rel <= 1e-12, "%s order %d, %d steps: the GPU's Chebyshev is off the host's by %g relative", DMPolytopeTypes[cts[_i]], (int)ords[_i], (int)steps[s], (double)rel);
  }
  for (int g = 0; g < 2; g++) {
    TCHK(VecDestroy(&x[g]));
    TCHK(VecDestroy(&b[g]));
    TCHK(MatDestroy(&A[g]));
    TCHK(DMDestroy(&dm[g]));
  }
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc = tcase_create("gpu_chebyshev");

  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_gpu_chebyshev, 0, 3);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "gpu_chebyshev", add_tests);
}
