#include <fegpu/private/fegformimpl.h>

/* Prepares coefficient evaluation of a form on a discretization: ghosted auxiliary values and the auxiliary basis
   tabulated at the main field's quadrature points (so the auxiliary PetscFE may use any quadrature) */
PetscErrorCode FEGCoeffSetUp(FEGDisc *disc, FEGForm form, FEGCoeff *coeff)
{
  const PetscInt Nq = disc->Nq;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(coeff, sizeof(*coeff)));
  PetscCall(FEGFormCheckCompatible(form, disc->dm));
  PetscCall(FEGDiscSetUpGeometry(disc)); /* points and Jacobians for the host evaluation and integration */
  PetscCheck(!form->A || form->auxdm, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_WRONGSTATE, "The form has a linear coefficient map but no auxiliary field: call FEGFormSetAuxiliaryField()");
  PetscCall(FEGFormCheckQuadrature(form, disc));
  coeff->form     = form;
  coeff->constant = (PetscBool)(!form->auxdm && !form->pointwise && !form->Wq);
  if (form->Wq) PetscCall(VecGetArrayRead(form->Wq, &coeff->Wq));
  PetscCall(PetscMalloc4(Nq * 16, &coeff->C, Nq * 4, &coeff->D, form->Nw + 1, &coeff->w, form->Nw * disc->dim + 1, &coeff->gradw));
  if (form->auxdm) {
    PetscFE   fe;
    PetscBool same;

    PetscCall(DMGetField(form->auxdm, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscFEGetDimension(fe, &coeff->NbAux));
    PetscCall(PetscFECreateTabulation(fe, 1, Nq, disc->qpoints, 1, &coeff->Taux));
    /* the field itself where it is its local vector (one process, no constraints): no section SF */
    PetscCall(FEGDMSectionsCoincide(form->auxdm, &same));
    if (same) {
      PetscCall(PetscObjectReference((PetscObject)form->aux));
      coeff->auxloc = form->aux;
    } else {
      PetscCall(DMCreateLocalVector(form->auxdm, &coeff->auxloc));
      PetscCall(DMGlobalToLocal(form->auxdm, form->aux, INSERT_VALUES, coeff->auxloc));
    }
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
  if (coeff->Wq) PetscCall(VecRestoreArrayRead(coeff->form->Wq, &coeff->Wq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscBool FEGAllFinite(const PetscScalar v[], PetscInt n)
{
  for (PetscInt i = 0; i < n; i++)
    if (PetscIsInfOrNanScalar(v[i])) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* C and D at every quadrature point of element e (0-based; the DM's cell FEGDiscCell()) */
PetscErrorCode FEGCoeffEvaluate(FEGDisc *disc, FEGCoeff *coeff, PetscInt e)
{
  FEGForm        form = coeff->form;
  const PetscInt dim = disc->dim, Nq = disc->Nq, Nw = form->Nw, NbA = coeff->NbAux;
  const PetscInt c    = FEGDiscCell(disc, e); /* the DM's cell: closures and per-cell arrays are in its order */
  PetscScalar   *vals = NULL;
  PetscInt       n;

  PetscFunctionBegin;
  if (coeff->constant) PetscFunctionReturn(PETSC_SUCCESS);
  if (form->auxdm) {
    PetscCall(DMPlexVecGetClosure(form->auxdm, NULL, coeff->auxloc, c, &n, &vals));
    PetscCheck(n == NbA, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Auxiliary closure has %" PetscInt_FMT " values, element has %" PetscInt_FMT, n, NbA);
  }
  for (PetscInt q = 0; q < Nq; q++) {
    PetscScalar *C = &coeff->C[q * 16], *D = &coeff->D[q * 4];

    PetscCall(PetscArraycpy(C, form->C0, 16));
    PetscCall(PetscArraycpy(D, form->D0, 4));
    if (form->auxdm) {
      const PetscReal *T0 = coeff->Taux->T[0] + q * NbA * Nw, *T1 = coeff->Taux->T[1] + q * NbA * Nw * dim, *invJ = FEGDiscGeometry(disc, e, q);

      /* w and the linear map as the device computes them, the gradient of w for pointwise functions */
      FEGCoeffLinearAt((int)Nw, (int)NbA, T0, vals, NULL, form->A, form->B, C, D, coeff->w);
      for (PetscInt k = 0; k < Nw * dim; k++) coeff->gradw[k] = 0.0;
      for (PetscInt b = 0; b < NbA; b++)
        for (PetscInt k = 0; k < Nw; k++) {
          PetscScalar phi[4];

          FEGPhysical((int)dim, T0[b * Nw + k], &T1[(b * Nw + k) * dim], invJ, phi);
          for (PetscInt d = 0; d < dim; d++) coeff->gradw[k * dim + d] += phi[1 + d] * vals[b];
        }
    }
    if (coeff->Wq) FEGCoeffPointsAt((int)form->Nqc, coeff->Wq + ((size_t)(c - disc->cStart) * Nq + q) * form->Nqc, form->Aq, form->Bq, C, D);
    if (form->pointwise) {
      const PetscReal *x = &disc->xq[(e * Nq + q) * dim];
      char             where[128];

      PetscCall((*form->pointwise)(dim, Nw, x, coeff->w, coeff->gradw, C, D, form->pwctx));
      if (PetscUnlikely(!FEGAllFinite(C, 16) || !FEGAllFinite(D, 4))) {
        PetscCall(PetscSNPrintf(where, sizeof(where), " from the pointwise coefficient function at x = (%g, %g, %g) in cell %" PetscInt_FMT, (double)x[0], (double)(dim > 1 ? x[1] : 0), (double)(dim > 2 ? x[2] : 0), c));
        PetscCall(FEGCheckFinite(PETSC_COMM_SELF, "C", C, 16, 4, where));
        PetscCall(FEGCheckFinite(PETSC_COMM_SELF, "D", D, 4, 1, where));
      }
    }
  }
  if (form->auxdm) PetscCall(DMPlexVecRestoreClosure(form->auxdm, NULL, coeff->auxloc, c, &n, &vals));
  PetscFunctionReturn(PETSC_SUCCESS);
}
