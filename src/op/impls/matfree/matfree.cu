/* matfree on the GPU, qp: one element per thread interpolates x to each quadrature point with the reference tables,
   applies the stored (dim+1)^2 tensor Chat (element-interleaved, so loads are coalesced) and integrates back; and the
   factors of refop and sumfact, the stored pairs of Chat per element or per quadrature point. The point-level
   arithmetic is fegpoint.h's, shared with the host (matfree.c). */
#include <petscdevice_cuda.h>
#include "matfreecuda.h"

/* NB > 0: exactly NB dofs, so x_e and y_e stay in registers (with the count known only at run time, up to NBM, they
   live on the stack: ptxas, 128 bytes to 16 KB), as in lma.cu */
template <int NB, int NBM, int DIM>
static __global__ void FEGMatFree_Kernel(const FEGDevDisc d, int e0, int e1, const double *__restrict__ Cq, const double *__restrict__ x, double *__restrict__ y, int transpose, double *__restrict__ ybuf, int diag)
{
  constexpr int Nd = DIM + 1, NC = Nd * Nd;
  const int     e = e0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= e1) return;
  const int Nb = NB ? NB : d.Nb, KK = d.Nq * Nd;
  double    xe[NB ? NB : NBM], ye[NB ? NB : NBM];

  for (int b = 0; b < Nb; b++) {
    xe[b] = diag ? 0.0 : x[d.idx[(size_t)b * d.Ne + e]];
    ye[b] = 0.0;
  }
  for (int q = 0; q < d.Nq; q++) {
    const double *ch = Cq + (size_t)q * NC * d.Ne + e, *Rq = d.R + q * Nd;
    double        u[4], v[4];

    if (diag) {
      for (int a = 0; a < Nb; a++) ye[a] += FEGQPPointDiag(Nd, ch, d.Ne, Rq + (size_t)a * KK, 1);
      continue;
    }
    FEGInterpolateRef(Nd, Nb, Rq, KK, xe, u);
    FEGQPPointApply(Nd, ch, d.Ne, u, v, transpose);
    FEGIntegrateRef(Nd, Nb, Rq, KK, v, ye);
  }
  for (int a = 0; a < Nb; a++) {
    if (ybuf) ybuf[(size_t)a * d.Ne + e] = ye[a];
    else atomicAdd(&y[d.idx[(size_t)a * d.Ne + e]], ye[a]);
  }
}

/* y += A x (A^T x) over the launch's elements, or their diagonal (L->diag); with the deterministic gather, the
   per-entry results summed after the last range */
PetscErrorCode FEGDevQPApply(const FEGDevQP *qp, const FEGDevLaunch *L)
{
  const FEGDevDisc *d  = qp->d;
  const double     *Cq = qp->Cq, *x = L->x;
  double           *y  = L->y;
  const int         e0 = L->e0, e1 = L->e1, transpose = L->transpose, diag = L->diag;
  const int         nt = 128, nb = (e1 - e0 + nt - 1) / nt;
  double           *yb = L->tlist ? L->ybuf : NULL; /* the diagonal too: gathered, it is the same bit for bit from run to run */

  PetscFunctionBegin;
  if (e1 > e0) {
#define FEG_QP_LAUNCH(NB, NBM) \
  do { \
    if (d->dim == 2) FEGMatFree_Kernel<NB, NBM, 2><<<nb, nt>>>(*d, e0, e1, Cq, x, y, transpose, yb, diag); \
    else FEGMatFree_Kernel<NB, NBM, 3><<<nb, nt>>>(*d, e0, e1, Cq, x, y, transpose, yb, diag); \
  } while (0)
    switch (d->Nb) { /* the small elements, and P2 prisms */
#define FEG_QP_FIXED(NB) \
  case NB: \
    FEG_QP_LAUNCH(NB, NB); \
    break;
      FEG_DEV_SMALL_NB(FEG_QP_FIXED)
#undef FEG_QP_FIXED
    default:
      if (d->Nb == 18 && d->dim == 3) FEGMatFree_Kernel<18, 18, 3><<<nb, nt>>>(*d, e0, e1, Cq, x, y, transpose, yb, diag);
      else if (d->Nb <= 8) FEG_QP_LAUNCH(0, 8);
      else if (d->Nb <= 32) FEG_QP_LAUNCH(0, 32);
      else if (d->Nb <= 128) FEG_QP_LAUNCH(0, 128);
      else if (d->Nb <= 512) FEG_QP_LAUNCH(0, 512);
      else FEG_QP_LAUNCH(0, 1024);
    }
#undef FEG_QP_LAUNCH
    FEGCheckLaunch("FEGMatFree_Kernel");
  }
  PetscCall(FEGDevLaunchGather(L, yb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* matfree factors: the stored pairs of Chat per element (refop: detJ T^T C T, C at the first point) or per
   lexicographic Gauss point (sumfact: w detJ T^T C T) */
typedef struct {
  int pr[16], ps[16];
} FEGPairs;

static __global__ void FEGMatFreeFactors_Kernel(const FEGDevDisc d, const FEGDevCoeff c, int perQP, int np, const FEGPairs pp, const int *__restrict__ qlex, double *__restrict__ out)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, nl = perQP ? (size_t)d.Nq : 1;
  if (t >= (size_t)d.Ne * nl) return;
  const int     e = (int)(t % d.Ne), l = (int)(t / d.Ne), q = perQP ? qlex[l] : 0, dim = d.dim;
  const double *g = FEGDevGeo(d, e, q);
  double        C[16], D[4], Ch[4][4];

  FEGCoeffAt(c, d.Nq, e, q, C, D, false);
  FEGChatDev(dim, C, g, (perQP ? d.qw[q] : 1.0) * g[dim * dim], Ch);
  for (int m = 0; m < np; m++) {
    if (perQP) out[((size_t)e * np + m) * nl + l] = Ch[pp.pr[m]][pp.ps[m]];
    else out[(size_t)e * np + m] = Ch[pp.pr[m]][pp.ps[m]];
  }
}

PetscErrorCode FEGDevChatPairs(const FEGDevDisc *d, const FEGDevCoeff *c, int perQP, int np, const int *pr, const int *ps, const int *qlex, double *out)
{
  FEGPairs     pp;
  const size_t n = (size_t)d->Ne * (perQP ? d->Nq : 1);

  PetscFunctionBegin;
  for (int m = 0; m < np; m++) {
    pp.pr[m] = pr[m];
    pp.ps[m] = ps[m];
  }
  if (n) {
    FEGMatFreeFactors_Kernel<<<(unsigned)((n + 255) / 256), 256>>>(*d, *c, perQP, np, pp, qlex, out);
    FEGCheckLaunch("FEGMatFreeFactors_Kernel");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
