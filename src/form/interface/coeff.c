#include <fegpu/private/fegimpl.h>

/* Prepares coefficient evaluation of a form on a discretization: ghosted auxiliary values and the auxiliary basis
   tabulated at the main field's quadrature points (so the auxiliary PetscFE may use any quadrature) */
PetscErrorCode FEGCoeffSetUp(FEGDisc *disc, FEGForm form, FEGCoeff *coeff)
{
  const PetscInt Nq = disc->Nq;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(coeff, sizeof(*coeff)));
  PetscCall(FEGFormCheckCompatible(form, disc->dm));
  PetscCheck(!form->A || form->auxdm, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_WRONGSTATE, "The form has a linear coefficient map but no auxiliary field: call FEGFormSetAuxiliaryField()");
  coeff->form     = form;
  coeff->constant = (PetscBool)(!form->auxdm && !form->pointwise);
  PetscCall(PetscMalloc4(Nq * 16, &coeff->C, Nq * 4, &coeff->D, form->Nw + 1, &coeff->w, form->Nw * disc->dim + 1, &coeff->gradw));
  if (form->auxdm) {
    PetscFE fe;

    PetscCall(DMGetField(form->auxdm, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscFEGetDimension(fe, &coeff->NbAux));
    PetscCall(PetscFECreateTabulation(fe, 1, Nq, disc->qpoints, 1, &coeff->Taux));
    PetscCall(DMCreateLocalVector(form->auxdm, &coeff->auxloc));
    PetscCall(DMGlobalToLocal(form->auxdm, form->aux, INSERT_VALUES, coeff->auxloc));
  }
  if (coeff->constant) {
    for (PetscInt q = 0; q < Nq; q++) {
      PetscCall(PetscArraycpy(&coeff->C[q * 16], form->C0, 16));
      PetscCall(PetscArraycpy(&coeff->D[q * 4], form->D0, 4));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGCoeffDestroy(FEGCoeff *coeff)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(coeff->C, coeff->D, coeff->w, coeff->gradw));
  if (coeff->Taux) PetscCall(PetscTabulationDestroy(&coeff->Taux));
  PetscCall(VecDestroy(&coeff->auxloc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C and D at every quadrature point of local cell e (0-based) */
PetscErrorCode FEGCoeffEvaluate(FEGDisc *disc, FEGCoeff *coeff, PetscInt e)
{
  FEGForm      form = coeff->form;
  const PetscInt dim = disc->dim, Nq = disc->Nq, Nw = form->Nw, NbA = coeff->NbAux;
  PetscScalar *vals = NULL;
  PetscInt     n;

  PetscFunctionBegin;
  if (coeff->constant) PetscFunctionReturn(PETSC_SUCCESS);
  if (form->auxdm) {
    PetscCall(DMPlexVecGetClosure(form->auxdm, NULL, coeff->auxloc, disc->cStart + e, &n, &vals));
    PetscCheck(n == NbA, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Auxiliary closure has %" PetscInt_FMT " values, element has %" PetscInt_FMT, n, NbA);
  }
  for (PetscInt q = 0; q < Nq; q++) {
    PetscScalar    *C  = &coeff->C[q * 16], *D = &coeff->D[q * 4];
    const PetscInt  gq = disc->geom->numPoints == 1 ? e : e * Nq + q;
    const PetscReal *invJ = &disc->geom->invJ[gq * dim * dim];

    PetscCall(PetscArraycpy(C, form->C0, 16));
    PetscCall(PetscArraycpy(D, form->D0, 4));
    if (form->auxdm) {
      const PetscReal *T0 = coeff->Taux->T[0], *T1 = coeff->Taux->T[1];

      for (PetscInt k = 0; k < Nw; k++) {
        coeff->w[k] = 0.0;
        for (PetscInt d = 0; d < dim; d++) coeff->gradw[k * dim + d] = 0.0;
      }
      for (PetscInt b = 0; b < NbA; b++) {
        for (PetscInt k = 0; k < Nw; k++) {
          const PetscInt bk = (q * NbA + b) * Nw + k;

          coeff->w[k] += T0[bk] * vals[b];
          for (PetscInt d = 0; d < dim; d++) {
            PetscReal g = 0.0;

            for (PetscInt r = 0; r < dim; r++) g += T1[bk * dim + r] * invJ[r * dim + d];
            coeff->gradw[k * dim + d] += g * vals[b];
          }
        }
      }
      if (form->A) {
        for (PetscInt ij = 0; ij < 16; ij++)
          for (PetscInt k = 0; k < Nw; k++) C[ij] += form->A[ij * Nw + k] * coeff->w[k];
        for (PetscInt j = 0; j < 4; j++)
          for (PetscInt k = 0; k < Nw; k++) D[j] += form->B[j * Nw + k] * coeff->w[k];
      }
    }
    if (form->pointwise) PetscCall((*form->pointwise)(dim, Nw, &disc->xq[(e * Nq + q) * dim], coeff->w, coeff->gradw, C, D, form->pwctx));
  }
  if (form->auxdm) PetscCall(DMPlexVecRestoreClosure(form->auxdm, NULL, coeff->auxloc, disc->cStart + e, &n, &vals));
  PetscFunctionReturn(PETSC_SUCCESS);
}
