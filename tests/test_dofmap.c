/* fegtest: nsize 1 2
   What setup reads from the DM in bulk, against PETSc's own per-cell answers: the element-to-dof map (one
   DMPlexGetClosureIndices() per orientation class, array lookups for the rest) equals DMPlexGetClosureIndices() and the
   cell coordinates equal DMPlexGetCellCoordinates() on every cell, for every cell type, orders 1 to 4, continuous and
   discontinuous, with constraints, distributed, and on unstructured and curved Gmsh meshes; and the essential boundary
   values fegpu evaluates at the nodes equal DMPlexInsertBoundaryValues(), with one condition or two overlapping, and
   FEGDMProjectFunction() equals DMProjectFunction(); also with the read's threads on meshes large enough for them */
#include "fegtest.h"
#include <fegpu/private/fegimpl.h>

/* A second essential condition on the x = 0 side, added after the wall so that on its points it overrides it */
static PetscErrorCode add_side_boundary(DM dm)
{
  DMLabel  label;
  PetscInt fStart, fEnd, id = 7;

  PetscFunctionBegin;
  PetscCall(DMCreateLabel(dm, "side"));
  PetscCall(DMGetLabel(dm, "side", &label));
  PetscCall(DMPlexGetHeightStratum(dm, 1, &fStart, &fEnd));
  for (PetscInt f = fStart; f < fEnd; f++) {
    PetscReal x[3], n[3], area;
    PetscInt  ns;

    PetscCall(DMPlexGetSupportSize(dm, f, &ns));
    if (ns != 1) continue;
    PetscCall(DMPlexComputeCellGeometryFVM(dm, f, &area, x, n));
    if (PetscAbsReal(x[0]) < 1e-10) PetscCall(DMLabelSetValue(label, f, id));
  }
  PetscCall(DMPlexLabelComplete(dm, label));
  PetscCall(DMAddBoundary(dm, DM_BC_ESSENTIAL, "side", label, 1, &id, 0, 0, NULL, (void (*)(void))fegtest_exact, NULL, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The essential boundary values fegpu computes at the nodes against DMPlexInsertBoundaryValues() */
static PetscErrorCode compare_boundary_values(DM dm)
{
  FEGDisc       *disc;
  PetscContainer c;
  Vec            g, gp;
  PetscReal      diff, norm;
  PetscBool      nz;

  PetscFunctionBegin;
  PetscCall(FEGDMGetDisc(dm, &disc, &c));
  PetscCall(DMGetLocalVector(dm, &g));
  PetscCall(DMGetLocalVector(dm, &gp));
  PetscCall(FEGDiscBoundaryValues(disc, g, &nz, NULL, NULL));
  PetscCall(VecZeroEntries(gp));
  PetscCall(DMPlexInsertBoundaryValues(dm, PETSC_TRUE, gp, 0.0, NULL, NULL, NULL));
  PetscCall(VecNorm(gp, NORM_INFINITY, &norm));
  PetscCall(VecAXPY(g, -1.0, gp));
  PetscCall(VecNorm(g, NORM_INFINITY, &diff));
  PetscCheck(norm > 0 && nz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no boundary value was set (PETSc's largest %g)", (double)norm);
  PetscCheck(diff <= 1e-13 * norm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "boundary values differ from PETSc's by %g (largest %g)", (double)diff, (double)norm);
  PetscCall(DMRestoreLocalVector(dm, &g));
  PetscCall(DMRestoreLocalVector(dm, &gp));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGDMProjectFunction() against DMProjectFunction() */
static PetscErrorCode compare_projection(DM dm)
{
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fegtest_exact};
  Vec       u, up;
  PetscReal diff, norm;
  PetscInt  n;

  PetscFunctionBegin;
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(VecDuplicate(u, &up));
  PetscCall(FEGDMProjectFunction(dm, 0.0, fegtest_exact, NULL, u));
  PetscCall(DMProjectFunction(dm, 0.0, funcs, NULL, INSERT_ALL_VALUES, up));
  PetscCall(VecNorm(up, NORM_INFINITY, &norm));
  PetscCall(VecAXPY(u, -1.0, up));
  PetscCall(VecNorm(u, NORM_INFINITY, &diff));
  PetscCall(VecGetSize(u, &n));
  /* (every dof of a one-layer P1 shell is on its boundary: nothing is left to compare) */
  PetscCheck((norm > 0 || n == 0) && diff <= 1e-13 * norm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "projection differs from PETSc's by %g (largest %g)", (double)diff, (double)norm);
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&up));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every element of the DM's discretization against PETSc's closure of its cell; returns the number of orientation
   classes */
static PetscErrorCode compare_with_petsc(DM dm, PetscInt *nclasses)
{
  FEGDisc       *disc;
  PetscContainer c;
  PetscSection   lsec;
  PetscInt       bad = 0, badx = 0;

  PetscFunctionBegin;
  PetscCall(FEGDMGetDisc(dm, &disc, &c));
  PetscCall(DMGetLocalSection(dm, &lsec));
  for (PetscInt e = 0; e < disc->Ne; e++) {
    const PetscInt     cell = FEGDiscCell(disc, e); /* the element order puts ghost-touching cells last */
    PetscInt          *idx  = NULL, n, nx;
    const PetscScalar *array;
    PetscScalar       *x = NULL;
    PetscBool          isDG;

    PetscCall(DMPlexGetClosureIndices(dm, lsec, lsec, cell, PETSC_TRUE, &n, &idx, NULL, NULL));
    PetscCheck(n == disc->Nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "closure size %" PetscInt_FMT, n);
    for (PetscInt i = 0; i < n; i++)
      if (disc->lidx[e * n + i] != (idx[i] >= 0 ? idx[i] : -(idx[i] + 1))) bad++;
    PetscCall(DMPlexRestoreClosureIndices(dm, lsec, lsec, cell, PETSC_TRUE, &n, &idx, NULL, NULL));
    PetscCall(DMPlexGetCellCoordinates(dm, cell, &isDG, &nx, &array, &x));
    PetscCheck(nx == disc->Nv * disc->dim, PETSC_COMM_SELF, PETSC_ERR_PLIB, "coordinate closure size %" PetscInt_FMT, nx);
    for (PetscInt k = 0; k < nx; k++)
      if (disc->X[(size_t)e * nx + k] != PetscRealPart(x[k])) badx++;
    PetscCall(DMPlexRestoreCellCoordinates(dm, cell, &isDG, &nx, &array, &x));
  }
  PetscCheck(!bad && !badx, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " dof indices and %" PetscInt_FMT " coordinates differ from PETSc's closures", bad, badx);
  *nclasses = disc->nclasses;
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_box)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 5];
  const PetscInt       order = _i % 5 < 4 ? _i % 5 + 1 : 3;
  const PetscBool      cont  = (PetscBool)(_i % 5 < 4);
  DM                   dm;
  PetscInt             ncl;

  TCHK(fegtest_setup(PETSC_COMM_WORLD, ct, order, cont, PETSC_TRUE, 3, &dm));
  if (_i % 2) TCHK(add_side_boundary(dm));
  TCHK(compare_with_petsc(dm, &ncl));
  if (cont) TCHK(compare_boundary_values(dm));
  TCHK(compare_projection(dm));
  ck_assert_msg(ncl >= 1, "%s order %d: no orientation class", DMPolytopeTypes[ct], (int)order);
  TCHK(DMDestroy(&dm));
}
END_TEST

/* an unstructured triangle mesh, curved tetrahedra and hexahedra (coordinates on edges and faces too) */
START_TEST(test_gmsh)
{
  const char    *names[3] = {"square_944.msh", "shell_tet2.msh", "annulus_hex2.msh"};
  const PetscInt order    = 1 + _i % 3;
  char           path[PETSC_MAX_PATH_LEN];
  DM             dm;
  PetscInt       ncl;

  TCHK(PetscSNPrintf(path, sizeof(path), "../share/meshes/%s", names[_i / 3]));
  TCHK(PetscOptionsSetValue(NULL, "-dofmap_feg_mesh_file", path));
  TCHK(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "dofmap_", &dm));
  TCHK(PetscOptionsClearValue(NULL, "-dofmap_feg_mesh_file"));
  TCHK(FEGSetUpDiscretization(dm, order, PETSC_TRUE, "u"));
  TCHK(fegtest_wall(dm, fegtest_exact));
  TCHK(compare_with_petsc(dm, &ncl));
  TCHK(compare_boundary_values(dm));
  TCHK(compare_projection(dm));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* meshes large enough for the bulk read's threads (16384 cells per process), with 3 threads (more than CI's cores:
   the split of the cells must not matter) */
START_TEST(test_threads)
{
  const DMPolytopeType ct[2] = {DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TETRAHEDRON};
  const PetscInt       n[2]  = {33, 20};
  DM                   dm;
  PetscInt             ncl;

  TCHK(PetscOptionsSetValue(NULL, "-feg_setup_threads", "3"));
  TCHK(fegtest_setup(PETSC_COMM_WORLD, ct[_i], 2, PETSC_TRUE, PETSC_TRUE, n[_i], &dm));
  TCHK(compare_with_petsc(dm, &ncl));
  TCHK(PetscOptionsClearValue(NULL, "-feg_setup_threads"));
  TCHK(DMDestroy(&dm));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc = tcase_create("dofmap");

  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_box, 0, 5 * 5);
  tcase_add_loop_test(tc, test_gmsh, 0, 3 * 3);
  tcase_add_loop_test(tc, test_threads, 0, 2);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "dofmap", add_tests);
}
