/* The CUDA backend's host side: device data of an operator, coefficients for the kernels, and the Vec/Mat/DM glue of
   Addto and LMA on the GPU. Kernels and their launchers live in the .cu files. */
#include <fegpu/private/fegimpl.h>
#include <fegpu/private/fegcuda.h>
#include <petscdevice_cuda.h>

/* Coefficient data kept on the device between assemblies */
typedef struct {
  double   *A, *Bl, *TA, *auxbuf, *Cq, *Dq;
  int      *aidx;
  int       Nw, NbA;
  DM        auxdm; /* the auxiliary DM TA and aidx were built for (borrowed) */
  Vec       auxloc;
  PetscBool auxcuda;
  const PetscScalar *auxptr;
} FEGDevCoeffCache;

typedef struct {
  FEGDevDisc       d;
  FEGDevCoeffCache cc;
  FEGDevTuning     tune;
  /* lma and matfree */
  double          *Ke, *Cq, *ybuf;
  int             *toff, *tlist;
  PetscBool        direct; /* one process, no constraints: local and global vectors coincide, no DMGlobalToLocal */
  PetscBool        unique, contig, covering; /* no shared dofs / element e owns dofs e*Nb.. / every local dof in one element */
  /* matfree refop, gemm, sumfact */
  int              mfKernel, mfKind; /* what the buffers below were built for (-1: none) */
  FEGDevRefOp      ro;
  FEGDevSumFact    sf;
  double          *mfOp, *mfG, *mfA, *mfWork, *sfB1, *sfD1, *sfCl;
  int             *sfIdx, *sfLex, *sfQlex, mfLda, mfEc;
  /* addto */
  int             *pos, *colorElems;
  PetscInt        *colorOff, ncolors;
  double          *coo;
  PetscInt         nnz;
} FEGOpDevice;

static PetscErrorCode FEGDevMallocCopy(void **d, const void *h, size_t bytes, size_t *total)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc(d, bytes ? bytes : 1));
  if (h && bytes) PetscCallCUDA(cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice));
  if (total) *total += bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define FEGDevFree(p) \
  do { \
    if (p) PetscCallCUDA(cudaFree(p)); \
    (p) = NULL; \
  } while (0)

/* Reference tables, vertex coordinates and dof indices on the device, then the geometry kernel */
static PetscErrorCode FEGDevDiscCreate(FEGDisc *disc, PetscBool integration, FEGDevDisc *d)
{
  const PetscInt  dim = disc->dim, Nb = disc->Nb, Nq = disc->Nq, Ne = disc->Ne;
  PetscFE         cfe;
  PetscTabulation Tc;
  PetscInt        Nv;
  DM              cdm;
  Vec             coords;
  double         *X;
  int            *idx;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(d, sizeof(*d)));
  d->dim = (int)dim;
  d->Nb  = (int)Nb;
  d->Nq  = (int)Nq;
  d->Ne  = (int)Ne;
  d->nG  = (disc->ct == DM_POLYTOPE_TRIANGLE || disc->ct == DM_POLYTOPE_TETRAHEDRON) ? 1 : (int)Nq;
  PetscCall(FEGDevMallocCopy((void **)&d->B, disc->T->T[0], sizeof(double) * Nq * Nb, &d->bytes));
  PetscCall(FEGDevMallocCopy((void **)&d->D, disc->T->T[1], sizeof(double) * Nq * Nb * dim, &d->bytes));
  PetscCall(FEGDevMallocCopy((void **)&d->qw, disc->qweights, sizeof(double) * Nq, &d->bytes));
  {
    /* reference values and gradients as one column-major (Nq*(dim+1)) x Nb matrix, for the GEMM formulation */
    const PetscInt KK = Nq * (dim + 1);
    double        *R;

    PetscCall(PetscMalloc1(KK * Nb, &R));
    for (PetscInt q = 0; q < Nq; q++)
      for (PetscInt a = 0; a < Nb; a++) {
        R[q * (dim + 1) + a * KK] = disc->T->T[0][q * Nb + a];
        for (PetscInt r = 0; r < dim; r++) R[q * (dim + 1) + 1 + r + a * KK] = disc->T->T[1][(q * Nb + a) * dim + r];
      }
    PetscCall(FEGDevMallocCopy((void **)&d->R, R, sizeof(double) * KK * Nb, &d->bytes));
    if (d->nG == 1 && integration) {
      /* affine cells: with constant C the element matrix is sum_rs Chat_rs M^rs, Chat = detJ T^T C T */
      const PetscInt Nd = dim + 1;
      double        *M;

      PetscCall(PetscCalloc1(Nd * Nd * Nb * Nb, &M));
      for (PetscInt r = 0; r < Nd; r++)
        for (PetscInt s = 0; s < Nd; s++)
          for (PetscInt a = 0; a < Nb; a++)
            for (PetscInt b = 0; b < Nb; b++)
              for (PetscInt q = 0; q < Nq; q++) M[((r * Nd + s) * Nb + a) * Nb + b] += disc->qweights[q] * R[q * Nd + r + b * KK] * R[q * Nd + s + a * KK];
      PetscCall(FEGDevMallocCopy((void **)&d->M, M, sizeof(double) * Nd * Nd * Nb * Nb, &d->bytes));
      PetscCall(PetscFree(M));
    }
    PetscCall(PetscFree(R));
  }
  /* the vertex basis, in the order of the coordinate closure, gives the reference-to-real map */
  PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, dim, 1, disc->ct, 1, PETSC_DETERMINE, &cfe));
  PetscCall(PetscFEGetDimension(cfe, &Nv));
  PetscCall(PetscFECreateTabulation(cfe, 1, Nq, disc->qpoints, 1, &Tc));
  d->Nv = (int)Nv;
  PetscCall(FEGDevMallocCopy((void **)&d->G, Tc->T[1], sizeof(double) * Nq * Nv * dim, &d->bytes));
  PetscCall(PetscTabulationDestroy(&Tc));
  PetscCall(PetscFEDestroy(&cfe));
  PetscCall(DMGetCoordinateDM(disc->dm, &cdm));
  PetscCall(DMGetCoordinatesLocal(disc->dm, &coords));
  PetscCall(PetscMalloc2(Ne * Nv * dim, &X, Ne * Nb, &idx));
  for (PetscInt e = 0; e < Ne; e++) {
    PetscScalar *x = NULL;
    PetscInt     n;

    PetscCall(DMPlexVecGetClosure(cdm, NULL, coords, disc->cStart + e, &n, &x));
    PetscCheck(n == Nv * dim, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " coordinate values, expected %" PetscInt_FMT " (vertex coordinates only)", disc->cStart + e, n, Nv * dim);
    for (PetscInt k = 0; k < n; k++) X[e * Nv * dim + k] = PetscRealPart(x[k]);
    PetscCall(DMPlexVecRestoreClosure(cdm, NULL, coords, disc->cStart + e, &n, &x));
    for (PetscInt b = 0; b < Nb; b++) idx[b * Ne + e] = (int)disc->lidx[e * Nb + b];
  }
  PetscCall(FEGDevMallocCopy((void **)&d->X, X, sizeof(double) * Ne * Nv * dim, &d->bytes));
  PetscCall(FEGDevMallocCopy((void **)&d->idx, idx, sizeof(int) * Ne * Nb, &d->bytes));
  PetscCall(PetscFree2(X, idx));
  PetscCall(FEGDevMallocCopy((void **)&d->geo, NULL, sizeof(double) * Ne * d->nG * (dim * dim + 1), &d->bytes));
  PetscCall(FEGDevGeometry(d));
  PetscCall(FEGDevBuildP(d, integration ? (size_t)256 << 20 : 0)); /* matfree never builds element matrices */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevDiscDestroy(FEGDevDisc *d)
{
  PetscFunctionBegin;
  FEGDevFree(d->B);
  FEGDevFree(d->D);
  FEGDevFree(d->qw);
  FEGDevFree(d->R);
  FEGDevFree(d->M);
  FEGDevFree(d->P);
  FEGDevFree(d->G);
  FEGDevFree(d->X);
  FEGDevFree(d->geo);
  FEGDevFree(d->idx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevCoeffCacheDestroy(FEGDevCoeffCache *cc)
{
  PetscFunctionBegin;
  FEGDevFree(cc->A);
  FEGDevFree(cc->Bl);
  FEGDevFree(cc->TA);
  FEGDevFree(cc->aidx);
  FEGDevFree(cc->auxbuf);
  FEGDevFree(cc->Cq);
  FEGDevFree(cc->Dq);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C and D for the kernels: constant, linear in the auxiliary field (evaluated on the device), or computed on the host
   by a pointwise function at every quadrature point and uploaded */
static PetscErrorCode FEGDevCoeffPrepare(FEGDisc *disc, FEGForm form, FEGDevCoeffCache *cc, FEGDevCoeff *c)
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
  PetscCheck(!form->A || form->auxdm, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_WRONGSTATE, "The form has a linear coefficient map but no auxiliary field: call FEGFormSetAuxiliaryField()");
  if (!form->auxdm || !form->A) {
    c->mode = FEG_DEV_COEFF_CONSTANT;
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
    PetscCall(PetscMalloc1(Ne * NbA, &ai));
    for (PetscInt e = 0; e < Ne; e++) {
      PetscInt n;

      aidx = NULL;
      PetscCall(DMPlexGetClosureIndices(form->auxdm, asec, asec, disc->cStart + e, PETSC_TRUE, &n, &aidx, NULL, NULL));
      PetscCheck(n == NbA, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Auxiliary closure of %" PetscInt_FMT " dofs, element has %" PetscInt_FMT, n, NbA);
      for (PetscInt b = 0; b < n; b++) ai[e * NbA + b] = (int)(aidx[b] >= 0 ? aidx[b] : -(aidx[b] + 1));
      PetscCall(DMPlexRestoreClosureIndices(form->auxdm, asec, asec, disc->cStart + e, PETSC_TRUE, &n, &aidx, NULL, NULL));
    }
    PetscCall(FEGDevMallocCopy((void **)&cc->aidx, ai, sizeof(int) * Ne * NbA, NULL));
    PetscCall(PetscFree(ai));
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevCoeffRelease(FEGForm form, FEGDevCoeffCache *cc)
{
  PetscFunctionBegin;
  if (!cc->auxloc) PetscFunctionReturn(PETSC_SUCCESS);
  if (cc->auxcuda) PetscCall(VecCUDARestoreArrayRead(cc->auxloc, &cc->auxptr));
  else PetscCall(VecRestoreArrayRead(cc->auxloc, &cc->auxptr));
  PetscCall(DMRestoreLocalVector(form->auxdm, &cc->auxloc));
  cc->auxloc = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void FEGDevTuningFrom(const FEGTuning *t, FEGDevTuning *dt)
{
  dt->kernel    = (int)t->kernel;
  dt->blockSize = (int)t->blockSize;
  dt->nentpt    = (int)t->nentpt;
  dt->qchunk    = (int)t->qchunk;
  dt->jacShared = t->jacShared ? 1 : 0;
  dt->nparts    = 0;
  dt->used      = 0;
}

PetscErrorCode FEGOpDevSetUp(FEGOp op)
{
  FEGOpDevice *dev;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCall(PetscNew(&dev));
  op->dev = dev;
  PetscCall(PetscLogEventBegin(FEG_Setup, op->dm, 0, 0, 0));
  PetscCall(FEGDevDiscCreate(&op->disc, (PetscBool)(op->strategy != FEG_STRATEGY_MATFREE), &dev->d));
  FEGDevTuningFrom(&op->tuning, &dev->tune);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)op->dm), &size));
  dev->direct = PETSC_FALSE;
  if (size == 1 && op->disc.nlocal == op->disc.nglobal) {
    PetscSection lsec, gsec;
    PetscInt     pStart, pEnd;

    dev->direct = PETSC_TRUE;
    PetscCall(DMGetLocalSection(op->dm, &lsec));
    PetscCall(DMGetGlobalSection(op->dm, &gsec));
    PetscCall(PetscSectionGetChart(lsec, &pStart, &pEnd));
    for (PetscInt p = pStart; p < pEnd && dev->direct; p++) {
      PetscInt lo, go;

      PetscCall(PetscSectionGetOffset(lsec, p, &lo));
      PetscCall(PetscSectionGetOffset(gsec, p, &go));
      if (lo != go) dev->direct = PETSC_FALSE;
    }
  }
  {
    const PetscInt Ne = op->disc.Ne, Nb = op->disc.Nb;
    PetscInt      *cnt;

    PetscCall(PetscCalloc1(op->disc.nlocal + 1, &cnt));
    dev->unique = dev->contig = PETSC_TRUE;
    for (PetscInt k = 0; k < Ne * Nb; k++) {
      if (++cnt[op->disc.lidx[k]] > 1) dev->unique = PETSC_FALSE;
      if (op->disc.lidx[k] != k) dev->contig = PETSC_FALSE;
    }
    dev->covering = (PetscBool)(dev->unique && Ne * Nb == op->disc.nlocal);
    PetscCall(PetscFree(cnt));
  }
  dev->mfKernel = -1;
  PetscCall(PetscLogEventEnd(FEG_Setup, op->dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevMatFreeFree(FEGOpDevice *dev)
{
  PetscFunctionBegin;
  FEGDevFree(dev->mfOp);
  FEGDevFree(dev->mfG);
  FEGDevFree(dev->mfA);
  FEGDevFree(dev->mfWork);
  FEGDevFree(dev->sfB1);
  FEGDevFree(dev->sfD1);
  FEGDevFree(dev->sfCl);
  FEGDevFree(dev->sfIdx);
  FEGDevFree(dev->sfLex);
  FEGDevFree(dev->sfQlex);
  dev->mfKernel = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDevDestroy(FEGOp op)
{
  FEGOpDevice *dev = (FEGOpDevice *)op->dev;

  PetscFunctionBegin;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDevDiscDestroy(&dev->d));
  PetscCall(FEGDevCoeffCacheDestroy(&dev->cc));
  FEGDevFree(dev->Ke);
  FEGDevFree(dev->Cq);
  PetscCall(FEGDevMatFreeFree(dev));
  FEGDevFree(dev->ybuf);
  FEGDevFree(dev->toff);
  FEGDevFree(dev->tlist);
  FEGDevFree(dev->pos);
  FEGDevFree(dev->colorElems);
  FEGDevFree(dev->coo);
  PetscCall(PetscFree(dev->colorOff));
  PetscCall(PetscFree(op->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDevView(FEGOp op, PetscViewer viewer)
{
  FEGOpDevice   *dev = (FEGOpDevice *)op->dev;
  PetscLogDouble bytes;

  PetscFunctionBegin;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  bytes = (PetscLogDouble)dev->d.bytes;
  if (dev->Ke) bytes += (PetscLogDouble)dev->d.Ne * dev->d.Nb * dev->d.Nb * sizeof(double);
  if (dev->pos) bytes += (PetscLogDouble)dev->d.Ne * dev->d.Nb * dev->d.Nb * sizeof(int);
  if (dev->coo) bytes += (PetscLogDouble)dev->d.Ne * dev->d.Nb * dev->d.Nb * sizeof(double);
  if (dev->Cq) bytes += (PetscLogDouble)dev->d.Ne * dev->d.Nq * (dev->d.dim + 1) * (dev->d.dim + 1) * sizeof(double);
  if (dev->tlist) bytes += (PetscLogDouble)dev->d.Ne * dev->d.Nb * (sizeof(int) + sizeof(double));
  if (dev->mfG) bytes += (PetscLogDouble)dev->d.Ne * dev->ro.nops * sizeof(double) + (PetscLogDouble)dev->ro.nops * dev->d.Nb * dev->ro.ldo * sizeof(double);
  if (dev->mfWork) bytes += (PetscLogDouble)dev->mfEc * (dev->mfLda + dev->d.Nb) * sizeof(double);
  if (dev->sfCl) bytes += (PetscLogDouble)dev->d.Ne * dev->d.Nq * dev->sf.npairs * sizeof(double) + (PetscLogDouble)dev->d.Ne * dev->d.Nb * sizeof(int);
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU: geometry at %d point(s) per element, integration kernel: %s", dev->d.nG, dev->tune.used == 1 ? "one element per thread" : (dev->tune.used == 2 ? "one element per thread block" : (dev->tune.used == 3 ? "GEMM over reference tables (cuBLAS)" : "not run yet"))));
  if (dev->tune.used == 3) PetscCall(PetscViewerASCIIPrintf(viewer, " (%s, %d elements per GEMM chunk)", dev->d.P ? "K = Chat P, P the products of reference derivatives" : "K = R^T U", dev->tune.nparts));
  if (dev->tune.used == 2) PetscCall(PetscViewerASCIIPrintf(viewer, " (block size %d, NENTPT %d, NR_PARTS %d, quadrature chunk %d, Jacobian data in shared memory: %s)", dev->tune.blockSize, dev->tune.nentpt, dev->tune.nparts, dev->tune.qchunk, dev->tune.jacShared ? "yes" : "no"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  if (op->strategy == FEG_STRATEGY_ADDTO) {
    if (dev->coo) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: MatSetValuesCOO of device element matrices\n"));
    else if (dev->colorOff) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: coloured, %" PetscInt_FMT " colours, no atomics\n", dev->ncolors));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: atomics into the CSR values\n"));
  } else if (op->strategy == FEG_STRATEGY_MATFREE && dev->mfKernel == FEG_MF_REFOP) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree refop: %d elements per thread (Ne), %d element groups per block (Nb), %d row(s) per thread, %d threads per block, geometric factors fetched just in time, scatter by %s\n", dev->ro.ne, dev->ro.nb, dev->ro.nr, dev->ro.nb * ((dev->ro.Nb + dev->ro.nr - 1) / dev->ro.nr), dev->unique ? (dev->contig ? "plain stores (contiguous element-owned dofs)" : "plain stores (element-owned dofs)") : (dev->tlist ? "transpose gather" : "atomics")));
  } else if (op->strategy == FEG_STRATEGY_MATFREE && dev->mfKernel == FEG_MF_GEMM) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree gemm: cuBLAS DGEMM (%d x %d) x (%d x chunk) with leading dimension %d, %d elements per chunk\n", dev->ro.nops * dev->ro.Nb, dev->ro.Nb, dev->ro.Nb, dev->mfLda, dev->mfEc));
  } else if (op->strategy == FEG_STRATEGY_MATFREE && dev->mfKernel == FEG_MF_SUMFACT) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree sumfact: %d elements per block, %d threads, %d bytes of shared memory per element\n", dev->sf.neb, dev->sf.nthreads, (int)FEGDevSumFactShared(dev->sf.dim, dev->sf.P, dev->sf.Q)));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "GPU %s: element-interleaved %s, scatter by %s%s\n", op->strategy == FEG_STRATEGY_MATFREE ? "matfree" : "lma", op->strategy == FEG_STRATEGY_MATFREE ? "quadrature-point tensors" : "matrices", dev->tlist ? "transpose gather" : "atomics", dev->direct ? ", no global-to-local copies (one process, no constraints)" : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU memory: %.4g MB\n", bytes / 1048576.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* refop elements per thread and groups per block by order, measured on the H100 (examples/bench_matfree) */
static void FEGRefOpTuning(PetscInt dim, PetscInt Nb, int *ne, int *nb, int *nr)
{
  /* order 1..8; tetrahedra Nb = 4..165 (sweeps of orders 1-5 with -sweep), triangles Nb = 3..45 (not swept) */
  static const int ne3[8] = {2, 4, 4, 4, 4, 4, 4, 4}, nb3[8] = {16, 16, 8, 4, 4, 2, 2, 2};
  static const int ne2[8] = {1, 1, 2, 4, 4, 4, 4, 4}, nb2[8] = {64, 32, 16, 8, 4, 4, 4, 2};
  int              p = 0;

  while (p < 7 && (dim == 3 ? (p + 1) * (p + 2) * (p + 3) / 6 : (p + 1) * (p + 2) / 2) < Nb) p++;
  *ne = dim == 3 ? ne3[p > 0 ? p - 1 : 0] : ne2[p > 0 ? p - 1 : 0];
  *nb = dim == 3 ? nb3[p > 0 ? p - 1 : 0] : nb2[p > 0 ? p - 1 : 0];
  *nr = 1;
  while (*nb > 1 && Nb * *nb > 1024) *nb /= 2;
}

/* Device data of the matfree kernel in use, rebuilt when the kernel or the stored pairs change */
static PetscErrorCode FEGDevMatFreeSetUpKernel(FEGOp op, FEGOpDevice *dev)
{
  const FEGMatFree *mf = &op->mf;
  FEGDisc          *disc = &op->disc;
  const PetscInt    Ne = disc->Ne, Nb = disc->Nb, Nq = disc->Nq, np = mf->npairs;

  PetscFunctionBegin;
  if (dev->mfKernel == (int)mf->kernel && dev->mfKind == mf->kind) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDevMatFreeFree(dev));
  if (mf->kernel == FEG_MF_REFOP || mf->kernel == FEG_MF_GEMM) {
    FEGDevRefOp *r = &dev->ro;
    double      *Op;

    const PetscInt ldo = (Nb + 1) / 2 * 2;

    PetscCall(PetscCalloc1(np * Nb * ldo, &Op));
    for (PetscInt m = 0; m < np; m++)
      for (PetscInt b = 0; b < Nb; b++)
        for (PetscInt a = 0; a < Nb; a++) Op[(m * Nb + b) * ldo + a] = mf->Op[(m * Nb + b) * Nb + a];
    PetscCall(FEGDevMallocCopy((void **)&dev->mfOp, Op, sizeof(double) * np * Nb * ldo, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->mfG, NULL, sizeof(double) * Ne * np, NULL));
    PetscCall(PetscMemzero(r, sizeof(*r)));
    r->Ne     = (int)Ne;
    r->Nb     = (int)Nb;
    r->nops   = (int)np;
    r->contig = dev->contig ? 1 : 0;
    r->unique = dev->unique ? 1 : 0;
    for (PetscInt m = 0; m < np; m++) r->tperm[m] = (int)mf->tperm[m];
    r->ldo = (int)ldo;
    r->Op  = dev->mfOp;
    r->G   = dev->mfG;
    r->idx = dev->d.idx;
    FEGRefOpTuning(disc->dim, Nb, &r->ne, &r->nb, &r->nr);
    if (mf->ne) r->ne = (int)mf->ne;
    if (mf->nb) r->nb = (int)mf->nb;
    if (mf->nr) r->nr = (int)mf->nr;
    if (mf->kernel == FEG_MF_GEMM) {
      /* stacked operators A[(m*Nb+a) + b*lda] = Op_m[a,b]; chunks of elements so Z stays within 256 MB */
      const PetscInt lda = (np * Nb + 3) / 4 * 4, ldx = (Nb + 3) / 4 * 4;
      double        *A;

      PetscCall(PetscCalloc1(lda * Nb, &A));
      for (PetscInt m = 0; m < np; m++)
        for (PetscInt b = 0; b < Nb; b++)
          for (PetscInt a = 0; a < Nb; a++) A[(m * Nb + a) + b * lda] = mf->Op[(m * Nb + b) * Nb + a];
      PetscCall(FEGDevMallocCopy((void **)&dev->mfA, A, sizeof(double) * lda * Nb, NULL));
      PetscCall(PetscFree(A));
      dev->mfLda = (int)lda;
      dev->mfEc  = (int)PetscMax(1, PetscMin(Ne, (PetscInt)(((size_t)mf->gemmMB << 20) / (sizeof(double) * (lda + ldx)))));
      PetscCall(FEGDevMallocCopy((void **)&dev->mfWork, NULL, sizeof(double) * (lda + ldx) * dev->mfEc, NULL));
    }
    PetscCall(PetscFree(Op));
  } else if (mf->kernel == FEG_MF_SUMFACT) {
    FEGDevSumFact *sf = &dev->sf;
    double        *B1, *D1;
    int           *idx, *lex, *qlex;
    size_t         per;

    PetscCall(PetscMalloc5(mf->P * mf->Q, &B1, mf->P * mf->Q, &D1, Ne * Nb, &idx, Nb, &lex, Nq, &qlex));
    for (PetscInt k = 0; k < mf->P * mf->Q; k++) {
      B1[k] = mf->B1[k];
      D1[k] = mf->D1[k];
    }
    for (PetscInt l = 0; l < Nb; l++) lex[l] = (int)mf->lex[l];
    for (PetscInt l = 0; l < Nq; l++) qlex[l] = (int)mf->qlex[l];
    for (PetscInt e = 0; e < Ne; e++)
      for (PetscInt l = 0; l < Nb; l++) idx[l * Ne + e] = (int)disc->lidx[e * Nb + mf->lex[l]];
    PetscCall(FEGDevMallocCopy((void **)&dev->sfB1, B1, sizeof(double) * mf->P * mf->Q, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfD1, D1, sizeof(double) * mf->P * mf->Q, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfIdx, idx, sizeof(int) * Ne * Nb, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfLex, lex, sizeof(int) * Nb, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfQlex, qlex, sizeof(int) * Nq, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfCl, NULL, sizeof(double) * Ne * np * Nq, NULL));
    PetscCall(PetscFree5(B1, D1, idx, lex, qlex));
    PetscCall(PetscMemzero(sf, sizeof(*sf)));
    sf->dim    = (int)disc->dim;
    sf->Ne     = (int)Ne;
    sf->P      = (int)mf->P;
    sf->Q      = (int)mf->Q;
    sf->npairs = (int)np;
    sf->kind   = mf->kind;
    sf->unique = dev->unique ? 1 : 0;
    sf->B1     = dev->sfB1;
    sf->D1     = dev->sfD1;
    sf->Cl     = dev->sfCl;
    sf->idx    = dev->sfIdx;
    sf->lex    = dev->sfLex;
    /* enough elements per block for 256 busy threads, within 96 KB of shared memory */
    per          = FEGDevSumFactShared(sf->dim, sf->P, sf->Q);
    sf->neb      = (int)PetscMax(1, PetscMin(256 / Nq + 1, (PetscInt)(((size_t)96 << 10) / per)));
    sf->nthreads = Nq * sf->neb >= 256 ? 256 : 128;
  }
  dev->mfKernel = (int)mf->kernel;
  dev->mfKind   = mf->kind;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDevAssemble_Shell(FEGOp op)
{
  FEGOpDevice  *dev = (FEGOpDevice *)op->dev;
  FEGDevCoeff   c;
  FEGDevOutput  o  = {FEG_DEV_OUT_LMA, NULL, NULL, NULL};
  const PetscBool mf = (PetscBool)(op->strategy == FEG_STRATEGY_MATFREE);
  const int     Nd = dev->d.dim + 1;
  int           pr[16], ps[16];

  PetscFunctionBegin;
  if (mf) {
    /* matfree keeps only its factors: the geometry is recomputed for each assembly and freed after it */
    if (!dev->d.geo) {
      PetscCall(FEGDevMallocCopy((void **)&dev->d.geo, NULL, sizeof(double) * dev->d.Ne * dev->d.nG * (dev->d.dim * dev->d.dim + 1), &dev->d.bytes));
      PetscCall(FEGDevGeometry(&dev->d));
    }
    PetscCall(FEGDevMatFreeSetUpKernel(op, dev));
    if (op->mf.kernel != FEG_MF_QP) FEGDevFree(dev->Cq);
    else if (!dev->Cq) PetscCall(FEGDevMallocCopy((void **)&dev->Cq, NULL, sizeof(double) * dev->d.Ne * dev->d.Nq * Nd * Nd, NULL));
    for (PetscInt m = 0; m < op->mf.npairs; m++) {
      pr[m] = (int)op->mf.pr[m];
      ps[m] = (int)op->mf.ps[m];
    }
  }
  if (!mf && !dev->Ke) PetscCall(FEGDevMallocCopy((void **)&dev->Ke, NULL, sizeof(double) * dev->d.Ne * dev->d.Nb * dev->d.Nb, NULL));
  if (op->lmaScatter == FEG_LMA_SCATTER_GATHER && !dev->tlist) {
    PetscCall(FEGDevTransposeMap(&dev->d, (int)op->disc.nlocal, &dev->toff, &dev->tlist));
    PetscCall(FEGDevMallocCopy((void **)&dev->ybuf, NULL, sizeof(double) * dev->d.Ne * dev->d.Nb, NULL));
  }
  o.vals = dev->Ke;
  PetscCall(FEGDevCoeffPrepare(&op->disc, op->form, &dev->cc, &c));
  PetscCall(PetscLogGpuTimeBegin());
  if (!mf) PetscCall(FEGDevElementMatrices(&dev->d, &c, NULL, dev->d.Ne, &o, &dev->tune));
  else if (op->mf.kernel == FEG_MF_QP) PetscCall(FEGDevMatFreeSetUp(&dev->d, &c, dev->Cq));
  else if (op->mf.kernel == FEG_MF_SUMFACT) PetscCall(FEGDevMatFreeFactors(&dev->d, &c, 1, (int)op->mf.npairs, pr, ps, dev->sfQlex, dev->sfCl));
  else PetscCall(FEGDevMatFreeFactors(&dev->d, &c, 0, (int)op->mf.npairs, pr, ps, NULL, dev->mfG));
  PetscCall(PetscLogGpuTimeEnd());
  if (mf) {
    FEGDevFree(dev->d.geo);
    dev->d.bytes -= sizeof(double) * dev->d.Ne * dev->d.nG * (dev->d.dim * dev->d.dim + 1);
  }
  PetscCall(FEGDevCoeffRelease(op->form, &dev->cc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* matfree on the device: the kernel in use; diag gives the diagonal into y */
static PetscErrorCode FEGDevMatFreeApplyKernel(FEGOp op, const PetscScalar *xa, PetscScalar *ya, PetscBool transpose, PetscBool diag, PetscBool overwrite)
{
  FEGOpDevice *dev = (FEGOpDevice *)op->dev;
  const int    nl  = (int)op->disc.nlocal;

  PetscFunctionBegin;
  switch (op->mf.kernel) {
  case FEG_MF_REFOP:
    PetscCall(FEGDevRefOpApply(&dev->ro, xa, ya, transpose, diag, overwrite, nl, dev->toff, dev->tlist, dev->ybuf));
    break;
  case FEG_MF_GEMM:
    if (diag) PetscCall(FEGDevRefOpApply(&dev->ro, xa, ya, 0, 1, 0, nl, NULL, NULL, NULL));
    else PetscCall(FEGDevGemmApply(&dev->ro, dev->mfA, dev->mfLda, dev->mfWork, dev->mfEc, xa, ya, transpose, overwrite, nl, dev->toff, dev->tlist, dev->ybuf));
    break;
  case FEG_MF_SUMFACT:
    PetscCall(FEGDevSumFactApply(&dev->sf, xa, ya, transpose, diag, nl, dev->toff, dev->tlist, dev->ybuf));
    break;
  default:
    PetscCall(FEGDevMatFreeApply(&dev->d, dev->Cq, diag ? NULL : xa, ya, transpose, diag, nl, dev->toff, dev->tlist, dev->ybuf));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of one matfree action, by kernel */
static PetscLogDouble FEGDevMatFreeFlops(FEGOp op)
{
  const FEGDisc    *d  = &op->disc;
  const FEGMatFree *mf = &op->mf;
  const PetscInt    dim = d->dim, Nd = dim + 1;

  switch (mf->kernel) {
  case FEG_MF_REFOP:
  case FEG_MF_GEMM:
    return 2.0 * d->Ne * mf->npairs * d->Nb * (d->Nb + 1.0);
  case FEG_MF_SUMFACT: {
    const PetscLogDouble P = mf->P, Q = mf->Q;
    /* forward and back: 2 + 3 + 4 (3D) or 2 + 3 contractions of each kind, 2 flops per multiply-add */
    const PetscLogDouble c = dim == 3 ? 2 * P * P * P * Q + 3 * P * P * Q * Q + 4 * P * Q * Q * Q : 2 * P * P * Q + 3 * P * Q * Q;
    return d->Ne * (2.0 * 2.0 * c + 2.0 * d->Nq * mf->npairs * (mf->kind == FEG_MF_FULL ? 1 : 2));
  }
  default:
    return (PetscLogDouble)d->Ne * d->Nq * (4.0 * d->Nb * dim + 4.0 * d->Nb + 2.0 * Nd * Nd);
  }
}

/* y (+)= A x or A^T x with everything on the device */
PetscErrorCode FEGOpDevApply_Shell(FEGOp op, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  FEGOpDevice       *dev = (FEGOpDevice *)op->dev;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  /* element-owned dofs covering the vector (DG on one process): the kernel stores instead of adding */
  const PetscBool overwrite = (PetscBool)(dev->direct && dev->covering && !add && op->strategy == FEG_STRATEGY_MATFREE && (op->mf.kernel == FEG_MF_REFOP || op->mf.kernel == FEG_MF_GEMM));

  if (dev->direct) {
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    if (add) PetscCall(VecCUDAGetArray(y, &ya));
    else {
      PetscCall(VecCUDAGetArrayWrite(y, &ya));
      if (!overwrite) PetscCall(FEGDevZero(ya, op->disc.nglobal));
    }
  } else {
    PetscCall(VecZeroEntries(op->xl));
    PetscCall(DMGlobalToLocal(op->dm, x, INSERT_VALUES, op->xl));
    PetscCall(VecCUDAGetArrayRead(op->xl, &xa));
    PetscCall(VecCUDAGetArrayWrite(op->yl, &ya));
    PetscCall(FEGDevZero(ya, op->disc.nlocal));
  }
  PetscCall(PetscLogGpuTimeBegin());
  if (op->strategy == FEG_STRATEGY_MATFREE) PetscCall(FEGDevMatFreeApplyKernel(op, xa, ya, transpose, PETSC_FALSE, overwrite));
  else PetscCall(FEGDevLMAApply(&dev->d, dev->Ke, xa, ya, transpose ? 1 : 0, (int)op->disc.nlocal, dev->toff, dev->tlist, dev->ybuf));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(op->strategy == FEG_STRATEGY_MATFREE ? FEGDevMatFreeFlops(op) : 2.0 * op->disc.Ne * op->disc.Nb * op->disc.Nb));
  if (dev->direct) {
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    if (add) PetscCall(VecCUDARestoreArray(y, &ya));
    else PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  } else {
    PetscCall(VecCUDARestoreArrayRead(op->xl, &xa));
    PetscCall(VecCUDARestoreArrayWrite(op->yl, &ya));
    if (!add) PetscCall(VecZeroEntries(y));
    PetscCall(DMLocalToGlobal(op->dm, op->yl, ADD_VALUES, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDevDiagonal_Shell(FEGOp op, Vec diag)
{
  FEGOpDevice *dev = (FEGOpDevice *)op->dev;
  PetscScalar *ya;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArrayWrite(op->yl, &ya));
  PetscCall(FEGDevZero(ya, op->disc.nlocal));
  if (op->strategy == FEG_STRATEGY_MATFREE) PetscCall(FEGDevMatFreeApplyKernel(op, NULL, ya, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE));
  else PetscCall(FEGDevLMADiagonal(&dev->d, dev->Ke, ya));
  PetscCall(VecCUDARestoreArrayWrite(op->yl, &ya));
  PetscCall(VecZeroEntries(diag));
  PetscCall(DMLocalToGlobal(op->dm, op->yl, ADD_VALUES, diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Greedy colouring: elements of one colour share no dof */
static PetscErrorCode FEGColorElements(FEGDisc *disc, PetscInt *ncolors, PetscInt **colorOff, int **elems)
{
  const PetscInt Ne = disc->Ne, Nb = disc->Nb, n = disc->nlocal;
  PetscInt      *doff, *delem, *cnt, *color, *mark, nc = 0;
  int           *order;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(n + 1, &doff, n + 1, &cnt));
  PetscCall(PetscMalloc1(Ne * Nb, &delem));
  for (PetscInt k = 0; k < Ne * Nb; k++) doff[disc->lidx[k] + 1]++;
  for (PetscInt i = 0; i < n; i++) doff[i + 1] += doff[i];
  for (PetscInt e = 0; e < Ne; e++)
    for (PetscInt b = 0; b < Nb; b++) {
      const PetscInt i = disc->lidx[e * Nb + b];
      delem[doff[i] + cnt[i]++] = e;
    }
  PetscCall(PetscMalloc2(Ne, &color, Ne + 1, &mark));
  for (PetscInt k = 0; k <= Ne; k++) mark[k] = -1;
  for (PetscInt e = 0; e < Ne; e++) {
    PetscInt c = 0;

    for (PetscInt b = 0; b < Nb; b++) {
      const PetscInt i = disc->lidx[e * Nb + b];
      for (PetscInt k = doff[i]; k < doff[i + 1]; k++)
        if (delem[k] < e) mark[color[delem[k]]] = e;
    }
    while (mark[c] == e) c++;
    color[e] = c;
    nc       = PetscMax(nc, c + 1);
  }
  PetscCall(PetscCalloc1(nc + 1, colorOff));
  for (PetscInt e = 0; e < Ne; e++) (*colorOff)[color[e] + 1]++;
  for (PetscInt c = 0; c < nc; c++) (*colorOff)[c + 1] += (*colorOff)[c];
  PetscCall(PetscArrayzero(cnt, n + 1));
  PetscCall(PetscMalloc1(Ne, &order));
  for (PetscInt e = 0; e < Ne; e++) order[(*colorOff)[color[e]] + cnt[color[e]]++] = (int)e;
  PetscCall(FEGDevMallocCopy((void **)elems, order, sizeof(int) * Ne, NULL));
  *ncolors = nc;
  PetscCall(PetscFree(order));
  PetscCall(PetscFree2(color, mark));
  PetscCall(PetscFree(delem));
  PetscCall(PetscFree2(doff, cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A was created with its final pattern (one process: preallocated and filled; several: MatSetPreallocationCOO) */
PetscErrorCode FEGOpDevCreateMat_AddTo(FEGOp op, Mat A)
{
  FEGOpDevice   *dev  = (FEGOpDevice *)op->dev;
  FEGDisc       *disc = &op->disc;
  const PetscInt Ne = disc->Ne, Nb = disc->Nb;
  PetscSection   lsec, gsec;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Setup, op->dm, 0, 0, 0));
  PetscCall(DMGetLocalSection(op->dm, &lsec));
  PetscCall(DMGetGlobalSection(op->dm, &gsec));
  if (op->addtoMode == FEG_ADDTO_COO) {
    PetscInt *ci, *cj;

    PetscCall(PetscMalloc2(Ne * Nb * Nb, &ci, Ne * Nb * Nb, &cj));
    for (PetscInt e = 0; e < Ne; e++) {
      PetscInt n, *gi = NULL;

      PetscCall(DMPlexGetClosureIndices(op->dm, lsec, gsec, disc->cStart + e, PETSC_TRUE, &n, &gi, NULL, NULL));
      for (PetscInt a = 0; a < Nb; a++)
        for (PetscInt b = 0; b < Nb; b++) {
          ci[(e * Nb + a) * Nb + b] = gi[a];
          cj[(e * Nb + a) * Nb + b] = gi[b];
        }
      PetscCall(DMPlexRestoreClosureIndices(op->dm, lsec, gsec, disc->cStart + e, PETSC_TRUE, &n, &gi, NULL, NULL));
    }
    /* negative indices (constrained dofs) are ignored by the COO assembly */
    PetscCall(MatSetPreallocationCOO(A, Ne * Nb * Nb, ci, cj));
    PetscCall(PetscFree2(ci, cj));
    PetscCall(FEGDevMallocCopy((void **)&dev->coo, NULL, sizeof(double) * Ne * Nb * Nb, NULL));
  } else {
    const PetscInt *ia, *ja;
    PetscScalar    *va;
    PetscMemType    mtype;
    int            *gidx, *dgidx, *pos;
    MatInfo         info;

    PetscCall(MatSeqAIJGetCSRAndMemType(A, &ia, &ja, &va, &mtype));
    PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The addto matrix is not a device (AIJCUSPARSE) matrix: use -dm_mat_type aijcusparse or leave it unset");
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    dev->nnz = (PetscInt)info.nz_used;
    PetscCall(PetscMalloc1(Ne * Nb, &gidx));
    for (PetscInt e = 0; e < Ne; e++) {
      PetscInt n, *gi = NULL;

      PetscCall(DMPlexGetClosureIndices(op->dm, lsec, gsec, disc->cStart + e, PETSC_TRUE, &n, &gi, NULL, NULL));
      for (PetscInt b = 0; b < Nb; b++) gidx[b * Ne + e] = gi[b] >= 0 ? (int)gi[b] : -1;
      PetscCall(DMPlexRestoreClosureIndices(op->dm, lsec, gsec, disc->cStart + e, PETSC_TRUE, &n, &gi, NULL, NULL));
    }
    PetscCall(FEGDevMallocCopy((void **)&dgidx, gidx, sizeof(int) * Ne * Nb, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->pos, NULL, sizeof(int) * Ne * Nb * Nb, NULL));
    PetscCall(FEGDevCSRPositions(&dev->d, dgidx, ia, ja, dev->pos));
    PetscCallCUDA(cudaFree(dgidx));
    PetscCall(PetscFree(gidx));
    /* the pattern came from the same closures, so every entry must have a position; check once */
    PetscCall(PetscMalloc1(Ne * Nb * Nb, &pos));
    PetscCallCUDA(cudaMemcpy(pos, dev->pos, sizeof(int) * Ne * Nb * Nb, cudaMemcpyDeviceToHost));
    for (PetscInt k = 0; k < Ne * Nb * Nb; k++) PetscCheck(pos[k] != -2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Element entry %" PetscInt_FMT " has no place in the matrix pattern", k);
    PetscCall(PetscFree(pos));
    if (op->addtoMode == FEG_ADDTO_COLOR) PetscCall(FEGColorElements(disc, &dev->ncolors, &dev->colorOff, &dev->colorElems));
  }
  PetscCall(PetscLogEventEnd(FEG_Setup, op->dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDevAssemble_AddTo(FEGOp op, Mat A)
{
  FEGOpDevice *dev = (FEGOpDevice *)op->dev;
  FEGDevCoeff  c;

  PetscFunctionBegin;
  PetscCall(FEGDevCoeffPrepare(&op->disc, op->form, &dev->cc, &c));
  if (dev->coo) {
    FEGDevOutput o = {FEG_DEV_OUT_COO, dev->coo, NULL, NULL};

    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(FEGDevElementMatrices(&dev->d, &c, NULL, dev->d.Ne, &o, &dev->tune));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSetValuesCOO(A, dev->coo, INSERT_VALUES));
  } else {
    PetscScalar *va;

    PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(A, &va));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(FEGDevZero(va, dev->nnz));
    if (dev->colorOff) {
      FEGDevOutput o = {FEG_DEV_OUT_CSR_PLAIN, va, dev->pos, NULL};

      for (PetscInt k = 0; k < dev->ncolors; k++) PetscCall(FEGDevElementMatrices(&dev->d, &c, dev->colorElems + dev->colorOff[k], (int)(dev->colorOff[k + 1] - dev->colorOff[k]), &o, &dev->tune));
    } else {
      FEGDevOutput o = {FEG_DEV_OUT_CSR_ATOMIC, va, dev->pos, NULL};

      PetscCall(FEGDevElementMatrices(&dev->d, &c, NULL, dev->d.Ne, &o, &dev->tune));
    }
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(A, &va));
  }
  PetscCall(FEGDevCoeffRelease(op->form, &dev->cc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b(v) - a(g, v) with element vectors and the lifting computed on the device */
PetscErrorCode FEGComputeRHS_Device(FEGDisc *disc, FEGForm form, Vec b)
{
  DM                 dm = disc->dm;
  FEGDevDisc         d;
  FEGDevCoeffCache   cc;
  FEGDevCoeff        c;
  FEGDevTuning       tune = {0, 0, 0, 0, 0, 0, 0};
  Vec                bl, gl;
  PetscScalar       *y;
  const PetscScalar *gh, *gd;
  PetscInt           nlift = 0;
  int               *lift, *dlift = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&cc, sizeof(cc)));
  PetscCall(FEGDevDiscCreate(disc, PETSC_TRUE, &d));
  PetscCall(FEGDevCoeffPrepare(disc, form, &cc, &c));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(DMGetLocalVector(dm, &gl));
  PetscCall(VecZeroEntries(gl));
  PetscCall(DMPlexInsertBoundaryValues(dm, PETSC_TRUE, gl, 0.0, NULL, NULL, NULL));
  /* elements carrying non-zero boundary values need the lifting */
  PetscCall(PetscMalloc1(disc->Ne, &lift));
  PetscCall(VecGetArrayRead(gl, &gh));
  for (PetscInt e = 0; e < disc->Ne; e++) {
    PetscBool any = PETSC_FALSE;
    for (PetscInt a = 0; a < disc->Nb && !any; a++) any = (PetscBool)(gh[disc->lidx[e * disc->Nb + a]] != 0.0);
    if (any) lift[nlift++] = (int)e;
  }
  PetscCall(VecRestoreArrayRead(gl, &gh));
  PetscCall(VecCUDAGetArrayWrite(bl, &y));
  PetscCall(FEGDevZero(y, disc->nlocal));
  PetscCall(FEGDevElementVectors(&d, &c, y));
  if (nlift) {
    FEGDevOutput o = {FEG_DEV_OUT_LIFT, y, NULL, NULL};

    PetscCall(FEGDevMallocCopy((void **)&dlift, lift, sizeof(int) * nlift, NULL));
    PetscCall(VecCUDAGetArrayRead(gl, &gd));
    o.g = gd;
    PetscCall(FEGDevElementMatrices(&d, &c, dlift, (int)nlift, &o, &tune));
    PetscCall(VecCUDARestoreArrayRead(gl, &gd));
    PetscCallCUDA(cudaFree(dlift));
  }
  PetscCall(VecCUDARestoreArrayWrite(bl, &y));
  PetscCall(PetscFree(lift));
  PetscCall(FEGDevCoeffRelease(form, &cc));
  PetscCall(FEGDevCoeffCacheDestroy(&cc));
  PetscCall(FEGDevDiscDestroy(&d));
  PetscCall(VecZeroEntries(b));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscCall(DMRestoreLocalVector(dm, &gl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
