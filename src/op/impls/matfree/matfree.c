#include <fegpu/private/fegimpl.h>

/* Matrix-free action by partial assembly: nothing is stored but, at every quadrature point of every element, the
   (dim+1)x(dim+1) tensor Chat = w detJ T^T C T (T = diag(1, invJ^T)) that the reference values and gradients R see:
   A_e x_e = sum_q R_q^T Chat_q R_q x_e. It works for every cell type, order and coefficient (non-affine geometry and
   per-quadrature-point coefficients included). On the GPU the same tensors are built and applied by the kernels of
   matfree.cu. */

/* R(q, r, b): reference value (r = 0) or gradient component r-1 of basis function b at quadrature point q */
static inline PetscReal FEGRef(const FEGDisc *d, PetscInt q, PetscInt r, PetscInt b)
{
  return r == 0 ? d->T->T[0][q * d->Nb + b] : d->T->T[1][(q * d->Nb + b) * d->dim + r - 1];
}

static PetscErrorCode FEGElemApply_MatFree(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const FEGDisc *d  = &op->disc;
  const PetscInt Nb = d->Nb, Nd = d->dim + 1;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) ye[a] = 0.0;
  for (PetscInt q = 0; q < d->Nq; q++) {
    const PetscScalar *Ch = &op->Cq[((size_t)e * d->Nq + q) * Nd * Nd];
    PetscScalar        u[4] = {0, 0, 0, 0}, v[4];

    /* interpolate to the quadrature point, apply the pointwise tensor, integrate back */
    for (PetscInt r = 0; r < Nd; r++)
      for (PetscInt b = 0; b < Nb; b++) u[r] += FEGRef(d, q, r, b) * xe[b];
    for (PetscInt s = 0; s < Nd; s++) {
      v[s] = 0.0;
      for (PetscInt r = 0; r < Nd; r++) v[s] += transpose ? Ch[s * Nd + r] * u[r] : Ch[r * Nd + s] * u[r];
    }
    for (PetscInt a = 0; a < Nb; a++)
      for (PetscInt s = 0; s < Nd; s++) ye[a] += FEGRef(d, q, s, a) * v[s];
  }
  PetscCall(PetscLogFlops((PetscLogDouble)d->Nq * (4.0 * Nb * Nd + 2.0 * Nd * Nd)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemDiag_MatFree(FEGOp op, PetscInt e, PetscScalar de[])
{
  const FEGDisc *d  = &op->disc;
  const PetscInt Nb = d->Nb, Nd = d->dim + 1;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) {
    de[a] = 0.0;
    for (PetscInt q = 0; q < d->Nq; q++) {
      const PetscScalar *Ch = &op->Cq[((size_t)e * d->Nq + q) * Nd * Nd];

      for (PetscInt r = 0; r < Nd; r++)
        for (PetscInt s = 0; s < Nd; s++) de[a] += Ch[r * Nd + s] * FEGRef(d, q, r, a) * FEGRef(d, q, s, a);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpCreateMat_MatFree(FEGOp op, Mat *A)
{
  FEGDisc *d = &op->disc;

  PetscFunctionBegin;
  PetscCall(FEGOpCreateShell(op, A));
  op->elemApply = FEGElemApply_MatFree;
  op->elemDiag  = FEGElemDiag_MatFree;
  if (!op->ondevice) PetscCall(PetscMalloc1((size_t)d->Ne * d->Nq * (d->dim + 1) * (d->dim + 1), &op->Cq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Chat at every quadrature point from the coefficients and the geometry */
PetscErrorCode FEGOpAssemble_MatFree(FEGOp op, Mat A)
{
  FEGDisc  *d = &op->disc;
  FEGCoeff  coeff;
  const PetscInt dim = d->dim, Nd = dim + 1;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Integrate, A, 0, 0, 0));
  if (op->ondevice) {
#if defined(FEGPU_HAVE_CUDA)
    PetscCall(FEGOpDevAssemble_Shell(op));
#endif
    PetscCall(FEGShellAssembled(op, A));
    PetscCall(PetscLogEventEnd(FEG_Integrate, A, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FEGCoeffSetUp(d, op->form, &coeff));
  for (PetscInt e = 0; e < d->Ne; e++) {
    PetscCall(FEGCoeffEvaluate(d, &coeff, e));
    for (PetscInt q = 0; q < d->Nq; q++) {
      const PetscInt     gq   = d->geom->numPoints == 1 ? e : e * d->Nq + q;
      const PetscReal   *invJ = &d->geom->invJ[gq * dim * dim];
      const PetscReal    wdet = d->qweights[q] * d->geom->detJ[gq];
      const PetscScalar *C    = &coeff.C[q * 16];
      PetscScalar       *Ch   = &op->Cq[((size_t)e * d->Nq + q) * Nd * Nd];
      PetscReal          T[4][4] = {{0}};

      T[0][0] = 1.0;
      for (PetscInt c = 0; c < dim; c++)
        for (PetscInt r = 0; r < dim; r++) T[1 + c][1 + r] = invJ[r * dim + c];
      for (PetscInt r = 0; r < Nd; r++)
        for (PetscInt s = 0; s < Nd; s++) {
          PetscScalar v = 0.0;

          for (PetscInt i = 0; i < Nd; i++)
            for (PetscInt j = 0; j < Nd; j++) v += T[i][r] * C[i * 4 + j] * T[j][s];
          Ch[r * Nd + s] = wdet * v;
        }
    }
  }
  PetscCall(FEGCoeffDestroy(&coeff));
  PetscCall(FEGShellAssembled(op, A));
  PetscCall(PetscLogEventEnd(FEG_Integrate, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
