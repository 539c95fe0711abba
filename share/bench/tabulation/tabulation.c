/* DMCreateDS() of a hexahedral (or quadrilateral) Lagrange field with fegpu's element (FEGCreateFE(): tabulated from 1D
   factors) and with PETSc's PetscFEBasic on the same basis space, dual space and quadratures (tabulated as the prime
   basis times the inverse Vandermonde matrix), in one process; DMCreateDS() tabulates at the cell and face quadrature
   points. Build (in the repository root, after make):
     mpicc -O2 -I$PETSC_DIR/include -Iinclude -Ilib/fegpu/include share/bench/tabulation/tabulation.c -o tabulation \
       -Llib -Wl,-rpath,$PWD/lib -lfegpu -L$PETSC_DIR/lib -Wl,-rpath,$PETSC_DIR/lib -lpetsc
     ./tabulation -dim 3 -orders 2,4,6,8 */
#include <fegpu.h>

int main(int argc, char **argv)
{
  PetscInt orders[8] = {2, 4, 6, 8}, no = 8, dim = 3, faces[3] = {1, 1, 1};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-orders", orders, &no, NULL));
  if (no == 8) no = 4;
  for (PetscInt i = 0; i < no; i++) {
    const DMPolytopeType ct = dim == 2 ? DM_POLYTOPE_QUADRILATERAL : DM_POLYTOPE_HEXAHEDRON;
    PetscFE              fe[2];
    PetscLogDouble       t[2];
    PetscInt             Nb;

    PetscCall(FEGCreateFE(PETSC_COMM_WORLD, dim, ct, orders[i], PETSC_TRUE, &fe[0]));
    {
      PetscSpace      P;
      PetscDualSpace  Q;
      PetscQuadrature q, fq;

      PetscCall(PetscFEGetBasisSpace(fe[0], &P));
      PetscCall(PetscFEGetDualSpace(fe[0], &Q));
      PetscCall(PetscFEGetQuadrature(fe[0], &q));
      PetscCall(PetscFEGetFaceQuadrature(fe[0], &fq));
      PetscCall(PetscFECreate(PETSC_COMM_WORLD, &fe[1]));
      PetscCall(PetscFESetType(fe[1], PETSCFEBASIC));
      PetscCall(PetscFESetNumComponents(fe[1], 1));
      PetscCall(PetscFESetBasisSpace(fe[1], P));
      PetscCall(PetscFESetDualSpace(fe[1], Q));
      PetscCall(PetscFESetUp(fe[1]));
      PetscCall(PetscFESetQuadrature(fe[1], q));
      PetscCall(PetscFESetFaceQuadrature(fe[1], fq));
    }
    PetscCall(PetscFEGetDimension(fe[0], &Nb));
    for (PetscInt k = 0; k < 2; k++) {
      DM             dm;
      PetscLogDouble t0, t1;

      PetscCall(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, NULL, NULL, 0.0, &dm));
      PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe[k]));
      PetscCall(PetscTime(&t0));
      PetscCall(DMCreateDS(dm));
      PetscCall(PetscTime(&t1));
      t[k] = t1 - t0;
      PetscCall(DMDestroy(&dm));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "order %" PetscInt_FMT " (%" PetscInt_FMT " functions): DMCreateDS fegpu %.4f s, PETSc %.4f s, ratio %.1f\n", orders[i], Nb, t[0], t[1], t[1] / t[0]));
    PetscCall(PetscFEDestroy(&fe[0]));
    PetscCall(PetscFEDestroy(&fe[1]));
  }
  PetscCall(PetscFinalize());
  return 0;
}
