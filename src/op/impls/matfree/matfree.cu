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
