/* Element matrices and vectors of a(u,v) = int sum_ij C_ij d_i u d_j v on the GPU, for addto, lma and right-hand
   sides; the point-level arithmetic is fegpoint.h's, shared with the host.
   Small elements: one element per thread. Large elements: one element per thread block (Krużel et al., Algorithm 2),
   each thread computing NENTPT entries of a part of the element matrix, quadrature points staged through shared
   memory in chunks, the element's Jacobian data optionally staged in shared memory first. */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegcuda.h>

#define FEG_SMALL_NB 20 /* the one-element-per-thread kernel keeps the element matrix in registers/local memory */
#define FEG_VEC_NB   10 /* basis functions per thread of the element-vector kernel */

/* Physical value and gradient of basis function b at quadrature point q: phi[0..dim] */
static __device__ __forceinline__ void FEGPhi(const FEGDevDisc &d, int dim, const double *invJ, int q, int b, double phi[4])
{
  if (dim == 2) FEGPhysical(2, d.B[q * d.Nb + b], &d.D[(q * d.Nb + b) * 2], invJ, phi);
  else FEGPhysical(3, d.B[q * d.Nb + b], &d.D[(q * d.Nb + b) * 3], invJ, phi);
}

/* entry (a, b) of element e, the li-th of the kernel's element list. MAYGROUP false: the kernel knows Nb is none of
   FEGLMASingleGrouped()'s and FEGLMADoubleGrouped()'s (its compile-time sizes), or is never given lma's grouped
   storage (FEGElemRef_Kernel), and skips the test, which took P2 tetrahedra's kernel from 72 to 76 registers and made
   its assembly slower */
template <bool MAYGROUP = true>
static __device__ __forceinline__ void FEGStore(const FEGDevDisc &d, const FEGDevOutput &o, int e, int li, int a, int b, double K)
{
  const size_t ent = (size_t)a * d.Nb + b, pe = o.poslist ? li : e;

  switch (o.out) {
  case FEG_DEV_OUT_LMA:
    if (o.sym) {
      if (a <= b) o.vals[FEGLMASymEntry(d.Nb, a, b) * d.Ne + e] = K;
    } else o.vals[MAYGROUP && o.grouped ? FEGLMADoubleIndex(d.Nb, ent, e, d.Ne) : ent * d.Ne + e] = K;
    break;
  case FEG_DEV_OUT_LMA_SINGLE:
    if (o.sym) {
      if (a <= b) o.valsf[FEGLMASymEntry(d.Nb, a, b) * d.Ne + e] = (float)K;
    } else o.valsf[MAYGROUP ? FEGLMASingleIndex(d.Nb, ent, e, d.Ne) : ent * d.Ne + e] = (float)K;
    break;
  case FEG_DEV_OUT_CSR_ATOMIC: {
    const int p = o.posmajor ? o.pos[pe * d.Nb * d.Nb + ent] : o.pos[ent * d.Ne + pe];
    if (p >= 0) atomicAdd(FEGDevTarget(o, p), K);
  } break;
  case FEG_DEV_OUT_COO:
    o.vals[(size_t)e * d.Nb * d.Nb + ent] = K;
    break;
  }
}

/* lma's storage in groups (single: FEGLMASingleGrouped(), double: grouped and FEGLMADoubleGrouped()); FEG_LMA_SW
   divides Nb at those sizes, so four entries of a row are one group of single or two pairs of double */
static __host__ __device__ __forceinline__ bool FEGGroupedOut(const FEGDevOutput &o, int Nb)
{
  return (o.out == FEG_DEV_OUT_LMA_SINGLE && FEGLMASingleGrouped(Nb)) || (o.out == FEG_DEV_OUT_LMA && o.grouped && FEGLMADoubleGrouped(Nb));
}

/* entries (a, b..b+3) of element e into lma's grouped storage (FEGGroupedOut()) as one 16-byte store (single) or two
   (double): with one 4-byte store per entry (16 bytes apart) P3 tetrahedra took longer to assemble than with the
   entries interleaved one by one */
static __device__ __forceinline__ void FEGStoreGroup(const FEGDevDisc &d, const FEGDevOutput &o, int e, int a, int b, const double v[FEG_LMA_SW])
{
  const size_t k = (size_t)a * d.Nb + b;

  static_assert(FEG_LMA_SW == 2 * FEG_LMA_DW, "a single group is two double pairs");
  if (o.out == FEG_DEV_OUT_LMA_SINGLE) *(float4 *)&o.valsf[FEGLMASingleIndex(d.Nb, k, e, d.Ne)] = make_float4((float)v[0], (float)v[1], (float)v[2], (float)v[3]);
  else {
    *(double2 *)&o.vals[FEGLMADoubleIndex(d.Nb, k, e, d.Ne)]     = make_double2(v[0], v[1]);
    *(double2 *)&o.vals[FEGLMADoubleIndex(d.Nb, k + 2, e, d.Ne)] = make_double2(v[2], v[3]);
  }
}

/* sum_k cf_k T^k_ab over N tensors of nn entries from T */
template <int N>
static __device__ __forceinline__ double FEGRefSum(const double *__restrict__ T, size_t nn, size_t ab, const double cf[])
{
  double s = 0.0;

#pragma unroll
  for (int k = 0; k < N; k++) s += cf[k] * __ldg(&T[k * nn + ab]);
  return s;
}

/* The split reference tensors (FEGDevDisc.M, FEGSplitPairs()) against Chat's split: entry ab's symmetric part
   sum_k sym_k S^k_ab and antisymmetric part sum_k skew_k A^k_ab. A symmetric C (FEGCoeffSkew() false) needs only the
   first: Nd(Nd+1)/2 tensors where sum_rt Chat_rt M^rt read Nd^2. The kernels write FEGRefSym() + (SK ? FEGRefSkew() :
   0) out: one helper for it changed their code and made lma slower */
template <int DIM>
static __device__ __forceinline__ double FEGRefSym(const double *__restrict__ M, size_t nn, size_t ab, const double sym[10])
{
  return FEGRefSum<(DIM + 1) * (DIM + 2) / 2>(M, nn, ab, sym);
}
template <int DIM>
static __device__ __forceinline__ double FEGRefSkew(const double *__restrict__ M, size_t nn, size_t ab, const double skew[6])
{
  constexpr int NS = (DIM + 1) * (DIM + 2) / 2;

  return FEGRefSum<DIM *(DIM + 1) / 2>(M + NS * nn, nn, ab, skew);
}

/* Chat of affine cell e with constant C, split; returns whether C has a skew part */
template <int DIM>
static __device__ __forceinline__ bool FEGRefChat(const FEGDevDisc &d, const FEGDevCoeff &c, int e, double sym[10], double skew[6])
{
  const double *g = d.geo + (size_t)e * (DIM * DIM + 1);
  double        Ch[4][4];

  FEGChat(DIM, c.C0, g, g[DIM * DIM], Ch);
  FEGSplitPairs(DIM + 1, Ch, 0.5, sym, skew);
  return FEGCoeffSkew(DIM, c.C0);
}

/* v[0..3] += cf * m[0..3]: WIDE as two 16-byte loads, else four 8-byte ones (m a multiple of 32 bytes from M's start) */
template <bool WIDE>
static __device__ __forceinline__ void FEGRefAdd4(const double *m, double cf, double v[4])
{
  if (WIDE) {
    const double2 m0 = __ldg((const double2 *)m), m1 = __ldg((const double2 *)m + 1);

    v[0] += cf * m0.x;
    v[1] += cf * m0.y;
    v[2] += cf * m1.x;
    v[3] += cf * m1.y;
  } else {
#pragma unroll
    for (int j = 0; j < 4; j++) v[j] += cf * __ldg(m + j);
  }
}

/* The rows of K in the groups of FEGStoreGroup(), four entries of a row at a time, from the split tensors (SK: C has a
   skew part; compiled in, because with the test inside the loops the single assembly of P3 tetrahedra was slower).
   With a symmetric C faster than the Nd^2 tensors of the sum over (r, s); with a non-symmetric one, which reads as
   many, slower (the same loads and instructions waiting longer on L1; 16-byte loads no better). 2D takes WIDE: Q3
   quadrilaterals' double pairs were slower with 8-byte loads, and a second form in the 2D kernel (8-byte loads for
   their single groups) made its one-by-one path slower at 15 dofs (P4 triangles). 3D grouping is single only (P3
   tetrahedra), whose assembly 8-byte loads made faster (latency-bound at 72 registers; Nsight Compute had the 16-byte
   form waiting on L1) */
template <int DIM, bool WIDE, bool SK>
static __device__ __forceinline__ void FEGRefGroups(const FEGDevDisc &d, const FEGDevOutput &o, int e, int Nb, const double sym[10], const double skew[6])
{
  constexpr int NS = (DIM + 1) * (DIM + 2) / 2, NW = DIM * (DIM + 1) / 2;
  const size_t  nn = (size_t)Nb * Nb;

  static_assert(FEG_LMA_SW == 4, "a group is two double2");
  for (int a = 0; a < Nb; a++)
    for (int b = 0; b < Nb; b += FEG_LMA_SW) {
      const double *m             = d.M + (size_t)a * Nb + b;
      double        v[FEG_LMA_SW] = {0.0};

#pragma unroll
      for (int k = 0; k < NS; k++) FEGRefAdd4<WIDE>(m + k * nn, sym[k], v);
      if (SK)
#pragma unroll
        for (int k = 0; k < NW; k++) FEGRefAdd4<WIDE>(m + (NS + k) * nn, skew[k], v);
      FEGStoreGroup(d, o, e, a, b, v);
    }
}

/* FEGElemRef_Kernel's grouped rows alone, at lma's grouped size of each dimension with NB compiled in (Q3
   quadrilaterals, P3 tetrahedra): 64 registers where the run-time-size kernel, holding the one-by-one path too, takes
   72, and faster assembly in both precisions. A kernel of its own with Nb read at run time was slower than the
   branch */
template <int NB, int DIM>
static __global__ void FEGElemRefGroups_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, int nel, const FEGDevOutput o)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nel) return;
  const int  e = elist ? elist[i] : i;
  double     sym[10], skew[6];
  const bool sk = FEGRefChat<DIM>(d, c, e, sym, skew);

  if (sk) FEGRefGroups<DIM, DIM == 2, true>(d, o, e, NB, sym, skew);
  else FEGRefGroups<DIM, DIM == 2, false>(d, o, e, NB, sym, skew);
}

/* The pairs a <= b of an element matrix from the split tensors: K_ab and K_ba share their symmetric part, so each
   entry costs Nd(Nd+1)/4 loads and multiply-adds for a symmetric C (the full sum took Nd^2), Nd^2/2 otherwise; SK as in
   FEGRefGroups() (faster than with the test inside) */
template <int NB, int DIM, bool SK>
static __device__ __forceinline__ void FEGRefPairs(const FEGDevDisc &d, const FEGDevOutput &o, int e, int i, int Nb, const double sym[10], const double skew[6])
{
  const size_t nn = (size_t)Nb * Nb;

#pragma unroll
  for (int a = 0; a < Nb; a++) {
    FEGStore<false>(d, o, e, i, a, a, FEGRefSym<DIM>(d.M, nn, (size_t)a * (Nb + 1), sym));
#pragma unroll
    for (int b = a + 1; b < Nb; b++) {
      const size_t ab = (size_t)a * Nb + b;
      const double s = FEGRefSym<DIM>(d.M, nn, ab, sym), w = SK ? FEGRefSkew<DIM>(d.M, nn, ab, skew) : 0.0;

      FEGStore<false>(d, o, e, i, a, b, s + w);
      FEGStore<false>(d, o, e, i, b, a, s - w);
    }
  }
}

/* Affine cells with constant C: K = sum_rs Chat_rs M^rs, no quadrature loop and no element matrix to hold; a kernel
   of its own so its few registers give full occupancy (NB = 0: any size; lma's grouped storage is
   FEGElemRefGroups_Kernel's). By pairs (FEGRefPairs()), except into COO values (auto sends those to
   FEGElemRefEntries_Kernel; here with -feg_op_integration_kernel thread), element-major, whose stores a thread makes in
   order, entry by entry (by pairs the COO assembly was slower) */
template <int NB, int DIM>
static __global__ void FEGElemRef_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, int nel, const FEGDevOutput o)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nel) return;
  const int  e = elist ? elist[i] : i, Nb = NB > 0 ? NB : d.Nb;
  double     sym[10], skew[6];
  const bool sk = FEGRefChat<DIM>(d, c, e, sym, skew);

  if (o.out == FEG_DEV_OUT_COO) {
    const size_t nn = (size_t)Nb * Nb;

    for (int a = 0; a < Nb; a++)
      for (int b = 0; b < Nb; b++) {
        const size_t ab = (size_t)a * Nb + b;

        FEGStore<false>(d, o, e, i, a, b, FEGRefSym<DIM>(d.M, nn, ab, sym) + (sk ? FEGRefSkew<DIM>(d.M, nn, ab, skew) : 0.0));
      }
  } else if (sk) FEGRefPairs<NB, DIM, true>(d, o, e, i, Nb, sym, skew);
  else FEGRefPairs<NB, DIM, false>(d, o, e, i, Nb, sym, skew);
}

/* The same for outputs addressed element by element (CSR positions element-major, COO; FEGDevAutoKernel() says at
   which sizes): one thread per entry, a block's elements' Chat in shared memory. Consecutive threads take consecutive
   entries of one element, so they read their positions and M^rs coalesced, and the blocks in flight at once add into
   the rows of a few hundred neighbouring elements, which stay in L2; one element per thread sweeps the whole matrix
   for every entry. At most 64 registers, for occupancy (106 gave 24%).
   HELD (the COO values): each thread keeps its entry's M^rs_ab in registers and takes the block's elements in turn (P
   at a time where an element has fewer entries than the block has threads; above 1024 entries a thread has a few
   entries, one after the other), so the tensors are read once per entry and block, not once per entry and element:
   faster for COO values and addto's gather mode (which stores its element matrices so above 8 dofs). Not for the
   atomics into CSR positions, where it was not faster, probably because blocks of twice the elements spread the adds in
   flight over twice the rows. */
template <int DIM, bool SK>
static __device__ __forceinline__ void FEGRefEntries(const FEGDevDisc &d, const FEGDevOutput &o, const int *__restrict__ elist, int i0, int ng, const double *sCh)
{
  constexpr int NS = (DIM + 1) * (DIM + 2) / 2;
  const int     Nb = d.Nb, nent = Nb * Nb;

  for (int k = threadIdx.x; k < ng * nent; k += blockDim.x) {
    const int     ii = k / nent, ab = k - ii * nent, i = i0 + ii, e = elist ? elist[i] : i;
    const double *Ch = sCh + ii * 16;

    FEGStore(d, o, e, i, ab / Nb, ab % Nb, FEGRefSym<DIM>(d.M, nent, ab, Ch) + (SK ? FEGRefSkew<DIM>(d.M, nent, ab, Ch + NS) : 0.0));
  }
}
template <int DIM, bool SK>
static __device__ __forceinline__ void FEGRefEntriesHeld(const FEGDevDisc &d, const FEGDevOutput &o, const int *__restrict__ elist, int i0, int ng, const double *sCh)
{
  constexpr int NS = (DIM + 1) * (DIM + 2) / 2, NW = DIM * (DIM + 1) / 2;
  const int     Nb = d.Nb, nent = Nb * Nb, span = min((int)blockDim.x, nent), P = blockDim.x / span, lane = threadIdx.x / span;

  if (lane >= P) return;
  for (int ab = threadIdx.x - lane * span; ab < nent; ab += span) {
    const int a = ab / Nb, b = ab - a * Nb;
    double    ms[NS], mw[NW];

#pragma unroll
    for (int k = 0; k < NS; k++) ms[k] = __ldg(&d.M[(size_t)k * nent + ab]);
#pragma unroll
    for (int k = 0; k < NW; k++) mw[k] = SK ? __ldg(&d.M[(size_t)(NS + k) * nent + ab]) : 0.0;
    for (int ii = lane; ii < ng; ii += P) {
      const double *Ch = sCh + ii * 16;
      const int     i = i0 + ii, e = elist ? elist[i] : i;
      double        v = 0.0, w = 0.0;

#pragma unroll
      for (int k = 0; k < NS; k++) v += Ch[k] * ms[k];
      if (SK) {
#pragma unroll
        for (int k = 0; k < NW; k++) w += Ch[NS + k] * mw[k];
      }
      FEGStore(d, o, e, i, a, b, SK ? v + w : v + 0.0);
    }
  }
}
template <int DIM, bool HELD>
static __global__ void __launch_bounds__(HELD ? 1024 : 256, HELD ? 1 : 4) FEGElemRefEntries_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, int nel, const FEGDevOutput o, int G)
{
  constexpr int            NS = (DIM + 1) * (DIM + 2) / 2, NW = DIM * (DIM + 1) / 2;
  extern __shared__ double sCh[];
  const int                i0 = blockIdx.x * G, ng = min(G, nel - i0);
  const bool               sk = FEGCoeffSkew(DIM, c.C0);

  for (int k = threadIdx.x; k < ng; k += blockDim.x) {
    double sym[10], skew[6];

    FEGRefChat<DIM>(d, c, elist ? elist[i0 + k] : i0 + k, sym, skew);
    for (int j = 0; j < NS; j++) sCh[k * 16 + j] = sym[j];
    for (int j = 0; j < NW; j++) sCh[k * 16 + NS + j] = skew[j];
  }
  __syncthreads();
  if (HELD) {
    if (sk) FEGRefEntriesHeld<DIM, true>(d, o, elist, i0, ng, sCh);
    else FEGRefEntriesHeld<DIM, false>(d, o, elist, i0, ng, sCh);
  } else if (sk) FEGRefEntries<DIM, true>(d, o, elist, i0, ng, sCh);
  else FEGRefEntries<DIM, false>(d, o, elist, i0, ng, sCh);
}

/* One element per thread; the element matrix in registers when NB is a compile-time size (NB = 0: any size up to
   FEG_SMALL_NB, in local memory) */
template <int NB, int DIM>
static __global__ void FEGElemSmall_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, int nel, const FEGDevOutput o)
{
  constexpr int NBM = NB > 0 ? NB : FEG_SMALL_NB, Nd = DIM + 1;
  const int     i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nel) return;
  const int e = elist ? elist[i] : i, Nb = NB > 0 ? NB : d.Nb;

  double K[NBM * NBM], phi[NBM][4];

#pragma unroll
  for (int k = 0; k < NBM * NBM; k++) K[k] = 0.0;
  for (int q = 0; q < d.Nq; q++) {
    const double *g    = FEGDevGeo(d, e, q);
    const double  wdet = d.qw[q] * g[DIM * DIM];
    double        C[16], D[4];

    FEGCoeffAt(c, d.Nq, e, q, C, D, false);
#pragma unroll
    for (int b = 0; b < NBM; b++)
      if (b < Nb) FEGPhi(d, DIM, g, q, b, phi[b]);
#pragma unroll
    for (int b = 0; b < NBM; b++) {
      if (b >= Nb) break;
      double cphi[4];

      FEGWeighted(Nd, C, phi[b], wdet, cphi);
#pragma unroll
      for (int a = 0; a < NBM; a++) {
        if (a >= Nb) break;
        K[a * Nb + b] += FEGDot(Nd, phi[a], cphi);
      }
    }
  }
  if (FEGGroupedOut(o, Nb)) {
    for (int a = 0; a < Nb; a++)
      for (int b = 0; b < Nb; b += FEG_LMA_SW) FEGStoreGroup(d, o, e, a, b, &K[a * Nb + b]);
    return;
  }
#pragma unroll
  for (int a = 0; a < NBM; a++) {
    if (a >= Nb) break;
#pragma unroll
    for (int b = 0; b < NBM; b++) {
      if (b >= Nb) break;
      FEGStore<NB == 0>(d, o, e, i, a, b, K[a * Nb + b]);
    }
  }
}

template <int DIM>
static PetscErrorCode FEGLaunchSmallDim(const FEGDevDisc *d, const FEGDevCoeff *c, const int *elist, int nel, const FEGDevOutput *o)
{
  /* a colour of a few thousand elements in blocks of 32 reaches every SM, in blocks of 128 a third of them */
  const int  nt = nel < 32768 ? 32 : 128, nb = (nel + nt - 1) / nt;
  const bool ref = d->M && c->mode == FEG_DEV_COEFF_CONSTANT;

  PetscFunctionBegin;
  if (ref && FEGGroupedOut(*o, d->Nb)) {
    /* grouped sizes are 16 and 20 (FEGLMASingleGrouped()), and Lagrange elements have 16 dofs only in 2D, 20 only in 3D */
    PetscCheck(d->Nb == (DIM == 2 ? 16 : 20), PETSC_COMM_SELF, PETSC_ERR_PLIB, "No reference-tensor kernel for lma's grouped storage of %d-dof elements in %dD", d->Nb, DIM);
    FEGElemRefGroups_Kernel<DIM == 2 ? 16 : 20, DIM><<<nb, nt>>>(*d, *c, elist, nel, *o);
    FEGCheckLaunch("FEGElemRefGroups_Kernel");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#define FEG_SMALL_CASE(NBV) \
  case NBV: \
    if (ref) FEGElemRef_Kernel<NBV, DIM><<<nb, nt>>>(*d, *c, elist, nel, *o); \
    else FEGElemSmall_Kernel<NBV, DIM><<<nb, nt>>>(*d, *c, elist, nel, *o); \
    break
  switch (d->Nb) {
    FEG_SMALL_CASE(3);
    FEG_SMALL_CASE(4);
    FEG_SMALL_CASE(6);
    FEG_SMALL_CASE(8);
    FEG_SMALL_CASE(9);
    FEG_SMALL_CASE(10);
  default:
    if (ref) FEGElemRef_Kernel<0, DIM><<<nb, nt>>>(*d, *c, elist, nel, *o);
    else FEGElemSmall_Kernel<0, DIM><<<nb, nt>>>(*d, *c, elist, nel, *o);
    break;
  }
#undef FEG_SMALL_CASE
  FEGCheckLaunch(ref ? "FEGElemRef_Kernel" : "FEGElemSmall_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGLaunchSmall(const FEGDevDisc *d, const FEGDevCoeff *c, const int *elist, int nel, const FEGDevOutput *o)
{
  PetscFunctionBegin;
  if (d->dim == 2) PetscCall(FEGLaunchSmallDim<2>(d, c, elist, nel, o));
  else PetscCall(FEGLaunchSmallDim<3>(d, c, elist, nel, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GEMM formulation: with R the reference values and gradients (shared by all elements) and
   Chat_q = w_q detJ T^T C T (T = diag(1, invJ^T)), K_e = R^T U_e where U_e[(q,s),b] = sum_r Chat_q[r][s] R[(q,r),b].
   One kernel builds U for a chunk of elements (element index fastest), one strided-batched DGEMM (over b, FP64 tensor
   cores) writes K in the element-interleaved layout. */
static __global__ void FEGGemmU_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, int e0, int Ec, double *__restrict__ U)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)Ec * d.Nq) return;
  const int     i = (int)(t % Ec), q = (int)(t / Ec), e = elist ? elist[e0 + i] : e0 + i, dim = d.dim, Nd = dim + 1, KK = d.Nq * Nd;
  const double *g    = FEGDevGeo(d, e, q);
  const double  wdet = d.qw[q] * g[dim * dim];
  double        C[16], D[4], Ch[4][4];

  FEGCoeffAt(c, d.Nq, e, q, C, D, false);
  FEGChatDev(dim, C, g, wdet, Ch);
  for (int b = 0; b < d.Nb; b++) {
    const double *Rb = d.R + (size_t)b * KK + q * Nd;
    for (int s = 0; s < Nd; s++) {
      double v = 0.0;
      for (int r = 0; r < Nd; r++) v += Ch[r][s] * Rb[r];
      U[((size_t)(q * Nd + s) * d.Nb + b) * Ec + i] = v;
    }
  }
}

/* K from a chunk buffer to wherever o says: Kb[(a*Nb+b)*Ec+i], or with emajor Kb[i*Nb*Nb+a*Nb+b] (then consecutive
   threads store consecutive entries of one element) */
static __global__ void FEGGemmStore_Kernel(const FEGDevDisc d, const int *__restrict__ elist, int e0, int Ec, const double *__restrict__ Kb, const FEGDevOutput o, int emajor)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, nent = (size_t)d.Nb * d.Nb;
  if (t >= (size_t)Ec * nent) return;
  const int i = (int)(emajor ? t / nent : t % Ec), ab = (int)(emajor ? t % nent : t / Ec), e = elist ? elist[e0 + i] : e0 + i;

  FEGStore(d, o, e, e0 + i, ab / d.Nb, ab % d.Nb, Kb[t]);
}

/* Second GEMM form, for elements whose reference product tensor P fits in memory: K_e (as a row of Nb*Nb values) =
   Chat_e (Nq*Nd*Nd values) P, one plain DGEMM per chunk with the element-interleaved output as its natural layout.
   Nd times the flops of K = R^T U, but only Chat (not U) goes through memory. */
static __global__ void FEGGemmChat_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, int e0, int Ec, double *__restrict__ A)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)Ec * d.Nq) return;
  const int     i = (int)(t % Ec), q = (int)(t / Ec), e = elist ? elist[e0 + i] : e0 + i, dim = d.dim, Nd = dim + 1;
  const double *g = FEGDevGeo(d, e, q);
  double        C[16], D[4], Ch[4][4];

  FEGCoeffAt(c, d.Nq, e, q, C, D, false);
  FEGChatDev(dim, C, g, d.qw[q] * g[dim * dim], Ch);
  for (int r = 0; r < Nd; r++)
    for (int s = 0; s < Nd; s++) A[((size_t)q * Nd * Nd + r * Nd + s) * Ec + i] = Ch[r][s];
}

/* Chat at every quadrature point of every element, element-interleaved: Cq[(q*Nd*Nd+r*Nd+s)*Ne+e] (matfree qp) */
PetscErrorCode FEGDevChat(const FEGDevDisc *d, const FEGDevCoeff *c, double *Cq)
{
  const int nt = 256;

  PetscFunctionBegin;
  if (!d->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  FEGGemmChat_Kernel<<<(unsigned)(((size_t)d->Ne * d->Nq + nt - 1) / nt), nt>>>(*d, *c, NULL, 0, d->Ne, Cq);
  FEGCheckLaunch("FEGGemmChat_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static __global__ void FEGBuildP_Kernel(int Nq, int Nd, int Nb, const double *__restrict__ R, double *__restrict__ P)
{
  const size_t KC = (size_t)Nq * Nd * Nd, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= KC * Nb * Nb) return;
  const int k = (int)(t % KC), ab = (int)(t / KC), a = ab / Nb, b = ab % Nb, q = k / (Nd * Nd), r = (k / Nd) % Nd, s = k % Nd;
  const int KK = Nq * Nd;

  P[t] = R[(q * Nd + r) + (size_t)b * KK] * R[(q * Nd + s) + (size_t)a * KK];
}

PetscErrorCode FEGDevBuildP(FEGDevDisc *d, size_t maxbytes)
{
  const int    Nd = d->dim + 1;
  const size_t n  = (size_t)d->Nq * Nd * Nd * d->Nb * d->Nb;

  PetscFunctionBegin;
  d->P = NULL;
  if (d->Nb <= FEG_SMALL_NB || n * sizeof(double) > maxbytes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDevMallocCopy((void **)&d->P, NULL, n * sizeof(double), NULL));
  FEGBuildP_Kernel<<<(unsigned)((n + 255) / 256), 256>>>(d->Nq, Nd, d->Nb, d->R, d->P);
  FEGCheckLaunch("FEGBuildP_Kernel");
  d->bytes += n * sizeof(double);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGLaunchGemm(const FEGDevDisc *d, const FEGDevCoeff *c, const int *elist, int nel, const FEGDevOutput *o, FEGDevTuning *tune)
{
  const int  Nd = d->dim + 1, KK = d->Nq * Nd, KC = d->Nq * Nd * Nd, Nb = d->Nb, nent = Nb * Nb, nt = 256;
  const bool direct = o->out == FEG_DEV_OUT_LMA && !o->grouped && !o->sym && !elist; /* GEMM straight into the element-interleaved storage (not the paired or packed one) */
  /* outputs addressed element by element take K^T = P^T Chat^T, element-major, so the stores of an element's entries
     go together (and COO is the GEMM's own output) */
  const bool   emajor = d->P && (o->out == FEG_DEV_OUT_CSR_ATOMIC || o->out == FEG_DEV_OUT_COO), coodirect = emajor && o->out == FEG_DEV_OUT_COO && !elist;
  const bool   buffer = !direct && !coodirect;
  const size_t budget = (size_t)512 << 20, per = (size_t)(d->P ? KC : KK * Nb) * sizeof(double) + (buffer ? (size_t)nent * sizeof(double) : 0);
  int          Ec = (int)PetscMax(1, PetscMin((size_t)nel, budget / per));
  const size_t nU = (size_t)(d->P ? KC : KK * Nb) * Ec, need = nU + (buffer ? (size_t)nent * Ec : 0);
  double      *U, *Kb;
  const double one = 1.0, zero = 0.0;
  void        *h;

  PetscFunctionBegin;
  PetscCall(FEGDevGetCublas(&h));
  if (tune->nwork < need) {
    if (tune->work) PetscCallCUDA(cudaFree(tune->work));
    tune->work  = NULL;
    tune->nwork = 0;
    PetscCall(FEGDevMallocCopy((void **)&tune->work, NULL, need * sizeof(double), NULL));
    tune->nwork = need;
  }
  U            = tune->work;
  Kb           = buffer ? U + nU : NULL;
  tune->nparts = Ec;
  for (int e0 = 0; e0 < nel; e0 += Ec) {
    const int n = PetscMin(Ec, nel - e0);

    if (d->P) {
      FEGGemmChat_Kernel<<<(unsigned)(((size_t)n * d->Nq + nt - 1) / nt), nt>>>(*d, *c, elist, e0, n, U);
      FEGCheckLaunch("FEGGemmChat_Kernel");
      if (emajor) {
        double *Cout = coodirect ? o->vals + (size_t)e0 * nent : Kb;

        /* K^T (Nb*Nb x n, an element's entries contiguous) = P^T (Nb*Nb x KC) Chat^T (KC x n) */
        PetscCallCUBLAS(cublasDgemm((cublasHandle_t)h, CUBLAS_OP_T, CUBLAS_OP_T, nent, n, KC, &one, d->P, KC, U, n, &zero, Cout, nent));
      } else {
        double   *Cout = direct ? o->vals + e0 : Kb;
        const int ldc  = direct ? d->Ne : n;

        /* K (n x Nb*Nb, element index fastest) = Chat (n x KC) P (KC x Nb*Nb) */
        PetscCallCUBLAS(cublasDgemm((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, n, nent, KC, &one, U, n, d->P, KC, &zero, Cout, ldc));
      }
    } else {
      double   *Cout = direct ? o->vals + e0 : Kb;
      const int ldc  = direct ? d->Ne : n;

      FEGGemmU_Kernel<<<(unsigned)(((size_t)n * d->Nq + nt - 1) / nt), nt>>>(*d, *c, elist, e0, n, U);
      FEGCheckLaunch("FEGGemmU_Kernel");
      /* batch b: C_b (n x Nb, column a) = U_b (n x KK) R (KK x Nb); U_b starts at b*n with leading dimension Nb*n */
      PetscCallCUBLAS(cublasDgemmStridedBatched((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, n, Nb, KK, &one, U, Nb * n, n, d->R, KK, 0, &zero, Cout, (long long)Nb * ldc, ldc, Nb));
    }
    if (buffer) {
      FEGGemmStore_Kernel<<<(unsigned)(((size_t)n * nent + nt - 1) / nt), nt>>>(*d, elist, e0, n, Kb, *o, emajor ? 1 : 0);
      FEGCheckLaunch("FEGGemmStore_Kernel");
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One element per block. Shared memory: the element's Jacobian data (optional), and for a chunk of QB quadrature points
   the coefficients, weights, physical basis derivatives phi and C-weighted trial derivatives cphi */
template <int NENT>
static __global__ void FEGElemBlock_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, const FEGDevOutput o, int QB, int jacShared)
{
  extern __shared__ double smem[];
  const int                e = elist ? elist[blockIdx.x] : blockIdx.x, Nb = d.Nb, Nd = d.dim + 1, T = blockDim.x, t = threadIdx.x;
  const int                ng = d.dim * d.dim + 1, nent = Nb * Nb;
  double                  *sgeo = smem, *sC = sgeo + (jacShared ? d.nG * ng : 0), *sw = sC + QB * 16, *sphi = sw + QB, *scphi = sphi + QB * Nb * Nd;
  const double            *geo = d.geo + (size_t)e * d.nG * ng;

  if (jacShared) {
    for (int k = t; k < d.nG * ng; k += T) sgeo[k] = geo[k];
    geo = sgeo;
  }
  for (int part = 0; part * T * NENT < nent; part++) {
    double acc[NENT];

    for (int k = 0; k < NENT; k++) acc[k] = 0.0;
    for (int q0 = 0; q0 < d.Nq; q0 += QB) {
      const int nq = min(QB, d.Nq - q0);

      __syncthreads();
      for (int qq = t; qq < nq; qq += T) {
        const double *g = geo + (d.nG == 1 ? 0 : q0 + qq) * ng;
        double        D[4];

        FEGCoeffAt(c, d.Nq, e, q0 + qq, &sC[qq * 16], D, false);
        sw[qq] = d.qw[q0 + qq] * g[d.dim * d.dim];
      }
      __syncthreads();
      for (int k = t; k < nq * Nb; k += T) {
        const int     qq = k / Nb, b = k % Nb;
        const double *g = geo + (d.nG == 1 ? 0 : q0 + qq) * ng;
        double        phi[4];

        double cphi[4];

        FEGPhi(d, d.dim, g, q0 + qq, b, phi);
        FEGWeighted(Nd, &sC[qq * 16], phi, sw[qq], cphi);
        for (int j = 0; j < Nd; j++) {
          sphi[k * Nd + j]  = phi[j];
          scphi[k * Nd + j] = cphi[j];
        }
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < NENT; k++) {
        const int ent = (part * NENT + k) * T + t;
        if (ent < nent) {
          const int a = ent / Nb, b = ent % Nb;
          double    s = 0.0;
          for (int qq = 0; qq < nq; qq++)
            for (int j = 0; j < Nd; j++) s += sphi[(qq * Nb + a) * Nd + j] * scphi[(qq * Nb + b) * Nd + j];
          acc[k] += s;
        }
      }
    }
#pragma unroll
    for (int k = 0; k < NENT; k++) {
      const int ent = (part * NENT + k) * T + t;
      if (ent < nent) FEGStore(d, o, e, blockIdx.x, ent / Nb, ent % Nb, acc[k]);
    }
  }
}

/* Element vectors F_a = int sum_j D_j d_j phi_a - a(g_h, phi_a): one thread per element and chunk of up to NA basis
   functions (one chunk up to P2 tetrahedra and Q1 hexahedra). g (local boundary values, zero elsewhere) lifts the
   Dirichlet data: g_h = sum_b g_b phi_b is evaluated on the fly, only on elements that touch it, so no element matrix is
   needed. F is added into y with atomics, or stored per entry in ybuf[a*Ne+e] for a deterministic gather
   (FEGDevGather). The quadrature loop is outside the loop over a thread's basis functions, so each point's geometry,
   coefficients and g_h are read and computed once per chunk: with the points inside, a Q1 hexahedron's 8 points x 10
   doubles were read 8 times over (3x the element matrix's time), and with a thread per basis function a Q2
   hexahedron's 27 points 27 times over. */
template <int DIM, int NA>
static __global__ void FEGElemVector_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const double *__restrict__ g, double *__restrict__ y, double *__restrict__ ybuf, int unique, int ref)
{
  constexpr int Nd = DIM + 1;
  const size_t  i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, nch = (d.Nb + NA - 1) / NA;
  if (i >= (size_t)d.Ne * nch) return;
  const int e = (int)(i % d.Ne), a0 = (int)(i / d.Ne) * NA, na = min(NA, d.Nb - a0);
  double    F[NA];
  bool      lift = false;

  if (g)
    for (int b = 0; b < d.Nb && !lift; b++) lift = g[d.idx[(size_t)b * d.Ne + e]] != 0.0;
#pragma unroll
  for (int k = 0; k < NA; k++) F[k] = 0.0;
  if (ref) {
    /* affine cell, constant D: b_a = sum_b K'_ab for the form whose trial value row is D (u = 1 = sum_b phi_b), from the
       row sums of the reference tensors M the element matrices use (kept after them), without the quadrature loop */
    const double *geo = d.geo + (size_t)e * (DIM * DIM + 1), *Mv = d.M + (size_t)Nd * Nd * d.Nb * d.Nb; /* Mv: row sums */
    double        Cd[16] = {0}, Ch[4][4];

    for (int j = 0; j < 4; j++) Cd[j] = c.D0[j];
    FEGChat(DIM, Cd, geo, geo[DIM * DIM], Ch);

#pragma unroll
    for (int k = 0; k < NA; k++) {
      if (k >= na) break;
#pragma unroll
      for (int t = 0; t < Nd; t++) F[k] += Ch[0][t] * __ldg(&Mv[t * d.Nb + a0 + k]);
    }
  }
  for (int q = 0; q < d.Nq && (!ref || lift); q++) {
    const double *geo  = FEGDevGeo(d, e, q);
    const double  wdet = d.qw[q] * geo[DIM * DIM];
    double        C[16], D[4], cu[4] = {0, 0, 0, 0};

    FEGCoeffAt(c, d.Nq, e, q, C, D, true);
    if (lift) {
      double u[4] = {0, 0, 0, 0};

      for (int b = 0; b < d.Nb; b++) {
        const double gb = g[d.idx[(size_t)b * d.Ne + e]];
        double       pb[4];

        if (gb == 0.0) continue;
        FEGPhi(d, DIM, geo, q, b, pb);
        for (int k = 0; k < Nd; k++) u[k] += gb * pb[k];
      }
      FEGWeighted(Nd, C, u, wdet, cu);
    }
#pragma unroll
    for (int k = 0; k < NA; k++) {
      double phi[4];

      if (k >= na) break;
      FEGPhi(d, DIM, geo, q, a0 + k, phi);
      if (!ref) F[k] += wdet * FEGDot(Nd, D, phi);
      if (lift) F[k] -= FEGDot(Nd, phi, cu);
    }
  }
#pragma unroll
  for (int k = 0; k < NA; k++) {
    const size_t ent = (size_t)(a0 + k) * d.Ne + e;

    if (k >= na) break;
    if (ybuf) ybuf[ent] = F[k];
    else if (unique) y[d.idx[ent]] = F[k];
    else atomicAdd(&y[d.idx[ent]], F[k]);
  }
}

template <int NENT>
static PetscErrorCode FEGLaunchBlock(const FEGDevDisc *d, const FEGDevCoeff *c, const int *elist, int nel, const FEGDevOutput *o, int T, int QB, int jac, size_t shmem)
{
  int nact = 0;

  PetscFunctionBegin;
  PetscCall(FEGDevKernelFit((const void *)FEGElemBlock_Kernel<NENT>, T, shmem, &nact, NULL));
  PetscCheck(nact > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The block kernel (%d threads, %zu bytes of shared memory) does not fit on this GPU: lower -feg_op_integration_block_size or -feg_op_integration_qchunk", T, shmem);
  FEGElemBlock_Kernel<NENT><<<nel, T, shmem>>>(*d, *c, elist, *o, QB, jac);
  FEGCheckLaunch("FEGElemBlock_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lma's element-interleaved values of larger elements from the reference tensors: a warp's 32 threads take one row of
   32 consecutive elements (stores coalesced, each M^rs_ab one broadcast load), the block's 8 warps different rows;
   each thread computes its element's Chat, in registers. Not FEGElemRef_Kernel with a row stride: that form (its
   unrolled loops, no launch bound) made lma's assembly of Q2 and Q3 hexahedra slower */
template <int DIM, bool SK>
static __device__ __forceinline__ void FEGRefRows(const FEGDevDisc &d, const FEGDevOutput &o, int e, int i, const double sym[10], const double skew[6])
{
  const int    Nb = d.Nb;
  const size_t nn = (size_t)Nb * Nb;

  for (int a = threadIdx.y; a < Nb; a += blockDim.y)
    for (int b = o.sym ? a : 0; b < Nb; b++) { /* packed symmetric storage keeps b >= a alone */
      const size_t ab = (size_t)a * Nb + b;

      FEGStore(d, o, e, i, a, b, FEGRefSym<DIM>(d.M, nn, ab, sym) + (SK ? FEGRefSkew<DIM>(d.M, nn, ab, skew) : 0.0));
    }
}
template <int DIM>
static __global__ void __launch_bounds__(256) FEGElemRefRows_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, int nel, const FEGDevOutput o)
{
  const int i = blockIdx.x * 32 + threadIdx.x;
  if (i >= nel) return;
  const int  e = elist ? elist[i] : i;
  double     sym[10], skew[6];
  const bool sk = FEGRefChat<DIM>(d, c, e, sym, skew);

  if (sk) FEGRefRows<DIM, true>(d, o, e, i, sym, skew);
  else FEGRefRows<DIM, false>(d, o, e, i, sym, skew);
}

static PetscErrorCode FEGLaunchRefEntries(const FEGDevDisc *d, const FEGDevCoeff *c, const int *elist, int nel, const FEGDevOutput *o)
{
  const int nent = d->Nb * d->Nb;

  PetscFunctionBegin;
  if (o->out == FEG_DEV_OUT_LMA || o->out == FEG_DEV_OUT_LMA_SINGLE) {
    const dim3 block(32, 8);

    if (d->dim == 2) FEGElemRefRows_Kernel<2><<<(nel + 31) / 32, block>>>(*d, *c, elist, nel, *o);
    else FEGElemRefRows_Kernel<3><<<(nel + 31) / 32, block>>>(*d, *c, elist, nel, *o);
    FEGCheckLaunch("FEGElemRefRows_Kernel");
  } else if (o->out == FEG_DEV_OUT_COO) {
    /* HELD: threads a multiple of the entries near 256 (P elements at a time), or all the entries up to 1024, or above
       that the entries in equal shares of at most 1024; about 8192 entries per block, at least P elements, at most 384
       (their Chat, 16 doubles each, in the default 48 KB of dynamic shared memory) */
    const int parts = (nent + 1023) / 1024, span = (nent + parts - 1) / parts, P = nent <= 256 ? 256 / nent : 1;
    const int nt = 32 * ((P * span + 31) / 32), G = PetscMin(PetscMax(P, 8192 / nent), 384), nb = (nel + G - 1) / G;

    if (d->dim == 2) FEGElemRefEntries_Kernel<2, true><<<nb, nt, (size_t)G * 16 * sizeof(double)>>>(*d, *c, elist, nel, *o, G);
    else FEGElemRefEntries_Kernel<3, true><<<nb, nt, (size_t)G * 16 * sizeof(double)>>>(*d, *c, elist, nel, *o, G);
    FEGCheckLaunch("FEGElemRefEntries_Kernel");
  } else {
    /* about 4096 entries per block, and at most 384 elements' Chat: P1 triangles' 455 asked for 58 KB, which the launch
       refused */
    const int G = PetscMax(1, PetscMin(4096 / nent, 384)), nb = (nel + G - 1) / G;

    if (d->dim == 2) FEGElemRefEntries_Kernel<2, false><<<nb, 256, (size_t)G * 16 * sizeof(double)>>>(*d, *c, elist, nel, *o, G);
    else FEGElemRefEntries_Kernel<3, false><<<nb, 256, (size_t)G * 16 * sizeof(double)>>>(*d, *c, elist, nel, *o, G);
    FEGCheckLaunch("FEGElemRefEntries_Kernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What auto runs. On affine cells with constant C, the reference tensors one entry per thread where that measured
   faster than one element per thread: into COO values at every size; into CSR positions above 4 dofs (at 3 and 4
   dofs addto's auto mode, gather, keeps one element per thread); into lma's storage at 9, 10 and 15 dofs (Q2
   quadrilaterals, P3 triangles, P2 tetrahedra, P4 triangles) and above FEG_SMALL_NB (too large for one thread), not at
   the other Lagrange sizes up to 20 dofs; otherwise one element per thread. Without reference tensors (quadrature:
   coefficients at the points, cells not affine) one element per thread up to 10 dofs, the sizes its element matrix is
   compiled for and held in registers, GEMM above: in local memory at 20 dofs it was several times slower than GEMM */
static int FEGDevAutoKernel(const FEGDevDisc *d, PetscBool constant, FEGDevOut out)
{
  const int Nb = d->Nb;

  if (d->M && constant) {
    if (out == FEG_DEV_OUT_COO || (out == FEG_DEV_OUT_CSR_ATOMIC && Nb > 4)) return 4;
    if ((out == FEG_DEV_OUT_LMA || out == FEG_DEV_OUT_LMA_SINGLE) && (Nb == 9 || Nb == 10 || Nb == 15 || Nb > FEG_SMALL_NB)) return 4;
    return Nb <= FEG_SMALL_NB ? 1 : 3;
  }
  return Nb <= 10 ? 1 : 3;
}

/* Whether the kernel addto will run (constant: the form's coefficient is constant) takes an element's entries
   together, so that its CSR positions are best stored element-major (FEGDevOutput.posmajor). gather: addto's gather
   mode, whose element matrices go to a buffer in the positions' layout; at up to 8 dofs auto gives it one element per
   thread and the entry-major layout, faster there than entries element-major */
PetscBool FEGDevElementMajor(const FEGDevDisc *d, const FEGDevTuning *t, PetscBool constant, PetscBool gather)
{
  int kernel = t->kernel ? t->kernel : FEGDevAutoKernel(d, constant, FEG_DEV_OUT_CSR_ATOMIC);

  if (gather && !t->kernel && kernel == 4 && d->Nb <= 8) kernel = 1;
  return (PetscBool)(kernel == 2 || kernel == 4 || (kernel == 3 && d->P));
}

/* Element matrices of the elements elist[0..nel) (all when elist is NULL), sent where o says */
PetscErrorCode FEGDevElementMatrices(const FEGDevDisc *d, const FEGDevCoeff *c, const int *elist, int nel, const FEGDevOutput *o, FEGDevTuning *tune)
{
  int kernel = tune->kernel;

  PetscFunctionBegin;
  if (nel <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (kernel == 0) kernel = FEGDevAutoKernel(d, (PetscBool)(c->mode == FEG_DEV_COEFF_CONSTANT), o->out);
  PetscCheck(kernel != 1 || d->Nb <= FEG_SMALL_NB || (d->M && c->mode == FEG_DEV_COEFF_CONSTANT), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The one-element-per-thread kernel handles at most %d basis functions, the element has %d: use -feg_op_integration_kernel block or gemm", FEG_SMALL_NB, d->Nb);
  PetscCheck(kernel != 4 || (d->M && c->mode == FEG_DEV_COEFF_CONSTANT), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-feg_op_integration_kernel entries needs reference tensors (affine cells) and a constant coefficient; this operator has %s and a %s coefficient: use auto, thread, block or gemm", d->M ? "reference tensors" : "no reference tensors (cells not affine, or the tensors too large)", c->mode == FEG_DEV_COEFF_CONSTANT ? "constant" : "non-constant");
  tune->used = kernel;
  if (kernel == 1) {
    PetscCall(FEGLaunchSmall(d, c, elist, nel, o));
    tune->nparts = 1;
  } else if (kernel == 4) {
    PetscCall(FEGLaunchRefEntries(d, c, elist, nel, o));
    tune->nparts = 1;
  } else if (kernel == 3) {
    PetscCall(FEGLaunchGemm(d, c, elist, nel, o, tune));
  } else {
    const int Nd = d->dim + 1, ng = d->dim * d->dim + 1, nent = d->Nb * d->Nb;
    int       T = tune->blockSize, NENT = tune->nentpt, QB = tune->qchunk, jac = tune->jacShared;
    size_t    shmax = 200 * 1024, shmem;

    if (T <= 0) T = nent >= 4096 ? 256 : (nent >= 1024 ? 128 : 64);
    if (NENT <= 0) NENT = PetscMin(16, PetscMax(1, (nent + T - 1) / T));
    NENT = NENT >= 16 ? 16 : (NENT >= 8 ? 8 : (NENT >= 4 ? 4 : (NENT >= 2 ? 2 : 1)));
    if (jac && (size_t)d->nG * ng * sizeof(double) > shmax / 2) jac = 0;
    if (QB <= 0) QB = 16;
    QB = PetscMin(QB, d->Nq);
    for (;;) {
      shmem = ((size_t)(jac ? d->nG * ng : 0) + (size_t)QB * (17 + 2 * d->Nb * Nd)) * sizeof(double);
      if (shmem <= shmax || QB == 1) break;
      QB--;
    }
    PetscCheck(shmem <= shmax, PETSC_COMM_SELF, PETSC_ERR_SUP, "Element with %d basis functions needs %zu bytes of shared memory even with one quadrature point per chunk", d->Nb, shmem);
    tune->blockSize = T;
    tune->nentpt    = NENT;
    tune->qchunk    = QB;
    tune->jacShared = jac;
    tune->nparts    = (nent + T * NENT - 1) / (T * NENT);
    switch (NENT) {
    case 1:
      PetscCall(FEGLaunchBlock<1>(d, c, elist, nel, o, T, QB, jac, shmem));
      break;
    case 2:
      PetscCall(FEGLaunchBlock<2>(d, c, elist, nel, o, T, QB, jac, shmem));
      break;
    case 4:
      PetscCall(FEGLaunchBlock<4>(d, c, elist, nel, o, T, QB, jac, shmem));
      break;
    case 8:
      PetscCall(FEGLaunchBlock<8>(d, c, elist, nel, o, T, QB, jac, shmem));
      break;
    default:
      PetscCall(FEGLaunchBlock<16>(d, c, elist, nel, o, T, QB, jac, shmem));
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y (+)= the element vectors; unique (no dof shared by two elements): stored, not added, into the zeroed y. Affine cells
   with constant coefficients take the element matrices' reference tensors (the quadrature loop only for the lifting) */
PetscErrorCode FEGDevElementVectors(const FEGDevDisc *d, const FEGDevCoeff *c, const double *g, double *y, double *ybuf, PetscBool unique)
{
  const size_t   n  = (size_t)d->Ne * ((d->Nb + FEG_VEC_NB - 1) / FEG_VEC_NB); /* threads: elements x chunks */
  const int      nt = 128, ref = d->M && c->mode == FEG_DEV_COEFF_CONSTANT ? 1 : 0;
  const unsigned nb = (unsigned)((n + nt - 1) / nt);

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  if (d->dim == 2) FEGElemVector_Kernel<2, FEG_VEC_NB><<<nb, nt>>>(*d, *c, g, y, ybuf, unique ? 1 : 0, ref);
  else FEGElemVector_Kernel<3, FEG_VEC_NB><<<nb, nt>>>(*d, *c, g, y, ybuf, unique ? 1 : 0, ref);
  FEGCheckLaunch("FEGElemVector_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
