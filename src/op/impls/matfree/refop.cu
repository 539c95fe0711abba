/* matfree on the GPU, refop and its batched-GEMM form, for affine simplices with C constant per cell */
#include <petscdevice_cuda.h>
#include <cuda_pipeline.h>
#include "matfreecuda.h"
#include "nodal.h"

/* the operator counts the kernels are compiled for (FEGMFPairs: every pair set of 2D and 3D forms) */
#define FEG_REFOP_NOPS(X) X(1) X(3) X(4) X(6) X(7) X(9) X(10) X(16)
/* the dofs per element of the one-thread-per-element kernel (every operator set fits in the kernel's parameters up to
   10 dofs; at 20, P3 tetrahedra, it was slower than mma) */
#define FEG_REFOP_THREAD_NB(X) X(3) X(4) X(6) X(10)

/* entry n of element e's action (Nb dofs per element): into ybuf for the deterministic gather, else into y by a plain
   store (overwrite, or dofs no other element shares) or an atomic add */
static __device__ __forceinline__ void FEGRefOpStore(const FEGDevRefOp &r, int Nb, double *__restrict__ y, double *__restrict__ ybuf, int e, int n, double v, int overwrite)
{
  if (ybuf) ybuf[(size_t)n * r.Ne + e] = v;
  else {
    const size_t id = r.contig ? (size_t)e * Nb + n : (size_t)r.idx[(size_t)n * r.Ne + e];
    if (overwrite) y[id] = v;
    else if (r.unique) y[id] += v;
    else atomicAdd(&y[id], v);
  }
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
      FEGRefOpStore(r, Nb, y, ybuf, e, n, v[q], overwrite);
    }
  }
}

/* refop for the smallest elements (Nb <= 10: P1 and P2 tetrahedra, P1-P3 triangles): one thread per element with the
   operators in the kernel's parameter space, so each operator entry is a constant operand of its FMA (no load), and
   x, the factors and y in registers. Two forms: the NOPS operators as they are (FEGRefOpSmall), or for diffusion kinds
   the gradient operators factored, M^rs = C_r^T C_s (FEGRefOpFactored). */
template <int NB, int NOPS>
struct FEGRefOpSmall {
  static constexpr bool factored = false, nodal = false;
  static constexpr int  DIM = 1, K = 1, VV = 0, MINB = 1; /* (no factors) */
  double                op[NOPS * NB * NB];               /* op[(m*NB+n)*NB+k] = Op_m[n][k] */
  __device__ int        slot(int b) const { return b; }
};

/* the mass operator, if the kind has one (first), and the DIM gradient factors of K rows each */
template <int NB, int DIM_, int K_, int VV_>
struct FEGRefOpFactored {
  static constexpr bool factored = true, nodal = false;
  static constexpr int  DIM = DIM_, K = K_, VV = VV_, MINB = 1;
  double                c[DIM * K * NB];  /* c[(s*K+i)*NB+b] = C_s[i][b] */
  double                ct[DIM * K * NB]; /* ct[(n*DIM+s)*K+i] = C_s[i][n]: a copy for the transposed product, so the
                                             compiler does not keep the entries both products use in registers (168 of
                                             them at P2) */
  double                m[VV ? NB * NB : 1];
  __device__ int        slot(int b) const { return b; }
  __device__ double     C(int s, int i, int b) const { return c[(s * K + i) * NB + b]; }
  __device__ double     CT(int n, int s, int i) const { return ct[(n * DIM + s) * K + i]; }
  __device__ double     M(int n, int k) const { return m[n * NB + k]; }
  __device__ double     mscale() const { return 1.0; }
};

/* blocks of 128 threads per multiprocessor the nodal kernel is held to (__launch_bounds__): 7, shared memory's limit,
   gives P2 tetrahedra 72 registers and a few bytes spilled, and ran faster than 6 (80 registers) and than no bound
   (88-92 registers, 5 blocks) */
#ifndef FEG_NODAL_MINB
  #define FEG_NODAL_MINB 7
#endif

/* P2 simplices, factored through the P1 nodal values of the derivatives with nodal.h's tables as compile-time
   constants: u_s = D_s x, z_r = M1 sum_s G_rs u_s, y = g_0 M x + sum_r D_r^T z_r. Two thirds of D's entries are 0 and
   the others few distinct values, so the tables cost no loads (the factored operators' 2.7 KB at P2 tetrahedra missed in
   the constant cache); the element's dofs are read and written in canonical order through perm */
template <int NB, int DIM_, int VV_>
struct FEGRefOpNodal {
  static constexpr bool factored = false, nodal = true;
  static constexpr int  DIM = DIM_, K = DIM_ + 1, VV = VV_, MINB = FEG_NODAL_MINB;
  int                   perm[NB]; /* the basis function of canonical node c */
  __device__ int        slot(int c) const { return perm[c]; }
  /* compile-time constants wherever the arguments are */
  __device__ double C(int s, int w, int c) const { return FEGP2NodalD(DIM, s, w, c); }
  __device__ double CT(int n, int s, int w) const { return FEGP2NodalD(DIM, s, w, n); }
  __device__ double M(int n, int k) const { return FEGP2RefMassInt(DIM, n, k); }
  __device__ double mscale() const { return FEGP2RefMassScale(DIM); }
};

/* shared-memory stride of a thread's NB values in the per-thread kernel's tile: NB + 1 when NB is a multiple of 4, whose
   stride put the threads of a warp reading their own element's values 4-way on the same banks (faster padded); the
   2-way conflicts of 10 doubles (P2) cost less than padding them */
template <int NB>
static __host__ __device__ constexpr int FEGRefOpThreadStride()
{
  return NB % 4 ? NB : NB + 1;
}

/* start copying a tile's factors, and its x if the element-owned dofs are contiguous, into shared memory (cp.async,
   8 bytes a copy so that any first element will do, each thread's values FEGRefOpThreadStride apart); one commit group
   per tile */
template <int NB, int NOPS>
static __device__ __forceinline__ void FEGRefOpThreadPrefetch(const FEGDevRefOp &r, const double *__restrict__ x, double *buf, int b0, int nel)
{
  constexpr int XS = FEGRefOpThreadStride<NB>(), GS = FEGRefOpThreadStride<NOPS>();
  double       *sx = buf, *sg = buf + blockDim.x * XS;

  for (int t = threadIdx.x; t < nel * NOPS; t += blockDim.x) __pipeline_memcpy_async(&sg[t / NOPS * GS + t % NOPS], &r.G[(size_t)b0 * NOPS + t], sizeof(double));
  if (r.contig)
    for (int t = threadIdx.x; t < nel * NB; t += blockDim.x) __pipeline_memcpy_async(&sx[t / NB * XS + t % NB], &x[(size_t)b0 * NB + t], sizeof(double));
  __pipeline_commit();
}

/* Persistent blocks of one element per thread over tiles of blockDim.x elements, double-buffered: while a block
   computes one tile the copies of its next tile are in flight (one load-compute-store phase per block left the memory
   system idle between phases). y of contiguous element-owned dofs goes back through the tile's buffer, so global
   memory is read and written in whole lines. */
template <int NB, int NOPS, class OPS>
static __global__ void __launch_bounds__(128, OPS::MINB) FEGRefOpThread_Kernel(const FEGDevRefOp r, const OPS P, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose, int overwrite)
{
  extern __shared__ double sm[];
  constexpr int            XS = FEGRefOpThreadStride<NB>(), GS = FEGRefOpThreadStride<NOPS>();
  const int                per = blockDim.x * (XS + GS), ntiles = (r.e1 - r.e0 + blockDim.x - 1) / blockDim.x;
  const bool               staged = r.contig && !ybuf && (overwrite || r.unique);
  int                      cur    = 0;

  if ((int)blockIdx.x < ntiles) FEGRefOpThreadPrefetch<NB, NOPS>(r, x, sm, r.e0 + blockIdx.x * blockDim.x, min((int)blockDim.x, r.e1 - r.e0 - (int)(blockIdx.x * blockDim.x)));
  for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x, cur ^= 1) {
    const int b0 = r.e0 + tile * blockDim.x, nel = min((int)blockDim.x, r.e1 - b0), e = b0 + threadIdx.x, next = tile + gridDim.x;
    double   *buf = sm + cur * per, *sg = buf + blockDim.x * XS;
    double    xe[NB], g[NOPS];

    if (next < ntiles) FEGRefOpThreadPrefetch<NB, NOPS>(r, x, sm + (cur ^ 1) * per, r.e0 + next * blockDim.x, min((int)blockDim.x, r.e1 - r.e0 - next * (int)blockDim.x));
    else __pipeline_commit();
    __pipeline_wait_prior(1); /* this tile's group has landed */
    __syncthreads();
    if (threadIdx.x < nel) {
#pragma unroll
      for (int k = 0; k < NB; k++) xe[k] = r.contig ? buf[threadIdx.x * XS + P.slot(k)] : x[r.idx[(size_t)P.slot(k) * r.Ne + e]];
#pragma unroll
      for (int m = 0; m < NOPS; m++) g[m] = sg[threadIdx.x * GS + (transpose ? r.tperm[m] : m)];
    }
    if (staged) __syncthreads(); /* every x read before y overwrites it */
    if (threadIdx.x < nel) {
      /* row by row, so that only x, the factors (and z) live in registers */
      double z[OPS::DIM][OPS::K];

      if constexpr (OPS::factored || OPS::nodal) {
        /* u_s = C_s x, z_r = sum_s G_rs u_s (G symmetric), y = g_0 M x + sum_r C_r^T z_r; the nodal form's C_s are the
           tables' D_s (their zeros skipped at compile time) and its z_r = M1 sum_s G_rs u_s, M1 z = m1 (z + sum z) */
        constexpr int DIM = OPS::DIM, K = OPS::K;
        double        u[DIM][K];

#pragma unroll
        for (int s = 0; s < DIM; s++)
#pragma unroll
          for (int i = 0; i < K; i++) {
            double t = 0.0;
#pragma unroll
            for (int b = 0; b < NB; b++) {
              const double c = P.C(s, i, b);

              if (!OPS::nodal || c != 0.0) t = fma(c, xe[b], t);
            }
            u[s][i] = t;
          }
#pragma unroll
        for (int q = 0; q < DIM; q++) {
          double zs = 0.0;
#pragma unroll
          for (int i = 0; i < K; i++) {
            double t = 0.0;
#pragma unroll
            for (int s = 0; s < DIM; s++) t = fma(g[FEGMFSymPairIndex(DIM, OPS::VV, q + 1, s + 1)], u[s][i], t);
            z[q][i] = t;
            zs += t;
          }
          if constexpr (OPS::nodal) {
#pragma unroll
            for (int i = 0; i < K; i++) z[q][i] = FEGP1RefMassScale(DIM) * (z[q][i] + zs);
          }
        }
      }
#pragma unroll
      for (int n = 0; n < NB; n++) {
        double v = 0.0;

        if constexpr (OPS::factored || OPS::nodal) {
          if (OPS::VV) {
            double t = 0.0;
#pragma unroll
            for (int k = 0; k < NB; k++) t = fma(P.M(n, k), xe[k], t);
            v = P.mscale() * g[0] * t;
          }
#pragma unroll
          for (int s = 0; s < OPS::DIM; s++)
#pragma unroll
            for (int i = 0; i < OPS::K; i++) {
              const double c = P.CT(n, s, i);

              if (!OPS::nodal || c != 0.0) v = fma(c, z[s][i], v);
            }
        } else {
#pragma unroll
          for (int m = 0; m < NOPS; m++) {
            double t = 0.0;
#pragma unroll
            for (int k = 0; k < NB; k++) t = fma(P.op[(m * NB + n) * NB + k], xe[k], t);
            v = fma(g[m], t, v);
          }
        }
        if (staged) buf[threadIdx.x * XS + P.slot(n)] = v;
        else FEGRefOpStore(r, NB, y, ybuf, e, P.slot(n), v, overwrite);
      }
    }
    if (staged) {
      __syncthreads();
      for (int t = threadIdx.x; t < nel * NB; t += blockDim.x) {
        const double v = buf[t / NB * XS + t % NB];

        if (overwrite) y[(size_t)b0 * NB + t] = v;
        else y[(size_t)b0 * NB + t] += v;
      }
    }
    __syncthreads(); /* the buffer is free before the next prefetch into it */
  }
}

/* one launch of the per-thread kernel: as many persistent blocks as fit on the device at once (at most one per tile),
   or, for the unfactored operators at 10 dofs, one block per tile with one buffer (the next-tile loop never runs): 56
   registers and twice the shared memory made the persistent form slower there */
template <int NB, int NOPS, class OPS>
static PetscErrorCode FEGRefOpThreadLaunch(const FEGDevRefOp *r, const OPS &P, const double *x, double *y, double *ybuf, int transpose, int overwrite)
{
  const int    nt = 128, ntiles = (r->e1 - r->e0 + nt - 1) / nt;
  const bool   persistent = OPS::factored || NB < 10;
  const size_t shm        = (persistent ? 2 : 1) * sizeof(double) * nt * (FEGRefOpThreadStride<NB>() + FEGRefOpThreadStride<NOPS>());
  int          nact, sms;

  PetscFunctionBegin;
  PetscCall(FEGDevKernelFit((const void *)FEGRefOpThread_Kernel<NB, NOPS, OPS>, nt, shm, &nact, &sms));
  PetscCheck(nact > 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "refop: the per-thread kernel (%d threads, %zu bytes of shared memory) does not fit on this GPU", nt, shm);
  FEGRefOpThread_Kernel<NB, NOPS, OPS><<<persistent ? PetscMin(sms * nact, ntiles) : ntiles, nt, shm>>>(*r, P, x, y, ybuf, transpose, overwrite);
  FEGCheckLaunch("FEGRefOpThread_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factored kernel's (dofs, dimension, rank) cases: P1, P2 tetrahedra; P1, P2, P3 triangles */
#define FEG_REFOP_FACTORED(X) X(4, 3, 1) X(10, 3, 4) X(3, 2, 1) X(6, 2, 3) X(10, 2, 6)

template <int NB, int DIM, int K, int VV>
static PetscErrorCode FEGRefOpFactoredLaunch(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int overwrite)
{
  FEGRefOpFactored<NB, DIM, K, VV> P;
  constexpr int                    NOPS = VV + DIM * (DIM + 1) / 2;

  PetscFunctionBegin;
  PetscCheck(r->nops == NOPS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "refop: %d operators for a factored kernel of %d", r->nops, NOPS);
  for (int s = 0; s < DIM; s++)
    for (int i = 0; i < K; i++)
      for (int b = 0; b < NB; b++) P.c[(s * K + i) * NB + b] = P.ct[(b * DIM + s) * K + i] = r->Cfh[(s * K + i) * NB + b];
  if (VV)
    for (int n = 0; n < NB; n++)
      for (int k = 0; k < NB; k++) P.m[n * NB + k] = r->Oph[(size_t)k * NB + n];
  PetscCall(FEGRefOpThreadLaunch<NB, NOPS>(r, P, x, y, ybuf, 0, overwrite));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the nodal kernel: P2 triangles and tetrahedra, with or without the mass operator */
static PetscErrorCode FEGRefOpNodalApply(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int overwrite)
{
  const int vv = r->nops == 1 + r->dim * (r->dim + 1) / 2;

  PetscFunctionBegin;
#define FEG_NODAL_CASE(NB, DIM) \
  if (r->Nb == NB && r->dim == DIM) { \
    if (vv) { \
      FEGRefOpNodal<NB, DIM, 1> P; \
      for (int c = 0; c < NB; c++) P.perm[c] = r->nperm[c]; \
      PetscCall(FEGRefOpThreadLaunch<NB, 1 + DIM *(DIM + 1) / 2>(r, P, x, y, ybuf, 0, overwrite)); \
    } else { \
      FEGRefOpNodal<NB, DIM, 0> P; \
      for (int c = 0; c < NB; c++) P.perm[c] = r->nperm[c]; \
      PetscCall(FEGRefOpThreadLaunch<NB, DIM *(DIM + 1) / 2>(r, P, x, y, ybuf, 0, overwrite)); \
    } \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
  FEG_NODAL_CASE(6, 2)
  FEG_NODAL_CASE(10, 3)
#undef FEG_NODAL_CASE
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "refop: no nodal kernel for %d dofs in %dD", r->Nb, r->dim);
}

/* whether the factored per-thread refop is compiled for these dofs, dimension and rank */
int FEGDevRefOpFactoredCompiled(int Nb, int dim, int k)
{
#define FEG_FACTORED_CASE(NB, DIM, K) \
  if (Nb == NB && dim == DIM && k == K) return 1;
  FEG_REFOP_FACTORED(FEG_FACTORED_CASE)
#undef FEG_FACTORED_CASE
  return 0;
}

static PetscErrorCode FEGRefOpFactoredApply(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int overwrite)
{
  const int vv = r->nops == 1 + r->dim * (r->dim + 1) / 2;

  PetscFunctionBegin;
#define FEG_FACTORED_CASE(NB, DIM, K) \
  if (r->Nb == NB && r->dim == DIM && r->fk == K) { \
    if (vv) PetscCall(FEGRefOpFactoredLaunch<NB, DIM, K, 1>(r, x, y, ybuf, overwrite)); \
    else PetscCall(FEGRefOpFactoredLaunch<NB, DIM, K, 0>(r, x, y, ybuf, overwrite)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
  FEG_REFOP_FACTORED(FEG_FACTORED_CASE)
#undef FEG_FACTORED_CASE
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "refop: no factored kernel for %d dofs in %dD with rank %d", r->Nb, r->dim, r->fk);
}

template <int NB, int NOPS>
static PetscErrorCode FEGRefOpSmallLaunch(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int transpose, int overwrite)
{
  FEGRefOpSmall<NB, NOPS> P;

  PetscFunctionBegin;
  for (int m = 0; m < NOPS; m++)
    for (int n = 0; n < NB; n++)
      for (int k = 0; k < NB; k++) P.op[(m * NB + n) * NB + k] = r->Oph[((size_t)m * NB + k) * NB + n];
  PetscCall(FEGRefOpThreadLaunch<NB, NOPS>(r, P, x, y, ybuf, transpose, overwrite));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int NB>
static PetscErrorCode FEGRefOpThreadLaunchNB(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int transpose, int overwrite)
{
  PetscFunctionBegin;
  switch (r->nops) {
#define FEG_THREAD_CASE(NO) \
  case NO: \
    PetscCall(FEGRefOpSmallLaunch<NB, NO>(r, x, y, ybuf, transpose, overwrite)); \
    break;
    FEG_REFOP_NOPS(FEG_THREAD_CASE)
#undef FEG_THREAD_CASE
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "refop: no per-thread kernel for %d operators", r->nops);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the per-thread refop is compiled for this many dofs per element */
int FEGDevRefOpThreadCompiled(int Nb)
{
#define FEG_THREAD_NB(NB) \
  if (Nb == NB) return 1;
  FEG_REFOP_THREAD_NB(FEG_THREAD_NB)
#undef FEG_THREAD_NB
  return 0;
}

static PetscErrorCode FEGRefOpThreadApply(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int transpose, int overwrite)
{
  PetscFunctionBegin;
  switch (r->Nb) {
#define FEG_THREAD_NB(NB) \
  case NB: \
    PetscCall(FEGRefOpThreadLaunchNB<NB>(r, x, y, ybuf, transpose, overwrite)); \
    break;
    FEG_REFOP_THREAD_NB(FEG_THREAD_NB)
#undef FEG_THREAD_NB
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "refop: no per-thread kernel for %d dofs per element", r->Nb);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int NOPS, int NR>
static PetscErrorCode FEGRefOpLaunchNE(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int transpose, int overwrite)
{
  const dim3   block((r->Nb + NR - 1) / NR, r->nb);
  const int    per  = r->nb * r->ne;
  const size_t shm  = (size_t)per * r->Nb * sizeof(double);
  const int    nblk = (r->e1 - r->e0 + per - 1) / per;

  PetscFunctionBegin;
  PetscCheck(block.x * block.y <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "refop: %d threads per element x %d groups per block exceeds 1024 threads; lower -feg_op_matfree_nb", (int)block.x, r->nb);
#define FEG_REFOP_CASE(NE) \
  case NE: { \
    int nact = 0; \
    PetscCall(FEGDevKernelFit((const void *)FEGRefOp_Kernel<NOPS, NE, NR>, (int)(block.x * block.y), shm, &nact, NULL)); \
    PetscCheck(nact > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "refop: %d elements per thread x %d groups per block (%d threads, %zu bytes of shared memory) do not fit on this GPU; lower -feg_op_matfree_ne or -feg_op_matfree_nb", NE, r->nb, \
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

/* y (+)= A x (A^T x) by refop over the launch's elements, or the diagonal of all elements (L->diag); with the
   deterministic gather, the per-entry results summed after the last range */
PetscErrorCode FEGDevRefOpApply(const FEGDevRefOp *ro, const FEGDevLaunch *L)
{
  FEGDevRefOp   rr = *ro, *r = &rr;
  double       *yb = L->tlist && !r->unique ? L->ybuf : NULL, *y = L->y;
  const double *x  = L->x;
  const int     e0 = L->e0, e1 = L->e1, transpose = L->transpose, overwrite = L->overwrite;

  PetscFunctionBegin;
  rr.e0 = e0;
  rr.e1 = e1;
  if (!r->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  if (L->diag) {
    FEGRefOpDiag_Kernel<<<(unsigned)(((size_t)r->Ne * r->Nb + 255) / 256), 256>>>(*r, y, yb);
    FEGCheckLaunch("FEGRefOpDiag_Kernel");
    PetscCall(FEGDevLaunchGather(L, yb));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (e1 > e0 && r->thread && r->nodal) PetscCall(FEGRefOpNodalApply(r, x, y, yb, overwrite));
  else if (e1 > e0 && r->thread && r->fk) PetscCall(FEGRefOpFactoredApply(r, x, y, yb, overwrite));
  else if (e1 > e0 && r->thread) PetscCall(FEGRefOpThreadApply(r, x, y, yb, transpose, overwrite));
  else if (e1 > e0) switch (r->nops) {
#define FEG_BLOCK_CASE(NO) \
  case NO: \
    PetscCall(FEGRefOpLaunchNR<NO>(r, x, y, yb, transpose, overwrite)); \
    break;
      FEG_REFOP_NOPS(FEG_BLOCK_CASE)
#undef FEG_BLOCK_CASE
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "refop: no kernel for %d operators", r->nops);
    }
  PetscCall(FEGDevLaunchGather(L, yb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------------
   mma: refop on the FP64 tensor cores, one fused kernel. A block takes EB = 8 NT WC elements; their x (Kp x EB) and
   factors (nops x EB) are staged in shared memory once. Y (Mp x EB) = sum_m Op_m (X diag(G_m)) is one product with
   K = nops Kp: the A fragments are the operators (fragment-major, one coalesced 256-byte load each, from L1), the B
   fragments x times the element's factor, so the per-element combination costs one multiply per B fragment and no
   Z array is written (the gemm form moves 7 Nb doubles per element through memory for it). A warp holds MT x NT
   8 x 8 accumulator tiles; WR x WC warps per block split the rows and the elements. */
#define FEG_DMMA884(c, a, b) asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"((c)[0]), "+d"((c)[1]) : "d"(a), "d"(b))

template <int MT, int NT>
static __global__ void FEGRefOpMma_Kernel(const FEGDevRefOp r, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose, int overwrite)
{
  extern __shared__ double sm[];
  const int                lane = threadIdx.x & 31, w = threadIdx.x >> 5, wr = w % r.wr, wc = w / r.wr;
  const int                Nb = r.Nb, Kp = r.Kp, RT = r.Mp / 8, KT = Kp / 4, nops = r.nops, EB = 8 * NT * r.wc, ld = EB + 4;
  const int                E0 = r.e0 + blockIdx.x * EB, nel = min(EB, r.e1 - E0);
  double                  *xs = sm, *gs = sm + (size_t)Kp * ld;

  /* x in xs[k*ld+i] (ld = EB + 4: the B fragments' 4 rows fall in distinct banks), zero beyond Nb and nel */
  if (r.contig)
    for (int t = threadIdx.x; t < EB * Kp; t += blockDim.x) {
      const int i = t / Kp, k = t % Kp;
      xs[k * ld + i] = i < nel && k < Nb ? x[(size_t)(E0 + i) * Nb + k] : 0.0;
    }
  else
    for (int t = threadIdx.x; t < EB * Kp; t += blockDim.x) {
      const int i = t % EB, k = t / EB;
      xs[k * ld + i] = i < nel && k < Nb ? x[r.idx[(size_t)k * r.Ne + E0 + i]] : 0.0;
    }
  for (int t = threadIdx.x; t < EB * nops; t += blockDim.x) {
    const int i = t / nops, m = t % nops;
    gs[m * EB + i] = i < nel ? r.G[(size_t)(E0 + i) * nops + (transpose ? r.tperm[m] : m)] : 0.0;
  }
  __syncthreads();

  const int col = wc * NT * 8 + (lane >> 2); /* element of this lane's B fragment in tile 0 */
  for (int rt0 = wr * MT; rt0 < RT; rt0 += r.wr * MT) {
    double c[MT][NT][2];

#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
      for (int j = 0; j < NT; j++) c[i][j][0] = c[i][j][1] = 0.0;
    for (int m = 0; m < nops; m++) {
      const double *A = r.Af + (size_t)m * RT * KT * 32 + lane, *xk = xs + (lane & 3) * ld + col;
      double        g[NT];

#pragma unroll
      for (int j = 0; j < NT; j++) g[j] = gs[m * EB + col + 8 * j];
#pragma unroll 2
      for (int kt = 0; kt < KT; kt++) {
        double a[MT], b[NT];

#pragma unroll
        for (int i = 0; i < MT; i++) a[i] = rt0 + i < RT ? __ldg(A + ((size_t)(rt0 + i) * KT + kt) * 32) : 0.0;
#pragma unroll
        for (int j = 0; j < NT; j++) b[j] = xk[kt * 4 * ld + 8 * j] * g[j];
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
          for (int j = 0; j < NT; j++) FEG_DMMA884(c[i][j], a[i], b[j]);
      }
    }
    /* accumulator (row lane/4, columns 2 (lane%4) + h) of each tile */
#pragma unroll
    for (int i = 0; i < MT; i++) {
      const int n = (rt0 + i) * 8 + (lane >> 2);
      if (n >= Nb) continue;
#pragma unroll
      for (int j = 0; j < NT; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int ie = wc * NT * 8 + j * 8 + 2 * (lane & 3) + h, e = E0 + ie;
          if (ie >= nel) continue;
          /* FEGRefOpStore() written out, like the staging above (the factored kernel's twin): with the helper here,
             or the staging in a helper shared with that kernel, nvcc gave these kernels up to 24 more registers (72
             -> 80 at 1 x 4 tiles, 72 -> 96 at 2 x 2) */
          if (ybuf) ybuf[(size_t)n * r.Ne + e] = c[i][j][h];
          else {
            const size_t id = r.contig ? (size_t)e * Nb + n : (size_t)r.idx[(size_t)n * r.Ne + e];
            if (overwrite) y[id] = c[i][j][h];
            else if (r.unique) y[id] += c[i][j][h];
            else atomicAdd(&y[id], c[i][j][h]);
          }
        }
    }
  }
}

/* one warp's 8 x 8 NT tile of a product: c = A B with the A fragments fragment-major from A (this lane's, 32 apart)
   and B's 4 x 8 fragments from shared memory, this lane's row at b, rows ld apart, element tiles 8 apart */
template <int NT>
static __device__ __forceinline__ void FEGMmaWarpTile(const double *__restrict__ A, const double *b, int KT, int ld, double c[NT][2])
{
#pragma unroll
  for (int j = 0; j < NT; j++) c[j][0] = c[j][1] = 0.0;
#pragma unroll 2
  for (int kt = 0; kt < KT; kt++) {
    const double a = __ldg(A + kt * 32);
#pragma unroll
    for (int j = 0; j < NT; j++) FEG_DMMA884(c[j], a, b[kt * 4 * ld + 8 * j]);
  }
}

/* mma with the gradient operators factored (diffusion kinds), three phases in one block over EB elements:
   U = A1 X (dim k rows), Z_q = sum_s G_qs U_s in place and X scaled by the mass factor, Y = A2 [Z; g_0 X]. Each
   phase's 8 x 8 tiles are shared out over the warps, NT element tiles per warp so every A fragment serves NT
   products. P4: 192 DMMAs per 8 elements instead of 315, and no multiply per B fragment. blockDim.x / 32 warps (4
   to 16, more for more row tiles: FEGRefOpMmaFactoredTuning). One tile per block: the persistent, double-buffered form
   of the per-thread refop was slower here. The kernel is issue-bound (Nsight Compute: issue slots busy, a few hundred
   instructions per element for 7 DMMAs), so its index arithmetic is kept to shifts and masks: the tile groups per
   block (WC) are compile-time, the staging loops avoid divisions by run-time sizes, and the shared-memory stores of x
   and the factors are conflict-free. */
template <int NT, int WC>
static __global__ void FEGRefOpMmaFactored_Kernel(const FEGDevRefOp r, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int overwrite)
{
  extern __shared__ double sm[];
  const int                lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const int                Nb = r.Nb, K = r.fk, dim = r.dim, DK = dim * K, nops = r.nops, GS = nops | 1, vv = nops > dim * (dim + 1) / 2;
  /* WC > 0: the tile groups per block at compile time, so the element index of a shared-memory slot is a mask */
  const int EB = 8 * NT * (WC ? WC : r.wc), ld = EB + 4, ET = WC ? WC : r.wc, RX = r.Kb - DK, RT1 = r.Mp1 / 8, KT1 = r.Kp / 4, RT2 = r.Mp / 8, KT2 = r.K2p / 4;
  const int E0 = r.e0 + blockIdx.x * EB, nel = min(EB, r.e1 - E0);
  double   *bs = sm, *gs = sm + (size_t)r.Kb * ld, *xs = bs + (size_t)DK * ld;

  /* x in rows DK.., zero beyond Nb and nel and in the rows past them. Element-owned dofs: 4 consecutive dofs of one
     element per 4 lanes (whole 32-byte sectors read), elements next, so the column-major shared stores are free of
     bank conflicts with ld = EB + 4 (a dof per lane made them 5-way at P3) */
  if (r.contig)
    for (int t = threadIdx.x; t < EB * ((RX + 3) & ~3); t += blockDim.x) {
      const int i = (t >> 2) % EB, k = ((t >> 2) / EB) * 4 + (t & 3);

      if (k < RX) xs[k * ld + i] = i < nel && k < Nb ? x[(size_t)(E0 + i) * Nb + k] : 0.0;
    }
  else
    for (int t = threadIdx.x; t < EB * RX; t += blockDim.x) {
      const int i = t % EB, k = t / EB;

      xs[k * ld + i] = i < nel && k < Nb ? x[(size_t)r.idx[(size_t)k * r.Ne + E0 + i]] : 0.0;
    }
  /* the factors element-major, gs[i*GS+m] (GS odd: conflict-free reads across elements) */
  for (int t = threadIdx.x; t < EB * nops; t += blockDim.x) {
    const int i = t / nops, m = t - i * nops;
    gs[i * GS + m] = i < nel ? r.G[(size_t)(E0 + i) * nops + m] : 0.0;
  }
  __syncthreads();

  /* U = A1 X into rows 0..DK-1 */
  for (int item = w; item < RT1 * ET; item += nw) {
    const int rt = item % RT1, ct = item / RT1, col = ct * 8 * NT + (lane >> 2);
    double    c[NT][2];

    FEGMmaWarpTile<NT>(r.Af + (size_t)rt * KT1 * 32 + lane, xs + (lane & 3) * ld + col, KT1, ld, c);
    const int n = rt * 8 + (lane >> 2);
    if (n < DK)
#pragma unroll
      for (int j = 0; j < NT; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) bs[n * ld + ct * 8 * NT + j * 8 + 2 * (lane & 3) + h] = c[j][h];
  }
  __syncthreads();
  /* Z_q = sum_s G_qs U_s in place, element by element; x times the mass factor */
  for (int t = threadIdx.x; t < K * EB; t += blockDim.x) {
    const int     i = t / EB, e = t % EB;
    const double *ge   = gs + e * GS;
    double        u[3] = {0.0, 0.0, 0.0};

#pragma unroll
    for (int s = 0; s < 3; s++)
      if (s < dim) u[s] = bs[(s * K + i) * ld + e];
#pragma unroll
    for (int q = 0; q < 3; q++) {
      double z = 0.0;

      if (q >= dim) break;
#pragma unroll
      for (int s = 0; s < 3; s++)
        if (s < dim) z = fma(ge[FEGMFSymPairIndex(dim, vv, q + 1, s + 1)], u[s], z);
      bs[(q * K + i) * ld + e] = z;
    }
  }
  if (vv)
    for (int t = threadIdx.x; t < Nb * EB; t += blockDim.x) xs[(t / EB) * ld + t % EB] *= gs[(t % EB) * GS];
  __syncthreads();

  /* Y = A2 [Z; g_0 X] */
  for (int item = w; item < RT2 * ET; item += nw) {
    const int rt = item % RT2, ct = item / RT2, col = ct * 8 * NT + (lane >> 2);
    double    c[NT][2];

    FEGMmaWarpTile<NT>(r.Af2 + (size_t)rt * KT2 * 32 + lane, bs + (lane & 3) * ld + col, KT2, ld, c);
    const int n = rt * 8 + (lane >> 2);
    if (n >= Nb) continue;
#pragma unroll
    for (int j = 0; j < NT; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int ie = ct * 8 * NT + j * 8 + 2 * (lane & 3) + h, e = E0 + ie;
        if (ie >= nel) continue;
        FEGRefOpStore(r, Nb, y, ybuf, e, n, c[j][h], overwrite);
      }
  }
}

/* shared memory of one mma block */
size_t FEGDevRefOpMmaShared(const FEGDevRefOp *r)
{
  const int EB = 8 * r->nt * r->wc;
  if (r->Af2) return sizeof(double) * ((size_t)r->Kb * (EB + 4) + (size_t)(r->nops | 1) * EB);
  return sizeof(double) * ((size_t)r->Kp * (EB + 4) + (size_t)r->nops * EB);
}

template <int MT, int NT>
static PetscErrorCode FEGRefOpMmaLaunch(const FEGDevRefOp *r, const double *x, double *y, double *ybuf, int transpose, int overwrite)
{
  const int    EB = 8 * NT * r->wc, nth = 32 * r->wr * r->wc, nblk = (r->e1 - r->e0 + EB - 1) / EB;
  const size_t shm  = FEGDevRefOpMmaShared(r);
  int          nact = 0;

  PetscFunctionBegin;
  PetscCall(FEGDevKernelFit((const void *)FEGRefOpMma_Kernel<MT, NT>, nth, shm, &nact, NULL));
  PetscCheck(nact > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "mma: %d x %d warps per block with %d x %d tiles each (%d threads, %zu bytes of shared memory) do not fit on this GPU; lower -feg_op_matfree_nb or -feg_op_matfree_ne", r->wr, r->wc, MT, NT, nth, shm);
  FEGRefOpMma_Kernel<MT, NT><<<nblk, nth, shm>>>(*r, x, y, ybuf, transpose, overwrite);
  FEGCheckLaunch("FEGRefOpMma_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y (+)= A x (A^T x) by the mma kernel over the launch's elements; with the gather, the sums after the last range */
PetscErrorCode FEGDevRefOpMmaApply(const FEGDevRefOp *ro, const FEGDevLaunch *L)
{
  FEGDevRefOp   rr = *ro, *r = &rr;
  double       *yb = L->tlist && !r->unique ? L->ybuf : NULL, *y = L->y;
  const double *x  = L->x;
  const int     e0 = L->e0, e1 = L->e1, transpose = L->transpose, overwrite = L->overwrite;

  PetscFunctionBegin;
  rr.e0 = e0;
  rr.e1 = e1;
  if (e1 > e0 && r->Af2) {
    const int    EB = 8 * r->nt * r->wc, nth = 32 * r->wr, nblk = (r->e1 - r->e0 + EB - 1) / EB;
    const size_t shm  = FEGDevRefOpMmaShared(r);
    int          nact = 0;
    void (*kern)(const FEGDevRefOp, const double *, double *, double *, int);

    /* the tuned tile groups (1, 2) compiled, any other -feg_op_matfree_nb at run time */
    if (r->nt == 1) kern = r->wc == 1 ? FEGRefOpMmaFactored_Kernel<1, 1> : (r->wc == 2 ? FEGRefOpMmaFactored_Kernel<1, 2> : FEGRefOpMmaFactored_Kernel<1, 0>);
    else kern = r->wc == 1 ? FEGRefOpMmaFactored_Kernel<2, 1> : (r->wc == 2 ? FEGRefOpMmaFactored_Kernel<2, 2> : FEGRefOpMmaFactored_Kernel<2, 0>);

    PetscCheck(r->nt == 1 || r->nt == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "mma (factored): %d element tiles per warp is not compiled: use 1 or 2 (-feg_op_matfree_ne)", r->nt);
    PetscCall(FEGDevKernelFit((const void *)kern, nth, shm, &nact, NULL));
    PetscCheck(nact > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "mma (factored): %d elements per block (%zu bytes of shared memory) do not fit on this GPU; lower -feg_op_matfree_nb", EB, shm);
    kern<<<nblk, nth, shm>>>(*r, x, y, yb, overwrite);
    FEGCheckLaunch("FEGRefOpMmaFactored_Kernel");
  } else if (e1 > e0) {
#define FEG_MMA_CASE(MT, NT) \
  if (r->mt == MT && r->nt == NT) PetscCall(FEGRefOpMmaLaunch<MT, NT>(r, x, y, yb, transpose, overwrite)); \
  else
    FEG_MMA_CASE(1, 2)
    FEG_MMA_CASE(1, 4)
    FEG_MMA_CASE(1, 8)
    FEG_MMA_CASE(2, 2)
    FEG_MMA_CASE(2, 4)
    FEG_MMA_CASE(2, 8)
    FEG_MMA_CASE(4, 2)
    FEG_MMA_CASE(4, 4)
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "mma: %d row tiles x %d element tiles per warp is not compiled: use 1, 2 or 4 row tiles (-feg_op_matfree_nr) with 2, 4 or 8 element tiles (-feg_op_matfree_ne), at most 16 tiles", r->mt, r->nt);
#undef FEG_MMA_CASE
  }
  PetscCall(FEGDevLaunchGather(L, yb));
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
  FEGRefOpStore(r, r.Nb, y, ybuf, e, n, v, overwrite);
}

PetscErrorCode FEGDevGemmApply(const FEGDevRefOp *r, const FEGDevLaunch *L)
{
  const int     Nb = r->Nb, ldx = (Nb + 3) / 4 * 4, ldz = r->lda, nt = 256, Ec = r->Ec, e0 = L->e0, e1 = L->e1;
  const int     transpose = L->transpose, overwrite = L->overwrite;
  double       *X = r->work, *Z = r->work + (size_t)ldx * Ec, *yb = L->tlist && !r->unique ? L->ybuf : NULL, *y = L->y;
  const double *A = r->A, *x = L->x, one = 1.0, zero = 0.0;
  void         *h;

  PetscFunctionBegin;
  PetscCall(FEGDevGetCublas(&h));
  for (int c0 = e0; c0 < e1; c0 += Ec) {
    const int    n = PetscMin(Ec, e1 - c0);
    const size_t w = (size_t)n * Nb;

    FEGGemmGather_Kernel<<<(unsigned)((w + nt - 1) / nt), nt>>>(Nb, r->Ne, c0, n, ldx, r->idx, r->contig, x, X);
    FEGCheckLaunch("FEGGemmGather_Kernel");
    PetscCallCUBLAS(cublasDgemm((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, r->nops * Nb, n, Nb, &one, A, r->lda, X, ldx, &zero, Z, ldz));
#define FEG_COMBINE(NO) \
  case NO: \
    FEGGemmCombine_Kernel<NO><<<(unsigned)((w + nt - 1) / nt), nt>>>(*r, c0, n, ldz, Z, y, yb, transpose, overwrite); \
    break;
    switch (r->nops) {
      FEG_REFOP_NOPS(FEG_COMBINE)
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "gemm: no combination kernel for %d operators", r->nops);
    }
#undef FEG_COMBINE
    FEGCheckLaunch("FEGGemmCombine_Kernel");
  }
  PetscCall(FEGDevLaunchGather(L, yb));
  PetscFunctionReturn(PETSC_SUCCESS);
}
