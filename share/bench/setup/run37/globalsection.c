/* How long PETSc's first DMGetGlobalSection() takes on a box mesh, beside fegpu's local section and a loop over the
   cells' types (CI VM, PETSc 3.18, 998k P1 tetrahedra: local section 0.033 s, global section 0.254 s, cell types
   0.019 s, first global vector 0.035 s). Build against libfegpu and run, for example:
     mpicc -O2 -o globalsection globalsection.c -I$FEGPU/include -I$FEGPU/lib/fegpu/include $PETSC_CFLAGS \
       -L$FEGPU/lib -Wl,-rpath,$FEGPU/lib -lfegpu $PETSC_LIBS
     ./globalsection -feg_cell_type tet -feg_faces 55 */
#include <fegpu.h>

int main(int argc, char **argv)
{
  DM             dm;
  PetscSection   lsec, gsec;
  PetscLogDouble t0, t1, t2, t3;
  PetscInt       cStart, cEnd;
  DMPolytopeType ct;
  Vec            v;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, NULL, &dm));
  PetscCall(FEGSetUpDiscretization(dm, 1, PETSC_TRUE, "u"));
  PetscCall(PetscTime(&t0));
  PetscCall(DMGetLocalSection(dm, &lsec));
  PetscCall(PetscTime(&t1));
  PetscCall(DMGetGlobalSection(dm, &gsec));
  PetscCall(PetscTime(&t2));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  for (PetscInt c = cStart; c < cEnd; c++) PetscCall(DMPlexGetCellType(dm, c, &ct));
  PetscCall(PetscTime(&t3));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "local section %.4f s, global section %.4f s, cell types %.4f s\n", t1 - t0, t2 - t1, t3 - t2));
  PetscCall(PetscTime(&t0));
  PetscCall(DMCreateGlobalVector(dm, &v));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "global vector %.4f s\n", t1 - t0));
  PetscCall(VecDestroy(&v));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
