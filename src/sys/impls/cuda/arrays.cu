/* Index-array kernels every layer's device code uses */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegdevice.h>

/* dst[l*Ne+e] = src[e*Nb+l]: the element-interleaved layout kernels read, made on the device from the host's
   element-major array (a transpose on the host writes one cache line per entry) */
static __global__ void FEGInterleave_Kernel(int Ne, int Nb, const int *__restrict__ src, int *__restrict__ dst)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= (size_t)Ne * Nb) return;
  const int l = (int)(k / Ne), e = (int)(k % Ne);
  dst[k] = src[(size_t)e * Nb + l];
}

PetscErrorCode FEGDevInterleave(int Ne, int Nb, const int *src, int *dst)
{
  const size_t n = (size_t)Ne * Nb;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGInterleave_Kernel<<<(unsigned)((n + 255) / 256), 256>>>(Ne, Nb, src, dst);
  FEGCheckLaunch("FEGInterleave_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* out[k] = map[idx[k]], e.g. global indices from local ones */
static __global__ void FEGMapIndices_Kernel(size_t n, const int *__restrict__ idx, const int *__restrict__ map, int *__restrict__ out)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = map[idx[k]];
}

PetscErrorCode FEGDevMapIndices(size_t n, const int *idx, const int *map, int *out)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGMapIndices_Kernel<<<(unsigned)((n + 255) / 256), 256>>>(n, idx, map, out);
  FEGCheckLaunch("FEGMapIndices_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst[i*len+k] = src[rows[i]*len+k]: rows of values put in another order (per-cell arrays in an element order) */
static __global__ void FEGGatherRows_Kernel(size_t n, int len, const int *__restrict__ rows, const double *__restrict__ src, double *__restrict__ dst)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[(size_t)rows[k / len] * len + k % len];
}

PetscErrorCode FEGDevGatherRows(int nrows, int len, const int *rows, const double *src, double *dst)
{
  const size_t n = (size_t)nrows * len;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGGatherRows_Kernel<<<(unsigned)((n + 255) / 256), 256>>>(n, len, rows, src, dst);
  FEGCheckLaunch("FEGGatherRows_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
