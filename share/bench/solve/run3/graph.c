#include <petscksp.h>
#include <petscdevice_cuda.h>
#include <petsc/private/vecimpl.h>

static Mat   Aglob;
static void *xa_probe;
typedef struct {
  PetscDeviceContext dctx;
  cudaGraph_t        graph;
  cudaGraphExec_t    exec;
  PetscInt           calls;
} G;

static PetscErrorCode SolveGraph(KSP ksp, Vec b, Vec x, G *g, PetscBool *captured)
{
  PetscDeviceContext cur;
  void              *h;
  cudaStream_t       s;
  PetscScalar       *xa;

  PetscFunctionBegin;
  *captured = PETSC_FALSE;
  if (g->calls++ == 0) {
    PetscCall(KSPSolve(ksp, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscDeviceContextGetCurrentContext(&cur));
  if (!g->dctx) {
    PetscCall(PetscDeviceContextDuplicate(cur, &g->dctx));
    PetscCall(PetscDeviceContextSetStreamType(g->dctx, PETSC_STREAM_NONBLOCKING));
    PetscCall(PetscDeviceContextSetUp(g->dctx));
  }
  {
    PetscBool direct = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-direct", &direct, NULL));
    if (direct) {
      PetscCall(PetscDeviceContextDestroy(&g->dctx));
      g->dctx = cur;
    }
  }
  PetscCall(PetscDeviceContextGetStreamHandle(g->dctx, &h));
  s = *(cudaStream_t *)h;
  PetscCall(PetscDeviceContextWaitForContext(g->dctx, cur));
  if (!g->exec) {
    PetscCall(PetscDeviceContextSynchronize(cur));
    PetscCall(PetscDeviceContextSetCurrentContext(g->dctx));
    Vec t;
    PetscCall(VecDuplicate(x, &t));
    PetscCall(VecSet(t, 1.0));
    PetscCall(PetscDeviceContextSynchronize(NULL));
    PetscCallCUDA(cudaStreamBeginCapture(s, (enum cudaStreamCaptureMode)FEG_MODE));
    {
      cudaStream_t                 cs;
      PetscStreamType              st0, st1;
      enum cudaStreamCaptureStatus cst;
      PetscCall(PetscGetCurrentCUDAStream(&cs));
      PetscCall(PetscDeviceContextGetStreamType(cur, &st0));
      PetscCall(PetscDeviceContextGetStreamType(g->dctx, &st1));
      PetscCallCUDA(cudaStreamIsCapturing(cs, &cst));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "s %p current stream %p types %d %d capturing %d\n", (void *)s, (void *)cs, (int)st0, (int)st1, (int)cst));
    }
#define PROBE(what, call) \
  do { \
    size_t                       nn, nodes = 0; \
    cudaGraph_t                  gg; \
    enum cudaStreamCaptureStatus cst; \
    call; \
    PetscCallCUDA(cudaStreamGetCaptureInfo(s, &cst, NULL, &gg, NULL, NULL, &nn)); \
    if (cst == cudaStreamCaptureStatusActive) PetscCallCUDA(cudaGraphGetNodes(gg, NULL, &nodes)); \
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: status %d deps %zu nodes %zu\n", what, (int)cst, nn, nodes)); \
  } while (0)
    {
      PROBE("memset", PetscCallCUDA(cudaMemsetAsync(xa_probe, 0, 8, s)));
      PROBE("VecAXPY", PetscCall(VecAXPY(t, 1.0, b)));
      PROBE("VecPointwiseMult", PetscCall(VecPointwiseMult(t, t, b)));
      PROBE("MatMult", PetscCall(MatMult(Aglob, b, t)));
    }
    PROBE("KSPSetUp", PetscCall(KSPSetUp(ksp)));
    PROBE("VecSet", PetscCall(VecSet(x, 7.0)));
    {
      const PetscScalar *xp;
      double             v = -1;
      cublasHandle_t     bh;
      cudaStream_t       bs;
      PetscCall(VecCUDAGetArrayRead(x, &xp));
      PetscCallCUDA(cudaMemcpy(&v, xp, sizeof(double), cudaMemcpyDeviceToHost));
      PetscCall(VecCUDARestoreArrayRead(x, &xp));
      PetscCall(PetscCUBLASGetHandle(&bh));
      cublasGetStream(bh, &bs);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "x[0] read during capture %g; cublas stream %p offload %d\n", v, (void *)bs, (int)x->offloadmask));
    }
    PROBE("VecCopy", PetscCall(VecCopy(b, t)));
    PROBE("PCApply", {
      PC pc;
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCApply(pc, b, t));
    });
    PROBE("VecAYPX", PetscCall(VecAYPX(t, 0.5, b)));
    PROBE("VecAXPBYCZ", PetscCall(VecAXPBYPCZ(t, 0.5, 0.25, 2.0, b, x)));
    PROBE("KSPSolve", PetscCall(KSPSolve(ksp, b, x)));
    {
      size_t                       nn;
      cudaGraph_t                  gg;
      enum cudaStreamCaptureStatus cst;
      unsigned long long           id;
      PetscCallCUDA(cudaStreamGetCaptureInfo(s, &cst, &id, &gg, NULL, NULL, &nn));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "after solve: capture status %d id %llu deps %zu last error %s\n", (int)cst, id, nn, cudaGetErrorString(cudaGetLastError())));
    }
    PetscCallCUDA(cudaStreamEndCapture(s, &g->graph));
    PetscCall(VecDestroy(&t));
    PetscCall(PetscDeviceContextSetCurrentContext(cur));
    PetscCallCUDA(cudaGraphInstantiate(&g->exec, g->graph, 0));
    *captured = PETSC_TRUE;
  }
  PetscCallCUDA(cudaGraphLaunch(g->exec, s));
  PetscCall(PetscDeviceContextWaitForContext(cur, g->dctx));
  PetscCall(VecCUDAGetArrayWrite(x, &xa)); /* tells PETSc x changed on the device */
  PetscCall(VecCUDARestoreArrayWrite(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat            A;
  Vec            b, x, xr;
  KSP            ksp;
  PC             pc;
  PetscInt       n = 512, N, its = 26, reps = 200;
  PetscReal      err, nrm;
  G              g = {0};
  PetscBool      cap;
  PetscLogDouble t0, t1, t2;
  size_t         nnodes;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  N = n * n;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 7, NULL, &A));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscInt    r = i * n + j, c[7], k = 0;
      PetscScalar v[7];
      c[k]   = r;
      v[k++] = 1.0;
      if (i > 0) {
        c[k]   = r - n;
        v[k++] = 1.0 / 12;
      }
      if (i < n - 1) {
        c[k]   = r + n;
        v[k++] = 1.0 / 12;
      }
      if (j > 0) {
        c[k]   = r - 1;
        v[k++] = 1.0 / 12;
      }
      if (j < n - 1) {
        c[k]   = r + 1;
        v[k++] = 1.0 / 12;
      }
      if (i > 0 && j < n - 1) {
        c[k]   = r - n + 1;
        v[k++] = 1.0 / 12;
      }
      if (i < n - 1 && j > 0) {
        c[k]   = r + n - 1;
        v[k++] = 1.0 / 12;
      }
      PetscCall(MatSetValues(A, 1, &r, k, c, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  Aglob = A;
  PetscCallCUDA(cudaMalloc(&xa_probe, 64));
  PetscCall(VecDuplicate(x, &xr));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCHEBYSHEV));
  PetscCall(KSPChebyshevSetEigenvalues(ksp, 2.0, 0.5));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-50, PETSC_DEFAULT, its));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, xr));
  PetscCall(PetscDeviceContextSynchronize(NULL));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(KSPSolve(ksp, b, xr));
  PetscCall(PetscDeviceContextSynchronize(NULL));
  PetscCall(PetscTime(&t1));
  PetscCall(SolveGraph(ksp, b, x, &g, &cap));
  PetscCall(SolveGraph(ksp, b, x, &g, &cap));
  PetscCall(PetscDeviceContextSynchronize(NULL));
  PetscCallCUDA(cudaGraphGetNodes(g.graph, NULL, &nnodes));
  PetscCall(VecAXPY(x, -1.0, xr));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(VecNorm(xr, NORM_2, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "N %d its %d graph nodes %zu: captured solve vs plain |dx|/|x| %g\n", (int)N, (int)its, nnodes, (double)(err / nrm)));
  PetscCall(VecSet(x, 3.0));
  PetscCall(PetscDeviceContextSynchronize(NULL));
  PetscCall(PetscTime(&t1));
  for (PetscInt r = 0; r < reps; r++) PetscCall(SolveGraph(ksp, b, x, &g, &cap));
  PetscCall(PetscDeviceContextSynchronize(NULL));
  PetscCall(PetscTime(&t2));
  PetscCall(VecAXPY(x, -1.0, xr));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "replayed vs plain |dx|/|x| %g\nplain KSPSolve %.1f us per solve (%.2f us/it), graph %.1f us per solve (%.2f us/it), ratio %.2f\n", (double)(err / nrm), 1e6 * (t1 - t0) / reps, 1e6 * (t1 - t0) / reps / its, 1e6 * (t2 - t1) / reps, 1e6 * (t2 - t1) / reps / its, (t1 - t0) / (t2 - t1)));
  PetscCallCUDA(cudaGraphExecDestroy(g.exec));
  PetscCallCUDA(cudaGraphDestroy(g.graph));
  PetscCall(PetscDeviceContextDestroy(&g.dctx));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xr));
  PetscCall(PetscFinalize());
  return 0;
}
