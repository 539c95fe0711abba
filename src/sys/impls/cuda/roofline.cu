/* The machine's own ceilings, measured where fegpu runs: STREAM triad bandwidth, FP64 FMA throughput and the rate of
   double-precision atomicAdd to scattered addresses, so benchmarks report percentages of what this GPU can do */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegdevice.h>

static __global__ void FEGTriad_Kernel(size_t n, double a, const double *__restrict__ x, const double *__restrict__ y, double *__restrict__ w)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) w[i] = a * x[i] + y[i];
}

static __global__ void FEGFma_Kernel(int iters, double *out)
{
  double a = threadIdx.x * 1e-3, b = 1.0 + 1e-9, c0 = 0.5, c1 = 0.25, c2 = 0.125, c3 = 0.0625, c4 = 1e-3, c5 = 2e-3, c6 = 3e-3, c7 = 4e-3;

  for (int k = 0; k < iters; k++) {
    c0 = fma(c0, b, a);
    c1 = fma(c1, b, a);
    c2 = fma(c2, b, a);
    c3 = fma(c3, b, a);
    c4 = fma(c4, b, a);
    c5 = fma(c5, b, a);
    c6 = fma(c6, b, a);
    c7 = fma(c7, b, a);
  }
  if (c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 == 42.0) out[0] = 1.0; /* keeps the loop alive */
}

static __global__ void FEGAtomic_Kernel(size_t n, unsigned m, double *__restrict__ y)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) atomicAdd(&y[(unsigned)(i * 2654435761u) % m], 1.0);
}

static PetscErrorCode FEGTimeKernel(cudaEvent_t e0, cudaEvent_t e1, float *ms)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize(e1));
  PetscCallCUDA(cudaEventElapsedTime(ms, e0, e1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevRoofline(double *triad, double *fma, double *atomics)
{
  const size_t n = (size_t)1 << 27; /* 1 GiB per vector */
  double      *x, *y, *w;
  cudaEvent_t  e0, e1;
  float        ms, best;
  int          sms;

  PetscFunctionBegin;
  PetscCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  PetscCallCUDA(cudaMalloc((void **)&x, n * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&y, n * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&w, n * sizeof(double)));
  PetscCallCUDA(cudaMemset(x, 0, n * sizeof(double)));
  PetscCallCUDA(cudaMemset(y, 0, n * sizeof(double)));
  PetscCallCUDA(cudaEventCreate(&e0));
  PetscCallCUDA(cudaEventCreate(&e1));
  best = 1e30f;
  for (int r = 0; r < 6; r++) {
    PetscCallCUDA(cudaEventRecord(e0));
    FEGTriad_Kernel<<<sms * 8, 256>>>(n, 3.0, x, y, w);
    PetscCallCUDA(cudaEventRecord(e1));
    PetscCall(FEGTimeKernel(e0, e1, &ms));
    best = PetscMin(best, ms);
  }
  *triad = 3.0 * n * sizeof(double) / (best * 1e-3) / 1e9;
  best   = 1e30f;
  for (int r = 0; r < 3; r++) {
    const int iters = 4096;
    PetscCallCUDA(cudaEventRecord(e0));
    FEGFma_Kernel<<<sms * 16, 256>>>(iters, w);
    PetscCallCUDA(cudaEventRecord(e1));
    PetscCall(FEGTimeKernel(e0, e1, &ms));
    best = PetscMin(best, ms);
    *fma = 2.0 * 8 * iters * (double)sms * 16 * 256 / (best * 1e-3) / 1e9;
  }
  best = 1e30f;
  for (int r = 0; r < 3; r++) {
    PetscCallCUDA(cudaEventRecord(e0));
    FEGAtomic_Kernel<<<sms * 8, 256>>>(n, (unsigned)(n / 8), w);
    PetscCallCUDA(cudaEventRecord(e1));
    PetscCall(FEGTimeKernel(e0, e1, &ms));
    best = PetscMin(best, ms);
  }
  *atomics = (double)n / (best * 1e-3) / 1e9;
  PetscCallCUDA(cudaEventDestroy(e0));
  PetscCallCUDA(cudaEventDestroy(e1));
  PetscCallCUDA(cudaFree(x));
  PetscCallCUDA(cudaFree(y));
  PetscCallCUDA(cudaFree(w));
  PetscFunctionReturn(PETSC_SUCCESS);
}
