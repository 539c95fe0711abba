/* Coefficients for the device kernels: constant, linear in an auxiliary field (its local vector read on the device,
   the field's basis tabulated once), values at the quadrature points given as Vecs (read where they are), or computed
   on the host by a pointwise function at every quadrature point and uploaded */
#include <fegpu/private/fegformimpl.h>
#include <petscdevice_cuda.h>

PetscErrorCode FEGDevCoeffCacheDestroy(FEGDevCoeffCache *cc)
{
  PetscFunctionBegin;
  FEGDevFree(cc->A);
  FEGDevFree(cc->Bl);
  FEGDevFree(cc->TA);
  FEGDevFree(cc->aidx);
  FEGDevFree(cc->aux.buf);
  FEGDevFree(cc->Cq);
  FEGDevFree(cc->Dq);
  FEGDevFree(cc->wq.buf);
  FEGDevFree(cc->qA);
  FEGDevFree(cc->qB);
  FEGDevFree(cc->ecell);
  FEGDevFree(cc->wqe);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v's values on the device for a kernel (see FEGDevVecRead); FEGDevVecReadEnd() gives the array back */
static PetscErrorCode FEGDevVecReadBegin(FEGDevVecRead *r, Vec v, const double **d)
{
  PetscFunctionBegin;
  r->v = v;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &r->cuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  if (r->cuda) {
    PetscCall(VecCUDAGetArrayRead(v, &r->h));
    *d = r->h;
  } else {
    PetscInt n;

    PetscCall(VecGetLocalSize(v, &n));
    if (n > r->nbuf) {
      FEGDevFree(r->buf);
      PetscCall(FEGDevMallocCopy((void **)&r->buf, NULL, sizeof(double) * n, NULL));
      r->nbuf = n;
    }
    PetscCall(VecGetArrayRead(v, &r->h));
    PetscCallCUDA(cudaMemcpy(r->buf, r->h, sizeof(double) * n, cudaMemcpyHostToDevice));
    *d = r->buf;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevVecReadEnd(FEGDevVecRead *r)
{
  PetscFunctionBegin;
  if (!r->v) PetscFunctionReturn(PETSC_SUCCESS);
  if (r->cuda) PetscCall(VecCUDARestoreArrayRead(r->v, &r->h));
  else PetscCall(VecRestoreArrayRead(r->v, &r->h));
  r->v = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a linear map of n <= 64 values (the callers' bound) into C (A, 16 n) and D (B, 4 n), in double on the device,
   replacing the previous one */
static PetscErrorCode FEGDevMapUpload(PetscInt n, const PetscScalar A[], const PetscScalar B[], double **dA, double **dB)
{
  double hA[16 * 64], hB[4 * 64];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 16 * n; k++) hA[k] = PetscRealPart(A[k]);
  for (PetscInt k = 0; k < 4 * n; k++) hB[k] = PetscRealPart(B[k]);
  FEGDevFree(*dA);
  FEGDevFree(*dB);
  PetscCall(FEGDevMallocCopy((void **)dA, hA, sizeof(double) * 16 * n, NULL));
  PetscCall(FEGDevMallocCopy((void **)dB, hB, sizeof(double) * 4 * n, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The form's quadrature-point values for the kernels, read where they are (filled on the GPU, nothing crosses), and
   their map; given in the DM's cell order, they are put in the element order on the device where that differs */
static PetscErrorCode FEGDevCoeffPoints(FEGDisc *disc, FEGForm form, FEGDevCoeffCache *cc, FEGDevCoeff *c)
{
  PetscFunctionBegin;
  if (!form->Wq) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDevVecReadBegin(&cc->wq, form->Wq, &c->Wq));
  if (disc->ecell) {
    const size_t n = (size_t)disc->Ne * disc->Nq * form->Nqc;

    if (!cc->ecell) {
      int *rows;

      PetscCall(PetscMalloc1(disc->Ne, &rows));
      for (PetscInt e = 0; e < disc->Ne; e++) rows[e] = (int)disc->ecell[e];
      PetscCall(FEGDevMallocCopy((void **)&cc->ecell, rows, sizeof(int) * disc->Ne, NULL));
      PetscCall(PetscFree(rows));
    }
    if (cc->nwqe < n) {
      FEGDevFree(cc->wqe);
      PetscCall(FEGDevMallocCopy((void **)&cc->wqe, NULL, sizeof(double) * n, NULL));
      cc->nwqe = n;
    }
    PetscCall(FEGDevGatherRows((int)disc->Ne, (int)(disc->Nq * form->Nqc), cc->ecell, c->Wq, cc->wqe));
    c->Wq = cc->wqe;
  }
  PetscCall(FEGDevMapUpload(form->Nqc, form->Aq, form->Bq, &cc->qA, &cc->qB));
  c->nqc = (int)form->Nqc;
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
        PetscCall(FEGCoeffEvaluate(disc, &hc, e)); /* element e: the device's order */
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
    PetscCall(FEGDevCoeffPoints(disc, form, cc, c));
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
    PetscCall(DMGetField(form->auxdm, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscFEGetDimension(fe, &NbA));
    PetscCall(PetscFECreateTabulation(fe, 1, Nq, disc->qpoints, 0, &T));
    PetscCall(FEGDevMallocCopy((void **)&cc->TA, T->T[0], sizeof(double) * Nq * NbA * form->Nw, NULL));
    PetscCall(PetscTabulationDestroy(&T));
    PetscCall(DMGetLocalSection(form->auxdm, &asec));
    PetscCall(PetscMalloc2((size_t)Ne * NbA, &aidx, (size_t)Ne * NbA, &ai));
    PetscCall(FEGPlexGetClosureIndicesBulk(form->auxdm, asec, disc->cStart, disc->cEnd, NbA, aidx, NULL));
    /* read in the DM's cell order, kept in the element order */
    for (PetscInt e = 0; e < Ne; e++)
      for (PetscInt b = 0; b < NbA; b++) ai[e * NbA + b] = (int)aidx[(FEGDiscCell(disc, e) - disc->cStart) * NbA + b];
    PetscCall(FEGDevMallocCopy((void **)&cc->aidx, ai, sizeof(int) * Ne * NbA, NULL));
    PetscCall(PetscFree2(aidx, ai));
    PetscCall(FEGDMSectionsCoincide(form->auxdm, &cc->auxdirect));
    cc->auxdm = form->auxdm;
    cc->Nw    = (int)form->Nw;
    cc->NbA   = (int)NbA;
  }
  PetscCheck(form->Nw <= 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "The GPU backend takes auxiliary fields of at most 64 components, not %" PetscInt_FMT, form->Nw);
  PetscCall(FEGDevMapUpload(form->Nw, form->A, form->B, &cc->A, &cc->Bl));
  if (cc->auxdirect) PetscCall(FEGDevVecReadBegin(&cc->aux, form->aux, &c->aux)); /* the field is its local vector */
  else {
    Vec auxloc;

    PetscCall(DMGetLocalVector(form->auxdm, &auxloc));
    PetscCall(DMGlobalToLocal(form->auxdm, form->aux, INSERT_VALUES, auxloc));
    PetscCall(FEGDevVecReadBegin(&cc->aux, auxloc, &c->aux));
  }
  c->mode = FEG_DEV_COEFF_LINEAR;
  c->Nw   = cc->Nw;
  c->NbA  = cc->NbA;
  c->A    = cc->A;
  c->Bl   = cc->Bl;
  c->TA   = cc->TA;
  c->aidx = cc->aidx;
  PetscCall(FEGDevCoeffPoints(disc, form, cc, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevCoeffRelease(FEGForm form, FEGDevCoeffCache *cc)
{
  Vec auxloc = cc->aux.v;

  PetscFunctionBegin;
  PetscCall(FEGDevVecReadEnd(&cc->wq));
  PetscCall(FEGDevVecReadEnd(&cc->aux));
  if (auxloc && !cc->auxdirect) PetscCall(DMRestoreLocalVector(form->auxdm, &auxloc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
