/* p-multigrid on the GPU against the host: the transfer between orders (DMCreateInterpolation() of a DM and its
   DMCoarsen()) applied on the GPU equals the host's, products, transposes and added products, with constrained dofs;
   and CG with PCMG (Chebyshev-Jacobi, GAMG on the order-1 level assembled by addto on the GPU) with every level's
   operator on the GPU takes the host's iterations (within 1) to its solution. Needs a GPU.
   fegtest: nsize 1 2 */
#include "gputest.h"

static PetscErrorCode pmg_dm(DMPolytopeType ct, PetscInt order, PetscBool gpu, DM *dm)
{
  FEGForm form;
  DM      aux;
  Vec     ax;

  PetscFunctionBegin;
  PetscCall(fegtest_box(PETSC_COMM_WORLD, ct, (PetscInt[]){3, 3, 3}, 0.2, order, PETSC_TRUE, PETSC_TRUE, dm));
  PetscCall(DMSetVecType(*dm, gpu ? VECCUDA : VECSTANDARD));
  PetscCall(fegtest_make_form(*dm, FORM_MASSSTIFF, &aux, &ax, &form));
  PetscCall(FEGDMSetForm(*dm, form));
  PetscCall(FEGFormDestroy(&form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* hexahedra Q4 -> Q2, quadrilaterals Q3 -> Q2, tetrahedra P3 -> P2 and P3 -> P1, prisms P2 -> P1 */
START_TEST(test_gpu_pmg_transfer)
{
  const DMPolytopeType  cts[5]    = {DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TRI_PRISM};
  const PetscInt        orders[5] = {4, 3, 3, 3, 2};
  const FEGCoarsenOrder type      = _i == 2 ? FEG_COARSEN_DECREMENT : FEG_COARSEN_HALVE;
  DM                    dm[2], dmc[2];
  Mat                   P[2];
  Vec                   xc[2], xf[2], yc[2], yf[2], zf[2];
  PetscRandom           rnd;
  PetscReal             err = 0.0, r;

  for (int g = 0; g < 2; g++) {
    TCHK(pmg_dm(cts[_i], orders[_i], (PetscBool)g, &dm[g]));
    TCHK(FEGDMSetCoarsenOrder(dm[g], type));
    TCHK(DMCoarsen(dm[g], MPI_COMM_NULL, &dmc[g]));
    TCHK(DMCreateInterpolation(dmc[g], dm[g], &P[g], NULL));
    TCHK(DMCreateGlobalVector(dmc[g], &xc[g]));
    TCHK(DMCreateGlobalVector(dm[g], &xf[g]));
    TCHK(VecDuplicate(xc[g], &yc[g]));
    TCHK(VecDuplicate(xf[g], &yf[g]));
    TCHK(VecDuplicate(xf[g], &zf[g]));
  }
  {
    PetscBool cuda;

    TCHK(PetscObjectTypeCompareAny((PetscObject)xf[1], &cuda, VECSEQCUDA, VECMPICUDA, ""));
    ck_assert_msg(cuda, "the GPU DM's vectors are not CUDA vectors");
  }
  TCHK(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  TCHK(VecSetRandom(xc[0], rnd));
  TCHK(VecSetRandom(xf[0], rnd));
  TCHK(VecSetRandom(zf[0], rnd));
  TCHK(PetscRandomDestroy(&rnd));
  TCHK(VecCopy(xc[0], xc[1]));
  TCHK(VecCopy(xf[0], xf[1]));
  TCHK(VecCopy(zf[0], zf[1]));
  for (int g = 0; g < 2; g++) TCHK(MatMult(P[g], xc[g], yf[g]));
  TCHK(fegtest_vecdiff(yf[1], yf[0], &r));
  err = PetscMax(err, r);
  for (int g = 0; g < 2; g++) TCHK(MatMultTranspose(P[g], xf[g], yc[g]));
  TCHK(fegtest_vecdiff(yc[1], yc[0], &r));
  err = PetscMax(err, r);
  for (int g = 0; g < 2; g++) TCHK(MatMultAdd(P[g], xc[g], zf[g], yf[g]));
  TCHK(fegtest_vecdiff(yf[1], yf[0], &r));
  err = PetscMax(err, r);
  ck_assert_msg(err < 1e-12, "%s order %d: the GPU transfer is off the host's by %g", DMPolytopeTypes[cts[_i]], (int)orders[_i], (double)err);
  for (int g = 0; g < 2; g++) {
    TCHK(VecDestroy(&xc[g]));
    TCHK(VecDestroy(&xf[g]));
    TCHK(VecDestroy(&yc[g]));
    TCHK(VecDestroy(&yf[g]));
    TCHK(VecDestroy(&zf[g]));
    TCHK(MatDestroy(&P[g]));
    TCHK(DMDestroy(&dmc[g]));
    TCHK(DMDestroy(&dm[g]));
  }
}
END_TEST

/* hexahedra Q4 (levels 4, 2, 1) with matfree and lma, tetrahedra P2 (2, 1) with matfree; hexahedra Q4 with lma levels
   in single precision (FEGDMSetMGPrecision()) */
START_TEST(test_gpu_pmg_solve)
{
  const FEGOpType      types[4] = {FEGOPMATFREE, FEGOPLMA, FEGOPMATFREE, FEGOPLMA};
  const DMPolytopeType ct       = _i == 2 ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_HEXAHEDRON;
  const PetscInt       order    = _i == 2 ? 2 : 4;
  DM                   dm[2];
  Vec                  u[2];
  KSP                  ksp;
  PetscInt             its[2];
  PetscReal            diff;

  for (int g = 0; g < 2; g++) {
    TCHK(fegtest_box(PETSC_COMM_WORLD, ct, (PetscInt[]){4, 4, 4}, 0.2, order, PETSC_TRUE, PETSC_TRUE, &dm[g]));
    TCHK(DMSetVecType(dm[g], g ? VECCUDA : VECSTANDARD));
    if (_i == 3) TCHK(FEGDMSetMGPrecision(dm[g], FEG_PRECISION_SINGLE));
    TCHK(fegtest_pmg_options(PETSC_TRUE));
    TCHK(fegtest_dm_solve(dm[g], "mg_", types[_i], NULL, "mg", &u[g], &ksp));
    TCHK(KSPGetIterationNumber(ksp, &its[g]));
    TCHK(KSPDestroy(&ksp));
  }
  TCHK(fegtest_pmg_options(PETSC_FALSE));
  TCHK(fegtest_vecdiff(u[1], u[0], &diff));
  ck_assert_msg(PetscAbs(its[1] - its[0]) <= 1 && its[1] <= 15, "%s order %d with %s%s: %d PCMG iterations on the GPU, %d on the host", DMPolytopeTypes[ct], (int)order, types[_i], _i == 3 ? " in single precision" : "", (int)its[1], (int)its[0]);
  ck_assert_msg(diff < 1e-9, "%s order %d with %s%s: the GPU's solution is off the host's by %g", DMPolytopeTypes[ct], (int)order, types[_i], _i == 3 ? " in single precision" : "", (double)diff);
  for (int g = 0; g < 2; g++) {
    TCHK(VecDestroy(&u[g]));
    TCHK(DMDestroy(&dm[g]));
  }
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc = tcase_create("pmg");

  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_gpu_pmg_transfer, 0, 5);
  tcase_add_loop_test(tc, test_gpu_pmg_solve, 0, 4);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "gpu_pmg", add_tests);
}
