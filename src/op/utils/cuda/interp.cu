/* Kernels of the transfer between two orders of a polynomial hierarchy (interp.c, interpcuda.c): element values
   gathered, one DGEMM with the element prolongation per chunk of elements, results stored or added */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegcuda.h>

/* E[k] = x[idx[k]] (times w[idx[k]] when w is given), 0 for a constrained entry */
static __global__ void FEGInterpGather_Kernel(int n, const int *__restrict__ idx, const double *__restrict__ w, const double *__restrict__ x, double *__restrict__ E)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;

  if (k >= n) return;
  {
    const int g = idx[k];

    E[k] = g >= 0 ? (w ? w[g] * x[g] : x[g]) : 0.0;
  }
}

/* y[idx[k]] = E[k] (store: the cells sharing a fine node compute the same value) or += E[k] atomically */
static __global__ void FEGInterpScatter_Kernel(int n, const int *__restrict__ idx, const double *__restrict__ E, double *__restrict__ y, int add)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;

  if (k >= n) return;
  {
    const int g = idx[k];

    if (g < 0) return;
    if (add) atomicAdd(&y[g], E[k]);
    else y[g] = E[k];
  }
}

/* y = P x (fine from coarse) or, transpose, y = P^T x; ny: y's length, zeroed for the transpose */
PetscErrorCode FEGDevInterpApply(const FEGDevInterp *d, const double *x, double *y, int transpose, int ny)
{
  const double one = 1.0, zero = 0.0;
  const int    nt = 256;
  void        *h;

  PetscFunctionBegin;
  PetscCall(FEGDevGetCublas(&h));
  if (transpose) PetscCall(FEGDevZero(y, (size_t)ny));
  for (int e0 = 0; e0 < d->Ne; e0 += d->chunk) {
    const int n = PetscMin(d->chunk, d->Ne - e0), nf = n * d->Nbf, nc = n * d->Nbc;

    if (!transpose) {
      FEGInterpGather_Kernel<<<(nc + nt - 1) / nt, nt>>>(nc, d->cidx + (size_t)e0 * d->Nbc, NULL, x, d->Ec);
      FEGCheckLaunch("FEGInterpGather_Kernel");
      PetscCallCUBLAS(cublasDgemm((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, d->Nbf, n, d->Nbc, &one, d->Pe, d->Nbf, d->Ec, d->Nbc, &zero, d->Ef, d->Nbf));
      FEGInterpScatter_Kernel<<<(nf + nt - 1) / nt, nt>>>(nf, d->fidx + (size_t)e0 * d->Nbf, d->Ef, y, 0);
      FEGCheckLaunch("FEGInterpScatter_Kernel");
    } else {
      FEGInterpGather_Kernel<<<(nf + nt - 1) / nt, nt>>>(nf, d->fidx + (size_t)e0 * d->Nbf, d->w, x, d->Ef);
      FEGCheckLaunch("FEGInterpGather_Kernel");
      PetscCallCUBLAS(cublasDgemm((cublasHandle_t)h, CUBLAS_OP_T, CUBLAS_OP_N, d->Nbc, n, d->Nbf, &one, d->Pe, d->Nbf, d->Ef, d->Nbf, &zero, d->Ec, d->Nbc));
      FEGInterpScatter_Kernel<<<(nc + nt - 1) / nt, nt>>>(nc, d->cidx + (size_t)e0 * d->Nbc, d->Ec, y, 1);
      FEGCheckLaunch("FEGInterpScatter_Kernel");
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
