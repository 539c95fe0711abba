/* A distributed operator equals the serial one: MatMult of a fixed (interpolated) vector, compared through
   permutation-invariant quantities ||A x|| and (A x, z), for every strategy, cell type and order 1 to 3, and the
   right-hand side likewise; the distributed mesh is also renumbered (FEGMeshReorder(), none, metis and sfc in turn),
   which must change nothing but the numbering.
   fegtest: nsize 1 2 3 4 */
#include "fegtest.h"

static PetscErrorCode fx(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = PetscSinReal(3.0 * x[0] + 0.5) * PetscCosReal(2.0 * x[1]) + (dim == 3 ? x[2] * x[2] : 0.0);
  return PETSC_SUCCESS;
}

static PetscErrorCode fz(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 1.0 + x[0] * x[1] - (dim == 3 ? 0.5 * x[2] : 0.0);
  return PETSC_SUCCESS;
}

/* ||A x||, (A x, z), ||b||, (b, z) on comm */
static PetscErrorCode invariants(MPI_Comm comm, DMPolytopeType ct, PetscInt order, PetscBool cont, FEGOpType s, FEGReorderType reorder, PetscReal v[4])
{
  DM          dm, auxdm;
  Vec         aux, x, y, z, b;
  FEGForm     form;
  Mat         A;
  PetscScalar dot;
  PetscErrorCode (*funcs[2][1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {{fx}, {fz}};

  PetscFunctionBegin;
  {
    const PetscInt faces[3] = {3, 3, 3};
    DM             rdm;

    PetscCall(FEGCreateBoxMesh(comm, ct, faces, NULL, NULL, 0.2, &dm));
    PetscCall(PetscOptionsSetValue(NULL, "-feg_mesh_reorder_part_size", "5"));
    PetscCall(FEGMeshReorder(dm, reorder, &rdm));
    PetscCall(PetscOptionsClearValue(NULL, "-feg_mesh_reorder_part_size"));
    PetscCall(DMDestroy(&dm));
    dm = rdm;
    PetscCall(FEGSetUpDiscretization(dm, order, cont, "u"));
    if (cont) PetscCall(fegtest_wall(dm, fegtest_bcfunc));
  }
  {
    PetscInt cStart, cEnd, nmin, nloc;

    /* the comparison means nothing unless every process really holds part of the mesh */
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
    nloc = cEnd - cStart;
    PetscCall(MPIU_Allreduce(&nloc, &nmin, 1, MPIU_INT, MPI_MIN, comm));
    PetscCheck(nmin > 0, comm, PETSC_ERR_PLIB, "A process holds no cells after distribution");
  }
  PetscCall(fegtest_aux(dm, &auxdm, &aux));
  PetscCall(fegtest_form(comm, auxdm, aux, PETSC_TRUE, &form));
  PetscCall(fegtest_operator(dm, form, s, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(DMProjectFunction(dm, 0.0, funcs[0], NULL, INSERT_VALUES, x));
  PetscCall(DMProjectFunction(dm, 0.0, funcs[1], NULL, INSERT_VALUES, z));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecNorm(y, NORM_2, &v[0]));
  PetscCall(VecDot(y, z, &dot));
  v[1] = PetscRealPart(dot);
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscCall(VecNorm(b, NORM_2, &v[2]));
  PetscCall(VecDot(b, z, &dot));
  v[3] = PetscRealPart(dot);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* case i: cell type i / 9, strategy (i / 3) % 3, order i % 3 + 1 */
START_TEST(test_parallel_equals_serial)
{
  const FEGOpType      types[3] = {FEGOPADDTO, FEGOPLMA, FEGOPMATFREE};
  const DMPolytopeType ct       = fegtest_cells[_i / 9];
  const FEGOpType      s        = types[(_i / 3) % 3];
  const PetscInt       order    = _i % 3 + 1;
  const FEGReorderType reorder  = (FEGReorderType)((_i + _i / 3) % 3); /* each strategy and order meets all three */
  const PetscBool      cont     = PETSC_TRUE;
  PetscReal            vp[4], vs[4], err = 0.0;

  TCHK(invariants(PETSC_COMM_WORLD, ct, order, cont, s, reorder, vp));
  TCHK(invariants(PETSC_COMM_SELF, ct, order, cont, s, FEG_REORDER_NONE, vs));
  for (PetscInt i = 0; i < 4; i++) err = PetscMax(err, PetscAbsReal(vp[i] - vs[i]) / PetscAbsReal(vs[i]));
  ck_assert_msg(err < 1e-12, "%s P%d %s, reordered by %s: distributed and serial differ by %g (|Ax| %g vs %g)", DMPolytopeTypes[ct], (int)order, s, FEGReorderTypes[reorder], (double)err, (double)vp[0], (double)vs[0]);
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("distributed");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_parallel_equals_serial, 0, 5 * 3 * 3);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "parallel", add_tests);
}
