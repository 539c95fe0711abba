/* PETSc's local and global sections against fegpu's local section (FEGDMSetUpSection(), which FEGSetUpDiscretization()
   installs) on two copies of the same mesh and field, in one process; the mesh from FEGCreateMeshFromOptions().
     mpicc $(pkg-config --cflags petsc) -I../../../include -I../../../lib/fegpu/include sections.c -o sections \
       -L../../../lib -Wl,-rpath,$PWD/../../../lib -lfegpu $(pkg-config --libs petsc)
     ./sections -feg_cell_type hex -feg_faces 100 -order 2 -reps 3 [-bc]   (-bc: an essential condition on the box's
   boundary, label "marker", as BP3 has) */
#include <fegpu.h>

int main(int argc, char **argv)
{
  PetscInt  order = 1, reps = 3, dim, cStart, cEnd, pStart, pEnd;
  PetscBool bc = PETSC_FALSE;
  DM        base;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-order", &order, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bc", &bc, NULL));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, NULL, &base));
  PetscCall(DMGetDimension(base, &dim));
  PetscCall(DMPlexGetHeightStratum(base, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetChart(base, &pStart, &pEnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " cells, %" PetscInt_FMT " points, order %" PetscInt_FMT "\n", cEnd - cStart, pEnd - pStart, order));
  for (PetscInt r = 0; r < reps; r++) {
    for (PetscInt k = 0; k < 2; k++) {
      DM             dm;
      PetscSection   s;
      PetscLogDouble t0, t1, t2;
      PetscInt       n;

      /* a clone shares the topology; its own fields and sections */
      PetscCall(DMClone(base, &dm));
      if (k) PetscCall(FEGSetUpDiscretization(dm, order, PETSC_TRUE, "u"));
      else {
        PetscFE        fe;
        DMPolytopeType ct;

        PetscCall(DMPlexGetCellType(dm, cStart, &ct));
        PetscCall(FEGCreateFE(PETSC_COMM_WORLD, dim, ct, order, PETSC_TRUE, &fe));
        PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
        PetscCall(PetscFEDestroy(&fe));
        PetscCall(DMCreateDS(dm));
      }
      if (bc) {
        DMLabel  label;
        PetscInt id = 1;

        PetscCall(DMGetLabel(dm, "marker", &label));
        PetscCall(DMAddBoundary(dm, DM_BC_ESSENTIAL, "wall", label, 1, &id, 0, 0, NULL, NULL, NULL, NULL, NULL));
      }
      PetscCall(PetscTime(&t0));
      PetscCall(DMGetLocalSection(dm, &s));
      PetscCall(PetscTime(&t1));
      PetscCall(DMGetGlobalSection(dm, &s));
      PetscCall(PetscTime(&t2));
      PetscCall(PetscSectionGetStorageSize(s, &n));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rep %" PetscInt_FMT " %s: local %.4f s, global %.4f s (%" PetscInt_FMT " dofs)\n", r, k ? "fegpu" : "petsc", t1 - t0, t2 - t1, n));
      PetscCall(DMDestroy(&dm));
    }
  }
  PetscCall(DMDestroy(&base));
  PetscCall(PetscFinalize());
  return 0;
}
