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
static PetscErrorCode FEGDevDiscCreate(FEGDisc *disc, FEGDevDisc *d)
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
    if (d->nG == 1) {
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
  PetscCall(FEGDevBuildP(d, (size_t)256 << 20));
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
  PetscCall(FEGDevDiscCreate(&op->disc, &dev->d));
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
  PetscCall(PetscLogEventEnd(FEG_Setup, op->dm, 0, 0, 0));
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
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU: geometry at %d point(s) per element, integration kernel: %s", dev->d.nG, dev->tune.used == 1 ? "one element per thread" : (dev->tune.used == 2 ? "one element per thread block" : (dev->tune.used == 3 ? "GEMM over reference tables (cuBLAS)" : "not run yet"))));
  if (dev->tune.used == 3) PetscCall(PetscViewerASCIIPrintf(viewer, " (%s, %d elements per GEMM chunk)", dev->d.P ? "K = Chat P, P the products of reference derivatives" : "K = R^T U", dev->tune.nparts));
  if (dev->tune.used == 2) PetscCall(PetscViewerASCIIPrintf(viewer, " (block size %d, NENTPT %d, NR_PARTS %d, quadrature chunk %d, Jacobian data in shared memory: %s)", dev->tune.blockSize, dev->tune.nentpt, dev->tune.nparts, dev->tune.qchunk, dev->tune.jacShared ? "yes" : "no"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  if (op->strategy == FEG_STRATEGY_ADDTO) {
    if (dev->coo) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: MatSetValuesCOO of device element matrices\n"));
    else if (dev->colorOff) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: coloured, %" PetscInt_FMT " colours, no atomics\n", dev->ncolors));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: atomics into the CSR values\n"));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "GPU %s: element-interleaved %s, scatter by %s%s\n", op->strategy == FEG_STRATEGY_MATFREE ? "matfree" : "lma", op->strategy == FEG_STRATEGY_MATFREE ? "quadrature-point tensors" : "matrices", dev->tlist ? "transpose gather" : "atomics", dev->direct ? ", no global-to-local copies (one process, no constraints)" : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU memory: %.4g MB\n", bytes / 1048576.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDevAssemble_Shell(FEGOp op)
{
  FEGOpDevice  *dev = (FEGOpDevice *)op->dev;
  FEGDevCoeff   c;
  FEGDevOutput  o  = {FEG_DEV_OUT_LMA, NULL, NULL, NULL};
  const PetscBool mf = (PetscBool)(op->strategy == FEG_STRATEGY_MATFREE);
  const int     Nd = dev->d.dim + 1;

  PetscFunctionBegin;
  if (mf && !dev->Cq) PetscCall(FEGDevMallocCopy((void **)&dev->Cq, NULL, sizeof(double) * dev->d.Ne * dev->d.Nq * Nd * Nd, NULL));
  if (!mf && !dev->Ke) PetscCall(FEGDevMallocCopy((void **)&dev->Ke, NULL, sizeof(double) * dev->d.Ne * dev->d.Nb * dev->d.Nb, NULL));
  if (op->lmaScatter == FEG_LMA_SCATTER_GATHER && !dev->tlist) {
    PetscCall(FEGDevTransposeMap(&dev->d, (int)op->disc.nlocal, &dev->toff, &dev->tlist));
    PetscCall(FEGDevMallocCopy((void **)&dev->ybuf, NULL, sizeof(double) * dev->d.Ne * dev->d.Nb, NULL));
  }
  o.vals = dev->Ke;
  PetscCall(FEGDevCoeffPrepare(&op->disc, op->form, &dev->cc, &c));
  PetscCall(PetscLogGpuTimeBegin());
  if (mf) PetscCall(FEGDevMatFreeSetUp(&dev->d, &c, dev->Cq));
  else PetscCall(FEGDevElementMatrices(&dev->d, &c, NULL, dev->d.Ne, &o, &dev->tune));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevCoeffRelease(op->form, &dev->cc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y (+)= A x or A^T x with everything on the device */
PetscErrorCode FEGOpDevApply_Shell(FEGOp op, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  FEGOpDevice       *dev = (FEGOpDevice *)op->dev;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (dev->direct) {
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    if (add) PetscCall(VecCUDAGetArray(y, &ya));
    else {
      PetscCall(VecCUDAGetArrayWrite(y, &ya));
      PetscCall(FEGDevZero(ya, op->disc.nglobal));
    }
  } else {
    PetscCall(VecZeroEntries(op->xl));
    PetscCall(DMGlobalToLocal(op->dm, x, INSERT_VALUES, op->xl));
    PetscCall(VecCUDAGetArrayRead(op->xl, &xa));
    PetscCall(VecCUDAGetArrayWrite(op->yl, &ya));
    PetscCall(FEGDevZero(ya, op->disc.nlocal));
  }
  PetscCall(PetscLogGpuTimeBegin());
  if (op->strategy == FEG_STRATEGY_MATFREE) PetscCall(FEGDevMatFreeApply(&dev->d, dev->Cq, xa, ya, transpose ? 1 : 0, 0, (int)op->disc.nlocal, dev->toff, dev->tlist, dev->ybuf));
  else PetscCall(FEGDevLMAApply(&dev->d, dev->Ke, xa, ya, transpose ? 1 : 0, (int)op->disc.nlocal, dev->toff, dev->tlist, dev->ybuf));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(op->strategy == FEG_STRATEGY_MATFREE ? (PetscLogDouble)op->disc.Ne * op->disc.Nq * (4.0 * op->disc.Nb * dev->d.dim + 4.0 * op->disc.Nb + 2.0 * (dev->d.dim + 1) * (dev->d.dim + 1)) : 2.0 * op->disc.Ne * op->disc.Nb * op->disc.Nb));
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
  if (op->strategy == FEG_STRATEGY_MATFREE) PetscCall(FEGDevMatFreeApply(&dev->d, dev->Cq, NULL, ya, 0, 1, (int)op->disc.nlocal, NULL, NULL, NULL));
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
  PetscCall(FEGDevDiscCreate(disc, &d));
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
