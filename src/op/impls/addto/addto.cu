/* Addto on the GPU: the position in the CSR value array of every element matrix entry, found once at setup by a
   binary search within the row (column indices of a row are sorted), so assembly never searches */
#include <petscdevice_cuda.h>
#include "addtocuda.h"

static __global__ void FEGCSRPositions_Kernel(int Ne, int Nb, const int *__restrict__ gidx, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ colidx, int *__restrict__ pos)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= (size_t)Ne * Nb * Nb) return;
  const int e = (int)(k % Ne), ab = (int)(k / Ne), a = ab / Nb, b = ab % Nb;
  const int row = gidx[(size_t)a * Ne + e], col = gidx[(size_t)b * Ne + e];
  int       p = -1;

  if (row >= 0 && col >= 0) {
    PetscInt lo = rowptr[row], hi = rowptr[row + 1] - 1;
    while (lo <= hi) {
      const PetscInt mid = (lo + hi) / 2, c = colidx[mid];
      if (c == col) {
        p = (int)mid;
        break;
      }
      if (c < col) lo = mid + 1;
      else hi = mid - 1;
    }
    if (p < 0) p = -2; /* pattern misses an entry: reported by the caller */
  }
  pos[k] = p;
}

/* gidx: element-interleaved global (= local row, one process) indices, -1 where constrained */
PetscErrorCode FEGDevCSRPositions(const FEGDevDisc *d, const int *gidx, const PetscInt *rowptr, const PetscInt *colidx, int *pos)
{
  const size_t n  = (size_t)d->Ne * d->Nb * d->Nb;
  const int    nt = 256;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGCSRPositions_Kernel<<<(unsigned)((n + nt - 1) / nt), nt>>>(d->Ne, d->Nb, gidx, rowptr, colidx, pos);
  PetscCallCUDA(cudaPeekAtLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
