/* A form's coefficients on the device (src/form/impls/cuda): how C and D reach a kernel, and their value at a
   quadrature point. C-compatible, raw device pointers only; the host side that reads an FEGForm is in fegformimpl.h. */
#pragma once

#include <fegpu/private/fegspacecuda.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* How C and D are given to a kernel */
typedef enum {
  FEG_DEV_COEFF_CONSTANT,
  FEG_DEV_COEFF_LINEAR,     /* C0 + A w(x_q), w interpolated on the device from the auxiliary local vector */
  FEG_DEV_COEFF_POINTS,     /* C0 plus the map of the form's quadrature-point values (FEGFormSetQuadratureCoefficient()) */
  FEG_DEV_COEFF_PRECOMPUTED /* Cq[(e*Nq+q)*16+ij], Dq[(e*Nq+q)*4+j] from a host pointwise function */
} FEGDevCoeffMode;

typedef struct {
  FEGDevCoeffMode mode;
  double          C0[16], D0[4];
  int             Nw, NbA;
  double         *A, *Bl, *TA; /* A[ij*Nw+k], Bl[j*Nw+k], TA[(q*NbA+b)*Nw+k] auxiliary basis values */
  int            *aidx;        /* aidx[e*NbA+b] auxiliary local dof */
  const double   *aux;         /* auxiliary local vector (device) */
  double         *Cq, *Dq;
  int             nqc;          /* values per quadrature point given by the form (modes POINTS and LINEAR), 0 if none */
  const double   *Wq, *Aq, *Bq; /* Wq[(e*Nq+q)*nqc+k] and their map, as FEGCoeffPointsAt() reads them */
} FEGDevCoeff;

#if defined(__cplusplus)
}
#endif

#if defined(__CUDACC__)
/* C (and D) at quadrature point q of element e, in a kernel */
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
  if (c.mode == FEG_DEV_COEFF_LINEAR) FEGCoeffLinearAt(c.Nw, c.NbA, c.TA + (size_t)q * c.NbA * c.Nw, c.aux, c.aidx + (size_t)e * c.NbA, c.A, c.Bl, C, wantD ? D : NULL, NULL);
  if (c.nqc) FEGCoeffPointsAt(c.nqc, c.Wq + ((size_t)e * Nq + q) * c.nqc, c.Aq, c.Bq, C, wantD ? D : NULL);
}

#endif
