/* Addto on the GPU: the CSR pattern of the element connectivity and the position in the CSR value array of every
   element matrix entry, both from one CUB radix sort of the entries' (row, col) keys: equal keys are one nonzero, the
   running count of distinct keys is its position, so assembly never searches and nothing per element runs on the host */
#include <petscdevice_cuda.h>
#include <cub/cub.cuh>
#include <climits>
#include "addtocuda.h"

typedef unsigned long long FEGKey;

/* entry k = (a*Nb+b)*Ne+e, the element-interleaved order of the element-matrix kernels */
static __global__ void FEGCSRKeys_Kernel(int Ne, int Nb, int n, const int *__restrict__ gidx, FEGKey *__restrict__ key, int *__restrict__ entry)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= (size_t)Ne * Nb * Nb) return;
  const int e = (int)(k % Ne), ab = (int)(k / Ne), a = ab / Nb, b = ab % Nb;
  const int row = gidx[(size_t)a * Ne + e], col = gidx[(size_t)b * Ne + e];

  /* constrained rows and columns sort last under the key n*n */
  key[k]   = (row < 0 || col < 0) ? (FEGKey)n * n : (FEGKey)row * n + col;
  entry[k] = (int)k;
}

static __global__ void FEGCSRHeads_Kernel(int m, int n, const FEGKey *__restrict__ key, int *__restrict__ head)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  head[i] = key[i] != (FEGKey)n * n && (i == 0 || key[i] != key[i - 1]);
}

/* id: inclusive scan of the heads, so id[i]-1 is the nonzero of sorted entry i */
static __global__ void FEGCSRFill_Kernel(int m, int n, const FEGKey *__restrict__ key, const int *__restrict__ entry, const int *__restrict__ head, const int *__restrict__ id, int *__restrict__ pos, int *__restrict__ colidx, int *__restrict__ rowcount)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const FEGKey k = key[i];

  if (k == (FEGKey)n * n) {
    pos[entry[i]] = -1;
    return;
  }
  pos[entry[i]] = id[i] - 1;
  if (head[i]) {
    colidx[id[i] - 1] = (int)(k % (FEGKey)n);
    atomicAdd(&rowcount[k / (FEGKey)n], 1);
  }
}

/* gidx: element-interleaved global (= local on one process) rows, -1 where constrained; n: rows. Out: pos (allocated by
   the caller, Ne*Nb*Nb), and rowptr (n+1) and colidx (nnz) allocated here on the device */
PetscErrorCode FEGDevCSRPattern(int Ne, int Nb, int n, const int *gidx, int *pos, int **rowptr, int **colidx, int *nnz)
{
  const size_t m  = (size_t)Ne * Nb * Nb;
  const int    nt = 256;
  FEGKey      *key, *skey;
  int         *entry, *sentry, *head, *id, *count;
  void        *tmp   = NULL;
  size_t       nsort = 0, nscan = 0, nrow = 0, ntmp;
  int          endbit = 1, mi = (int)m;

  PetscFunctionBegin;
  PetscCheck(m < (size_t)INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%d elements of %d dofs have %zu element-matrix entries; GPU addto positions are 32-bit: split the mesh over processes", Ne, Nb, m);
  while (endbit < 64 && ((FEGKey)n * n) >> endbit) endbit++;
  PetscCall(FEGDevMallocCopy((void **)&key, NULL, 2 * m * sizeof(FEGKey), NULL));
  PetscCall(FEGDevMallocCopy((void **)&entry, NULL, 4 * m * sizeof(int), NULL));
  skey   = key + m;
  sentry = entry + m;
  head   = entry + 2 * m;
  id     = entry + 3 * m;
  PetscCall(FEGDevMallocCopy((void **)rowptr, NULL, (n + 1) * sizeof(int), NULL));
  PetscCall(FEGDevMallocCopy((void **)&count, NULL, (n + 1) * sizeof(int), NULL));
  PetscCallCUDA(cudaMemset(count, 0, (n + 1) * sizeof(int)));
  *nnz = 0;
  if (m) {
    FEGCSRKeys_Kernel<<<(unsigned)((m + nt - 1) / nt), nt>>>(Ne, Nb, n, gidx, key, entry);
    FEGCheckLaunch("FEGCSRKeys_Kernel");
  }
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, nsort, key, skey, entry, sentry, mi, 0, endbit));
  PetscCallCUDA(cub::DeviceScan::InclusiveSum(NULL, nscan, head, id, mi));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, nrow, count, *rowptr, n + 1));
  ntmp = PetscMax(PetscMax(nsort, nscan), nrow) + 1;
  PetscCall(FEGDevMallocCopy(&tmp, NULL, ntmp, NULL));
  if (m) {
    nsort = ntmp;
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, nsort, key, skey, entry, sentry, mi, 0, endbit));
    FEGCSRHeads_Kernel<<<(unsigned)((m + nt - 1) / nt), nt>>>(mi, n, skey, head);
    FEGCheckLaunch("FEGCSRHeads_Kernel");
    nscan = ntmp;
    PetscCallCUDA(cub::DeviceScan::InclusiveSum(tmp, nscan, head, id, mi));
    PetscCallCUDA(cudaMemcpy(nnz, id + m - 1, sizeof(int), cudaMemcpyDeviceToHost));
  }
  PetscCall(FEGDevMallocCopy((void **)colidx, NULL, (size_t)PetscMax(*nnz, 1) * sizeof(int), NULL));
  if (m) {
    FEGCSRFill_Kernel<<<(unsigned)((m + nt - 1) / nt), nt>>>(mi, n, skey, sentry, head, id, pos, *colidx, count);
    FEGCheckLaunch("FEGCSRFill_Kernel");
  }
  nrow = ntmp;
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, nrow, count, *rowptr, n + 1));
  PetscCallCUDA(cudaFree(tmp));
  PetscCallCUDA(cudaFree(count));
  PetscCallCUDA(cudaFree(entry));
  PetscCallCUDA(cudaFree(key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* contributions other processes computed for owned rows, added at their positions (atomics: several processes may send
   the same entry) */
static __global__ void FEGAddAt_Kernel(int n, const int *__restrict__ pos, const double *__restrict__ v, const FEGDevOutput o)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(FEGDevTarget(o, pos[i]), v[i]);
}

PetscErrorCode FEGDevAddAt(int n, const int *pos, const double *v, const FEGDevOutput *o)
{
  const int nt = 256;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGAddAt_Kernel<<<(n + nt - 1) / nt, nt>>>(n, pos, v, *o);
  FEGCheckLaunch("FEGAddAt_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* posc[ent*Ne + p] = pos[ent*Ne + order[p]]: element-interleaved positions put in the order of an element list, so the
   kernels of one colour read theirs coalesced */
static __global__ void FEGPermutePositions_Kernel(int Ne, int nent, const int *__restrict__ order, const int *__restrict__ pos, int *__restrict__ posc)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)Ne * nent) return;
  const size_t ent = t / Ne, p = t % Ne;

  posc[t] = pos[ent * Ne + order[p]];
}

PetscErrorCode FEGDevPermutePositions(int Ne, int nent, const int *order, const int *pos, int *posc)
{
  const int    nt = 256;
  const size_t n  = (size_t)Ne * nent;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGPermutePositions_Kernel<<<(unsigned)((n + nt - 1) / nt), nt>>>(Ne, nent, order, pos, posc);
  FEGCheckLaunch("FEGPermutePositions_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The deterministic modes' sums: CSR value (or send slot) rows[i] (i when rows is NULL) gets the sum of v[list[k]], k in
   off[i]..off[i+1]-1, taken in that order. gather stores its element entries' sums at every position (add 0: the values
   need no zeroing; a position no local element touches gets 0, on several processes one that other processes send
   to); on several processes the values received at a position, in the order of their senders' ranks
   (FEGAddtoSplitSetUp()), are then added (add 1). One thread per position, no atomics. */
static __global__ void FEGSumCSR_Kernel(int n, const int *__restrict__ rows, const int *__restrict__ off, const int *__restrict__ list, const double *__restrict__ v, int add, const FEGDevOutput o)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double      *t = FEGDevTarget(o, rows ? rows[i] : i);
  const double s = FEGListSum(off, list, v, i);

  *t = add ? *t + s : s;
}

PetscErrorCode FEGDevSumCSR(int n, const int *rows, const int *off, const int *list, const double *v, int add, const FEGDevOutput *o)
{
  const int nt = 256;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGSumCSR_Kernel<<<(n + nt - 1) / nt, nt>>>(n, rows, off, list, v, add, *o);
  FEGCheckLaunch("FEGSumCSR_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
