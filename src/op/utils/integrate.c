/* Element matrices and vectors on the host, from the per-point functions of fegpoint.h that the device kernels use */
#include <fegpu/private/fegopimpl.h>

/* Ke[a*Nb+b] = int sum_ij C_ij d_i phi_b d_j phi_a (row a: test function, column b: trial function), with C from coeff
   already evaluated on cell e; work holds 2 Nb FEG_MAX_DERIV scalars */
PetscErrorCode FEGIntegrateElementMatrix(FEGDisc *disc, FEGCoeff *coeff, PetscInt e, PetscScalar work[], PetscScalar Ke[])
{
  const PetscInt   Nb = disc->Nb, dim = disc->dim, Nd = dim + 1;
  const PetscReal *T0 = disc->T->T[0], *T1 = disc->T->T[1];
  PetscScalar(*Phi)[4] = (PetscScalar(*)[4])work, (*CPhi)[4] = (PetscScalar(*)[4])(work + 4 * Nb);

  PetscFunctionBeginHot;
  PetscCall(PetscArrayzero(Ke, Nb * Nb));
  for (PetscInt q = 0; q < disc->Nq; q++) {
    const PetscReal *g    = FEGDiscGeometry(disc, e, q);
    const PetscReal  wdet = disc->qweights[q] * g[dim * dim];

    for (PetscInt b = 0; b < Nb; b++) {
      FEGPhysical((int)dim, T0[q * Nb + b], &T1[(q * Nb + b) * dim], g, Phi[b]);
      FEGWeighted((int)Nd, &coeff->C[q * 16], Phi[b], wdet, CPhi[b]);
    }
    for (PetscInt a = 0; a < Nb; a++)
      for (PetscInt b = 0; b < Nb; b++) Ke[a * Nb + b] += FEGDot((int)Nd, Phi[a], CPhi[b]);
  }
  PetscCall(PetscLogFlops((PetscLogDouble)disc->Nq * Nb * (2.0 * Nd * Nd + 2.0 * Nb * Nd)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fe[a] += s (c_0 phi_a + sum_j c_j d_j phi_a) at point q, with c's gradient part taken to the reference cell once
   (invJ c), so that a basis function costs dim + 1 multiply-adds there, not its physical gradient */
static inline void FEGTestAtPoint(const FEGDisc *disc, PetscInt q, const PetscReal invJ[], const PetscScalar c[], PetscScalar s, PetscScalar Fe[])
{
  const PetscInt   Nb = disc->Nb, dim = disc->dim;
  const PetscReal *T0 = disc->T->T[0], *T1 = disc->T->T[1];
  PetscScalar      r0 = s * c[0], rr[3] = {0, 0, 0};

  for (PetscInt r = 0; r < dim; r++) {
    for (PetscInt j = 0; j < dim; j++) rr[r] += invJ[r * dim + j] * c[1 + j];
    rr[r] *= s;
  }
  for (PetscInt a = 0; a < Nb; a++) {
    const PetscReal *t1 = &T1[(q * Nb + a) * dim];
    PetscScalar      f  = r0 * T0[q * Nb + a];

    for (PetscInt r = 0; r < dim; r++) f += rr[r] * t1[r];
    Fe[a] += f;
  }
}

/* Fe[a] = int sum_j D_j d_j phi_a */
PetscErrorCode FEGIntegrateElementVector(FEGDisc *disc, FEGCoeff *coeff, PetscInt e, PetscScalar work[], PetscScalar Fe[])
{
  PetscFunctionBeginHot;
  PetscCall(PetscArrayzero(Fe, disc->Nb));
  for (PetscInt q = 0; q < disc->Nq; q++) {
    const PetscReal *g = FEGDiscGeometry(disc, e, q);

    FEGTestAtPoint(disc, q, g, &coeff->D[q * 4], disc->qweights[q] * g[disc->dim * disc->dim], Fe);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fe[a] -= (Ke g)[a] = int sum_ij C_ij d_i u d_j phi_a with u = sum_c g[c] phi_c, the boundary values' lifting: u and
   its gradient at each point first, so that it costs Nq Nb, not the element matrix's Nq Nb^2 (a Q8 hexahedron on the
   boundary took 0.4 GFLOP) */
PetscErrorCode FEGIntegrateElementLift(FEGDisc *disc, FEGCoeff *coeff, PetscInt e, const PetscScalar g[], PetscScalar Fe[])
{
  const PetscInt   Nb = disc->Nb, dim = disc->dim, Nd = dim + 1;
  const PetscReal *T0 = disc->T->T[0], *T1 = disc->T->T[1];

  PetscFunctionBeginHot;
  for (PetscInt q = 0; q < disc->Nq; q++) {
    const PetscReal *gq = FEGDiscGeometry(disc, e, q), wdet = disc->qweights[q] * gq[dim * dim];
    PetscScalar      u[4] = {0, 0, 0, 0}, ur[3] = {0, 0, 0}, cu[4] = {0, 0, 0, 0};

    /* u and its reference gradient, then the physical one */
    for (PetscInt c = 0; c < Nb; c++) {
      if (g[c] == 0.0) continue;
      u[0] += g[c] * T0[q * Nb + c];
      for (PetscInt r = 0; r < dim; r++) ur[r] += g[c] * T1[(q * Nb + c) * dim + r];
    }
    for (PetscInt c = 0; c < dim; c++)
      for (PetscInt r = 0; r < dim; r++) u[1 + c] += ur[r] * gq[r * dim + c];
    FEGWeighted((int)Nd, &coeff->C[q * 16], u, wdet, cu);
    FEGTestAtPoint(disc, q, gq, cu, -1.0, Fe);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpElementMatrices - every element matrix of an operator's form on the host, Ke[(e*Nb+a)*Nb+b] (row a: test
  function); for operator types that keep or assemble element matrices

  Collective

  Level: developer
@*/
/* into Ke, or with Kf rounded to single precision element by element (one element's matrix in double at a time) */
static PetscErrorCode FEGOpElementMatrices_Private(FEGOp op, PetscScalar Ke[], float Kf[])
{
  FEGDisc     *d = op->disc;
  const size_t n = (size_t)d->Nb * d->Nb;
  FEGCoeff     coeff;
  PetscScalar *work, *K1 = NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Integrate, op, 0, 0, 0));
  PetscCall(FEGCoeffSetUp(d, op->form, &coeff));
  PetscCall(PetscMalloc1(2 * d->Nb * FEG_MAX_DERIV, &work));
  if (Kf) PetscCall(PetscMalloc1(n, &K1));
  for (PetscInt e = 0; e < d->Ne; e++) {
    PetscCall(FEGCoeffEvaluate(d, &coeff, e));
    PetscCall(FEGIntegrateElementMatrix(d, &coeff, e, work, Kf ? K1 : &Ke[e * n]));
    if (Kf)
      for (size_t i = 0; i < n; i++) Kf[e * n + i] = (float)PetscRealPart(K1[i]);
  }
  PetscCall(PetscFree(K1));
  PetscCall(PetscFree(work));
  PetscCall(FEGCoeffDestroy(&coeff));
  PetscCall(PetscLogEventEnd(FEG_Integrate, op, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpElementMatrices(FEGOp op, PetscScalar Ke[])
{
  PetscFunctionBegin;
  PetscCall(FEGOpElementMatrices_Private(op, Ke, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpElementMatricesSingle - FEGOpElementMatrices() rounded to single precision, Kf[(e*Nb+a)*Nb+b]: each element
  matrix is integrated in double and rounded once (-feg_op_precision single)

  Collective

  Level: developer
@*/
PetscErrorCode FEGOpElementMatricesSingle(FEGOp op, float Kf[])
{
  PetscFunctionBegin;
  PetscCall(FEGOpElementMatrices_Private(op, NULL, Kf));
  PetscFunctionReturn(PETSC_SUCCESS);
}
