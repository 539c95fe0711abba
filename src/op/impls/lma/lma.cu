/* LMA on the GPU: gather x per element, multiply by the element-interleaved element matrices (coalesced loads), then
   scatter-add with atomics, or write per-entry results and gather them per dof through a transpose map built once
   with CUB (radix sort of entry -> dof, exclusive scan of counts): deterministic, no atomics */
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <fegpu/private/fegcuda.h>

#define FEG_LMA_SMALL 32

/* one element per thread; Ke[(a*Nb+b)*Ne+e]; ybuf != NULL: write ye there ([a*Ne+e]) instead of atomics into y */
template <int NBMAX>
static __global__ void FEGLMASmall_Kernel(int Ne, int Nb, const int *__restrict__ idx, const double *__restrict__ Ke, const double *__restrict__ x, double *__restrict__ y, int transpose, double *__restrict__ ybuf)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  double xe[NBMAX];

  for (int b = 0; b < Nb; b++) xe[b] = x[idx[(size_t)b * Ne + e]];
  for (int a = 0; a < Nb; a++) {
    double s = 0.0;
    if (!transpose)
      for (int b = 0; b < Nb; b++) s += Ke[((size_t)a * Nb + b) * Ne + e] * xe[b];
    else
      for (int b = 0; b < Nb; b++) s += Ke[((size_t)b * Nb + a) * Ne + e] * xe[b];
    if (ybuf) ybuf[(size_t)a * Ne + e] = s;
    else atomicAdd(&y[idx[(size_t)a * Ne + e]], s);
  }
}

/* large elements: one (element, row) pair per thread, element index fastest, so the element matrix loads are coalesced
   and small meshes of large elements still fill the GPU */
static __global__ void FEGLMARow_Kernel(int Ne, int Nb, const int *__restrict__ idx, const double *__restrict__ Ke, const double *__restrict__ x, double *__restrict__ y, int transpose, double *__restrict__ ybuf)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)Ne * Nb) return;
  const int e = (int)(t % Ne), a = (int)(t / Ne);
  double    s = 0.0;

  for (int b = 0; b < Nb; b++) s += Ke[((size_t)(transpose ? b * Nb + a : a * Nb + b)) * Ne + e] * __ldg(&x[idx[(size_t)b * Ne + e]]);
  if (ybuf) ybuf[t] = s;
  else atomicAdd(&y[idx[t]], s);
}

static __global__ void FEGGather_Kernel(int n, const int *__restrict__ off, const int *__restrict__ list, const double *__restrict__ ybuf, double *__restrict__ y)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  for (int k = off[i]; k < off[i + 1]; k++) s += ybuf[list[k]];
  y[i] += s;
}

PetscErrorCode FEGDevLMAApply(const FEGDevDisc *d, const double *Ke, const double *x, double *y, int transpose, int nlocal, const int *toff, const int *tlist, double *ybuf)
{
  const int nt = 128;

  PetscFunctionBegin;
  if (d->Ne) {
    if (d->Nb <= 8) FEGLMASmall_Kernel<8><<<(d->Ne + nt - 1) / nt, nt>>>(d->Ne, d->Nb, d->idx, Ke, x, y, transpose, tlist ? ybuf : NULL);
    else if (d->Nb <= FEG_LMA_SMALL) FEGLMASmall_Kernel<FEG_LMA_SMALL><<<(d->Ne + nt - 1) / nt, nt>>>(d->Ne, d->Nb, d->idx, Ke, x, y, transpose, tlist ? ybuf : NULL);
    else FEGLMARow_Kernel<<<(unsigned)(((size_t)d->Ne * d->Nb + nt - 1) / nt), nt>>>(d->Ne, d->Nb, d->idx, Ke, x, y, transpose, tlist ? ybuf : NULL);
    PetscCallCUDA(cudaPeekAtLastError());
  }
  if (tlist && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y[i] += sum of the per-entry results of local dof i (the transpose map of FEGDevTransposeMap) */
PetscErrorCode FEGDevGather(int n, const int *off, const int *list, const double *ybuf, double *y)
{
  const int nt = 128;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGGather_Kernel<<<(n + nt - 1) / nt, nt>>>(n, off, list, ybuf, y);
  PetscCallCUDA(cudaPeekAtLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static __global__ void FEGLMADiag_Kernel(int Ne, int Nb, const int *__restrict__ idx, const double *__restrict__ Ke, double *__restrict__ diag)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  for (int a = 0; a < Nb; a++) atomicAdd(&diag[idx[(size_t)a * Ne + e]], Ke[((size_t)a * Nb + a) * Ne + e]);
}

PetscErrorCode FEGDevLMADiagonal(const FEGDevDisc *d, const double *Ke, double *diag)
{
  const int nt = 128;

  PetscFunctionBegin;
  if (!d->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  FEGLMADiag_Kernel<<<(d->Ne + nt - 1) / nt, nt>>>(d->Ne, d->Nb, d->idx, Ke, diag);
  PetscCallCUDA(cudaPeekAtLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

static __global__ void FEGCount_Kernel(int n, const int *__restrict__ key, int *__restrict__ count, int *__restrict__ iota)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  atomicAdd(&count[key[k]], 1);
  iota[k] = k;
}

/* Transpose map of the element-interleaved entries k = a*Ne+e: list[off[i]..off[i+1]) are the entries of local dof i */
PetscErrorCode FEGDevTransposeMap(const FEGDevDisc *d, int nlocal, int **off, int **list)
{
  const int n = d->Ne * d->Nb, nt = 128;
  int      *count, *iota, *keys;
  void     *tmp  = NULL;
  size_t    ntmp = 0, nscan = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)off, (nlocal + 1) * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)list, PetscMax(n, 1) * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&count, (nlocal + 1) * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&iota, PetscMax(n, 1) * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&keys, PetscMax(n, 1) * sizeof(int)));
  PetscCallCUDA(cudaMemset(count, 0, (nlocal + 1) * sizeof(int)));
  if (n) {
    FEGCount_Kernel<<<(n + nt - 1) / nt, nt>>>(n, d->idx, count, iota);
    PetscCallCUDA(cudaPeekAtLastError());
  }
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, ntmp, d->idx, keys, iota, *list, n));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, nscan, count, *off, nlocal + 1));
  PetscCallCUDA(cudaMalloc(&tmp, PetscMax(ntmp, nscan) + 1));
  ntmp = nscan = PetscMax(ntmp, nscan) + 1;
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, ntmp, d->idx, keys, iota, *list, n));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, nscan, count, *off, nlocal + 1));
  PetscCallCUDA(cudaFree(tmp));
  PetscCallCUDA(cudaFree(count));
  PetscCallCUDA(cudaFree(iota));
  PetscCallCUDA(cudaFree(keys));
  PetscFunctionReturn(PETSC_SUCCESS);
}
