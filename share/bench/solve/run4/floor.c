/* Solve run 4: the floor of PETSc's own solver iterations on the GPU at advdiff's size, whatever the operator costs.
   The operator is a MATSHELL on CUDA vectors whose product is one pointwise multiply (y = d1 .* x, one kernel: the
   cheapest product a solver can call), and whose diagonal for PCJACOBI is another vector d2, so that the
   Jacobi-scaled operator d1 ./ d2 has distinct eigenvalues in [1/2, 2] (Wathen's bounds for advdiff's mass matrix) and
   CG does not converge early. It runs advdiff's two solvers as advdiff sets them up (share/../examples/advdiff.c):
   - the mass solves: Chebyshev on [1/2, 2], no norms, convergence test skipped, 26 iterations, Jacobi; 800 solves
     (200 steps, four RK stages);
   - the diffusion solves: CG with the natural norm, Jacobi, a fixed 12 iterations (advdiff's 2450 in 200 solves);
   each solve's device work waited for, as advdiff's Solve() does. -op aij instead applies a 7-point mass-like
   AIJCUSPARSE matrix of the same size (a real sparse product, cuSPARSE's SpMV). Build with the CUDA bundle:
     source .gpu/env.sh && mpicc -O2 -o floor share/bench/solve/run4/floor.c -I$PETSC_DIR/include -L$PETSC_DIR/lib \
       -Wl,-rpath,$PETSC_DIR/lib -lpetsc -lcudart
   Run: ./floor -vec_type cuda [-n 522] [-op shell|aij] [-mass 800] [-diff 200] */
#include <petscksp.h>
#include <petscdevice.h>

typedef struct {
  Vec d1, d2;
} Shell;

static PetscErrorCode ShellMult(Mat A, Vec x, Vec y)
{
  Shell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &s));
  PetscCall(VecPointwiseMult(y, s->d1, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ShellDiag(Mat A, Vec d)
{
  Shell *s;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &s));
  PetscCall(VecCopy(s->d2, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* nsolves solves of ksp; returns the seconds, the device's work included */
static PetscErrorCode Solves(KSP ksp, Vec b, Vec x, PetscBool device, PetscInt nsolves, PetscInt *its, PetscLogDouble *t)
{
  PetscDeviceContext dctx = NULL;
  PetscLogDouble     t0, t1;
  PetscInt           n;

  PetscFunctionBegin;
  *its = 0;
  if (device) {
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
  PetscCall(PetscTime(&t0));
  for (PetscInt i = 0; i < nsolves; i++) {
    PetscCall(KSPSolve(ksp, b, x));
    if (device) PetscCall(PetscDeviceContextSynchronize(dctx));
    PetscCall(KSPGetIterationNumber(ksp, &n));
    *its += n;
  }
  PetscCall(PetscTime(&t1));
  *t = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat            A;
  Vec            b, x;
  KSP            km, kd;
  PC             pc;
  Shell          s;
  PetscInt       n = 522, N, nm = 800, nd = 200, itm, itd;
  char           op[16] = "shell";
  PetscRandom    r;
  PetscLogDouble tm, td;
  PetscBool      device;
  VecType        vt;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mass", &nm, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-diff", &nd, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-op", op, sizeof(op), NULL));
  N = n * n;
  PetscCall(VecCreate(PETSC_COMM_SELF, &x));
  PetscCall(VecSetSizes(x, N, N));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecGetType(x, &vt));
  PetscCall(PetscStrbeginswith(vt, "seqcuda", &device));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &s.d1));
  PetscCall(VecDuplicate(x, &s.d2));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, 1.0, 2.0));
  PetscCall(PetscRandomSetFromOptions(r));
  PetscCall(VecSetRandom(s.d1, r)); /* d1 in [1, 2], d2 = 1.25: d1 ./ d2 in [0.8, 1.6], inside [1/2, 2] */
  PetscCall(VecSet(s.d2, 1.25));
  PetscCall(VecSetRandom(b, r));
  if (!strcmp(op, "aij")) {
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 7, NULL, &A));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) {
        PetscInt    row = i * n + j, c[7], k = 0;
        PetscScalar v[7];

        c[k]   = row;
        v[k++] = 1.0;
        if (i > 0) c[k] = row - n, v[k++] = 1.0 / 12;
        if (i < n - 1) c[k] = row + n, v[k++] = 1.0 / 12;
        if (j > 0) c[k] = row - 1, v[k++] = 1.0 / 12;
        if (j < n - 1) c[k] = row + 1, v[k++] = 1.0 / 12;
        if (i > 0 && j < n - 1) c[k] = row - n + 1, v[k++] = 1.0 / 12;
        if (i < n - 1 && j > 0) c[k] = row + n - 1, v[k++] = 1.0 / 12;
        PetscCall(MatSetValues(A, 1, &row, k, c, v, INSERT_VALUES));
      }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    if (device) PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &A));
  } else {
    PetscCall(MatCreateShell(PETSC_COMM_SELF, N, N, N, N, &s, &A));
    PetscCall(MatShellSetOperation(A, MATOP_MULT, (void (*)(void))ShellMult));
    PetscCall(MatShellSetOperation(A, MATOP_GET_DIAGONAL, (void (*)(void))ShellDiag));
    PetscCall(MatShellSetVecType(A, vt));
  }
  /* advdiff's mass solver */
  PetscCall(KSPCreate(PETSC_COMM_SELF, &km));
  PetscCall(KSPSetOperators(km, A, A));
  PetscCall(KSPSetType(km, KSPCHEBYSHEV));
  PetscCall(KSPChebyshevSetEigenvalues(km, 2.0, 0.5));
  PetscCall(KSPSetNormType(km, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(km, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPGetPC(km, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(km, 1e-12, 1e-50, PETSC_DEFAULT, 26));
  PetscCall(KSPSetOptionsPrefix(km, "mass_"));
  PetscCall(KSPSetFromOptions(km));
  /* advdiff's diffusion solver, for a fixed 12 iterations */
  PetscCall(KSPCreate(PETSC_COMM_SELF, &kd));
  PetscCall(KSPSetOperators(kd, A, A));
  PetscCall(KSPSetType(kd, KSPCG));
  PetscCall(KSPSetNormType(kd, KSP_NORM_NATURAL));
  PetscCall(KSPGetPC(kd, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(kd, 1e-30, 1e-300, PETSC_DEFAULT, 12));
  PetscCall(KSPSetOptionsPrefix(kd, "diff_"));
  PetscCall(KSPSetFromOptions(kd));
  PetscCall(KSPSetUp(km));
  PetscCall(KSPSetUp(kd));
  PetscCall(Solves(km, b, x, device, 4, &itm, &tm)); /* warm up */
  PetscCall(Solves(kd, b, x, device, 4, &itd, &td));
  PetscCall(Solves(km, b, x, device, nm, &itm, &tm));
  PetscCall(Solves(kd, b, x, device, nd, &itd, &td));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "floor: %" PetscInt_FMT " unknowns, operator %s, vectors %s\n", N, op, vt));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  mass solves (chebyshev): %" PetscInt_FMT " solves, %" PetscInt_FMT " iterations, %.3f s, %.2f us an iteration\n", nm, itm, tm, 1e6 * tm / PetscMax(itm, 1)));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  diffusion solves (cg): %" PetscInt_FMT " solves, %" PetscInt_FMT " iterations, %.3f s, %.2f us an iteration\n", nd, itd, td, 1e6 * td / PetscMax(itd, 1)));
  PetscCall(KSPDestroy(&km));
  PetscCall(KSPDestroy(&kd));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&s.d1));
  PetscCall(VecDestroy(&s.d2));
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(PetscFinalize());
  return 0;
}
