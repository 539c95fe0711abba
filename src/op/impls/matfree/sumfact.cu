/* matfree on the GPU, sum factorisation for quadrilaterals and hexahedra: the 1D contractions and the point
   application are fegpoint.h's FEGContractEntry() and FEGMFPointApply(), shared with the host (matfree.c) */
#include <petscdevice_cuda.h>
#include "matfreecuda.h"

/* ------------------------------------------------------------------------------------------------------------------
   sumfact on quadrilaterals: NEB elements per block, all threads sweeping the outputs of one 1D contraction at a time
   in shared memory: values and reference gradients at the Q^2 quadrature points by two stages of contractions (B or D
   along x, then y), the stored Chat pairs at each point, and the transposed stages back. Per element the slots a mode
   uses (FEGSumFactSlots()), each max(P,Q)^2 doubles. */
template <int DIM, int KIND>
static __device__ __forceinline__ void FEGPointApply(const double *c, int stride, const double u[4], double v[4], bool transpose)
{
  FEGMFPointApply(DIM, KIND, c, stride, u, v, transpose);
}

/* out[(i0*NO+i)*inner+i1] (+)= sum_a M[i*NA+a] in[(i0*NA+a)*inner+i1] for each of neb elements (buffer stride st),
   the block's threads sweeping the outputs */
template <int NA, int NO>
static __device__ __forceinline__ void FEGContractDev(const double *in, double *out, const double *M, int n0, int inner, int st, int neb, bool add)
{
  const int per = n0 * NO * inner;
  for (int t = threadIdx.x; t < neb * per; t += blockDim.x) {
    const int el = t / per, rr = t % per;

    out[(size_t)el * st + rr] = FEGContractEntry(in + (size_t)el * st, M, NA, NO, inner, rr, add ? out[(size_t)el * st + rr] : 0.0);
  }
}

/* MODE: FEG_SF_MASS when only the mass pair is stored (no gradients), FEG_SF_COLLOC when the quadrature points are
   the nodes (B1 = I: values need no contraction); each mode keeps only the buffer slots it uses. FEG_SF_CODED (the
   hexahedral kernels' launch adds it where the range's halo buffers are given or dofs are element-owned): indices may
   name the halo's buffers, or the sums are plain stores; without it (FEGIdxLoad<false>) every index is a global or
   local entry or -1, and the sums are atomic adds. The general load and add cost the mass kernel (their run-time
   branches kept the compiler from batching the adds) */
enum {
  FEG_SF_MASS   = 1,
  FEG_SF_COLLOC = 2,
  FEG_SF_CODED  = 4,
  FEG_SF_GEO2   = 8, /* computed geometry from 2 (3) coordinate nodes per direction, not stored pairs */
  FEG_SF_GEO3   = 16
};

/* the coordinate nodes per direction of a mode's computed geometry, 0 for stored pairs */
static __host__ __device__ constexpr int FEGSumFactGeo(int mode)
{
  return (mode & FEG_SF_GEO3) ? 3 : ((mode & FEG_SF_GEO2) ? 2 : 0);
}

/* the mode of a pair set and rule, and the shared-memory slots (of max(P,Q)^2 doubles) the quadrilateral kernel uses
   per element */
static __host__ __device__ constexpr int FEGSumFactMode(int kind, int colloc)
{
  return (kind == FEG_MF_VV ? FEG_SF_MASS : 0) | (colloc ? FEG_SF_COLLOC : 0);
}

static __host__ __device__ constexpr int FEGSumFactSlots(int mode)
{
  const int shape = mode & (FEG_SF_MASS | FEG_SF_COLLOC); /* the storage and geometry bits do not change the slots */

  return shape == 0 ? 5 : (shape == FEG_SF_MASS ? 2 : (shape == FEG_SF_COLLOC ? 3 : 1));
}

/* stored pairs at one point, the kind resolved at compile time */
template <int DIM>
static __device__ __forceinline__ void FEGPointApplyKind(int kind, const double *c, int stride, const double u[4], double v[4], bool transpose)
{
  switch (kind) {
  case FEG_MF_GG_SYM:
    FEGPointApply<DIM, FEG_MF_GG_SYM>(c, stride, u, v, transpose);
    break;
  case FEG_MF_VVGG_SYM:
    FEGPointApply<DIM, FEG_MF_VVGG_SYM>(c, stride, u, v, transpose);
    break;
  case FEG_MF_SYM:
    FEGPointApply<DIM, FEG_MF_SYM>(c, stride, u, v, transpose);
    break;
  default:
    FEGPointApply<DIM, FEG_MF_FULL>(c, stride, u, v, transpose);
  }
}

template <int P, int Q, int MODE>
static __global__ void FEGSumFact2_Kernel(const FEGDevSumFact sf, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose)
{
  constexpr int            MX = P > Q ? P : Q, N = MX * MX, NP = P * P, NQ = Q * Q;
  constexpr int            NS   = FEGSumFactSlots(MODE);
  constexpr bool           MASS = (MODE & FEG_SF_MASS) != 0, COLLOC = (MODE & FEG_SF_COLLOC) != 0;
  extern __shared__ double sm[];
  double                  *Bs = sm, *Ds = Bs + P * Q, *Bt = Ds + P * Q, *Dt = Bt + P * Q, *buf = Dt + P * Q;
  const int                st = NS * N, neb = sf.neb, E0 = sf.e0 + blockIdx.x * neb, nel = min(neb, sf.e1 - E0);

  for (int t = threadIdx.x; t < P * Q; t += blockDim.x) {
    const int i = t / P, a = t % P;
    Bs[t]         = sf.B1[t];
    Ds[t]         = sf.D1[t];
    Bt[a * Q + i] = sf.B1[t];
    Dt[a * Q + i] = sf.D1[t];
  }
  for (int t = threadIdx.x; t < neb * NP; t += blockDim.x) {
    const int el = t % neb, l = t / neb;
    const int g = el < nel ? sf.idx[(size_t)l * sf.Ne + E0 + el] : -1;

    buf[(size_t)el * st + l] = FEGIdxLoad<true>(x, sf.xg, g);
  }
  __syncthreads();
  /* slots: general U=V0 | T0=V1 | T1=V2 | T2 | T3; mass U=V0 | T0; collocated U=V0 | V1 | V2 */
  double *U = buf, *T0 = buf + N, *T2 = buf + (MASS ? 1 : 3) * N, *T3 = buf + 4 * N;
  double *V[3] = {buf, buf + N, buf + 2 * N};
  if (COLLOC && !MASS) {
    /* V0 = U in place; each gradient component one contraction along its direction */
    FEGContractDev<P, Q>(U, V[1], Ds, P, 1, st, neb, false);
    FEGContractDev<P, Q>(U, V[2], Ds, 1, P, st, neb, false);
  } else if (MASS && !COLLOC) {
    FEGContractDev<P, Q>(U, T0, Bs, P, 1, st, neb, false);
    __syncthreads();
    FEGContractDev<P, Q>(T0, V[0], Bs, 1, Q, st, neb, false);
  } else if (!MASS && !COLLOC) {
    FEGContractDev<P, Q>(U, T2, Bs, P, 1, st, neb, false);
    FEGContractDev<P, Q>(U, T3, Ds, P, 1, st, neb, false);
    __syncthreads();
    FEGContractDev<P, Q>(T2, V[0], Bs, 1, Q, st, neb, false);
    FEGContractDev<P, Q>(T2, V[2], Ds, 1, Q, st, neb, false);
    FEGContractDev<P, Q>(T3, V[1], Bs, 1, Q, st, neb, false);
  }
  __syncthreads();
  for (int t = threadIdx.x; t < nel * NQ; t += blockDim.x) {
    constexpr int GEO = FEGSumFactGeo(MODE);
    const int     el = t / NQ, l = t % NQ, e = E0 + el;
    const double *c    = sf.Cl + (size_t)e * sf.npairs * NQ + l;
    double        u[4] = {0, 0, 0, 0}, v[4] = {0, 0, 0, 0}, cw[FEG_MF_MAXPAIRS];
    int           stride = NQ;

    if (GEO) {
      /* the pairs at this point from the element's coordinate nodes */
      const int a[3] = {l % Q, l / Q, 0};
      double    J[9];

      FEGTensorJacobian(2, GEO, sf.X + (size_t)e * sf.Nv * 2, sf.lexg, sf.gB, sf.gD, a, J);
      (void)FEGMFPairsFromJacobian(2, MASS ? FEG_MF_VV : sf.kind, sf.iso, sf.C, J, sf.W1[a[0]] * sf.W1[a[1]], cw);
      c      = cw;
      stride = 1;
    }
    if (MASS) V[0][(size_t)el * st + l] *= c[0];
    else {
#pragma unroll
      for (int r = 0; r <= 2; r++) u[r] = V[r][(size_t)el * st + l];
      FEGPointApplyKind<2>(sf.kind, c, stride, u, v, transpose);
#pragma unroll
      for (int r = 0; r <= 2; r++) V[r][(size_t)el * st + l] = v[r];
    }
  }
  __syncthreads();
  if (COLLOC && !MASS) {
    /* U = V0 already; add the transposed derivative contractions one direction at a time */
    FEGContractDev<Q, P>(V[1], U, Dt, P, 1, st, neb, true);
    __syncthreads();
    FEGContractDev<Q, P>(V[2], U, Dt, 1, P, st, neb, true);
  } else if (MASS && !COLLOC) {
    FEGContractDev<Q, P>(V[0], T0, Bt, 1, Q, st, neb, false);
    __syncthreads();
    FEGContractDev<Q, P>(T0, U, Bt, P, 1, st, neb, false);
  } else if (!MASS && !COLLOC) {
    FEGContractDev<Q, P>(V[0], T2, Bt, 1, Q, st, neb, false);
    FEGContractDev<Q, P>(V[1], T3, Bt, 1, Q, st, neb, false);
    __syncthreads();
    FEGContractDev<Q, P>(V[2], T2, Dt, 1, Q, st, neb, true);
    __syncthreads();
    FEGContractDev<Q, P>(T2, U, Bt, P, 1, st, neb, false);
    __syncthreads();
    FEGContractDev<Q, P>(T3, U, Dt, P, 1, st, neb, true);
  }
  __syncthreads();
  for (int t = threadIdx.x; t < nel * NP; t += blockDim.x) {
    const int    el = t % nel, l = t / nel, e = E0 + el;
    const double v = U[(size_t)el * st + l];
    const int    g = sf.idx[(size_t)l * sf.Ne + e];

    if (ybuf) ybuf[(size_t)sf.lex[l] * sf.Ne + e] = v;
    else FEGIdxAdd<true>(y, sf.yg, g, v, sf.unique);
  }
}

/* ------------------------------------------------------------------------------------------------------------------
   sumfact on hexahedra: a T x T thread column per element (T = max(P, Q)), each thread holding its column's values
   along z in registers. x and y contractions go through the element's T^3 shared buffer, each thread with its row of
   the 1D table in registers; z contractions are register-only. Gradients at the points come from the values at the
   points through Gq, the derivatives of the Lagrange functions of the Q points (exact for Q >= P, libCEED's collocated
   gradient): a general space costs 3 interpolations and 3 point-derivative contractions each way. */

/* along x (D = 0) or y (D = 1) through the shared buffer s[(k*T+y)*T+x]: r[k] = sum_a M(o, a) s(k, a, n), k < NK, for
   the threads whose output index o (tx along x, ty along y) is below NO and other index n below NN; M(o, a) = M[o*NA+a]
   or, transposed, M[a*NO+o]. Every thread first stores its column r[0..NK) */
template <int D, int T, int NA, int NO, int NK, int NN, bool TR>
static __device__ __forceinline__ void FEGSlab(double r[], double *s, const double *M)
{
  constexpr int sa = D ? T : 1, sn = D ? 1 : T;
  const int     tx = threadIdx.x, ty = threadIdx.y, o = D ? ty : tx, n = D ? tx : ty;

#pragma unroll
  for (int k = 0; k < NK; k++) s[(k * T + ty) * T + tx] = r[k];
  __syncthreads();
  if (o < NO && n < NN) {
    double m[NA];

#pragma unroll
    for (int a = 0; a < NA; a++) m[a] = TR ? M[a * NO + o] : M[o * NA + a];
#pragma unroll
    for (int k = 0; k < NK; k++) {
      double acc = 0.0;

#pragma unroll
      for (int a = 0; a < NA; a++) acc += m[a] * s[k * T * T + a * sa + n * sn];
      r[k] = acc;
    }
  }
  __syncthreads();
}

/* along z, in registers: out[k] (+)= sum_c M(k, c) in[c], M(k, c) = M[k*NA+c] or, transposed, M[c*NO+k] (every thread
   reads the same entry: a shared-memory broadcast) */
template <int NA, int NO, bool TR, bool ADD>
static __device__ __forceinline__ void FEGSlabZ(const double in[], double out[], const double *M)
{
#pragma unroll
  for (int k = 0; k < NO; k++) {
    double acc = ADD ? out[k] : 0.0;

#pragma unroll
    for (int c = 0; c < NA; c++) acc += (TR ? M[c * NO + k] : M[k * NA + c]) * in[c];
    out[k] = acc;
  }
}

/* the 1D tables of a hexahedral kernel as its parameter (__grid_constant__: read in place from the constant bank).
   Where every thread of a warp reads the same entry (the contractions and weights along z) the entry is the FMA's
   operand, with no shared-memory load beside it: the Q2-Q4 mass kernels are bound by L1/shared-memory traffic (bp run
   12). The x and y contractions read rows that differ between threads, which stay in shared memory. */
template <int P, int Q>
struct FEGSumFactTables {
  double B[Q * P], G[Q * Q], W[Q];
  double gB[Q * 3], gD[Q * 3]; /* computed geometry: the coordinate nodes' 1D basis at the points (Q x G), lexg[g] */
  int    lexg[27];
};

/* Computed geometry of a thread's column (tx, ty): S[d][i][r], the reference derivative d of coordinate i contracted
   along x and y at (tx, ty), for each z node r of the G^3 coordinate nodes sX (the element's, in their own order, in
   shared memory; lexg picks the lexicographic one, the same for every thread: a broadcast). The Jacobian at the
   column's point k is then a G-term contraction along z (FEGColumnJacobian()): 9 G multiply-adds a point, against
   6 or 7 stored values to read */
template <int P, int Q, int G>
static __device__ __forceinline__ void FEGColumnGeoSetUp(double S[3][3][G], const double *sX, const FEGSumFactTables<P, Q> &tab)
{
  const int tx = threadIdx.x, ty = threadIdx.y;

#pragma unroll
  for (int d = 0; d < 3; d++)
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
      for (int r = 0; r < G; r++) S[d][i][r] = 0.0;
#pragma unroll
  for (int q = 0; q < G; q++)
#pragma unroll
    for (int p = 0; p < G; p++) {
      const double bx = tab.gB[tx * G + p], dx = tab.gD[tx * G + p], by = tab.gB[ty * G + q], dy = tab.gD[ty * G + q];

#pragma unroll
      for (int r = 0; r < G; r++)
#pragma unroll
        for (int i = 0; i < 3; i++) {
          const double x = sX[tab.lexg[(r * G + q) * G + p] * 3 + i];

          S[0][i][r] += dx * by * x;
          S[1][i][r] += bx * dy * x;
          S[2][i][r] += bx * by * x;
        }
    }
}

template <int P, int Q, int G>
static __device__ __forceinline__ void FEGColumnJacobian(const double S[3][3][G], const FEGSumFactTables<P, Q> &tab, int k, double J[9])
{
#pragma unroll
  for (int i = 0; i < 3; i++) {
    double jx = 0.0, jy = 0.0, jz = 0.0;

#pragma unroll
    for (int r = 0; r < G; r++) {
      jx += tab.gB[k * G + r] * S[0][i][r];
      jy += tab.gB[k * G + r] * S[1][i][r];
      jz += tab.gD[k * G + r] * S[2][i][r];
    }
    J[i * 3]     = jx;
    J[i * 3 + 1] = jy;
    J[i * 3 + 2] = jz;
  }
}

/* the pairs of the column's points from the computed geometry, applied as FEGSumFact3Points() applies stored ones */
template <int P, int Q, int G, int KIND>
static __device__ __forceinline__ void FEGSumFact3PointsGeo(double v[4][Q], const double *sX, const FEGSumFactTables<P, Q> &tab, const FEGDevSumFact &sf, const double *sW, bool transpose)
{
  double    S[3][3][G];
  const int tx = threadIdx.x, ty = threadIdx.y;

  FEGColumnGeoSetUp<P, Q, G>(S, sX, tab);
#pragma unroll
  for (int k = 0; k < Q; k++) {
    double u[4], w[4] = {0, 0, 0, 0}, J[9];

    FEGColumnJacobian<P, Q, G>(S, tab, k, J);
#pragma unroll
    for (int r = 0; r < 4; r++) u[r] = v[r][k];
    FEGMFGeoPointApply(3, KIND, sf.iso, sf.C, J, sW[tx] * sW[ty] * tab.W[k], u, w, transpose);
#pragma unroll
    for (int r = 0; r < 4; r++) v[r][k] = w[r];
  }
}

/* the stored pairs at the Q points of a thread's column (lexicographic l = (k*Q+ty)*Q+tx): c at the column's first
   point (stride Q^3 between pairs) or, with K (the element's pairs), the point's weight (sW along x and y, Wz along z)
   times K */
template <int Q, int KIND>
static __device__ __forceinline__ void FEGSumFact3Points(double v[4][Q], const double *c, const double *K, int np, const double *sW, const double *Wz, bool transpose)
{
  double Km[FEG_MF_MAXPAIRS], wxy = 0.0;

  if (K) {
    wxy = sW[threadIdx.x] * sW[threadIdx.y];
#pragma unroll
    for (int m = 0; m < FEG_MF_MAXPAIRS; m++) Km[m] = m < np ? K[m] : 0.0;
  }
#pragma unroll
  for (int k = 0; k < Q; k++) {
    double u[4], w[4] = {0, 0, 0, 0}, cw[FEG_MF_MAXPAIRS];

#pragma unroll
    for (int r = 0; r < 4; r++) u[r] = v[r][k];
    if (K) {
      const double wk = wxy * Wz[k];

#pragma unroll
      for (int m = 0; m < FEG_MF_MAXPAIRS; m++) cw[m] = wk * Km[m];
      FEGMFPointApply(3, KIND, cw, 1, u, w, transpose);
    } else FEGMFPointApply(3, KIND, c + k * Q * Q, Q * Q * Q, u, w, transpose);
#pragma unroll
    for (int r = 0; r < 4; r++) v[r][k] = w[r];
  }
}

template <int P, int Q, int MODE>
static __device__ __forceinline__ void FEGSumFact3_Body(const FEGDevSumFact &sf, const FEGSumFactTables<P, Q> &tab, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose)
{
  constexpr int            T = P > Q ? P : Q, T3 = T * T * T, NQ = Q * Q * Q;
  constexpr bool           MASS = (MODE & FEG_SF_MASS) != 0, COLLOC = (MODE & FEG_SF_COLLOC) != 0;
  constexpr int            ST  = ((MASS ? 1 : 2) * T3) | 1; /* element stride odd: fewer bank conflicts */
  constexpr int            GEO = FEGSumFactGeo(MODE), NX = 3 * GEO * GEO * GEO;
  extern __shared__ double sm[];
  double                  *sB = sm, *sG = sB + Q * P, *sW = sG + Q * Q, *s0 = sW + Q + threadIdx.z * ST, *s1 = s0 + T3;
  double                  *sX = sW + Q + blockDim.z * ST + threadIdx.z * NX; /* computed geometry: the coordinate nodes */
  const int                tx = threadIdx.x, ty = threadIdx.y, e = sf.e0 + blockIdx.x * blockDim.z + threadIdx.z;
  const bool               live = e < sf.e1;
  double                   r[T], v[4][Q]; /* v[1..3]: not used (no registers) for mass */

  for (int t = tx + T * (ty + T * threadIdx.z); t < Q * (P + Q + 1); t += T * T * blockDim.z) sm[t] = t < Q * P ? sf.B1[t] : (t < Q * (P + Q) ? sf.Gq[t - Q * P] : sf.W1[t - Q * (P + Q)]);
  if (GEO && live)
    for (int t = tx + T * ty; t < NX; t += T * T) sX[t] = sf.X[(size_t)e * NX + t]; /* read before the first barrier, used after several */
#pragma unroll
  for (int k = 0; k < T; k++) r[k] = 0.0;
  if (live && tx < P && ty < P) {
#pragma unroll
    for (int k = 0; k < P; k++) {
      const int g = sf.idx[(size_t)e * (P * P * P) + (k * P + ty) * P + tx];

      r[k] = FEGIdxLoad<(MODE & FEG_SF_CODED) != 0>(x, sf.xg, g);
    }
  }
  __syncthreads();
  /* values at the points: (P,P,P) -> (Q,P,P) -> (Q,Q,P) -> (Q,Q,Q) */
  if (COLLOC) {
#pragma unroll
    for (int k = 0; k < Q; k++) v[0][k] = r[k];
  } else {
    FEGSlab<0, T, P, Q, P, P, false>(r, s0, sB);
    FEGSlab<1, T, P, Q, P, Q, false>(r, s0, sB);
    FEGSlabZ<P, Q, false, false>(r, v[0], tab.B);
  }
  if (!MASS) {
    /* reference gradient at the points: z in registers, x and y from one store of the values */
    FEGSlabZ<Q, Q, false, false>(v[0], v[3], tab.G);
#pragma unroll
    for (int k = 0; k < Q; k++) s0[(k * T + ty) * T + tx] = v[0][k];
    __syncthreads();
    if (tx < Q && ty < Q) {
      double gx[Q], gy[Q];

#pragma unroll
      for (int a = 0; a < Q; a++) {
        gx[a] = sG[tx * Q + a];
        gy[a] = sG[ty * Q + a];
      }
#pragma unroll
      for (int k = 0; k < Q; k++) {
        double dx = 0.0, dy = 0.0;

#pragma unroll
        for (int a = 0; a < Q; a++) {
          dx += gx[a] * s0[(k * T + ty) * T + a];
          dy += gy[a] * s0[(k * T + a) * T + tx];
        }
        v[1][k] = dx;
        v[2][k] = dy;
      }
    }
    __syncthreads();
  }
  if (GEO && live && tx < Q && ty < Q) {
    if constexpr (GEO > 0) {
      if (MASS) {
        double S[3][3][GEO];

        FEGColumnGeoSetUp<P, Q, GEO>(S, sX, tab);
#pragma unroll
        for (int k = 0; k < Q; k++) {
          double J[9], A[9];

          FEGColumnJacobian<P, Q, GEO>(S, tab, k, J);
          v[0][k] *= sW[tx] * sW[ty] * tab.W[k] * sf.C[0] * FEGAdjugate(3, J, A); /* w det J C00: only det is used */
        }
      } else switch (sf.kind) {
        case FEG_MF_GG_SYM:
          FEGSumFact3PointsGeo<P, Q, GEO, FEG_MF_GG_SYM>(v, sX, tab, sf, sW, transpose);
          break;
        case FEG_MF_VVGG_SYM:
          FEGSumFact3PointsGeo<P, Q, GEO, FEG_MF_VVGG_SYM>(v, sX, tab, sf, sW, transpose);
          break;
        case FEG_MF_SYM:
          FEGSumFact3PointsGeo<P, Q, GEO, FEG_MF_SYM>(v, sX, tab, sf, sW, transpose);
          break;
        default:
          FEGSumFact3PointsGeo<P, Q, GEO, FEG_MF_FULL>(v, sX, tab, sf, sW, transpose);
        }
    }
  } else if (!GEO && live && tx < Q && ty < Q) {
    const double *c = sf.Kc ? NULL : sf.Cl + (size_t)e * sf.npairs * NQ + ty * Q + tx, *K = sf.Kc ? sf.Kc + (size_t)e * sf.npairs : NULL;

    if (MASS) {
      const double wxy = K ? K[0] * sW[tx] * sW[ty] : 0.0;

#pragma unroll
      for (int k = 0; k < Q; k++) v[0][k] *= K ? wxy * tab.W[k] : c[k * Q * Q];
    } else switch (sf.kind) {
      case FEG_MF_GG_SYM:
        FEGSumFact3Points<Q, FEG_MF_GG_SYM>(v, c, K, sf.npairs, sW, tab.W, transpose);
        break;
      case FEG_MF_VVGG_SYM:
        FEGSumFact3Points<Q, FEG_MF_VVGG_SYM>(v, c, K, sf.npairs, sW, tab.W, transpose);
        break;
      case FEG_MF_SYM:
        FEGSumFact3Points<Q, FEG_MF_SYM>(v, c, K, sf.npairs, sW, tab.W, transpose);
        break;
      default:
        FEGSumFact3Points<Q, FEG_MF_FULL>(v, c, K, sf.npairs, sW, tab.W, transpose);
      }
  }
  if (!MASS) {
    /* the transposed gradient: x and y from one store of both components, then z in registers */
#pragma unroll
    for (int k = 0; k < Q; k++) {
      s0[(k * T + ty) * T + tx] = v[1][k];
      s1[(k * T + ty) * T + tx] = v[2][k];
    }
    __syncthreads();
    if (tx < Q && ty < Q) {
      double gx[Q], gy[Q];

#pragma unroll
      for (int i = 0; i < Q; i++) {
        gx[i] = sG[i * Q + tx];
        gy[i] = sG[i * Q + ty];
      }
#pragma unroll
      for (int k = 0; k < Q; k++) {
        double acc = v[0][k];

#pragma unroll
        for (int i = 0; i < Q; i++) acc += gx[i] * s0[(k * T + ty) * T + i] + gy[i] * s1[(k * T + i) * T + tx];
        v[0][k] = acc;
      }
    }
    __syncthreads();
    FEGSlabZ<Q, Q, true, true>(v[3], v[0], tab.G);
  }
  /* back to the nodes: (Q,Q,Q) -> (Q,Q,P) -> (Q,P,P) -> (P,P,P) */
  if (COLLOC) {
#pragma unroll
    for (int k = 0; k < Q; k++) r[k] = v[0][k];
  } else {
    FEGSlabZ<Q, P, true, false>(v[0], r, tab.B);
    FEGSlab<1, T, Q, P, P, Q, true>(r, s0, sB);
    FEGSlab<0, T, Q, P, P, P, true>(r, s0, sB);
  }
  if (live && tx < P && ty < P) {
#pragma unroll
    for (int k = 0; k < P; k++) {
      const int l = (k * P + ty) * P + tx, g = sf.idx[(size_t)e * (P * P * P) + l];

      if (ybuf) ybuf[(size_t)sf.lex[l] * sf.Ne + e] = r[k];
      else FEGIdxAdd<(MODE & FEG_SF_CODED) != 0>(y, sf.yg, g, r[k], sf.unique);
    }
  }
}

template <int P, int Q, int MODE>
static __global__ void FEGSumFact3_Kernel(const FEGDevSumFact sf, const __grid_constant__ FEGSumFactTables<P, Q> tab, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose)
{
  FEGSumFact3_Body<P, Q, MODE>(sf, tab, x, y, ybuf, transpose);
}

/* mass modes (BP1): few values per thread, but without a bound the compiler gave them many registers (94 at Q4, 238
   at T = 10) and low occupancy. At most 256 threads per block up to T = 6 (128 above, what the launcher gives them),
   and blocks per multiprocessor so that the registers stay near what the kernel needs: 64 up to T = 4, 85 for T = 5,
   6, 170 above (T = 9, 10 spill a little there, for 3 blocks per multiprocessor instead of 2) */
#if !defined(FEG_SF_MASS_CAP)
  #define FEG_SF_MASS_CAP 1
#endif
static constexpr int FEGSumFactMassMaxThreads(int T)
{
  return FEG_SF_MASS_CAP && T > 6 ? 128 : 256;
}
static constexpr int FEGSumFactMassMinBlocks(int T)
{
  return FEG_SF_MASS_CAP ? (T <= 4 ? 4 : 3) : 1;
}

template <int P, int Q, int MODE>
static __global__ void __launch_bounds__(FEGSumFactMassMaxThreads(P > Q ? P : Q), FEGSumFactMassMinBlocks(P > Q ? P : Q)) FEGSumFact3Mass_Kernel(const FEGDevSumFact sf, const __grid_constant__ FEGSumFactTables<P, Q> tab, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose)
{
  FEGSumFact3_Body<P, Q, MODE>(sf, tab, x, y, ybuf, transpose);
}

/* computed geometry's pairs of elements e0..e1 at their lexicographic points, Cl[((e-e0)*np+m)*NQ+l] as stored pairs
   are laid out: thread per (element, point), the Jacobian from the coordinate nodes (FEGTensorJacobian()) */
static __global__ void FEGSumFactGeoPairs_Kernel(const FEGDevSumFact sf, int kind, double *__restrict__ Cl)
{
  const int    Q = sf.Q, NQ = sf.dim == 3 ? Q * Q * Q : Q * Q, ne = sf.e1 - sf.e0;
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)ne * NQ) return;
  const int el = (int)(t / NQ), l = (int)(t % NQ), a[3] = {l % Q, (l / Q) % Q, l / (Q * Q)};
  double    J[9], c[FEG_MF_MAXPAIRS];

  FEGTensorJacobian(sf.dim, sf.geoG, sf.X + (size_t)(sf.e0 + el) * sf.Nv * sf.dim, sf.lexg, sf.gB, sf.gD, a, J);
  (void)FEGMFPairsFromJacobian(sf.dim, kind, sf.iso, sf.C, J, sf.W1[a[0]] * sf.W1[a[1]] * (sf.dim == 3 ? sf.W1[a[2]] : 1.0), c);
  for (int m = 0; m < sf.npairs; m++) Cl[((size_t)el * sf.npairs + m) * NQ + l] = c[m];
}

/* diagonal: thread per (element, node), sum over the Gauss points of the pairs times the 1D products */
template <int DIM, int KIND>
static __global__ void FEGSumFactDiag_Kernel(const FEGDevSumFact sf, double *__restrict__ y, double *__restrict__ ybuf)
{
  const int    NP = DIM == 3 ? sf.P * sf.P * sf.P : sf.P * sf.P, NQ = DIM == 3 ? sf.Q * sf.Q * sf.Q : sf.Q * sf.Q, ne = sf.e1 - sf.e0;
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)ne * NP) return;
  const int e = sf.e0 + (int)(t % ne), l = (int)(t / ne), g = DIM == 3 ? sf.idx[(size_t)e * NP + l] : sf.idx[(size_t)l * sf.Ne + e];

  /* Cl holds the elements from e0 on (the whole mesh, or a chunk of computed pairs) */
  const double v = sf.Kc ? FEGSumFactDiagEntry(DIM, KIND, sf.P, sf.Q, sf.B1, sf.D1, sf.W1, sf.Kc + (size_t)e * sf.npairs, 1, l) : FEGSumFactDiagEntry(DIM, KIND, sf.P, sf.Q, sf.B1, sf.D1, NULL, sf.Cl + (size_t)(e - sf.e0) * sf.npairs * NQ, NQ, l);

  if (ybuf) ybuf[(size_t)sf.lex[l] * sf.Ne + e] = v; /* the entry order of the transpose map, as in the action */
  else FEGCodedAdd(y, sf.yg, g, v, false);
}

/* computed geometry (diffusion modes): the column's geometry and the point arithmetic took the registers to 156 at Q4
   (one 256-thread block a multiprocessor, against two stored: bp3 Q2 on a Kershaw box ran 1.8x slower); bounded to two
   such blocks (128 registers up to T = 6) */
template <int P, int Q, int MODE>
static __global__ void __launch_bounds__(FEGSumFactMassMaxThreads(P > Q ? P : Q), 2) FEGSumFact3Geo_Kernel(const FEGDevSumFact sf, const __grid_constant__ FEGSumFactTables<P, Q> tab, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose)
{
  FEGSumFact3_Body<P, Q, MODE>(sf, tab, x, y, ybuf, transpose);
}

/* the kernel of a dimension and mode (only that one instantiated) */
template <int DIM, int P, int Q, int MODE>
static constexpr auto FEGSumFactKernel()
{
  if constexpr (DIM == 2) return FEGSumFact2_Kernel<P, Q, MODE & ~FEG_SF_CODED>;
  else if constexpr ((MODE & FEG_SF_MASS) != 0) return FEGSumFact3Mass_Kernel<P, Q, MODE>;
  else if constexpr (FEGSumFactGeo(MODE) > 0) return FEGSumFact3Geo_Kernel<P, Q, MODE>;
  else return FEGSumFact3_Kernel<P, Q, MODE>;
}

template <int DIM, int P, int Q, int MODE>
static PetscErrorCode FEGSumFactLaunchMode(const FEGDevSumFact *sf, const double *x, double *y, double *ybuf, int transpose)
{
  constexpr int  T     = P > Q ? P : Q;
  const unsigned nblk  = (unsigned)((sf->e1 - sf->e0 + sf->neb - 1) / sf->neb);
  const bool     coded = sf->xg || sf->yg || sf->unique;
  auto           kern  = coded ? FEGSumFactKernel<DIM, P, Q, MODE | FEG_SF_CODED>() : FEGSumFactKernel<DIM, P, Q, MODE>();
  const dim3     block = DIM == 3 ? dim3(T, T, sf->neb) : dim3(sf->nthreads);

  int nact = 0;

  PetscFunctionBegin;
  PetscCall(FEGDevKernelFit((const void *)kern, sf->nthreads, (size_t)sf->shmem, &nact, NULL));
  if (!nact) {
    cudaFuncAttributes attr;

    /* the registers of a block, not only its threads, bound the elements per block */
    PetscCallCUDA(cudaFuncGetAttributes(&attr, kern));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-feg_op_matfree_nb %d: the sumfact kernel for %d nodes and %d points per direction (%d threads, %d bytes of shared memory per block) does not fit on this GPU: at most %d threads per block with %d registers per thread", sf->neb, P, Q, sf->nthreads, sf->shmem,
            attr.maxThreadsPerBlock, attr.numRegs);
  }
  if constexpr (DIM == 3) {
    FEGSumFactTables<P, Q> tab;

    for (int t = 0; t < Q * P; t++) tab.B[t] = sf->hB1[t];
    for (int t = 0; t < Q * Q; t++) tab.G[t] = sf->hGq[t];
    for (int t = 0; t < Q; t++) tab.W[t] = sf->hW1[t];
    for (int t = 0; t < Q * 3; t++) tab.gB[t] = tab.gD[t] = 0.0;
    for (int t = 0; t < 27; t++) tab.lexg[t] = 0;
    if (sf->geoG) {
      for (int t = 0; t < Q * sf->geoG; t++) {
        tab.gB[t] = sf->hgB[t];
        tab.gD[t] = sf->hgD[t];
      }
      for (int t = 0; t < sf->Nv; t++) tab.lexg[t] = sf->hlexg[t];
    }
    kern<<<nblk, block, sf->shmem>>>(*sf, tab, x, y, ybuf, transpose);
  } else kern<<<nblk, block, sf->shmem>>>(*sf, x, y, ybuf, transpose);
  FEGCheckLaunch("FEGSumFact_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* collocated modes exist only for Q = P */
template <int DIM, int P, int Q, int GEO>
static PetscErrorCode FEGSumFactLaunchGeo(const FEGDevSumFact *sf, const double *x, double *y, double *ybuf, int transpose)
{
  const int mode = FEGSumFactMode(sf->kind, sf->colloc);

  PetscFunctionBegin;
  if (mode == FEG_SF_MASS) PetscCall(FEGSumFactLaunchMode<DIM, P, Q, FEG_SF_MASS | GEO>(sf, x, y, ybuf, transpose));
  else if (mode && P != Q) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "sumfact: collocated with %d points and %d nodes", Q, P);
  else if (mode == FEG_SF_COLLOC) PetscCall(FEGSumFactLaunchMode<DIM, P, P, FEG_SF_COLLOC | GEO>(sf, x, y, ybuf, transpose));
  else if (mode) PetscCall(FEGSumFactLaunchMode<DIM, P, P, FEG_SF_MASS | FEG_SF_COLLOC | GEO>(sf, x, y, ybuf, transpose));
  else PetscCall(FEGSumFactLaunchMode<DIM, P, Q, GEO>(sf, x, y, ybuf, transpose));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* stored pairs, or the geometry computed from 2 or 3 coordinate nodes per direction */
template <int DIM, int P, int Q>
static PetscErrorCode FEGSumFactLaunch(const FEGDevSumFact *sf, const double *x, double *y, double *ybuf, int transpose)
{
  PetscFunctionBegin;
  if (sf->geoG == 2) PetscCall(FEGSumFactLaunchGeo<DIM, P, Q, FEG_SF_GEO2>(sf, x, y, ybuf, transpose));
  else if (sf->geoG == 3) PetscCall(FEGSumFactLaunchGeo<DIM, P, Q, FEG_SF_GEO3>(sf, x, y, ybuf, transpose));
  else PetscCall(FEGSumFactLaunchGeo<DIM, P, Q, 0>(sf, x, y, ybuf, transpose));
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

/* elements, threads and shared memory per block: hexahedra a T x T column per element, T = max(P, Q), and enough
   elements for about 256 threads (128 from T = 7 on); quadrilaterals enough elements for 256 busy threads within 96 KB. neb > 0 asks for
   that many elements per block */
PetscErrorCode FEGDevSumFactConfigure(FEGDevSumFact *sf, int neb)
{
  const int    T = sf->P > sf->Q ? sf->P : sf->Q, mode = FEGSumFactMode(sf->kind, sf->colloc), NQ = sf->dim == 3 ? sf->Q * sf->Q * sf->Q : sf->Q * sf->Q;
  const size_t tables = (sf->dim == 3 ? (size_t)sf->Q * (sf->P + sf->Q + 1) : 4 * (size_t)sf->P * sf->Q) * sizeof(double);
  const size_t per    = (sf->dim == 3 ? (size_t)(((mode & FEG_SF_MASS) ? 1 : 2) * T * T * T | 1) + (sf->geoG ? (size_t)3 * sf->Nv : 0) : (size_t)FEGSumFactSlots(mode) * T * T) * sizeof(double);
  const size_t limit  = (size_t)200 << 10;

  PetscFunctionBegin;
  if (!neb) {
    if (sf->dim == 3) neb = (T <= 6 ? 256 : 128) / (T * T); /* 128 threads from T = 7 on: measured faster */
    else neb = 256 / NQ + 1;
    neb = PetscMax(1, PetscMin(neb, (int)((((size_t)96 << 10) - tables) / per)));
  }
  PetscCheck(sf->dim == 2 || T * T * neb <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-feg_op_matfree_nb %d: sumfact on hexahedra with %d points per direction runs %d threads per element, at most 1024 per block", neb, T, T * T);
  PetscCheck(tables + neb * per <= limit, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-feg_op_matfree_nb %d: sumfact needs %zu bytes of shared memory per element, more than %zu per block", neb, per, limit);
  sf->neb      = neb;
  sf->nthreads = sf->dim == 3 ? T * T * neb : (NQ * neb >= 256 ? 256 : 128);
  sf->shmem    = (int)(tables + neb * per);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether every stored pair is its point's weight times one value per element, to 1e-12 of the largest pair there:
   thread per (element, point); the first point gives the value */
static __global__ void FEGSumFactPerElement_Kernel(int Ne, int np, int Q, int dim, const double *__restrict__ W1, const double *__restrict__ Cl, int *__restrict__ bad)
{
  const int    NQ = dim == 3 ? Q * Q * Q : Q * Q;
  const size_t t  = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)Ne * NQ) return;
  const int     e = (int)(t / NQ), l = (int)(t % NQ);
  const double  w = W1[l % Q] * W1[(l / Q) % Q] * (dim == 3 ? W1[l / (Q * Q)] : 1.0), w0 = W1[0] * W1[0] * (dim == 3 ? W1[0] : 1.0);
  const double *c   = Cl + (size_t)e * np * NQ;
  double        big = 0.0, diff = 0.0;

  for (int m = 0; m < np; m++) {
    const double want = w * c[(size_t)m * NQ] / w0;

    big  = fmax(big, fabs(want));
    diff = fmax(diff, fabs(c[(size_t)m * NQ + l] - want));
  }
  if (diff > 1e-12 * big) *bad = 1;
}

static __global__ void FEGSumFactPerElementStore_Kernel(int Ne, int np, int Q, int dim, const double *__restrict__ W1, const double *__restrict__ Cl, double *__restrict__ Kc)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)Ne * np) return;
  Kc[t] = Cl[t * (dim == 3 ? Q * Q * Q : Q * Q)] / (W1[0] * W1[0] * (dim == 3 ? W1[0] : 1.0));
}

/* Kc[e*np+m] from the per-point pairs Cl when they are the weights (W1: the Q 1D weights, on the device) times one
   value per element: *per; else *per = PETSC_FALSE and Kc is not touched */
PetscErrorCode FEGDevSumFactPerElement(int Ne, int np, int Q, int dim, const double *W1, const double *Cl, double *Kc, PetscBool *per)
{
  const int    NQ = dim == 3 ? Q * Q * Q : Q * Q;
  const size_t n  = (size_t)Ne * NQ;
  int         *bad, hbad = 0;

  PetscFunctionBegin;
  *per = PETSC_FALSE;
  if (!Ne) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDevMallocCopy((void **)&bad, &hbad, sizeof(int), NULL));
  FEGSumFactPerElement_Kernel<<<(unsigned)((n + 255) / 256), 256>>>(Ne, np, Q, dim, W1, Cl, bad);
  FEGCheckLaunch("FEGSumFactPerElement_Kernel");
  PetscCallCUDA(cudaMemcpy(&hbad, bad, sizeof(int), cudaMemcpyDeviceToHost));
  PetscCallCUDA(cudaFree(bad));
  if (hbad) PetscFunctionReturn(PETSC_SUCCESS);
  FEGSumFactPerElementStore_Kernel<<<(unsigned)(((size_t)Ne * np + 255) / 256), 256>>>(Ne, np, Q, dim, W1, Cl, Kc);
  FEGCheckLaunch("FEGSumFactPerElementStore_Kernel");
  *per = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the launch's elements (the diagonal: all), with the halo buffers they may reach; with the gather, the sums after
   the last range */
PetscErrorCode FEGDevSumFactApply(const FEGDevSumFact *sf0, const FEGDevLaunch *L)
{
  FEGDevSumFact s = *sf0, *sf = &s;
  double       *yb = L->tlist && !sf->unique ? L->ybuf : NULL, *y = L->y;
  const double *x  = L->x;
  const int     e0 = L->e0, e1 = L->e1, transpose = L->transpose;

  PetscFunctionBegin;
  s.e0 = e0;
  s.e1 = e1;
  s.xg = L->xg;
  s.yg = L->yg;
  if (!sf->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  if (L->diag) {
    const int NP = sf->dim == 3 ? sf->P * sf->P * sf->P : sf->P * sf->P, NQ = sf->dim == 3 ? sf->Q * sf->Q * sf->Q : sf->Q * sf->Q;
    /* computed geometry: the pairs of chunks of elements (64 MB of them at a time), then their diagonal as stored ones */
    const int chunk = sf->geoG ? (int)PetscMax(1, PetscMin((PetscInt)sf->Ne, (PetscInt)((64 << 20) / ((size_t)NQ * sf->npairs * sizeof(double))))) : sf->Ne;
    double   *Cl    = NULL;

    if (sf->geoG) PetscCall(FEGDevMallocCopy((void **)&Cl, NULL, sizeof(double) * chunk * NQ * sf->npairs, NULL));
    for (int c0 = 0; c0 < sf->Ne; c0 += chunk) {
      const size_t   n  = (size_t)PetscMin(chunk, sf->Ne - c0) * NP;
      const unsigned nb = (unsigned)((n + 127) / 128);

      s.e0 = sf->geoG ? c0 : 0;
      s.e1 = sf->geoG ? (int)PetscMin(c0 + chunk, sf->Ne) : sf->Ne;
      if (sf->geoG) {
        const size_t np = (size_t)(s.e1 - s.e0) * NQ;

        s.Cl = Cl;
        FEGSumFactGeoPairs_Kernel<<<(unsigned)((np + 127) / 128), 128>>>(s, sf->kind, Cl);
        FEGCheckLaunch("FEGSumFactGeoPairs_Kernel");
      }
#define FEG_SFDIAG(D, K) \
  case K: \
    FEGSumFactDiag_Kernel<D, K><<<nb, 128>>>(*sf, y, yb); \
    break;
      if (sf->dim == 2) switch (sf->kind) {
          FEG_SFDIAG(2, FEG_MF_GG_SYM)
          FEG_SFDIAG(2, FEG_MF_VVGG_SYM)
          FEG_SFDIAG(2, FEG_MF_SYM)
          FEG_SFDIAG(2, FEG_MF_FULL)
          FEG_SFDIAG(2, FEG_MF_VV)
        }
      else switch (sf->kind) {
          FEG_SFDIAG(3, FEG_MF_GG_SYM)
          FEG_SFDIAG(3, FEG_MF_VVGG_SYM)
          FEG_SFDIAG(3, FEG_MF_SYM)
          FEG_SFDIAG(3, FEG_MF_FULL)
          FEG_SFDIAG(3, FEG_MF_VV)
        }
#undef FEG_SFDIAG
      FEGCheckLaunch("FEGSumFactDiag_Kernel");
    }
    FEGDevFree(Cl);
    PetscCall(FEGDevLaunchGather(L, yb));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (e1 > e0 && sf->dim == 2) PetscCall(FEGSumFactLaunchP<2>(sf, x, y, yb, transpose));
  else if (e1 > e0) PetscCall(FEGSumFactLaunchP<3>(sf, x, y, yb, transpose));
  PetscCall(FEGDevLaunchGather(L, yb));
  PetscFunctionReturn(PETSC_SUCCESS);
}
