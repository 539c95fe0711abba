#include <fegpu/private/fegimpl.h>

/* Physical derivatives of every basis function at quadrature point q of cell e: Phi[b*(dim+1)+i], i = 0 value */
static inline void FEGPhysicalBasis(FEGDisc *disc, PetscInt e, PetscInt q, PetscScalar Phi[], PetscReal *wdet)
{
  const PetscInt   dim = disc->dim, Nb = disc->Nb, Nd = dim + 1;
  const PetscInt   gq   = disc->geom->numPoints == 1 ? e : e * disc->Nq + q;
  const PetscReal *invJ = &disc->geom->invJ[gq * dim * dim];
  const PetscReal *T0 = disc->T->T[0], *T1 = disc->T->T[1];

  *wdet = disc->qweights[q] * disc->geom->detJ[gq];
  for (PetscInt b = 0; b < Nb; b++) {
    Phi[b * Nd] = T0[q * Nb + b];
    for (PetscInt d = 0; d < dim; d++) {
      PetscReal g = 0.0;

      for (PetscInt r = 0; r < dim; r++) g += T1[(q * Nb + b) * dim + r] * invJ[r * dim + d];
      Phi[b * Nd + 1 + d] = g;
    }
  }
}

/* Ke[a*Nb+b] = int sum_ij C_ij d_i phi_b d_j phi_a (row a: test function, column b: trial function), with C from coeff
   already evaluated on cell e; work holds 2*Nb*(dim+1) scalars */
PetscErrorCode FEGIntegrateElementMatrix(FEGDisc *disc, FEGCoeff *coeff, PetscInt e, PetscScalar work[], PetscScalar Ke[])
{
  const PetscInt Nb = disc->Nb, Nd = disc->dim + 1;
  PetscScalar   *Phi = work, *CPhi = work + Nb * Nd;

  PetscFunctionBeginHot;
  PetscCall(PetscArrayzero(Ke, Nb * Nb));
  for (PetscInt q = 0; q < disc->Nq; q++) {
    const PetscScalar *C = &coeff->C[q * 16];
    PetscReal          wdet;

    FEGPhysicalBasis(disc, e, q, Phi, &wdet);
    for (PetscInt b = 0; b < Nb; b++) {
      for (PetscInt j = 0; j < Nd; j++) {
        PetscScalar s = 0.0;

        for (PetscInt i = 0; i < Nd; i++) s += C[i * 4 + j] * Phi[b * Nd + i];
        CPhi[b * Nd + j] = wdet * s;
      }
    }
    for (PetscInt a = 0; a < Nb; a++) {
      for (PetscInt b = 0; b < Nb; b++) {
        PetscScalar s = 0.0;

        for (PetscInt j = 0; j < Nd; j++) s += Phi[a * Nd + j] * CPhi[b * Nd + j];
        Ke[a * Nb + b] += s;
      }
    }
  }
  PetscCall(PetscLogFlops((PetscLogDouble)disc->Nq * Nb * (2.0 * Nd * Nd + 2.0 * Nb * Nd)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fe[a] = int sum_j D_j d_j phi_a; work holds Nb*(dim+1) scalars */
PetscErrorCode FEGIntegrateElementVector(FEGDisc *disc, FEGCoeff *coeff, PetscInt e, PetscScalar work[], PetscScalar Fe[])
{
  const PetscInt Nb = disc->Nb, Nd = disc->dim + 1;

  PetscFunctionBeginHot;
  PetscCall(PetscArrayzero(Fe, Nb));
  for (PetscInt q = 0; q < disc->Nq; q++) {
    const PetscScalar *D = &coeff->D[q * 4];
    PetscReal          wdet;

    FEGPhysicalBasis(disc, e, q, work, &wdet);
    for (PetscInt a = 0; a < Nb; a++) {
      PetscScalar s = 0.0;

      for (PetscInt j = 0; j < Nd; j++) s += D[j] * work[a * Nd + j];
      Fe[a] += wdet * s;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
