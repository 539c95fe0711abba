/* What every operator type does the same way on the device: its discretization, coefficients and scatter map, and the
   vector handling around a kernel (global or local arrays, zeroing, summing across processes) */
#include <fegpu/private/fegcudaimpl.h>

PETSC_INTERN PetscErrorCode FEGComputeRHS_CUDA(FEGDisc *, FEGForm, Vec);

/* integration: the type computes element matrices (addto, lma); scatter gather: build the dof -> entry map */
PetscErrorCode FEGDevOpSetUp(FEGOp op, PetscBool integration, const FEGTuning *t, FEGScatter scatter, FEGDevOp *dev)
{
  FEGDisc       *disc = op->disc;
  PetscMPIInt    size;
  PetscLogDouble t0 = 0.0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(dev, sizeof(*dev)));
  PetscCall(FEGPhaseBegin(FEG_SetupDevice, (PetscObject)op, &t0));
  PetscCall(FEGDevDiscCreate(disc, integration, &dev->d));
  PetscCall(FEGPhaseEnd(FEG_SetupDevice, (PetscObject)op, t0, &op->tdevice));
  if (t) {
    dev->tune.kernel    = (int)t->kernel;
    dev->tune.blockSize = (int)t->blockSize;
    dev->tune.nentpt    = (int)t->nentpt;
    dev->tune.qchunk    = (int)t->qchunk;
    dev->tune.jacShared = t->jacShared ? 1 : 0;
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)op), &size));
  if (size == 1 && disc->nlocal == disc->nglobal) {
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
    const PetscInt Ne = disc->Ne, Nb = disc->Nb;
    PetscInt      *cnt;

    PetscCall(PetscCalloc1(disc->nlocal + 1, &cnt));
    dev->unique = dev->contig = PETSC_TRUE;
    for (PetscInt k = 0; k < Ne * Nb; k++) {
      if (++cnt[disc->lidx[k]] > 1) dev->unique = PETSC_FALSE;
      if (disc->lidx[k] != k) dev->contig = PETSC_FALSE;
    }
    dev->covering = (PetscBool)(dev->unique && Ne * Nb == disc->nlocal);
    PetscCall(PetscFree(cnt));
  }
  if (scatter == FEG_SCATTER_GATHER) {
    PetscCall(FEGDevTransposeMap(&dev->d, (int)disc->nlocal, &dev->toff, &dev->tlist));
    PetscCall(FEGDevMallocCopy((void **)&dev->ybuf, NULL, sizeof(double) * dev->d.Ne * dev->d.Nb, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevOpDestroy(FEGDevOp *dev)
{
  PetscFunctionBegin;
  PetscCall(FEGDevDiscDestroy(&dev->d));
  PetscCall(FEGDevCoeffCacheDestroy(&dev->cc));
  FEGDevFree(dev->toff);
  FEGDevFree(dev->tlist);
  FEGDevFree(dev->ybuf);
  PetscFunctionReturn(PETSC_SUCCESS);
}

size_t FEGDevOpBytes(const FEGDevOp *dev)
{
  return dev->d.bytes + (dev->tlist ? (size_t)dev->d.Ne * dev->d.Nb * (sizeof(int) + sizeof(double)) : 0);
}

PetscErrorCode FEGDevOpApply(FEGOp op, FEGDevOp *dev, FEGDevApplyFn kernel, PetscLogDouble flops, PetscBool mayOverwrite, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  /* element-owned dofs covering the vector (DG on one process): the kernel stores instead of adding */
  const PetscBool overwrite = (PetscBool)(mayOverwrite && dev->direct && dev->covering && !add);
  Vec             xl, yl;

  PetscFunctionBegin;
  if (dev->direct) {
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    if (add) PetscCall(VecCUDAGetArray(y, &ya));
    else {
      PetscCall(VecCUDAGetArrayWrite(y, &ya));
      if (!overwrite) PetscCall(FEGDevZero(ya, op->disc->nglobal));
    }
  } else {
    PetscCall(FEGOpGetLocalVectors(op, &xl, &yl));
    PetscCall(VecZeroEntries(xl));
    PetscCall(DMGlobalToLocal(op->dm, x, INSERT_VALUES, xl));
    PetscCall(VecCUDAGetArrayRead(xl, &xa));
    PetscCall(VecCUDAGetArrayWrite(yl, &ya));
    PetscCall(FEGDevZero(ya, op->disc->nlocal));
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall((*kernel)(op, xa, ya, transpose, overwrite));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  if (dev->direct) {
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    if (add) PetscCall(VecCUDARestoreArray(y, &ya));
    else PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  } else {
    PetscCall(VecCUDARestoreArrayRead(xl, &xa));
    PetscCall(VecCUDARestoreArrayWrite(yl, &ya));
    if (!add) PetscCall(VecZeroEntries(y));
    PetscCall(DMLocalToGlobal(op->dm, yl, ADD_VALUES, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevOpDiagonal(FEGOp op, FEGDevOp *dev, FEGDevDiagFn kernel, Vec diag)
{
  PetscScalar *ya;
  Vec          yl;

  PetscFunctionBegin;
  PetscCall(FEGOpGetLocalVectors(op, NULL, &yl));
  PetscCall(VecCUDAGetArrayWrite(yl, &ya));
  PetscCall(FEGDevZero(ya, op->disc->nlocal));
  PetscCall((*kernel)(op, ya));
  PetscCall(VecCUDARestoreArrayWrite(yl, &ya));
  PetscCall(VecZeroEntries(diag));
  PetscCall(DMLocalToGlobal(op->dm, yl, ADD_VALUES, diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the geometry points and the integration kernel the element matrices used */
PetscErrorCode FEGDevOpView(FEGOp op, FEGDevOp *dev, PetscViewer viewer)
{
  const FEGDevTuning *t = &dev->tune;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU: geometry at %d point(s) per element", dev->d.nG));
  if (t->used) PetscCall(PetscViewerASCIIPrintf(viewer, ", integration kernel: %s", t->used == 1 ? "one element per thread" : (t->used == 2 ? "one element per thread block" : "GEMM over reference tables (cuBLAS)")));
  if (t->used == 3) PetscCall(PetscViewerASCIIPrintf(viewer, " (%s, %d elements per GEMM chunk)", dev->d.P ? "K = Chat P, P the products of reference derivatives" : "K = R^T U", t->nparts));
  if (t->used == 2) PetscCall(PetscViewerASCIIPrintf(viewer, " (block size %d, NENTPT %d, NR_PARTS %d, quadrature chunk %d, Jacobian data in shared memory: %s)", t->blockSize, t->nentpt, t->nparts, t->qchunk, t->jacShared ? "yes" : "no"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  {
    PetscMPIInt rank;
    int         id, n;
    char        bus[32], host[128];

    /* which GPU each process drives: one per process is what scales (share/fegpu/gpu-bind) */
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)op), &rank));
    PetscCallCUDA(cudaGetDevice(&id));
    PetscCallCUDA(cudaGetDeviceCount(&n));
    PetscCallCUDA(cudaDeviceGetPCIBusId(bus, sizeof(bus), id));
    PetscCall(PetscGetHostName(host, sizeof(host)));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] GPU %d of %d visible on %s (PCI %s)\n", (int)rank, id, n, host, bus));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What right-hand sides keep on the device between calls: the discretization with its integration tables, the
   coefficient cache, and for -feg_rhs_scatter gather the dof -> entry map and the per-entry buffer */
typedef struct {
  FEGDevDisc       d;
  FEGDevCoeffCache cc;
  int             *toff, *tlist;
  double          *ybuf;
} FEGDevRHS;

static PetscErrorCode FEGDevRHSDestroy(void **ctx)
{
  FEGDevRHS *r = (FEGDevRHS *)*ctx;

  PetscFunctionBegin;
  if (!r) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDevCoeffCacheDestroy(&r->cc));
  PetscCall(FEGDevDiscDestroy(&r->d));
  PetscCallCUDA(cudaFree(r->toff));
  PetscCallCUDA(cudaFree(r->tlist));
  PetscCallCUDA(cudaFree(r->ybuf));
  PetscCall(PetscFree(*ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b(v) - a(g, v) on the device, the lifting fused into the element vectors; the device data is made on the first call
   and kept with the shared discretization. -feg_rhs_scatter gather (with the form's prefix) sums each dof's entries in
   a fixed order, so the vector is the same bit for bit from run to run; atomic (the default) is faster. */
PetscErrorCode FEGComputeRHS_CUDA(FEGDisc *disc, FEGForm form, Vec b)
{
  DM                 dm = disc->dm;
  FEGDevRHS         *r  = (FEGDevRHS *)disc->rhsdev;
  FEGDevCoeff        c;
  FEGScatter         scatter = FEG_SCATTER_ATOMIC;
  const char        *prefix;
  Vec                bl, gl;
  PetscScalar       *y;
  const PetscScalar *gd = NULL;
  PetscBool          lift;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)form, &prefix));
  PetscCall(PetscOptionsGetEnum(NULL, prefix, "-feg_rhs_scatter", FEGScatters, (PetscEnum *)&scatter, NULL));
  if (!r) {
    PetscCall(PetscNew(&r));
    disc->rhsdev        = r;
    disc->rhsdevdestroy = FEGDevRHSDestroy;
    PetscCall(PetscLogEventBegin(FEG_SetupDevice, dm, 0, 0, 0));
    PetscCall(FEGDevDiscCreate(disc, PETSC_TRUE, &r->d));
    PetscCall(PetscLogEventEnd(FEG_SetupDevice, dm, 0, 0, 0));
  }
  if (scatter == FEG_SCATTER_GATHER && !r->ybuf) {
    PetscCall(PetscLogEventBegin(FEG_SetupDevice, dm, 0, 0, 0));
    PetscCall(FEGDevTransposeMap(&r->d, (int)disc->nlocal, &r->toff, &r->tlist));
    PetscCall(FEGDevMallocCopy((void **)&r->ybuf, NULL, sizeof(double) * disc->Ne * disc->Nb, NULL));
    PetscCall(PetscLogEventEnd(FEG_SetupDevice, dm, 0, 0, 0));
  }
  PetscCall(FEGDevCoeffPrepare(disc, form, &r->cc, &c));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(DMGetLocalVector(dm, &gl));
  PetscCall(FEGDiscBoundaryValues(disc, gl, &lift, NULL, NULL));
  PetscCall(VecCUDAGetArrayWrite(bl, &y));
  PetscCall(FEGDevZero(y, disc->nlocal));
  if (lift) PetscCall(VecCUDAGetArrayRead(gl, &gd));
  PetscCall(FEGDevElementVectors(&r->d, &c, gd, y, scatter == FEG_SCATTER_GATHER ? r->ybuf : NULL));
  if (scatter == FEG_SCATTER_GATHER) PetscCall(FEGDevGather((int)disc->nlocal, r->toff, r->tlist, r->ybuf, y));
  if (lift) PetscCall(VecCUDARestoreArrayRead(gl, &gd));
  PetscCall(VecCUDARestoreArrayWrite(bl, &y));
  PetscCall(FEGDevCoeffRelease(form, &r->cc));
  PetscCall(VecZeroEntries(b));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscCall(DMRestoreLocalVector(dm, &gl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
