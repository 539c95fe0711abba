/* Element matrices and vectors of a(u,v) = int sum_ij C_ij d_i u d_j v on the GPU.
   Small elements: one element per thread. Large elements: one element per thread block (Krużel et al., Algorithm 2),
   each thread computing NENTPT entries of a part of the element matrix, quadrature points staged through shared
   memory in chunks, the element's Jacobian data optionally staged in shared memory first. */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegcuda.h>

#define FEG_SMALL_NB 20 /* the one-element-per-thread kernel keeps the element matrix in registers/local memory */

/* C (and D) at quadrature point q of element e */
static __device__ __forceinline__ void FEGCoeffAt(const FEGDevCoeff &c, int Nq, int e, int q, double C[16], double D[4], bool wantD)
{
  if (c.mode == FEG_DEV_COEFF_PRECOMPUTED) {
    for (int k = 0; k < 16; k++) C[k] = c.Cq[((size_t)e * Nq + q) * 16 + k];
    if (wantD)
      for (int k = 0; k < 4; k++) D[k] = c.Dq[((size_t)e * Nq + q) * 4 + k];
    return;
  }
  for (int k = 0; k < 16; k++) C[k] = c.C0[k];
  if (wantD)
    for (int k = 0; k < 4; k++) D[k] = c.D0[k];
  if (c.mode == FEG_DEV_COEFF_LINEAR) {
    for (int k = 0; k < c.Nw; k++) {
      double w = 0.0;
      for (int b = 0; b < c.NbA; b++) w += c.TA[(q * c.NbA + b) * c.Nw + k] * c.aux[c.aidx[(size_t)e * c.NbA + b]];
      for (int ij = 0; ij < 16; ij++) C[ij] += c.A[ij * c.Nw + k] * w;
      if (wantD)
        for (int j = 0; j < 4; j++) D[j] += c.Bl[j * c.Nw + k] * w;
    }
  }
}

/* Physical value and gradient of basis function b at quadrature point q: phi[0..dim] */
static __device__ __forceinline__ void FEGPhi(const FEGDevDisc &d, const double *invJ, int q, int b, double phi[4])
{
  phi[0] = d.B[q * d.Nb + b];
  for (int c = 0; c < d.dim; c++) {
    double s = 0.0;
    for (int r = 0; r < d.dim; r++) s += d.D[(q * d.Nb + b) * d.dim + r] * invJ[r * d.dim + c];
    phi[1 + c] = s;
  }
}

static __device__ __forceinline__ void FEGStore(const FEGDevDisc &d, const FEGDevOutput &o, int e, int a, int b, double K)
{
  const size_t ent = (size_t)a * d.Nb + b;

  switch (o.out) {
  case FEG_DEV_OUT_LMA:
    o.vals[ent * d.Ne + e] = K;
    break;
  case FEG_DEV_OUT_CSR_ATOMIC: {
    const int p = o.pos[ent * d.Ne + e];
    if (p >= 0) atomicAdd(&o.vals[p], K);
  } break;
  case FEG_DEV_OUT_CSR_PLAIN: {
    const int p = o.pos[ent * d.Ne + e];
    if (p >= 0) o.vals[p] += K;
  } break;
  case FEG_DEV_OUT_COO:
    o.vals[(size_t)e * d.Nb * d.Nb + ent] = K;
    break;
  case FEG_DEV_OUT_LIFT:
    atomicAdd(&o.vals[d.idx[(size_t)a * d.Ne + e]], -K * o.g[d.idx[(size_t)b * d.Ne + e]]);
    break;
  }
}

/* One element per thread; the whole element matrix in local memory */
static __global__ void FEGElemSmall_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, int nel, const FEGDevOutput o)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nel) return;
  const int e = elist ? elist[i] : i, Nb = d.Nb, Nd = d.dim + 1;
  double    K[FEG_SMALL_NB * FEG_SMALL_NB], phi[FEG_SMALL_NB][4];

  for (int k = 0; k < Nb * Nb; k++) K[k] = 0.0;
  for (int q = 0; q < d.Nq; q++) {
    const double *g = d.geo + ((size_t)e * d.nG + (d.nG == 1 ? 0 : q)) * (d.dim * d.dim + 1);
    const double  wdet = d.qw[q] * g[d.dim * d.dim];
    double        C[16], D[4];

    FEGCoeffAt(c, d.Nq, e, q, C, D, false);
    for (int b = 0; b < Nb; b++) FEGPhi(d, g, q, b, phi[b]);
    for (int b = 0; b < Nb; b++) {
      double cphi[4];
      for (int j = 0; j < Nd; j++) {
        double s = 0.0;
        for (int ii = 0; ii < Nd; ii++) s += C[ii * 4 + j] * phi[b][ii];
        cphi[j] = wdet * s;
      }
      for (int a = 0; a < Nb; a++) {
        double s = 0.0;
        for (int j = 0; j < Nd; j++) s += phi[a][j] * cphi[j];
        K[a * Nb + b] += s;
      }
    }
  }
  if (o.out == FEG_DEV_OUT_LIFT) {
    for (int a = 0; a < Nb; a++) {
      double s = 0.0;
      for (int b = 0; b < Nb; b++) s += K[a * Nb + b] * o.g[d.idx[(size_t)b * d.Ne + e]];
      atomicAdd(&o.vals[d.idx[(size_t)a * d.Ne + e]], -s);
    }
    return;
  }
  for (int a = 0; a < Nb; a++)
    for (int b = 0; b < Nb; b++) FEGStore(d, o, e, a, b, K[a * Nb + b]);
}

/* One element per block. Shared memory: the element's Jacobian data (optional), and for a chunk of QB quadrature points
   the coefficients, weights, physical basis derivatives phi and C-weighted trial derivatives cphi */
template <int NENT>
static __global__ void FEGElemBlock_Kernel(const FEGDevDisc d, const FEGDevCoeff c, const int *__restrict__ elist, const FEGDevOutput o, int QB, int jacShared)
{
  extern __shared__ double smem[];
  const int e = elist ? elist[blockIdx.x] : blockIdx.x, Nb = d.Nb, Nd = d.dim + 1, T = blockDim.x, t = threadIdx.x;
  const int ng = d.dim * d.dim + 1, nent = Nb * Nb;
  double   *sgeo = smem, *sC = sgeo + (jacShared ? d.nG * ng : 0), *sw = sC + QB * 16, *sphi = sw + QB, *scphi = sphi + QB * Nb * Nd;
  const double *geo = d.geo + (size_t)e * d.nG * ng;

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
        const double *g  = geo + (d.nG == 1 ? 0 : q0 + qq) * ng;
        double        phi[4];

        FEGPhi(d, g, q0 + qq, b, phi);
        for (int j = 0; j < Nd; j++) {
          double s = 0.0;
          for (int ii = 0; ii < Nd; ii++) s += sC[qq * 16 + ii * 4 + j] * phi[ii];
          sphi[k * Nd + j]  = phi[j];
          scphi[k * Nd + j] = sw[qq] * s;
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
      if (ent < nent) FEGStore(d, o, e, ent / Nb, ent % Nb, acc[k]);
    }
  }
}

/* Element vectors F_a = int sum_j D_j d_j phi_a, added into a local vector: one (element, basis function) per thread */
static __global__ void FEGElemVector_Kernel(const FEGDevDisc d, const FEGDevCoeff c, double *__restrict__ y)
{
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (size_t)d.Ne * d.Nb) return;
  const int e = (int)(i % d.Ne), a = (int)(i / d.Ne), Nd = d.dim + 1;
  double    F = 0.0;

  for (int q = 0; q < d.Nq; q++) {
    const double *g = d.geo + ((size_t)e * d.nG + (d.nG == 1 ? 0 : q)) * (d.dim * d.dim + 1);
    double        C[16], D[4], phi[4], s = 0.0;

    FEGCoeffAt(c, d.Nq, e, q, C, D, true);
    FEGPhi(d, g, q, a, phi);
    for (int j = 0; j < Nd; j++) s += D[j] * phi[j];
    F += d.qw[q] * g[d.dim * d.dim] * s;
  }
  atomicAdd(&y[d.idx[(size_t)a * d.Ne + e]], F);
}

template <int NENT>
static PetscErrorCode FEGLaunchBlock(const FEGDevDisc *d, const FEGDevCoeff *c, const int *elist, int nel, const FEGDevOutput *o, int T, int QB, int jac, size_t shmem)
{
  PetscFunctionBegin;
  if (shmem > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(FEGElemBlock_Kernel<NENT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
  FEGElemBlock_Kernel<NENT><<<nel, T, shmem>>>(*d, *c, elist, *o, QB, jac);
  PetscCallCUDA(cudaPeekAtLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Element matrices of the elements elist[0..nel) (all when elist is NULL), sent where o says */
PetscErrorCode FEGDevElementMatrices(const FEGDevDisc *d, const FEGDevCoeff *c, const int *elist, int nel, const FEGDevOutput *o, FEGDevTuning *tune)
{
  int kernel = tune->kernel;

  PetscFunctionBegin;
  if (nel <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (kernel == 0) kernel = d->Nb <= FEG_SMALL_NB ? 1 : 2;
  PetscCheck(kernel != 1 || d->Nb <= FEG_SMALL_NB, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The one-element-per-thread kernel handles at most %d basis functions, the element has %d: use -feg_cuda_kernel block", FEG_SMALL_NB, d->Nb);
  tune->used = kernel;
  if (kernel == 1) {
    const int nt = 128;

    FEGElemSmall_Kernel<<<(nel + nt - 1) / nt, nt>>>(*d, *c, elist, nel, *o);
    PetscCallCUDA(cudaPeekAtLastError());
    tune->nparts = 1;
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

PetscErrorCode FEGDevElementVectors(const FEGDevDisc *d, const FEGDevCoeff *c, double *y)
{
  const size_t n = (size_t)d->Ne * d->Nb;
  const int    nt = 128;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGElemVector_Kernel<<<(unsigned)((n + nt - 1) / nt), nt>>>(*d, *c, y);
  PetscCallCUDA(cudaPeekAtLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevZero(double *x, size_t n)
{
  PetscFunctionBegin;
  if (n) PetscCallCUDA(cudaMemset(x, 0, n * sizeof(double)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
