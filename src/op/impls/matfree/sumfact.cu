/* matfree on the GPU, sum factorisation for quadrilaterals and hexahedra: the 1D contractions and the point
   application are fegpoint.h's FEGContractEntry() and FEGMFPointApply(), shared with the host (matfree.c) */
#include <petscdevice_cuda.h>
#include "matfreecuda.h"

/* ------------------------------------------------------------------------------------------------------------------
   sumfact: NEB elements per block, all threads sweeping the outputs of one 1D contraction at a time in shared memory:
   values and reference gradients at the Q^dim quadrature points by dim stages of contractions (B or D along x, then y,
   then z), the stored Chat pairs at each point, and the transposed stages back. Per element the buffers are
   A = [U | T0 | T1 | -] (also V0..V3 at the points) and B = [T2 | T3 | T4], each slot N = max(P,Q)^dim doubles. */
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
   the nodes (B1 = I: values need no contraction); each mode keeps only the buffer slots it uses */
enum {
  FEG_SF_MASS   = 1,
  FEG_SF_COLLOC = 2
};

/* the mode of a pair set and rule, and the shared-memory slots (of max(P,Q)^dim doubles) its kernel uses per element */
static __host__ __device__ constexpr int FEGSumFactMode(int kind, int colloc)
{
  return (kind == FEG_MF_VV ? FEG_SF_MASS : 0) | (colloc ? FEG_SF_COLLOC : 0);
}

static __host__ __device__ constexpr int FEGSumFactSlots(int mode)
{
  return mode == 0 ? 7 : (mode == FEG_SF_MASS ? 3 : (mode == FEG_SF_COLLOC ? 4 : 1));
}

template <int DIM, int P, int Q, int MODE>
static __global__ void FEGSumFact_Kernel(const FEGDevSumFact sf, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ ybuf, int transpose)
{
  constexpr int            MX = P > Q ? P : Q, N = DIM == 3 ? MX * MX * MX : MX * MX, NP = DIM == 3 ? P * P * P : P * P, NQ = DIM == 3 ? Q * Q * Q : Q * Q;
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
    buf[(size_t)el * st + l] = el < nel ? x[sf.idx[(size_t)l * sf.Ne + E0 + el]] : 0.0;
  }
  __syncthreads();
  /* slots: general U=V0 | T0=V1 | T1=V2 | V3 | T2 | T3 | T4; mass U=V0 | T0 | T2; collocated U=V0 | V1 | V2 | V3 */
  double *U = buf, *T0 = buf + N, *T1 = buf + 2 * N, *T2 = buf + (MASS ? 2 : 4) * N, *T3 = buf + 5 * N, *T4 = buf + 6 * N;
  double *V[4] = {buf, buf + N, buf + 2 * N, buf + 3 * N};
  if (COLLOC && !MASS) {
    /* V0 = U in place; each gradient component one contraction along its direction */
    if (DIM == 2) {
      FEGContractDev<P, Q>(U, V[1], Ds, P, 1, st, neb, false);
      FEGContractDev<P, Q>(U, V[2], Ds, 1, P, st, neb, false);
    } else {
      FEGContractDev<P, Q>(U, V[1], Ds, P * P, 1, st, neb, false);
      FEGContractDev<P, Q>(U, V[2], Ds, P, P, st, neb, false);
      FEGContractDev<P, Q>(U, V[3], Ds, 1, P * P, st, neb, false);
    }
  } else if (MASS && !COLLOC) {
    if (DIM == 2) {
      FEGContractDev<P, Q>(U, T0, Bs, P, 1, st, neb, false);
      __syncthreads();
      FEGContractDev<P, Q>(T0, V[0], Bs, 1, Q, st, neb, false);
    } else {
      FEGContractDev<P, Q>(U, T0, Bs, P * P, 1, st, neb, false);
      __syncthreads();
      FEGContractDev<P, Q>(T0, T2, Bs, P, Q, st, neb, false);
      __syncthreads();
      FEGContractDev<P, Q>(T2, V[0], Bs, 1, Q * Q, st, neb, false);
    }
  } else if (!MASS && !COLLOC) {
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
  }
  __syncthreads();
  for (int t = threadIdx.x; t < nel * NQ; t += blockDim.x) {
    const int     el = t / NQ, l = t % NQ, e = E0 + el;
    const double *c    = sf.Cl + (size_t)e * sf.npairs * NQ + l;
    double        u[4] = {0, 0, 0, 0}, v[4] = {0, 0, 0, 0};

    if (MASS) V[0][(size_t)el * st + l] *= c[0];
    else {
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
  }
  __syncthreads();
  if (COLLOC && !MASS) {
    /* U = V0 already; add the transposed derivative contractions one direction at a time */
    if (DIM == 2) {
      FEGContractDev<Q, P>(V[1], U, Dt, P, 1, st, neb, true);
      __syncthreads();
      FEGContractDev<Q, P>(V[2], U, Dt, 1, P, st, neb, true);
    } else {
      FEGContractDev<Q, P>(V[1], U, Dt, P * P, 1, st, neb, true);
      __syncthreads();
      FEGContractDev<Q, P>(V[2], U, Dt, P, P, st, neb, true);
      __syncthreads();
      FEGContractDev<Q, P>(V[3], U, Dt, 1, P * P, st, neb, true);
    }
  } else if (MASS && !COLLOC) {
    if (DIM == 2) {
      FEGContractDev<Q, P>(V[0], T0, Bt, 1, Q, st, neb, false);
      __syncthreads();
      FEGContractDev<Q, P>(T0, U, Bt, P, 1, st, neb, false);
    } else {
      FEGContractDev<Q, P>(V[0], T2, Bt, 1, Q * Q, st, neb, false);
      __syncthreads();
      FEGContractDev<Q, P>(T2, T0, Bt, P, Q, st, neb, false);
      __syncthreads();
      FEGContractDev<Q, P>(T0, U, Bt, P * P, 1, st, neb, false);
    }
  } else if (!MASS && !COLLOC) {
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
  }
  __syncthreads();
  for (int t = threadIdx.x; t < nel * NP; t += blockDim.x) {
    const int    el = t % nel, l = t / nel, e = E0 + el;
    const double v = U[(size_t)el * st + l];

    if (ybuf) ybuf[(size_t)sf.lex[l] * sf.Ne + e] = v;
    else if (sf.unique) y[sf.idx[(size_t)l * sf.Ne + e]] += v;
    else atomicAdd(&y[sf.idx[(size_t)l * sf.Ne + e]], v);
  }
}

/* diagonal: thread per (element, node), sum over the Gauss points of the pairs times the 1D products */
template <int DIM, int KIND>
static __global__ void FEGSumFactDiag_Kernel(const FEGDevSumFact sf, double *__restrict__ y, double *__restrict__ ybuf)
{
  const int    NP = DIM == 3 ? sf.P * sf.P * sf.P : sf.P * sf.P, NQ = DIM == 3 ? sf.Q * sf.Q * sf.Q : sf.Q * sf.Q;
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)sf.Ne * NP) return;
  const int e = (int)(t % sf.Ne), l = (int)(t / sf.Ne);

  const double v = FEGSumFactDiagEntry(DIM, KIND, sf.P, sf.Q, sf.B1, sf.D1, sf.Cl + (size_t)e * sf.npairs * NQ, NQ, l);

  if (ybuf) ybuf[(size_t)sf.lex[l] * sf.Ne + e] = v; /* the entry order of the transpose map, as in the action */
  else atomicAdd(&y[sf.idx[(size_t)l * sf.Ne + e]], v);
}

template <int DIM, int P, int Q, int MODE>
static PetscErrorCode FEGSumFactLaunchMode(const FEGDevSumFact *sf, const double *x, double *y, double *ybuf, int transpose)
{
  constexpr int MX = P > Q ? P : Q, N = DIM == 3 ? MX * MX * MX : MX * MX;
  const size_t  shm = (4 * P * Q + (size_t)FEGSumFactSlots(MODE) * N * sf->neb) * sizeof(double);

  PetscFunctionBegin;
  if (shm > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(FEGSumFact_Kernel<DIM, P, Q, MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  FEGSumFact_Kernel<DIM, P, Q, MODE><<<(sf->e1 - sf->e0 + sf->neb - 1) / sf->neb, sf->nthreads, shm>>>(*sf, x, y, ybuf, transpose);
  FEGCheckLaunch("FEGSumFact_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* collocated modes exist only for Q = P */
template <int DIM, int P, int Q>
static PetscErrorCode FEGSumFactLaunch(const FEGDevSumFact *sf, const double *x, double *y, double *ybuf, int transpose)
{
  const int mode = FEGSumFactMode(sf->kind, sf->colloc);

  PetscFunctionBegin;
  if (mode == FEG_SF_MASS) PetscCall(FEGSumFactLaunchMode<DIM, P, Q, FEG_SF_MASS>(sf, x, y, ybuf, transpose));
  else if (mode && P != Q) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "sumfact: collocated with %d points and %d nodes", Q, P);
  else if (mode == FEG_SF_COLLOC) PetscCall(FEGSumFactLaunchMode<DIM, P, P, FEG_SF_COLLOC>(sf, x, y, ybuf, transpose));
  else if (mode) PetscCall(FEGSumFactLaunchMode<DIM, P, P, FEG_SF_MASS | FEG_SF_COLLOC>(sf, x, y, ybuf, transpose));
  else PetscCall(FEGSumFactLaunchMode<DIM, P, Q, 0>(sf, x, y, ybuf, transpose));
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
size_t FEGDevSumFactShared(const FEGDevSumFact *sf)
{
  const int MX = sf->P > sf->Q ? sf->P : sf->Q;

  return (size_t)FEGSumFactSlots(FEGSumFactMode(sf->kind, sf->colloc)) * (sf->dim == 3 ? MX * MX * MX : MX * MX) * sizeof(double);
}

/* elements e0..e1-1 (the diagonal: all); with tlist the gather when nlocal > 0 (after the last range) */
PetscErrorCode FEGDevSumFactApply(const FEGDevSumFact *sf0, int e0, int e1, const double *x, double *y, int transpose, int diag, int nlocal, const int *toff, const int *tlist, double *ybuf)
{
  FEGDevSumFact s = *sf0, *sf = &s;
  double       *yb = tlist && !sf->unique ? ybuf : NULL;

  PetscFunctionBegin;
  s.e0 = e0;
  s.e1 = e1;
  if (!sf->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  if (diag) {
    const int      NP = sf->dim == 3 ? sf->P * sf->P * sf->P : sf->P * sf->P;
    const size_t   n  = (size_t)sf->Ne * NP;
    const unsigned nb = (unsigned)((n + 127) / 128);

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
    if (yb && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (e1 > e0 && sf->dim == 2) PetscCall(FEGSumFactLaunchP<2>(sf, x, y, yb, transpose));
  else if (e1 > e0) PetscCall(FEGSumFactLaunchP<3>(sf, x, y, yb, transpose));
  if (yb && nlocal) PetscCall(FEGDevGather(nlocal, toff, tlist, ybuf, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
