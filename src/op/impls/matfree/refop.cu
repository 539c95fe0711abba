/* matfree on the GPU, refop and its batched-GEMM form, for affine simplices with C constant per cell */
#include <petscdevice_cuda.h>
#include "matfreecuda.h"

/* ------------------------------------------------------------------------------------------------------------------
   refop (Swirydowicz et al.'s stiffness-action kernel, 004): thread n of element group j computes row n of NE
   elements, y_n = sum_m G_m sum_k Op_m[n,k] x_k. The NOPS operator entries of column k are loaded once and used for
   NE elements (optimisation 7); NB groups share a block (8); the elements' values are staged in shared memory and
   the geometric factors are fetched just in time (10), from a contiguous element range (9). */
template <int NOPS, int NE, int NR>
static __global__ void FEGRefOp_Kernel(const FEGDevRefOp r, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose, int overwrite)
{
  extern __shared__ double xs[];
  const int                Nb = r.Nb, ld = r.ldo, n0 = NR * threadIdx.x, j = threadIdx.y, nper = blockDim.y * NE;
  const int                E0 = r.e0 + blockIdx.x * nper, nel = min(nper, r.e1 - E0);
  const int                tid = j * blockDim.x + threadIdx.x, nth = blockDim.x * blockDim.y;

  for (int t = tid; t < nper * Nb; t += nth) {
    double v = 0.0;
    if (r.contig) {
      if (t < nel * Nb) v = x[(size_t)E0 * Nb + t];
      xs[t] = v;
    } else {
      const int el = t % nper, k = t / nper;
      if (el < nel) v = x[r.idx[(size_t)k * r.Ne + E0 + el]];
      xs[el * Nb + k] = v;
    }
  }
  __syncthreads();
  if (n0 >= Nb) return;
  /* NR consecutive rows per thread: their operator entries come in one vector load and share each x value */
  double        acc[NOPS][NE][NR];
  const double *xe = xs + j * NE * Nb;

#pragma unroll
  for (int m = 0; m < NOPS; m++)
#pragma unroll
    for (int i = 0; i < NE; i++)
#pragma unroll
      for (int q = 0; q < NR; q++) acc[m][i][q] = 0.0;
#pragma unroll 2
  for (int k = 0; k < Nb; k++) {
    double o[NOPS][NR];
#pragma unroll
    for (int m = 0; m < NOPS; m++) {
      const double *op = &r.Op[((size_t)m * Nb + k) * ld + n0];
      if (NR == 2) {
        const double2 v = __ldg((const double2 *)op);
        o[m][0]         = v.x;
        o[m][NR - 1]    = v.y;
      } else o[m][0] = __ldg(op);
    }
#pragma unroll
    for (int i = 0; i < NE; i++) {
      const double xv = xe[i * Nb + k];
#pragma unroll
      for (int m = 0; m < NOPS; m++)
#pragma unroll
        for (int q = 0; q < NR; q++) acc[m][i][q] = fma(o[m][q], xv, acc[m][i][q]);
    }
  }
#pragma unroll
  for (int i = 0; i < NE; i++) {
    const int e = E0 + j * NE + i;
    if (e >= r.e1) break;
    const double *G = r.G + (size_t)e * NOPS;
    double        v[NR];
#pragma unroll
    for (int q = 0; q < NR; q++) v[q] = 0.0;
#pragma unroll
    for (int m = 0; m < NOPS; m++) {
      const double g = __ldg(&G[transpose ? r.tperm[m] : m]);
#pragma unroll
      for (int q = 0; q < NR; q++) v[q] = fma(g, acc[m][i][q], v[q]);
    }
#pragma unroll
    for (int q = 0; q < NR; q++) {
      const int n = n0 + q;
      if (n >= Nb) break;
      if (ybuf) ybuf[(size_t)n * r.Ne + e] = v[q];
      else {
        const size_t id = r.contig ? (size_t)e * Nb + n : (size_t)r.idx[(size_t)n * r.Ne + e];
        if (overwrite) y[id] = v[q];
        else if (r.unique) y[id] += v[q];
        else atomicAdd(&y[id], v[q]);
      }
    }
  }
}

template <int NOPS, int NR>
static PetscErrorCode FEGRefOpLaunchNE(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int transpose, int overwrite)
{
  const dim3   block((r->Nb + NR - 1) / NR, r->nb);
  const int    per  = r->nb * r->ne;
  const size_t shm  = (size_t)per * r->Nb * sizeof(double);
  const int    nblk = (r->e1 - r->e0 + per - 1) / per;

  PetscFunctionBegin;
  PetscCheck(block.x * block.y <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "refop: %d threads per element x %d groups per block exceeds 1024 threads; lower -feg_matfree_nb", (int)block.x, r->nb);
#define FEG_REFOP_CASE(NE) \
  case NE: { \
    int nact = 0; \
    if (shm > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(FEGRefOp_Kernel<NOPS, NE, NR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm)); \
    PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nact, FEGRefOp_Kernel<NOPS, NE, NR>, (int)(block.x * block.y), shm)); \
    PetscCheck(nact > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "refop: %d elements per thread x %d groups per block (%d threads, %zu bytes of shared memory) do not fit on this GPU; lower -feg_matfree_ne or -feg_matfree_nb", NE, r->nb, \
               (int)(block.x * block.y), shm); \
    FEGRefOp_Kernel<NOPS, NE, NR><<<nblk, block, shm>>>(*r, x, y, ybuf, transpose, overwrite); \
  } break;
  switch (r->ne) {
    FEG_REFOP_CASE(1)
    FEG_REFOP_CASE(2)
    FEG_REFOP_CASE(4)
    FEG_REFOP_CASE(8)
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "refop: %d elements per thread is not compiled: use 1, 2, 4 or 8", r->ne);
  }
#undef FEG_REFOP_CASE
  FEGCheckLaunch("FEGRefOp_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int NOPS>
static PetscErrorCode FEGRefOpLaunchNR(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int transpose, int overwrite)
{
  PetscFunctionBegin;
  if (r->nr == 2) PetscCall(FEGRefOpLaunchNE<NOPS, 2>(r, x, y, ybuf, transpose, overwrite));
  else PetscCall(FEGRefOpLaunchNE<NOPS, 1>(r, x, y, ybuf, transpose, overwrite));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static __global__ void FEGRefOpDiag_Kernel(const FEGDevRefOp r, double *__restrict__ y, double *__restrict__ ybuf)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)r.Ne * r.Nb) return;
  const int    e = (int)(t % r.Ne), a = (int)(t / r.Ne);
  const double v = FEGRefOpDiagEntry(r.nops, r.G + (size_t)e * r.nops, r.Op, r.Nb, r.ldo, a);

  if (ybuf) ybuf[t] = v;
  else atomicAdd(&y[r.contig ? (size_t)e * r.Nb + a : (size_t)r.idx[(size_t)a * r.Ne + e]], v);
}

/* y (+)= A x (A^T x) by refop over elements e0..e1-1, or the diagonal of all elements when diag; with tlist the
   scatter is the deterministic gather, done when nlocal > 0 (after the last range) */
PetscErrorCode FEGDevRefOpApply(const FEGDevRefOp *ro, int e0, int e1, const double *x, double *y, int transpose, int diag, int overwrite, int nlocal, const int *toff, const int *tlist, double *ybuf)
{
  FEGDevRefOp rr = *ro, *r = &rr;
  double     *yb = tlist && !r->unique ? ybuf : NULL;

  PetscFunctionBegin;
  rr.e0 = e0;
  rr.e1 = e1;
  if (!r->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  if (diag) {
    FEGRefOpDiag_Kernel<<<(unsigned)(((size_t)r->Ne * r->Nb + 255) / 256), 256>>>(*r, y, yb);
    FEGCheckLaunch("FEGRefOpDiag_Kernel");
    if (yb && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (e1 > e0) switch (r->nops) {
    case 1:
      PetscCall(FEGRefOpLaunchNR<1>(r, x, y, yb, transpose, overwrite));
      break;
    case 3:
      PetscCall(FEGRefOpLaunchNR<3>(r, x, y, yb, transpose, overwrite));
      break;
    case 4:
      PetscCall(FEGRefOpLaunchNR<4>(r, x, y, yb, transpose, overwrite));
      break;
    case 6:
      PetscCall(FEGRefOpLaunchNR<6>(r, x, y, yb, transpose, overwrite));
      break;
    case 7:
      PetscCall(FEGRefOpLaunchNR<7>(r, x, y, yb, transpose, overwrite));
      break;
    case 9:
      PetscCall(FEGRefOpLaunchNR<9>(r, x, y, yb, transpose, overwrite));
      break;
    case 10:
      PetscCall(FEGRefOpLaunchNR<10>(r, x, y, yb, transpose, overwrite));
      break;
    case 16:
      PetscCall(FEGRefOpLaunchNR<16>(r, x, y, yb, transpose, overwrite));
      break;
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "refop: no kernel for %d operators", r->nops);
    }
  if (yb && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------------
   gemm (Modave et al., 003): Z = [Op_1; ...; Op_nops] X for a chunk of elements with one cuBLAS DGEMM (FP64 tensor
   cores on sm_80+), leading dimensions padded to 4 doubles, then y_n = sum_m G_m Z[m*Nb+n] element by element */
static __global__ void FEGGemmGather_Kernel(int Nb, int Ne, int e0, int Ec, int ld, const int *__restrict__ idx, int contig, const double *__restrict__ x, double *__restrict__ X)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)Ec * Nb) return;
  const int i = (int)(t / Nb), k = (int)(t % Nb), e = e0 + i;

  X[(size_t)i * ld + k] = contig ? x[(size_t)e * Nb + k] : x[idx[(size_t)k * Ne + e]];
}

template <int NOPS>
static __global__ void FEGGemmCombine_Kernel(const FEGDevRefOp r, int e0, int Ec, int ldz, const double *__restrict__ Z, double *__restrict__ y, double *__restrict__ ybuf, int transpose, int overwrite)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)Ec * r.Nb) return;
  const int     i = (int)(t / r.Nb), n = (int)(t % r.Nb), e = e0 + i;
  const double *G = r.G + (size_t)e * NOPS, *z = Z + (size_t)i * ldz + n;
  double        v = 0.0;

#pragma unroll
  for (int m = 0; m < NOPS; m++) v = fma(G[transpose ? r.tperm[m] : m], z[m * r.Nb], v);
  if (ybuf) ybuf[(size_t)n * r.Ne + e] = v;
  else {
    const size_t id = r.contig ? (size_t)e * r.Nb + n : (size_t)r.idx[(size_t)n * r.Ne + e];
    if (overwrite) y[id] = v;
    else if (r.unique) y[id] += v;
    else atomicAdd(&y[id], v);
  }
}

PetscErrorCode FEGDevGemmApply(const FEGDevRefOp *r, int e0, int e1, const double *A, int lda, double *work, int Ec, const double *x, double *y, int transpose, int overwrite, int nlocal, const int *toff, const int *tlist, double *ybuf)
{
  const int    Nb = r->Nb, ldx = (Nb + 3) / 4 * 4, ldz = lda, nt = 256;
  double      *X = work, *Z = work + (size_t)ldx * Ec, *yb = tlist && !r->unique ? ybuf : NULL;
  const double one = 1.0, zero = 0.0;
  void        *h;

  PetscFunctionBegin;
  PetscCall(FEGDevGetCublas(&h));
  for (int c0 = e0; c0 < e1; c0 += Ec) {
    const int    n = PetscMin(Ec, e1 - c0);
    const size_t w = (size_t)n * Nb;

    FEGGemmGather_Kernel<<<(unsigned)((w + nt - 1) / nt), nt>>>(Nb, r->Ne, c0, n, ldx, r->idx, r->contig, x, X);
    FEGCheckLaunch("FEGGemmGather_Kernel");
    PetscCallCUBLAS(cublasDgemm((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, r->nops * Nb, n, Nb, &one, A, lda, X, ldx, &zero, Z, ldz));
#define FEG_COMBINE(NO) \
  case NO: \
    FEGGemmCombine_Kernel<NO><<<(unsigned)((w + nt - 1) / nt), nt>>>(*r, c0, n, ldz, Z, y, yb, transpose, overwrite); \
    break;
    switch (r->nops) {
      FEG_COMBINE(1)
      FEG_COMBINE(3)
      FEG_COMBINE(4)
      FEG_COMBINE(6)
      FEG_COMBINE(7)
      FEG_COMBINE(9)
      FEG_COMBINE(10)
      FEG_COMBINE(16)
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "gemm: no combination kernel for %d operators", r->nops);
    }
#undef FEG_COMBINE
    FEGCheckLaunch("FEGGemmCombine_Kernel");
  }
  if (yb && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
