/* matfree on the GPU: one element per thread interpolates x to each quadrature point with the reference tables,
   applies the stored (dim+1)^2 tensor Chat (element-interleaved, so loads are coalesced) and integrates back */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegcuda.h>

template <int NBM>
static __global__ void FEGMatFree_Kernel(const FEGDevDisc d, const double *__restrict__ Cq, const double *__restrict__ x, double *__restrict__ y, int transpose, double *__restrict__ ybuf, int diag)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= d.Ne) return;
  const int Nb = d.Nb, Nd = d.dim + 1, NC = Nd * Nd, KK = d.Nq * Nd;
  double    xe[NBM], ye[NBM];

  for (int b = 0; b < Nb; b++) {
    xe[b] = diag ? 0.0 : x[d.idx[(size_t)b * d.Ne + e]];
    ye[b] = 0.0;
  }
  for (int q = 0; q < d.Nq; q++) {
    double Ch[4][4], u[4] = {0, 0, 0, 0}, v[4];

    for (int r = 0; r < Nd; r++)
      for (int s = 0; s < Nd; s++) Ch[r][s] = Cq[((size_t)q * NC + r * Nd + s) * d.Ne + e];
    if (diag) {
      for (int a = 0; a < Nb; a++) {
        double s = 0.0;
        for (int r = 0; r < Nd; r++)
          for (int t = 0; t < Nd; t++) s += Ch[r][t] * d.R[(q * Nd + r) + (size_t)a * KK] * d.R[(q * Nd + t) + (size_t)a * KK];
        ye[a] += s;
      }
      continue;
    }
    for (int b = 0; b < Nb; b++)
      for (int r = 0; r < Nd; r++) u[r] += d.R[(q * Nd + r) + (size_t)b * KK] * xe[b];
    for (int s = 0; s < Nd; s++) {
      v[s] = 0.0;
      for (int r = 0; r < Nd; r++) v[s] += transpose ? Ch[s][r] * u[r] : Ch[r][s] * u[r];
    }
    for (int a = 0; a < Nb; a++)
      for (int s = 0; s < Nd; s++) ye[a] += d.R[(q * Nd + s) + (size_t)a * KK] * v[s];
  }
  for (int a = 0; a < Nb; a++) {
    if (ybuf) ybuf[(size_t)a * d.Ne + e] = ye[a];
    else atomicAdd(&y[d.idx[(size_t)a * d.Ne + e]], ye[a]);
  }
}

/* y += A x (A^T x), or the diagonal into y when diag; with tlist the scatter is the deterministic gather */
PetscErrorCode FEGDevMatFreeApply(const FEGDevDisc *d, const double *Cq, const double *x, double *y, int transpose, int diag, int nlocal, const int *toff, const int *tlist, double *ybuf)
{
  const int nt = 128, nb = (d->Ne + nt - 1) / nt;
  double   *yb = tlist && !diag ? ybuf : NULL;

  PetscFunctionBegin;
  if (d->Ne) {
    if (d->Nb <= 8) FEGMatFree_Kernel<8><<<nb, nt>>>(*d, Cq, x, y, transpose, yb, diag);
    else if (d->Nb <= 32) FEGMatFree_Kernel<32><<<nb, nt>>>(*d, Cq, x, y, transpose, yb, diag);
    else if (d->Nb <= 128) FEGMatFree_Kernel<128><<<nb, nt>>>(*d, Cq, x, y, transpose, yb, diag);
    else if (d->Nb <= 512) FEGMatFree_Kernel<512><<<nb, nt>>>(*d, Cq, x, y, transpose, yb, diag);
    else FEGMatFree_Kernel<1024><<<nb, nt>>>(*d, Cq, x, y, transpose, yb, diag);
    PetscCallCUDA(cudaPeekAtLastError());
  }
  if (yb && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------------
   refop (Swirydowicz et al.'s stiffness-action kernel, 004): thread n of element group j computes row n of NE
   elements, y_n = sum_m G_m sum_k Op_m[n,k] x_k. The NOPS operator entries of column k are loaded once and used for
   NE elements (optimisation 7); NB groups share a block (8); the elements' values are staged in shared memory and
   the geometric factors are fetched just in time (10), from a contiguous element range (9). */
template <int NOPS, int NE, int NR>
static __global__ void FEGRefOp_Kernel(const FEGDevRefOp r, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose, int overwrite)
{
  extern __shared__ double xs[];
  const int Nb = r.Nb, ld = r.ldo, n0 = NR * threadIdx.x, j = threadIdx.y, nper = blockDim.y * NE;
  const int E0  = blockIdx.x * nper, nel = min(nper, r.Ne - E0);
  const int tid = j * blockDim.x + threadIdx.x, nth = blockDim.x * blockDim.y;

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
    if (e >= r.Ne) break;
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
  const int    per = r->nb * r->ne;
  const size_t shm = (size_t)per * r->Nb * sizeof(double);
  const int    nblk = (r->Ne + per - 1) / per;

  PetscFunctionBegin;
  PetscCheck(block.x * block.y <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "refop: %d threads per element x %d groups per block exceeds 1024 threads; lower -feg_matfree_nb", (int)block.x, r->nb);
#define FEG_REFOP_CASE(NE) \
  case NE: { \
    int nact = 0; \
    if (shm > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(FEGRefOp_Kernel<NOPS, NE, NR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm)); \
    PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nact, FEGRefOp_Kernel<NOPS, NE, NR>, (int)(block.x * block.y), shm)); \
    PetscCheck(nact > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "refop: %d elements per thread x %d groups per block (%d threads, %zu bytes of shared memory) do not fit on this GPU; lower -feg_matfree_ne or -feg_matfree_nb", NE, r->nb, (int)(block.x * block.y), shm); \
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
  PetscCallCUDA(cudaPeekAtLastError());
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

static __global__ void FEGRefOpDiag_Kernel(const FEGDevRefOp r, double *__restrict__ y)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)r.Ne * r.Nb) return;
  const int e = (int)(t % r.Ne), a = (int)(t / r.Ne);
  double    v = 0.0;

  for (int m = 0; m < r.nops; m++) v += r.G[(size_t)e * r.nops + m] * r.Op[((size_t)m * r.Nb + a) * r.ldo + a];
  atomicAdd(&y[r.contig ? (size_t)e * r.Nb + a : (size_t)r.idx[(size_t)a * r.Ne + e]], v);
}

/* y (+)= A x (A^T x) by refop, or the diagonal when diag; with tlist the scatter is the deterministic gather */
PetscErrorCode FEGDevRefOpApply(const FEGDevRefOp *r, const double *x, double *y, int transpose, int diag, int overwrite, int nlocal, const int *toff, const int *tlist, double *ybuf)
{
  double *yb = tlist && !diag && !r->unique ? ybuf : NULL;

  PetscFunctionBegin;
  if (!r->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  if (diag) {
    FEGRefOpDiag_Kernel<<<(unsigned)(((size_t)r->Ne * r->Nb + 255) / 256), 256>>>(*r, y);
    PetscCallCUDA(cudaPeekAtLastError());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (r->nops) {
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

PetscErrorCode FEGDevGemmApply(const FEGDevRefOp *r, const double *A, int lda, double *work, int Ec, const double *x, double *y, int transpose, int overwrite, int nlocal, const int *toff, const int *tlist, double *ybuf)
{
  const int    Nb = r->Nb, ldx = (Nb + 3) / 4 * 4, ldz = lda, nt = 256;
  double      *X = work, *Z = work + (size_t)ldx * Ec, *yb = tlist && !r->unique ? ybuf : NULL;
  const double one = 1.0, zero = 0.0;
  void        *h;

  PetscFunctionBegin;
  PetscCall(FEGDevGetCublas(&h));
  for (int e0 = 0; e0 < r->Ne; e0 += Ec) {
    const int    n = PetscMin(Ec, r->Ne - e0);
    const size_t w = (size_t)n * Nb;

    FEGGemmGather_Kernel<<<(unsigned)((w + nt - 1) / nt), nt>>>(Nb, r->Ne, e0, n, ldx, r->idx, r->contig, x, X);
    PetscCallCUDA(cudaPeekAtLastError());
    PetscCallCUBLAS(cublasDgemm((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, r->nops * Nb, n, Nb, &one, A, lda, X, ldx, &zero, Z, ldz));
#define FEG_COMBINE(NO) \
  case NO: \
    FEGGemmCombine_Kernel<NO><<<(unsigned)((w + nt - 1) / nt), nt>>>(*r, e0, n, ldz, Z, y, yb, transpose, overwrite); \
    break;
    switch (r->nops) {
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
    PetscCallCUDA(cudaPeekAtLastError());
  }
  if (yb && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------------
   sumfact: NEB elements per block, all threads sweeping the outputs of one 1D contraction at a time in shared memory:
   values and reference gradients at the Q^dim Gauss points by dim stages of contractions (B or D along x, then y,
   then z), the stored Chat pairs at each point, and the transposed stages back. Per element the buffers are
   A = [U | T0 | T1 | -] (also V0..V3 at the points) and B = [T2 | T3 | T4], each slot N = max(P,Q)^dim doubles. */
template <int DIM, int KIND>
static __device__ __forceinline__ void FEGPointApply(const double *c, int stride, const double u[4], double v[4], bool transpose)
{
  constexpr int Nd = DIM + 1;
  int           m  = 0;

#pragma unroll
  for (int r = 0; r < Nd; r++)
#pragma unroll
    for (int s = 0; s < Nd; s++) {
      const bool keep = KIND == FEG_MF_FULL || (KIND == FEG_MF_SYM && s >= r) || (KIND == FEG_MF_GG_SYM && r >= 1 && s >= r) || (KIND == FEG_MF_VVGG_SYM && ((r == 0 && s == 0) || (r >= 1 && s >= r)));
      if (keep) {
        const double cm = c[(size_t)m * stride];
        m++;
        if (KIND != FEG_MF_FULL) {
          v[s] += cm * u[r];
          if (r != s) v[r] += cm * u[s];
        } else if (transpose) v[r] += cm * u[s];
        else v[s] += cm * u[r];
      }
    }
}

/* out[(i0*NO+i)*inner+i1] (+)= sum_a M[i*NA+a] in[(i0*NA+a)*inner+i1] for each of neb elements (buffer stride st) */
template <int NA, int NO>
static __device__ __forceinline__ void FEGContractDev(const double *in, double *out, const double *M, int n0, int inner, int st, int neb, bool add)
{
  const int per = n0 * NO * inner;
  for (int t = threadIdx.x; t < neb * per; t += blockDim.x) {
    const int     el = t / per, rr = t % per, i1 = rr % inner, i = (rr / inner) % NO, i0 = rr / (inner * NO);
    const double *ip = in + (size_t)el * st + i0 * NA * inner + i1, *mp = M + i * NA;
    double        s  = add ? out[(size_t)el * st + rr] : 0.0;
#pragma unroll
    for (int a = 0; a < NA; a++) s = fma(mp[a], ip[a * inner], s);
    out[(size_t)el * st + rr] = s;
  }
}

template <int DIM, int P, int Q>
static __global__ void FEGSumFact_Kernel(const FEGDevSumFact sf, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose)
{
  constexpr int MX = P > Q ? P : Q, N = DIM == 3 ? MX * MX * MX : MX * MX, NP = DIM == 3 ? P * P * P : P * P, NQ = DIM == 3 ? Q * Q * Q : Q * Q;
  extern __shared__ double sm[];
  double   *Bs = sm, *Ds = Bs + P * Q, *Bt = Ds + P * Q, *Dt = Bt + P * Q, *buf = Dt + P * Q;
  const int st = 7 * N, neb = sf.neb, E0 = blockIdx.x * neb, nel = min(neb, sf.Ne - E0);

  for (int t = threadIdx.x; t < P * Q; t += blockDim.x) {
    const int i = t / P, a = t % P;
    Bs[t]         = sf.B1[t];
    Ds[t]         = sf.D1[t];
    Bt[a * Q + i] = sf.B1[t];
    Dt[a * Q + i] = sf.D1[t];
  }
  for (int t = threadIdx.x; t < neb * NP; t += blockDim.x) {
    const int el = t % neb, l = t / neb;
    buf[(size_t)el * st + l] = el < nel ? x[sf.idx[(size_t)l * sf.Ne + E0 + el]] : 0.0;
  }
  __syncthreads();
  double *U = buf, *T0 = buf + N, *T1 = buf + 2 * N, *T2 = buf + 4 * N, *T3 = buf + 5 * N, *T4 = buf + 6 * N;
  double *V[4] = {buf, buf + N, buf + 2 * N, buf + 3 * N};
  if (DIM == 2) {
    FEGContractDev<P, Q>(U, T2, Bs, P, 1, st, neb, false);
    FEGContractDev<P, Q>(U, T3, Ds, P, 1, st, neb, false);
    __syncthreads();
    FEGContractDev<P, Q>(T2, V[0], Bs, 1, Q, st, neb, false);
    FEGContractDev<P, Q>(T2, V[2], Ds, 1, Q, st, neb, false);
    FEGContractDev<P, Q>(T3, V[1], Bs, 1, Q, st, neb, false);
  } else {
    FEGContractDev<P, Q>(U, T0, Bs, P * P, 1, st, neb, false);
    FEGContractDev<P, Q>(U, T1, Ds, P * P, 1, st, neb, false);
    __syncthreads();
    FEGContractDev<P, Q>(T0, T2, Bs, P, Q, st, neb, false);
    FEGContractDev<P, Q>(T0, T3, Ds, P, Q, st, neb, false);
    FEGContractDev<P, Q>(T1, T4, Bs, P, Q, st, neb, false);
    __syncthreads();
    FEGContractDev<P, Q>(T2, V[0], Bs, 1, Q * Q, st, neb, false);
    FEGContractDev<P, Q>(T2, V[3], Ds, 1, Q * Q, st, neb, false);
    FEGContractDev<P, Q>(T3, V[2], Bs, 1, Q * Q, st, neb, false);
    FEGContractDev<P, Q>(T4, V[1], Bs, 1, Q * Q, st, neb, false);
  }
  __syncthreads();
  for (int t = threadIdx.x; t < nel * NQ; t += blockDim.x) {
    const int     el = t / NQ, l = t % NQ, e = E0 + el;
    const double *c  = sf.Cl + (size_t)e * sf.npairs * NQ + l;
    double        u[4] = {0, 0, 0, 0}, v[4] = {0, 0, 0, 0};

#pragma unroll
    for (int r = 0; r <= DIM; r++) u[r] = V[r][(size_t)el * st + l];
    switch (sf.kind) {
    case FEG_MF_GG_SYM:
      FEGPointApply<DIM, FEG_MF_GG_SYM>(c, NQ, u, v, transpose);
      break;
    case FEG_MF_VVGG_SYM:
      FEGPointApply<DIM, FEG_MF_VVGG_SYM>(c, NQ, u, v, transpose);
      break;
    case FEG_MF_SYM:
      FEGPointApply<DIM, FEG_MF_SYM>(c, NQ, u, v, transpose);
      break;
    default:
      FEGPointApply<DIM, FEG_MF_FULL>(c, NQ, u, v, transpose);
    }
#pragma unroll
    for (int r = 0; r <= DIM; r++) V[r][(size_t)el * st + l] = v[r];
  }
  __syncthreads();
  if (DIM == 2) {
    FEGContractDev<Q, P>(V[0], T2, Bt, 1, Q, st, neb, false);
    FEGContractDev<Q, P>(V[1], T3, Bt, 1, Q, st, neb, false);
    __syncthreads();
    FEGContractDev<Q, P>(V[2], T2, Dt, 1, Q, st, neb, true);
    __syncthreads();
    FEGContractDev<Q, P>(T2, U, Bt, P, 1, st, neb, false);
    __syncthreads();
    FEGContractDev<Q, P>(T3, U, Dt, P, 1, st, neb, true);
  } else {
    FEGContractDev<Q, P>(V[0], T2, Bt, 1, Q * Q, st, neb, false);
    FEGContractDev<Q, P>(V[2], T3, Bt, 1, Q * Q, st, neb, false);
    FEGContractDev<Q, P>(V[1], T4, Bt, 1, Q * Q, st, neb, false);
    __syncthreads();
    FEGContractDev<Q, P>(V[3], T2, Dt, 1, Q * Q, st, neb, true);
    __syncthreads();
    FEGContractDev<Q, P>(T2, T0, Bt, P, Q, st, neb, false);
    FEGContractDev<Q, P>(T4, T1, Bt, P, Q, st, neb, false);
    __syncthreads();
    FEGContractDev<Q, P>(T3, T0, Dt, P, Q, st, neb, true);
    __syncthreads();
    FEGContractDev<Q, P>(T0, U, Bt, P * P, 1, st, neb, false);
    __syncthreads();
    FEGContractDev<Q, P>(T1, U, Dt, P * P, 1, st, neb, true);
  }
  __syncthreads();
  for (int t = threadIdx.x; t < nel * NP; t += blockDim.x) {
    const int    el = t % nel, l = t / nel, e = E0 + el;
    const double v  = U[(size_t)el * st + l];

    if (ybuf) ybuf[(size_t)sf.lex[l] * sf.Ne + e] = v;
    else if (sf.unique) y[sf.idx[(size_t)l * sf.Ne + e]] += v;
    else atomicAdd(&y[sf.idx[(size_t)l * sf.Ne + e]], v);
  }
}

/* diagonal: thread per (element, node), sum over the Gauss points of the pairs times the 1D products */
template <int DIM, int KIND>
static __global__ void FEGSumFactDiag_Kernel(const FEGDevSumFact sf, double *__restrict__ y)
{
  const int    P = sf.P, Q = sf.Q, NP = DIM == 3 ? P * P * P : P * P, NQ = DIM == 3 ? Q * Q * Q : Q * Q;
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)sf.Ne * NP) return;
  const int e = (int)(t % sf.Ne), l = (int)(t / sf.Ne), a[3] = {l % P, (l / P) % P, l / (P * P)};
  double    s = 0.0;

  for (int lq = 0; lq < NQ; lq++) {
    const int i[3] = {lq % Q, (lq / Q) % Q, lq / (Q * Q)};
    double    R[4], v[4] = {0, 0, 0, 0};

    R[0] = 1.0;
#pragma unroll
    for (int c = 0; c < DIM; c++) R[0] *= sf.B1[i[c] * P + a[c]];
#pragma unroll
    for (int r = 1; r <= DIM; r++) {
      R[r] = 1.0;
#pragma unroll
      for (int c = 0; c < DIM; c++) R[r] *= (c == r - 1 ? sf.D1 : sf.B1)[i[c] * P + a[c]];
    }
    FEGPointApply<DIM, KIND>(sf.Cl + (size_t)e * sf.npairs * NQ + lq, NQ, R, v, false);
#pragma unroll
    for (int r = 0; r <= DIM; r++) s += R[r] * v[r];
  }
  atomicAdd(&y[sf.idx[(size_t)l * sf.Ne + e]], s);
}

template <int DIM, int P, int Q>
static PetscErrorCode FEGSumFactLaunch(const FEGDevSumFact *sf, const double *x, double *y, double *ybuf, int transpose)
{
  constexpr int MX = P > Q ? P : Q, N = DIM == 3 ? MX * MX * MX : MX * MX;
  const size_t  shm = (4 * P * Q + (size_t)7 * N * sf->neb) * sizeof(double);

  PetscFunctionBegin;
  if (shm > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(FEGSumFact_Kernel<DIM, P, Q>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  FEGSumFact_Kernel<DIM, P, Q><<<(sf->Ne + sf->neb - 1) / sf->neb, sf->nthreads, shm>>>(*sf, x, y, ybuf, transpose);
  PetscCallCUDA(cudaPeekAtLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int DIM, int P>
static PetscErrorCode FEGSumFactLaunchQ(const FEGDevSumFact *sf, const double *x, double *y, double *ybuf, int transpose)
{
  PetscFunctionBegin;
  if (sf->Q == P) PetscCall(FEGSumFactLaunch<DIM, P, P>(sf, x, y, ybuf, transpose));
  else if (sf->Q == P + 1) PetscCall(FEGSumFactLaunch<DIM, P, P + 1>(sf, x, y, ybuf, transpose));
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "sumfact: %d Gauss points per direction with %d nodes is not compiled (P or P+1)", sf->Q, P);
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int DIM>
static PetscErrorCode FEGSumFactLaunchP(const FEGDevSumFact *sf, const double *x, double *y, double *ybuf, int transpose)
{
  PetscFunctionBegin;
  switch (sf->P) {
  case 2:
    PetscCall(FEGSumFactLaunchQ<DIM, 2>(sf, x, y, ybuf, transpose));
    break;
  case 3:
    PetscCall(FEGSumFactLaunchQ<DIM, 3>(sf, x, y, ybuf, transpose));
    break;
  case 4:
    PetscCall(FEGSumFactLaunchQ<DIM, 4>(sf, x, y, ybuf, transpose));
    break;
  case 5:
    PetscCall(FEGSumFactLaunchQ<DIM, 5>(sf, x, y, ybuf, transpose));
    break;
  case 6:
    PetscCall(FEGSumFactLaunchQ<DIM, 6>(sf, x, y, ybuf, transpose));
    break;
  case 7:
    PetscCall(FEGSumFactLaunchQ<DIM, 7>(sf, x, y, ybuf, transpose));
    break;
  case 8:
    PetscCall(FEGSumFactLaunchQ<DIM, 8>(sf, x, y, ybuf, transpose));
    break;
  case 9:
    PetscCall(FEGSumFactLaunchQ<DIM, 9>(sf, x, y, ybuf, transpose));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "sumfact: %d nodes per direction is not compiled (2 to 9)", sf->P);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shared memory per element of the sumfact kernel, so the caller can choose elements per block */
size_t FEGDevSumFactShared(int dim, int P, int Q)
{
  const int MX = P > Q ? P : Q;
  return (size_t)7 * (dim == 3 ? MX * MX * MX : MX * MX) * sizeof(double);
}

PetscErrorCode FEGDevSumFactApply(const FEGDevSumFact *sf, const double *x, double *y, int transpose, int diag, int nlocal, const int *toff, const int *tlist, double *ybuf)
{
  double *yb = tlist && !diag && !sf->unique ? ybuf : NULL;

  PetscFunctionBegin;
  if (!sf->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  if (diag) {
    const int    NP = sf->dim == 3 ? sf->P * sf->P * sf->P : sf->P * sf->P;
    const size_t n  = (size_t)sf->Ne * NP;
    const unsigned nb = (unsigned)((n + 127) / 128);

#define FEG_SFDIAG(D, K) \
  case K: \
    FEGSumFactDiag_Kernel<D, K><<<nb, 128>>>(*sf, y); \
    break;
    if (sf->dim == 2) switch (sf->kind) {
        FEG_SFDIAG(2, FEG_MF_GG_SYM)
        FEG_SFDIAG(2, FEG_MF_VVGG_SYM)
        FEG_SFDIAG(2, FEG_MF_SYM)
        FEG_SFDIAG(2, FEG_MF_FULL)
      }
    else switch (sf->kind) {
        FEG_SFDIAG(3, FEG_MF_GG_SYM)
        FEG_SFDIAG(3, FEG_MF_VVGG_SYM)
        FEG_SFDIAG(3, FEG_MF_SYM)
        FEG_SFDIAG(3, FEG_MF_FULL)
      }
#undef FEG_SFDIAG
    PetscCallCUDA(cudaPeekAtLastError());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (sf->dim == 2) PetscCall(FEGSumFactLaunchP<2>(sf, x, y, yb, transpose));
  else PetscCall(FEGSumFactLaunchP<3>(sf, x, y, yb, transpose));
  if (yb && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
