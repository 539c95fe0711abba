/* Coefficients for the device kernels: constant, linear in an auxiliary field (its local vector read on the device,
   the field's basis tabulated once), values at the quadrature points given as Vecs (read where they are), or computed
   on the host by a pointwise function at every quadrature point and uploaded */
#include <fegpu/private/fegcudaimpl.h>

PetscErrorCode FEGDevCoeffCacheDestroy(FEGDevCoeffCache *cc)
{
  PetscFunctionBegin;
  FEGDevFree(cc->A);
  FEGDevFree(cc->Bl);
  FEGDevFree(cc->TA);
  FEGDevFree(cc->aidx);
  FEGDevFree(cc->auxbuf);
  FEGDevFree(cc->Cq);
  FEGDevFree(cc->Dq);
  FEGDevFree(cc->qbuf);
  FEGDevFree(cc->qA);
  FEGDevFree(cc->qB);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The form's quadrature-point values for the kernels: a CUDA Vec's own device array (filled on the GPU, nothing
   crosses), a host Vec's values copied up; their map with them */
static PetscErrorCode FEGDevCoeffPoints(FEGForm form, FEGDevCoeffCache *cc, FEGDevCoeff *c)
{
  const PetscInt nc = form->Nqc;
  double         A[16 * 64], B[4 * 64];

  PetscFunctionBegin;
  cc->qv = form->Wq;
  if (!form->Wq) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)form->Wq, &cc->qcuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  if (cc->qcuda) PetscCall(VecCUDAGetArrayRead(form->Wq, &cc->qptr));
  else {
    PetscInt n;

    PetscCall(VecGetLocalSize(form->Wq, &n));
    FEGDevFree(cc->qbuf);
    PetscCall(FEGDevMallocCopy((void **)&cc->qbuf, NULL, sizeof(double) * n, NULL));
    PetscCall(VecGetArrayRead(form->Wq, &cc->qptr));
    PetscCallCUDA(cudaMemcpy(cc->qbuf, cc->qptr, sizeof(double) * n, cudaMemcpyHostToDevice));
  }
  for (PetscInt k = 0; k < 16 * nc; k++) A[k] = PetscRealPart(form->Aq[k]);
  for (PetscInt k = 0; k < 4 * nc; k++) B[k] = PetscRealPart(form->Bq[k]);
  FEGDevFree(cc->qA);
  FEGDevFree(cc->qB);
  PetscCall(FEGDevMallocCopy((void **)&cc->qA, A, sizeof(double) * 16 * nc, NULL));
  PetscCall(FEGDevMallocCopy((void **)&cc->qB, B, sizeof(double) * 4 * nc, NULL));
  c->nqc = (int)nc;
  c->Wq  = cc->qcuda ? cc->qptr : cc->qbuf;
  c->Aq  = cc->qA;
  c->Bq  = cc->qB;
  if (c->mode == FEG_DEV_COEFF_CONSTANT) c->mode = FEG_DEV_COEFF_POINTS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C and D for the kernels: constant, linear in the auxiliary field (evaluated on the device), plus the form's
   quadrature-point values (read on the device), or computed on the host by a pointwise function at every quadrature
   point and uploaded */
PetscErrorCode FEGDevCoeffPrepare(FEGDisc *disc, FEGForm form, FEGDevCoeffCache *cc, FEGDevCoeff *c)
{
  const PetscInt Ne = disc->Ne, Nq = disc->Nq;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  for (PetscInt k = 0; k < 16; k++) c->C0[k] = PetscRealPart(form->C0[k]);
  for (PetscInt k = 0; k < 4; k++) c->D0[k] = PetscRealPart(form->D0[k]);
  if (form->pointwise) {
    FEGCoeff hc;

    PetscCall(FEGCoeffSetUp(disc, form, &hc));
    if (!cc->Cq) {
      PetscCall(FEGDevMallocCopy((void **)&cc->Cq, NULL, sizeof(double) * Ne * Nq * 16, NULL));
      PetscCall(FEGDevMallocCopy((void **)&cc->Dq, NULL, sizeof(double) * Ne * Nq * 4, NULL));
    }
    {
      double *Cq, *Dq;

      PetscCall(PetscMalloc2(Ne * Nq * 16, &Cq, Ne * Nq * 4, &Dq));
      for (PetscInt e = 0; e < Ne; e++) {
        PetscCall(FEGCoeffEvaluate(disc, &hc, e));
        for (PetscInt k = 0; k < Nq * 16; k++) Cq[e * Nq * 16 + k] = PetscRealPart(hc.C[k]);
        for (PetscInt k = 0; k < Nq * 4; k++) Dq[e * Nq * 4 + k] = PetscRealPart(hc.D[k]);
      }
      PetscCallCUDA(cudaMemcpy(cc->Cq, Cq, sizeof(double) * Ne * Nq * 16, cudaMemcpyHostToDevice));
      PetscCallCUDA(cudaMemcpy(cc->Dq, Dq, sizeof(double) * Ne * Nq * 4, cudaMemcpyHostToDevice));
      PetscCall(PetscFree2(Cq, Dq));
    }
    PetscCall(FEGCoeffDestroy(&hc));
    c->mode = FEG_DEV_COEFF_PRECOMPUTED;
    c->Cq   = cc->Cq;
    c->Dq   = cc->Dq;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FEGFormCheckCompatible(form, disc->dm));
  PetscCall(FEGFormCheckQuadrature(form, disc));
  PetscCheck(!form->A || form->auxdm, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_WRONGSTATE, "The form has a linear coefficient map but no auxiliary field: call FEGFormSetAuxiliaryField()");
  if (!form->auxdm || !form->A) {
    c->mode = FEG_DEV_COEFF_CONSTANT;
    PetscCall(FEGDevCoeffPoints(form, cc, c));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (cc->auxdm != form->auxdm || cc->Nw != form->Nw) {
    PetscFE         fe;
    PetscTabulation T;
    PetscSection    asec;
    PetscInt        NbA, *aidx;
    int            *ai;

    FEGDevFree(cc->TA);
    FEGDevFree(cc->aidx);
    FEGDevFree(cc->auxbuf);
    PetscCall(DMGetField(form->auxdm, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscFEGetDimension(fe, &NbA));
    PetscCall(PetscFECreateTabulation(fe, 1, Nq, disc->qpoints, 0, &T));
    PetscCall(FEGDevMallocCopy((void **)&cc->TA, T->T[0], sizeof(double) * Nq * NbA * form->Nw, NULL));
    PetscCall(PetscTabulationDestroy(&T));
    PetscCall(DMGetLocalSection(form->auxdm, &asec));
    PetscCall(PetscMalloc2((size_t)Ne * NbA, &aidx, (size_t)Ne * NbA, &ai));
    PetscCall(FEGPlexGetClosureIndicesBulk(form->auxdm, asec, disc->cStart, disc->cEnd, NbA, aidx, NULL));
    for (size_t k = 0; k < (size_t)Ne * NbA; k++) ai[k] = (int)aidx[k];
    PetscCall(FEGDevMallocCopy((void **)&cc->aidx, ai, sizeof(int) * Ne * NbA, NULL));
    PetscCall(PetscFree2(aidx, ai));
    cc->auxdm = form->auxdm;
    cc->Nw    = (int)form->Nw;
    cc->NbA   = (int)NbA;
  }
  FEGDevFree(cc->A);
  FEGDevFree(cc->Bl);
  {
    double A[16 * 64], B[4 * 64];

    PetscCheck(form->Nw <= 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "The GPU backend takes auxiliary fields of at most 64 components, not %" PetscInt_FMT, form->Nw);
    for (PetscInt k = 0; k < 16 * form->Nw; k++) A[k] = PetscRealPart(form->A[k]);
    for (PetscInt k = 0; k < 4 * form->Nw; k++) B[k] = PetscRealPart(form->B[k]);
    PetscCall(FEGDevMallocCopy((void **)&cc->A, A, sizeof(double) * 16 * form->Nw, NULL));
    PetscCall(FEGDevMallocCopy((void **)&cc->Bl, B, sizeof(double) * 4 * form->Nw, NULL));
  }
  PetscCall(DMGetLocalVector(form->auxdm, &cc->auxloc));
  PetscCall(DMGlobalToLocal(form->auxdm, form->aux, INSERT_VALUES, cc->auxloc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)cc->auxloc, &cc->auxcuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  if (cc->auxcuda) PetscCall(VecCUDAGetArrayRead(cc->auxloc, &cc->auxptr));
  else {
    PetscInt n;

    PetscCall(VecGetLocalSize(cc->auxloc, &n));
    if (!cc->auxbuf) PetscCall(FEGDevMallocCopy((void **)&cc->auxbuf, NULL, sizeof(double) * n, NULL));
    PetscCall(VecGetArrayRead(cc->auxloc, &cc->auxptr));
    PetscCallCUDA(cudaMemcpy(cc->auxbuf, cc->auxptr, sizeof(double) * n, cudaMemcpyHostToDevice));
  }
  c->mode = FEG_DEV_COEFF_LINEAR;
  c->Nw   = cc->Nw;
  c->NbA  = cc->NbA;
  c->A    = cc->A;
  c->Bl   = cc->Bl;
  c->TA   = cc->TA;
  c->aidx = cc->aidx;
  c->aux  = cc->auxcuda ? cc->auxptr : cc->auxbuf;
  PetscCall(FEGDevCoeffPoints(form, cc, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevCoeffRelease(FEGForm form, FEGDevCoeffCache *cc)
{
  PetscFunctionBegin;
  if (cc->qv && cc->qptr) {
    if (cc->qcuda) PetscCall(VecCUDARestoreArrayRead(cc->qv, &cc->qptr));
    else PetscCall(VecRestoreArrayRead(cc->qv, &cc->qptr));
  }
  cc->qv   = NULL;
  cc->qptr = NULL;
  if (!cc->auxloc) PetscFunctionReturn(PETSC_SUCCESS);
  if (cc->auxcuda) PetscCall(VecCUDARestoreArrayRead(cc->auxloc, &cc->auxptr));
  else PetscCall(VecRestoreArrayRead(cc->auxloc, &cc->auxptr));
  PetscCall(DMRestoreLocalVector(form->auxdm, &cc->auxloc));
  cc->auxloc = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
