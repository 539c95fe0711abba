/* Scatters shared by the element-local operators on the GPU: the deterministic alternative to atomics is a transpose
   map (the element entries of each local dof, built once with CUB: radix sort of entry -> dof, exclusive scan of the
   counts), through which per-entry results are gathered and summed per dof */
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <fegpu/private/fegcuda.h>

/* y[rows ? rows[i] : i] += sum of ybuf[list[k]], k in off[i]..off[i+1]-1, in that order (no atomics: the result
   does not depend on timing) */
static __global__ void FEGGather_Kernel(int n, const int *__restrict__ rows, const int *__restrict__ off, const int *__restrict__ list, const double *__restrict__ ybuf, double *__restrict__ y)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[rows ? rows[i] : i] += FEGListSum(off, list, ybuf, i);
}

/* y[i] += sum of the per-entry results of local dof i (the transpose map of FEGDevTransposeMap) */
PetscErrorCode FEGDevGather(int n, const int *off, const int *list, const double *ybuf, double *y)
{
  const int nt = 128;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGGather_Kernel<<<(n + nt - 1) / nt, nt>>>(n, NULL, off, list, ybuf, y);
  FEGCheckLaunch("FEGGather_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a launch's end: with per-entry results in yb (the gather), their sums into the launch's y after the last range */
PetscErrorCode FEGDevLaunchGather(const FEGDevLaunch *L, const double *yb)
{
  PetscFunctionBegin;
  if (yb && L->nlocal) PetscCall(FEGDevGather(L->nlocal, L->toff, L->tlist, yb, L->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y[rows[i]] += the entries of buf listed for row i: the ghost sums other processes sent (devop.c's halo) */
PetscErrorCode FEGDevSumInto(int n, const int *rows, const int *off, const int *list, const double *buf, double *y)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGGather_Kernel<<<(n + 255) / 256, 256>>>(n, rows, off, list, buf, y);
  FEGCheckLaunch("FEGGather_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owned part of DMGlobalToLocal/DMLocalToGlobal, which the overlapped apply does itself (devop.c): owned
   unconstrained dof k sits at lown[k] in the local vector and at gown[k] in the process's part of the global one.
   The same kernel packs and unpacks the halo's message buffers: dst[di ? di[k] : k] = src[si ? si[k] : k] */
static __global__ void FEGCopyIndexed_Kernel(int n, const int *__restrict__ di, const int *__restrict__ si, const double *__restrict__ src, double *__restrict__ dst)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[di ? di[k] : k] = src[si ? si[k] : k];
}

static __global__ void FEGLocalToOwned_Kernel(int n, const int *__restrict__ lown, const int *__restrict__ gown, const double *__restrict__ yl, double *__restrict__ y, int add)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) y[gown[k]] = add ? y[gown[k]] + yl[lown[k]] : yl[lown[k]];
}

/* dst[di[k]] = src[si[k]] for k < n, a NULL index array standing for the identity */
PetscErrorCode FEGDevCopyIndexed(int n, const int *di, const int *si, const double *src, double *dst)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGCopyIndexed_Kernel<<<(n + 255) / 256, 256>>>(n, di, si, src, dst);
  FEGCheckLaunch("FEGCopyIndexed_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *dptr[k] = src[si ? si[k] : k]: the halo's entries written straight into other processes' buffers (CUDA IPC) */
static __global__ void FEGCopyToPointers_Kernel(int n, const int *__restrict__ si, const double *__restrict__ src, double *const *__restrict__ dptr)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) *dptr[k] = src[si ? si[k] : k];
}

PetscErrorCode FEGDevCopyToPointers(int n, const int *si, const double *src, double *const *dptr)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGCopyToPointers_Kernel<<<(n + 255) / 256, 256>>>(n, si, src, dptr);
  FEGCheckLaunch("FEGCopyToPointers_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = yl on the owned dofs (every entry of y has one), or y += yl with add */
PetscErrorCode FEGDevLocalToOwned(int n, const int *lown, const int *gown, const double *yl, double *y, int add)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGLocalToOwned_Kernel<<<(n + 255) / 256, 256>>>(n, lown, gown, yl, y, add);
  FEGCheckLaunch("FEGLocalToOwned_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst[di[k]] = src ? src[k] : -2 - k */
static __global__ void FEGScatterCode_Kernel(int n, const int *__restrict__ di, const int *__restrict__ src, int *__restrict__ dst)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[di[k]] = src ? src[k] : -2 - k;
}

/* Where each of n local dofs lies for kernels that index the global vectors: code[lown[k]] = gown[k] for the nown owned
   dofs, code[gidx[k]] = -2 - k for the ng ghosts (entry k of the halo's buffers), -1 for the rest (constrained) */
PetscErrorCode FEGDevLocalCode(int n, int nown, const int *lown, const int *gown, int ng, const int *gidx, int *code)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemsetAsync(code, 0xff, sizeof(int) * (size_t)n, 0)); /* every byte 0xff: -1 */
  if (nown) {
    FEGScatterCode_Kernel<<<(nown + 255) / 256, 256>>>(nown, lown, gown, code);
    FEGCheckLaunch("FEGScatterCode_Kernel");
  }
  if (ng) {
    FEGScatterCode_Kernel<<<(ng + 255) / 256, 256>>>(ng, gidx, NULL, code);
    FEGCheckLaunch("FEGScatterCode_Kernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* kin[k] = key[k], or nkeys where key[k] < 0 (sorted last, left out of the map); count[key[k]]++ */
static __global__ void FEGCount_Kernel(int n, int nkeys, const int *__restrict__ key, int *__restrict__ kin, int *__restrict__ count, int *__restrict__ iota)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int i = key[k] < 0 ? nkeys : key[k];

  if (i < nkeys) atomicAdd(&count[i], 1);
  kin[k]  = i;
  iota[k] = k;
}

/* The inverse of a map k -> key[k] in [0, nkeys) (negative keys left out): list[off[i]..off[i+1]) are the k with key[k]
   == i, ascending (the radix sort is stable), so sums taken through it have a fixed order. off and list (n entries) are
   allocated here. */
PetscErrorCode FEGDevSortedMap(int n, const int *key, int nkeys, int **off, int **list)
{
  const int nt = 128;
  int      *count, *iota, *kin, *kout, endbit = 1;
  void     *tmp  = NULL;
  size_t    ntmp = 0, nscan = 0;

  PetscFunctionBegin;
  while (endbit < 31 && (nkeys >> endbit)) endbit++;
  PetscCall(FEGDevMallocCopy((void **)off, NULL, (nkeys + 1) * sizeof(int), NULL));
  PetscCall(FEGDevMallocCopy((void **)list, NULL, PetscMax(n, 1) * sizeof(int), NULL));
  PetscCall(FEGDevMallocCopy((void **)&count, NULL, (nkeys + 1) * sizeof(int), NULL));
  PetscCall(FEGDevMallocCopy((void **)&iota, NULL, 3 * (size_t)PetscMax(n, 1) * sizeof(int), NULL));
  kin  = iota + PetscMax(n, 1);
  kout = kin + PetscMax(n, 1);
  PetscCallCUDA(cudaMemset(count, 0, (nkeys + 1) * sizeof(int)));
  if (n) {
    FEGCount_Kernel<<<(n + nt - 1) / nt, nt>>>(n, nkeys, key, kin, count, iota);
    FEGCheckLaunch("FEGCount_Kernel");
  }
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, ntmp, kin, kout, iota, *list, n, 0, endbit));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, nscan, count, *off, nkeys + 1));
  PetscCall(FEGDevMallocCopy(&tmp, NULL, PetscMax(ntmp, nscan) + 1, NULL));
  ntmp = nscan = PetscMax(ntmp, nscan) + 1;
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, ntmp, kin, kout, iota, *list, n, 0, endbit));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, nscan, count, *off, nkeys + 1));
  PetscCallCUDA(cudaFree(tmp));
  PetscCallCUDA(cudaFree(count));
  PetscCallCUDA(cudaFree(iota));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Transpose map of the element-interleaved entries k = a*Ne+e: list[off[i]..off[i+1]) are the entries of local dof i */
PetscErrorCode FEGDevTransposeMap(const FEGDevDisc *d, int nlocal, int **off, int **list)
{
  PetscFunctionBegin;
  PetscCall(FEGDevSortedMap(d->Ne * d->Nb, d->idx, nlocal, off, list));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevZero(double *x, size_t n)
{
  PetscFunctionBegin;
  if (n) PetscCallCUDA(cudaMemset(x, 0, n * sizeof(double)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
