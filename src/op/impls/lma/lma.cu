/* LMA on the GPU: gather x per element, multiply by the element-interleaved element matrices (coalesced loads), then
   scatter-add with atomics, or write per-entry results and gather them per dof through the transpose map
   (scatter.cu): deterministic, no atomics */
#include <petscdevice_cuda.h>
#include "lmacuda.h"
#include <type_traits>
#include <climits>
#include <algorithm>
#include <cub/cub.cuh>

#define FEG_LMA_SMALL 32

/* An element-matrix entry, read once per product. At 4 and 20 dofs (P1 and P3 tetrahedra) as a streaming load
   (ld.global.cs, evict-first), measured faster there; not at 3, 8 or 10 dofs, where it was slower */
template <int NB, typename T>
static __device__ __forceinline__ T FEGLMAKe(const T *p)
{
  if constexpr (NB == 4 || NB == 20) return __ldcs(p);
  else return *p;
}

/* entry k = a*Nb+b of element e: Ke[FEGLMADoubleIndex()] (double), Ke[FEGLMASingleIndex()] (float) */
template <int NB, typename TK>
static __device__ __forceinline__ double FEGLMAEntry(const TK *Ke, int Nb, size_t k, int e, int Ne)
{
  if constexpr (std::is_same_v<TK, float>) return (double)FEGLMAKe<NB>(&Ke[FEGLMASingleIndex(NB ? NB : Nb, k, (size_t)e, (size_t)Ne)]);
  else return FEGLMAKe<NB>(&Ke[FEGLMADoubleIndex(NB ? NB : Nb, k, (size_t)e, (size_t)Ne)]);
}

/* ye = K_e xe from a symmetric form's packed entries (FEGLMASymEntry()): each entry a < b read once and used for both
   (a, b) and (b, a), so the product is its own transpose */
template <int NB, typename TK>
static __device__ __forceinline__ void FEGLMASymProduct(const TK *__restrict__ Ke, int e, int Ne, const double xe[NB], double ye[NB])
{
#pragma unroll
  for (int a = 0; a < NB; a++) ye[a] = 0.0;
#pragma unroll
  for (int a = 0; a < NB; a++)
#pragma unroll
    for (int b = a; b < NB; b++) {
      const double k = (double)FEGLMAKe<NB>(&Ke[FEGLMASymEntry(NB, a, b) * Ne + e]);

      ye[a] += k * xe[b];
      if (b > a) ye[b] += k * xe[a];
    }
}

/* one element per thread, elements e0..e1-1; entry (a, b) FEGLMAEntry(a*Nb+b), of type TK (double, or float with
   -feg_op_precision single: products and sums in double); ybuf != NULL: write ye there ([a*Ne+e]) instead of atomics
   into y. CODED (FEGIdxLoad): the halo's buffers xg and yg are given, so an index may name them; else an entry of x or
   -1 (constrained). NB > 0: exactly NB dofs, every loop unrolled, so x_e stays in registers and an element's loads are
   issued together; with the count known only at run time (NB = 0, up to NBMAX) x_e lives on the stack (ptxas: 64 or
   256 bytes) */
template <int NB, int NBMAX, typename TK, bool CODED, bool SYM = false>
static __global__ void FEGLMASmall_Kernel(int Ne, int e0, int e1, int nb, const int *__restrict__ idx, const TK *__restrict__ Ke, const double *__restrict__ x, double *__restrict__ y, int transpose, double *__restrict__ ybuf, const double *__restrict__ xg, double *__restrict__ yg)
{
  constexpr int U = NB ? NB : 1, UA = NB <= 10 ? U : 1; /* rows one at a time above 10 dofs: unrolled, their loads
                                                           took every register (255 at 27 dofs, with spills) */
  const int     Nb = NB ? NB : nb;
  const int     e  = e0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= e1) return;
  double xe[NB ? NB : NBMAX];

#pragma unroll U
  for (int b = 0; b < Nb; b++) xe[b] = FEGIdxLoad<CODED>(x, xg, idx[(size_t)b * Ne + e]);
  if constexpr (SYM) {
    static_assert(NB > 0, "packed symmetric storage needs the size compiled in");
    double ye[NB];

    FEGLMASymProduct<NB>(Ke, e, Ne, xe, ye);
#pragma unroll
    for (int a = 0; a < NB; a++) {
      if (ybuf) ybuf[(size_t)a * Ne + e] = ye[a];
      else FEGIdxAdd<CODED>(y, yg, idx[(size_t)a * Ne + e], ye[a], false);
    }
  } else {
#pragma unroll UA
    for (int a = 0; a < Nb; a++) {
      double s = 0.0;
      if (!transpose)
#pragma unroll U
        for (int b = 0; b < Nb; b++) s += FEGLMAEntry<NB>(Ke, Nb, (size_t)a * Nb + b, e, Ne) * xe[b];
      else
#pragma unroll U
        for (int b = 0; b < Nb; b++) s += FEGLMAEntry<NB>(Ke, Nb, (size_t)b * Nb + a, e, Ne) * xe[b];
      if (ybuf) ybuf[(size_t)a * Ne + e] = s;
      else FEGIdxAdd<CODED>(y, yg, idx[(size_t)a * Ne + e], s, false);
    }
  }
}

/* large elements: one (element, row) pair per thread, element index fastest, so the element matrix loads are coalesced
   and small meshes of large elements still fill the GPU */
template <typename TK, bool CODED>
static __global__ void FEGLMARow_Kernel(int Ne, int e0, int e1, int Nb, const int *__restrict__ idx, const TK *__restrict__ Ke, const double *__restrict__ x, double *__restrict__ y, int transpose, double *__restrict__ ybuf, const double *__restrict__ xg, double *__restrict__ yg)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, n = (size_t)(e1 - e0);
  if (t >= n * Nb) return;
  const int    e = e0 + (int)(t % n), a = (int)(t / n);
  const size_t k = (size_t)a * Ne + e;
  double       s = 0.0;

  for (int b = 0; b < Nb; b++) {
    const int g = idx[(size_t)b * Ne + e];

    s += FEGLMAEntry<0>(Ke, Nb, (size_t)(transpose ? b * Nb + a : a * Nb + b), e, Ne) * FEGIdxLoad<CODED>(x, xg, g);
  }
  if (ybuf) ybuf[k] = s;
  else FEGIdxAdd<CODED>(y, yg, idx[k], s, false);
}

/* single precision, two adjacent elements per thread, so that their entries of the element matrices are one 8-byte
   load: 4-byte loads moved half a warp's bytes per instruction. Ne and e0 even, so every pair is aligned; past e1 the
   pair's second element is read (it exists: e + 1 < Ne) but neither gathered nor added. Up to 10 dofs, whose entries
   are interleaved one by one (FEGLMASingleGrouped() false); one element per thread with 16-byte groups was slower
   there. */
template <int NB, bool CODED, bool SYM = false>
static __global__ void FEGLMAPair_Kernel(int Ne, int e0, int e1, const int *__restrict__ idx, const float *__restrict__ Ke, const double *__restrict__ x, double *__restrict__ y, int transpose, double *__restrict__ ybuf, const double *__restrict__ xg, double *__restrict__ yg)
{
  const int e = e0 + 2 * (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (e >= e1) return;
  const bool two = e + 1 < e1;
  double     x0[NB], x1[NB];

#pragma unroll
  for (int b = 0; b < NB; b++) {
    const int2 g = *(const int2 *)&idx[(size_t)b * Ne + e];

    x0[b] = FEGIdxLoad<CODED>(x, xg, g.x);
    x1[b] = two ? FEGIdxLoad<CODED>(x, xg, g.y) : 0.0;
  }
  if constexpr (SYM) { /* the packed entries (FEGLMASymEntry()), each read once for (a, b) and (b, a) */
    double y0[NB], y1[NB];

#pragma unroll
    for (int a = 0; a < NB; a++) y0[a] = y1[a] = 0.0;
#pragma unroll
    for (int a = 0; a < NB; a++)
#pragma unroll
      for (int b = a; b < NB; b++) {
        const float2 k = FEGLMAKe<NB>((const float2 *)&Ke[FEGLMASymEntry(NB, a, b) * Ne + e]);

        y0[a] += (double)k.x * x0[b];
        y1[a] += (double)k.y * x1[b];
        if (b > a) {
          y0[b] += (double)k.x * x0[a];
          y1[b] += (double)k.y * x1[a];
        }
      }
#pragma unroll
    for (int a = 0; a < NB; a++) {
      const int2 g = *(const int2 *)&idx[(size_t)a * Ne + e];

      if (ybuf) {
        ybuf[(size_t)a * Ne + e] = y0[a];
        if (two) ybuf[(size_t)a * Ne + e + 1] = y1[a];
      } else {
        FEGIdxAdd<CODED>(y, yg, g.x, y0[a], false);
        if (two) FEGIdxAdd<CODED>(y, yg, g.y, y1[a], false);
      }
    }
  } else {
#pragma unroll
    for (int a = 0; a < NB; a++) {
      const int2 g  = *(const int2 *)&idx[(size_t)a * Ne + e];
      double     s0 = 0.0, s1 = 0.0;

#pragma unroll
      for (int b = 0; b < NB; b++) {
        const float2 k = FEGLMAKe<NB>((const float2 *)&Ke[((size_t)(transpose ? b * NB + a : a * NB + b)) * Ne + e]);

        s0 += (double)k.x * x0[b];
        s1 += (double)k.y * x1[b];
      }
      if (ybuf) {
        ybuf[(size_t)a * Ne + e] = s0;
        if (two) ybuf[(size_t)a * Ne + e + 1] = s1;
      } else {
        FEGIdxAdd<CODED>(y, yg, g.x, s0, false);
        if (two) FEGIdxAdd<CODED>(y, yg, g.y, s1, false);
      }
    }
  }
}

/* a group of lma's stored entries: four floats (FEGLMASingleIndex()) or two doubles (FEGLMADoubleIndex()) */
template <typename TK>
struct FEGLMAGroupOf {
  using V                = float4;
  static constexpr int W = FEG_LMA_SW;
};
template <>
struct FEGLMAGroupOf<double> {
  using V                = double2;
  static constexpr int W = FEG_LMA_DW;
};
static __device__ __forceinline__ double FEGGroupEntry(const float4 &v, int w)
{
  return w == 0 ? v.x : (w == 1 ? v.y : (w == 2 ? v.z : v.w));
}
static __device__ __forceinline__ double FEGGroupEntry(const double2 &v, int w)
{
  return w == 0 ? v.x : v.y;
}

/* grouped storage (single at 16 and 20 dofs, double at 16), one element per thread: a row is NB/W groups of its
   entries, each one 16-byte load, where FEGLMASmall_Kernel took 4- or 8-byte loads of entries interleaved one by one
   (measured faster); rows one at a time, as FEGLMASmall_Kernel does above 10 dofs, and sums in its order */
template <int NB, typename TK, bool CODED>
static __global__ void FEGLMAGroup_Kernel(int Ne, int e0, int e1, const int *__restrict__ idx, const typename FEGLMAGroupOf<TK>::V *__restrict__ Ke, const double *__restrict__ x, double *__restrict__ y, int transpose, double *__restrict__ ybuf, const double *__restrict__ xg, double *__restrict__ yg)
{
  constexpr int W = FEGLMAGroupOf<TK>::W, GR = NB / W;
  static_assert(NB % W == 0, "rows of whole groups");
  const int e = e0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= e1) return;

  if (!transpose) {
    double xe[NB];

#pragma unroll
    for (int b = 0; b < NB; b++) xe[b] = FEGIdxLoad<CODED>(x, xg, idx[(size_t)b * Ne + e]);
#pragma unroll 1
    for (int a = 0; a < NB; a++) {
      double s = 0.0;

#pragma unroll
      for (int q = 0; q < GR; q++) {
        const auto v = FEGLMAKe<NB>(&Ke[(size_t)(a * GR + q) * Ne + e]);

#pragma unroll
        for (int w = 0; w < W; w++) s += FEGGroupEntry(v, w) * xe[q * W + w];
      }
      if (ybuf) ybuf[(size_t)a * Ne + e] = s;
      else FEGIdxAdd<CODED>(y, yg, idx[(size_t)a * Ne + e], s, false);
    }
  } else {
    double s[NB];

#pragma unroll
    for (int b = 0; b < NB; b++) s[b] = 0.0;
#pragma unroll 1
    for (int a = 0; a < NB; a++) {
      const double xa = FEGIdxLoad<CODED>(x, xg, idx[(size_t)a * Ne + e]);

#pragma unroll
      for (int q = 0; q < GR; q++) {
        const auto v = FEGLMAKe<NB>(&Ke[(size_t)(a * GR + q) * Ne + e]);

#pragma unroll
        for (int w = 0; w < W; w++) s[q * W + w] += FEGGroupEntry(v, w) * xa;
      }
    }
#pragma unroll
    for (int b = 0; b < NB; b++) {
      if (ybuf) ybuf[(size_t)b * Ne + e] = s[b];
      else FEGIdxAdd<CODED>(y, yg, idx[(size_t)b * Ne + e], s[b], false);
    }
  }
}

/* single precision up to 10 dofs: two elements per thread (Ne and e0 even); returns the kernel's name, NULL where it
   does not apply */
template <bool CODED, bool SYM>
static const char *FEGLMALaunchPair(const FEGDevLMA *k, const FEGDevLaunch *L, const float *Ke, double *yb, int nt)
{
  const unsigned np = (unsigned)(((L->e1 - L->e0 + 1) / 2 + nt - 1) / nt);

  if (k->Ne % 2 || L->e0 % 2) return NULL;
  switch (k->Nb) {
#define FEG_LMA_PAIR(NB) \
  case NB: \
    FEGLMAPair_Kernel<NB, CODED, SYM><<<np, nt>>>(k->Ne, L->e0, L->e1, k->idx, Ke, L->x, L->y, L->transpose, yb, L->xg, L->yg); \
    return "FEGLMAPair_Kernel";
    FEG_DEV_SMALL_NB(FEG_LMA_PAIR)
#undef FEG_LMA_PAIR
  default:
    return NULL;
  }
}

/* Builds tile t of lmacuda.h's FEGLMATiles: its element entries sorted by dof in shared memory (CUB's block radix
   sort; keys may be negative, constrained or coded), the first entry of each dof counted (first pass: cnt[t]) or,
   with WRITE, the dofs, their ends in the sorted order, each entry's distinct dof and the sorted order written */
template <int NB, bool WRITE>
static __global__ __launch_bounds__(FEG_LMA_TILE) void FEGLMATileBuild_Kernel(int Ne, const int *__restrict__ start, const int *__restrict__ idx, int *__restrict__ cnt, const int *__restrict__ off, int *__restrict__ dof, unsigned short *__restrict__ end, unsigned short *__restrict__ lidx, unsigned short *__restrict__ perm)
{
  constexpr int T = FEG_LMA_TILE;
  using Sort      = cub::BlockRadixSort<int, T, NB, unsigned short>;
  using Scan      = cub::BlockScan<int, T>;
  __shared__ union
  {
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
  } tmp;
  __shared__ int skey[T * NB];
  const int      t = blockIdx.x, s = start[t], n = start[t + 1] - s, tid = threadIdx.x, nv = n * NB;
  int            key[NB], head[NB], id[NB], total;
  unsigned short pos[NB];

#pragma unroll
  for (int b = 0; b < NB; b++) {
    key[b] = tid < n ? idx[(size_t)b * Ne + s + tid] : INT_MAX; /* past the tile's end: sorted last, never counted */
    pos[b] = (unsigned short)(b * T + tid);
  }
  Sort(tmp.sort).Sort(key, pos);
#pragma unroll
  for (int i = 0; i < NB; i++) skey[tid * NB + i] = key[i];
  __syncthreads();
#pragma unroll
  for (int i = 0; i < NB; i++) {
    const int r = tid * NB + i;

    head[i] = r < nv && (r == 0 || key[i] != skey[r - 1]);
  }
  Scan(tmp.scan).ExclusiveSum(head, id, total);
  if constexpr (!WRITE) {
    if (tid == 0) cnt[t] = total;
  } else {
    const int o = off[t];

#pragma unroll
    for (int i = 0; i < NB; i++) {
      const int r = tid * NB + i, l = id[i] + head[i] - 1;

      if (r < nv) {
        perm[(size_t)s * NB + r]                         = pos[i];
        lidx[(size_t)(pos[i] / T) * Ne + s + pos[i] % T] = (unsigned short)l;
        if (head[i]) dof[o + l] = key[i];
        if (r + 1 == nv || skey[r + 1] != key[i]) end[o + l] = (unsigned short)(r + 1);
      }
    }
  }
}

/* lma's product tile by tile (tiles t0, t0+1, ...; one element per thread): the tile's distinct dofs of x gathered
   once into shared memory, each element's product from there, its rows' sums left in shared memory and added up per
   distinct dof in the sorted order, then one atomic add per distinct dof. It moves the elementwise kernels' gathers
   and atomics off L2, which pays where a tile's entries share the fewest dofs: P1 tetrahedra, where lmacuda.c turns it
   on by default (elsewhere the latency between the phases' barriers costs as much as it saves) */
template <int NB, typename TK, bool CODED, bool SYM>
static __global__ __launch_bounds__(FEG_LMA_TILE) void FEGLMATile_Kernel(int Ne, int t0, FEGLMATiles tl, const TK *__restrict__ Ke, const double *__restrict__ x, double *__restrict__ y, int transpose, const double *__restrict__ xg, double *__restrict__ yg)
{
  constexpr int     T = FEG_LMA_TILE;
  __shared__ double xs[T * NB], c[T * NB];
  const int         t = t0 + blockIdx.x, s = tl.start[t], n = tl.start[t + 1] - s, o = tl.off[t], m = tl.off[t + 1] - o, tid = threadIdx.x;

  for (int i = tid; i < m; i += T) xs[i] = FEGIdxLoad<CODED>(x, xg, tl.dof[o + i]);
  __syncthreads();
  if (tid < n) {
    const int e = s + tid;
    double    xe[NB];

#pragma unroll
    for (int b = 0; b < NB; b++) xe[b] = xs[tl.lidx[(size_t)b * Ne + e]];
    if constexpr (SYM) {
      double ye[NB];

      FEGLMASymProduct<NB>(Ke, e, Ne, xe, ye);
#pragma unroll
      for (int a = 0; a < NB; a++) c[a * T + tid] = ye[a];
    } else { /* rows one at a time: unrolled, the loads of all rows took 168 registers at 10 dofs */
#pragma unroll 1
      for (int a = 0; a < NB; a++) {
        double v = 0.0;

#pragma unroll
        for (int b = 0; b < NB; b++) v += FEGLMAEntry<NB>(Ke, NB, (size_t)(transpose ? b * NB + a : a * NB + b), e, Ne) * xe[b];
        c[a * T + tid] = v;
      }
    }
  }
  __syncthreads();
  for (int i = tid; i < m; i += T) {
    const int j1 = tl.end[o + i];
    double    v  = 0.0;

    for (int j = i ? tl.end[o + i - 1] : 0; j < j1; j++) v += c[tl.perm[(size_t)s * NB + j]];
    FEGIdxAdd<CODED>(y, yg, tl.dof[o + i], v, false);
  }
}

/* the build's pass (WRITE false: counts into cnt) for elements of Nb dofs; false for a size without its kernel */
template <bool WRITE>
static bool FEGLMATileBuildLaunch(int Nb, int ntiles, int Ne, const int *idx, int *cnt, FEGLMATiles *tl)
{
  switch (Nb) {
#define FEG_LMA_TILE_BUILD(NB) \
  case NB: \
    FEGLMATileBuild_Kernel<NB, WRITE><<<ntiles, FEG_LMA_TILE>>>(Ne, tl->start, idx, cnt, tl->off, tl->dof, tl->end, tl->lidx, tl->perm); \
    return true;
    FEG_DEV_SMALL_NB(FEG_LMA_TILE_BUILD)
#undef FEG_LMA_TILE_BUILD
  default:
    return false;
  }
}

/* the tiles of elements whose first elements are hstart[0..ntiles-1] (hstart[ntiles] = Ne), from the element indices
   idx the product reads ([b*Ne+e]); tl->hstart is taken over */
PetscErrorCode FEGDevLMATilesCreate(FEGDevLMA *k, int ntiles, int *hstart)
{
  const int    Ne = k->Ne, Nb = k->Nb, *idx = k->idx;
  FEGLMATiles *tl = &k->tiles;
  int         *cnt, ndof = 0;
  void        *tmp  = NULL;
  size_t       ntmp = 0;

  PetscFunctionBegin;
  tl->ntiles = ntiles;
  tl->hstart = hstart;
  tl->bytes  = 0;
  PetscCall(FEGDevMallocCopy((void **)&tl->start, hstart, (ntiles + 1) * sizeof(int), &tl->bytes));
  PetscCall(FEGDevMallocCopy((void **)&tl->off, NULL, (ntiles + 1) * sizeof(int), &tl->bytes));
  PetscCall(FEGDevMallocCopy((void **)&tl->lidx, NULL, (size_t)Ne * Nb * sizeof(unsigned short), &tl->bytes));
  PetscCall(FEGDevMallocCopy((void **)&tl->perm, NULL, (size_t)Ne * Nb * sizeof(unsigned short), &tl->bytes));
  PetscCall(FEGDevMallocCopy((void **)&cnt, NULL, (ntiles + 1) * sizeof(int), NULL));
  PetscCallCUDA(cudaMemset(cnt, 0, (ntiles + 1) * sizeof(int)));
  PetscCheck(FEGLMATileBuildLaunch<false>(Nb, ntiles, Ne, idx, cnt, tl), PETSC_COMM_SELF, PETSC_ERR_PLIB, "lma tiles: elements of %d dofs, a size without their kernel", Nb);
  FEGCheckLaunch("FEGLMATileBuild_Kernel");
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, ntmp, cnt, tl->off, ntiles + 1));
  PetscCall(FEGDevMallocCopy(&tmp, NULL, ntmp, NULL));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, ntmp, cnt, tl->off, ntiles + 1));
  PetscCallCUDA(cudaFree(tmp));
  PetscCallCUDA(cudaFree(cnt));
  PetscCallCUDA(cudaMemcpy(&ndof, tl->off + ntiles, sizeof(int), cudaMemcpyDeviceToHost));
  PetscCall(FEGDevMallocCopy((void **)&tl->dof, NULL, (size_t)PetscMax(ndof, 1) * sizeof(int), &tl->bytes));
  PetscCall(FEGDevMallocCopy((void **)&tl->end, NULL, (size_t)PetscMax(ndof, 1) * sizeof(unsigned short), &tl->bytes));
  (void)FEGLMATileBuildLaunch<true>(Nb, ntiles, Ne, idx, NULL, tl);
  FEGCheckLaunch("FEGLMATileBuild_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the tiles t0..t1-1 that cover exactly elements e0..e1-1, else NULL (a range the tiles were not cut for) */
template <typename TK, bool CODED>
static const char *FEGLMALaunchTiles(const FEGDevLMA *k, const FEGDevLaunch *L, const TK *Ke)
{
  const FEGLMATiles *tl = &k->tiles;
  const int         *h  = tl->hstart, *p0, *p1;

  p0 = std::lower_bound(h, h + tl->ntiles + 1, L->e0);
  p1 = std::lower_bound(h, h + tl->ntiles + 1, L->e1);
  if (p0 == h + tl->ntiles + 1 || *p0 != L->e0 || p1 == h + tl->ntiles + 1 || *p1 != L->e1) return NULL;
  const int t0 = (int)(p0 - h), nt = (int)(p1 - p0);
  switch (k->Nb) {
#define FEG_LMA_TILE_APPLY(NB) \
  case NB: \
    if (k->sym) FEGLMATile_Kernel<NB, TK, CODED, true><<<nt, FEG_LMA_TILE>>>(k->Ne, t0, *tl, Ke, L->x, L->y, L->transpose, L->xg, L->yg); \
    else FEGLMATile_Kernel<NB, TK, CODED, false><<<nt, FEG_LMA_TILE>>>(k->Ne, t0, *tl, Ke, L->x, L->y, L->transpose, L->xg, L->yg); \
    return "FEGLMATile_Kernel";
    FEG_DEV_SMALL_NB(FEG_LMA_TILE_APPLY)
#undef FEG_LMA_TILE_APPLY
  default:
    return NULL;
  }
}

/* one element per thread with the size compiled in: the small elements, and P4 triangles, Q3 quadrilaterals, P2 prisms,
   P3 tetrahedra, Q2 hexahedra; NULL for another size */
template <typename TK, bool CODED, bool SYM>
static const char *FEGLMALaunchFixed(const FEGDevLMA *k, const FEGDevLaunch *L, const TK *Ke, double *yb, int nt)
{
  const unsigned nb = (unsigned)((L->e1 - L->e0 + nt - 1) / nt);

  switch (k->Nb) {
#define FEG_LMA_FIXED(NB) \
  case NB: \
    FEGLMASmall_Kernel<NB, NB, TK, CODED, SYM><<<nb, nt>>>(k->Ne, L->e0, L->e1, NB, k->idx, Ke, L->x, L->y, L->transpose, yb, L->xg, L->yg); \
    return "FEGLMASmall_Kernel";
    FEG_DEV_SMALL_NB(FEG_LMA_FIXED)
    FEG_LMA_FIXED(15)
    FEG_LMA_FIXED(16)
    FEG_LMA_FIXED(18)
    FEG_LMA_FIXED(20)
    FEG_LMA_FIXED(27)
#undef FEG_LMA_FIXED
  default:
    return NULL;
  }
}

/* launches the kernel for these elements and returns its name (for FEGCheckLaunch); NULL: packed symmetric element
   matrices of a size without their kernel */
template <typename TK, bool CODED>
static const char *FEGLMALaunch(const FEGDevLMA *k, const FEGDevLaunch *L, const TK *Ke, double *yb)
{
  const int      nt = 128, n = L->e1 - L->e0, Ne = k->Ne, Nb = k->Nb, e0 = L->e0, e1 = L->e1, transpose = L->transpose;
  const int     *idx = k->idx;
  const double  *x = L->x, *xg = L->xg;
  double        *y = L->y, *yg = L->yg;
  const unsigned nb = (unsigned)((n + nt - 1) / nt);
  const char    *name;

  if (k->tiles.ntiles && !yb && (name = FEGLMALaunchTiles<TK, CODED>(k, L, Ke))) return name;

  if (k->sym) { /* FEGLMASymmetricSize()'s sizes: the pair kernel in single up to 10 dofs, else one element per thread */
    if constexpr (std::is_same_v<TK, float>) {
      if ((name = FEGLMALaunchPair<CODED, true>(k, L, Ke, yb, nt))) return name;
    }
    return FEGLMALaunchFixed<TK, CODED, true>(k, L, Ke, yb, nt);
  }
  if constexpr (std::is_same_v<TK, double>) {
    if (Nb == 16) { /* FEGLMADoubleGrouped()'s size */
      FEGLMAGroup_Kernel<16, double, CODED><<<nb, nt>>>(Ne, e0, e1, idx, (const double2 *)Ke, x, y, transpose, yb, xg, yg);
      return "FEGLMAGroup_Kernel";
    }
  }
  if constexpr (std::is_same_v<TK, float>) {
    switch (Nb) { /* FEGLMASingleGrouped()'s sizes */
#define FEG_LMA_GROUP(NB) \
  case NB: \
    FEGLMAGroup_Kernel<NB, float, CODED><<<nb, nt>>>(Ne, e0, e1, idx, (const float4 *)Ke, x, y, transpose, yb, xg, yg); \
    return "FEGLMAGroup_Kernel";
      FEG_LMA_GROUP(16)
      FEG_LMA_GROUP(20)
#undef FEG_LMA_GROUP
    default:
      break;
    }
    if ((name = FEGLMALaunchPair<CODED, false>(k, L, Ke, yb, nt))) return name;
  }
  if ((name = FEGLMALaunchFixed<TK, CODED, false>(k, L, Ke, yb, nt))) return name;
  if (Nb <= 8) FEGLMASmall_Kernel<0, 8, TK, CODED><<<nb, nt>>>(Ne, e0, e1, Nb, idx, Ke, x, y, transpose, yb, xg, yg);
  else if (Nb <= FEG_LMA_SMALL) FEGLMASmall_Kernel<0, FEG_LMA_SMALL, TK, CODED><<<nb, nt>>>(Ne, e0, e1, Nb, idx, Ke, x, y, transpose, yb, xg, yg);
  else {
    FEGLMARow_Kernel<TK, CODED><<<(unsigned)(((size_t)n * Nb + nt - 1) / nt), nt>>>(Ne, e0, e1, Nb, idx, Ke, x, y, transpose, yb, xg, yg);
    return "FEGLMARow_Kernel";
  }
  return "FEGLMASmall_Kernel";
}

template <typename TK>
static __global__ void FEGLMADiag_Kernel(int Ne, int Nb, const int *__restrict__ idx, const TK *__restrict__ Ke, int sym, double *__restrict__ diag, double *__restrict__ ybuf, double *__restrict__ yg)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  for (int a = 0; a < Nb; a++) {
    const double v = sym ? (double)Ke[FEGLMASymEntry(Nb, a, a) * Ne + e] : FEGLMAEntry<0>(Ke, Nb, (size_t)a * Nb + a, e, Ne);

    if (ybuf) ybuf[(size_t)a * Ne + e] = v;
    else FEGCodedAdd(diag, yg, idx[(size_t)a * Ne + e], v, false);
  }
}

/* the launch's elements, by the kernel its size and storage have; with L->diag their diagonals (an element per
   thread); with the gather (L->tlist) the per-entry results summed after the last range */
PetscErrorCode FEGDevLMAApply(const FEGDevLMA *k, const FEGDevLaunch *L)
{
  double *yb = L->tlist ? L->ybuf : NULL;

  PetscFunctionBegin;
  if (L->diag && k->Ne) {
    const int nt = 128;

    if (k->single) FEGLMADiag_Kernel<float><<<(k->Ne + nt - 1) / nt, nt>>>(k->Ne, k->Nb, k->idx, (const float *)k->Ke, k->sym, L->y, yb, L->yg);
    else FEGLMADiag_Kernel<double><<<(k->Ne + nt - 1) / nt, nt>>>(k->Ne, k->Nb, k->idx, (const double *)k->Ke, k->sym, L->y, yb, L->yg);
    FEGCheckLaunch("FEGLMADiag_Kernel");
  } else if (!L->diag && L->e1 > L->e0) {
    const bool  coded = L->xg || L->yg;
    const char *name;

    if (k->single && coded) name = FEGLMALaunch<float, true>(k, L, (const float *)k->Ke, yb);
    else if (k->single) name = FEGLMALaunch<float, false>(k, L, (const float *)k->Ke, yb);
    else if (coded) name = FEGLMALaunch<double, true>(k, L, (const double *)k->Ke, yb);
    else name = FEGLMALaunch<double, false>(k, L, (const double *)k->Ke, yb);
    PetscCheck(name, PETSC_COMM_SELF, PETSC_ERR_PLIB, "lma: packed symmetric element matrices of %d dofs, a size without their kernel", k->Nb);
    FEGCheckLaunch(name);
  }
  PetscCall(FEGDevLaunchGather(L, yb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename TK>
static __global__ void FEGWiden_Kernel(int Nb, int Ne, const TK *__restrict__ in, int sym, double *__restrict__ out)
{
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)Nb * Nb * Ne) return;
  const size_t k = i / Ne;
  const int    e = (int)(i % Ne);

  out[i] = sym ? (double)in[FEGLMASymEntry(Nb, (int)(k / Nb), (int)(k % Nb)) * Ne + e] : (double)FEGLMAEntry<0>(in, Nb, k, e, Ne);
}

/* out[k*Ne+e] = entry k of element e of the element matrices in (single: FEGLMASingleIndex(), widened; double:
   FEGLMADoubleIndex(); sym: packed, FEGLMASymEntry()), in the order of double ones one by one, handed to
   MatSetValuesCOO() */
PetscErrorCode FEGDevLMAWiden(const FEGDevLMA *k, double *out)
{
  const int      Nb = k->Nb, Ne = k->Ne, single = k->single, sym = k->sym;
  const void    *in = k->Ke;
  const size_t   n  = (size_t)Nb * Nb * Ne;
  const unsigned nb = (unsigned)((n + 255) / 256);

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  if (single) FEGWiden_Kernel<float><<<nb, 256>>>(Nb, Ne, (const float *)in, sym, out);
  else FEGWiden_Kernel<double><<<nb, 256>>>(Nb, Ne, (const double *)in, sym, out);
  FEGCheckLaunch("FEGWiden_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
