/* addto on the GPU: element matrices integrated on the device and added straight into the CSR values of an
   AIJCUSPARSE matrix at positions found once at setup (atomics, or element colours without atomics), or handed to
   PETSc's MatSetValuesCOO() (the only mode that reaches rows of other processes) */
#include "addto.h"
#include "addtocuda.h"
#include <fegpu/private/fegcudaimpl.h>

typedef struct {
  FEGDevOp     base;
  FEGAddtoMode mode; /* resolved: atomic, color or coo */
  int         *pos;  /* CSR position of every element entry, element-interleaved; -1 dropped (constrained) */
  int         *colorElems;
  PetscInt    *colorOff, ncolors;
  double      *coo; /* COO values, element by element */
  PetscInt     nnz;
} FEGOp_AddTo_CUDA;

static PetscErrorCode FEGOpSetUp_AddTo_CUDA(FEGOp op)
{
  FEGOp_AddTo      *a = (FEGOp_AddTo *)op->data;
  FEGOp_AddTo_CUDA *dev;
  PetscMPIInt       size;

  PetscFunctionBegin;
  PetscCall(PetscNew(&dev));
  a->dev = dev;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)op), &size));
  dev->mode = a->mode == FEG_ADDTO_AUTO ? (size > 1 ? FEG_ADDTO_COO : FEG_ADDTO_ATOMIC) : a->mode;
  PetscCheck(size == 1 || dev->mode == FEG_ADDTO_COO, PetscObjectComm((PetscObject)op), PETSC_ERR_SUP, "-feg_addto_mode %s works on one process; on %d processes the off-process contributions need -feg_addto_mode coo (the default)", FEGAddtoModes[dev->mode], (int)size);
  PetscCall(FEGDevOpSetUp(op, PETSC_TRUE, &a->tuning, FEG_SCATTER_ATOMIC, &dev->base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Greedy colouring: elements of one colour share no dof */
static PetscErrorCode FEGColorElements(FEGDisc *disc, PetscInt *ncolors, PetscInt **colorOff, int **elems)
{
  const PetscInt Ne = disc->Ne, Nb = disc->Nb;
  PetscInt      *doff, *delem, *cnt, *color, *mark, nc = 0;
  int           *order;

  PetscFunctionBegin;
  PetscCall(FEGDiscGetDofElements(disc, &doff, &delem));
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
  PetscCall(PetscCalloc1(nc, &cnt));
  PetscCall(PetscMalloc1(Ne, &order));
  for (PetscInt e = 0; e < Ne; e++) order[(*colorOff)[color[e]] + cnt[color[e]]++] = (int)e;
  PetscCall(FEGDevMallocCopy((void **)elems, order, sizeof(int) * Ne, NULL));
  *ncolors = nc;
  PetscCall(PetscFree(order));
  PetscCall(PetscFree2(color, mark));
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree2(doff, delem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJCUSPARSE (unless -dm_mat_type says otherwise) with its final pattern: MatSetPreallocationCOO() of the element
   entries (coo), or the pattern and the CSR position of every element entry from one sort on the device */
static PetscErrorCode FEGOpCreateMatrix_AddTo_CUDA(FEGOp op, Mat A)
{
  FEGOp_AddTo_CUDA *dev  = (FEGOp_AddTo_CUDA *)((FEGOp_AddTo *)op->data)->dev;
  FEGDisc          *disc = op->disc;
  const PetscInt    Ne = disc->Ne, Nb = disc->Nb;
  MatType           mtype;

  PetscFunctionBegin;
  PetscCall(FEGOpGetMatType(op, MATAIJCUSPARSE, &mtype));
  PetscCall(MatSetType(A, mtype));
  if (dev->mode == FEG_ADDTO_COO) {
    PetscCall(FEGOpPreallocateCOO(op, PETSC_FALSE, A));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
    PetscCall(FEGDevMallocCopy((void **)&dev->coo, NULL, sizeof(double) * Ne * Nb * Nb, NULL));
  } else {
    const PetscInt *gidx;
    const PetscInt *ia, *ja;
    PetscInt       *hia, *hja;
    PetscScalar    *va;
    PetscMemType    memtype;
    int            *dgidx, *drow, *dcol, nnz;
    const int       n  = (int)disc->nglobal;
    PetscLogDouble  t0 = 0.0;

    /* one process: global rows are the owned rows; the pattern and positions come from one sort on the device and
       only the CSR structure crosses to the host, which is where PETSc builds a matrix from it */
    PetscCall(FEGDiscGetGlobalIndices(disc, &gidx));
    PetscCall(FEGPhaseBegin(FEG_SetupPattern, (PetscObject)op, &t0));
    PetscCall(FEGDevInterleaveIndices(disc, gidx, NULL, &dgidx, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->pos, NULL, sizeof(int) * Ne * Nb * Nb, NULL));
    PetscCall(FEGDevCSRPattern((int)Ne, (int)Nb, n, dgidx, dev->pos, &drow, &dcol, &nnz));
    PetscCallCUDA(cudaFree(dgidx));
    PetscCall(PetscMalloc2(n + 1, &hia, PetscMax(nnz, 1), &hja));
    {
      int *h;

      PetscCall(PetscMalloc1(PetscMax(n + 1, nnz), &h));
      PetscCallCUDA(cudaMemcpy(h, drow, sizeof(int) * (n + 1), cudaMemcpyDeviceToHost));
      for (PetscInt i = 0; i <= n; i++) hia[i] = h[i];
      PetscCallCUDA(cudaMemcpy(h, dcol, sizeof(int) * nnz, cudaMemcpyDeviceToHost));
      for (PetscInt k = 0; k < nnz; k++) hja[k] = h[k];
      PetscCall(PetscFree(h));
    }
    PetscCallCUDA(cudaFree(drow));
    PetscCallCUDA(cudaFree(dcol));
    PetscCall(MatSeqAIJSetPreallocationCSR(A, hia, hja, NULL));
    PetscCall(PetscFree2(hia, hja));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
    PetscCall(MatSeqAIJGetCSRAndMemType(A, &ia, &ja, &va, &memtype));
    PetscCheck(PetscMemTypeDevice(memtype), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The addto matrix is not a device (AIJCUSPARSE) matrix: use -dm_mat_type aijcusparse or leave it unset");
    dev->nnz = nnz;
    PetscCall(FEGPhaseEnd(FEG_SetupPattern, (PetscObject)op, t0, &op->tpattern));
    if (dev->mode == FEG_ADDTO_COLOR) PetscCall(FEGColorElements(disc, &dev->ncolors, &dev->colorOff, &dev->colorElems));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAssemble_AddTo_CUDA(FEGOp op, Mat A)
{
  FEGOp_AddTo_CUDA *dev = (FEGOp_AddTo_CUDA *)((FEGOp_AddTo *)op->data)->dev;
  FEGDevDisc       *d   = &dev->base.d;
  FEGDevCoeff       c;

  PetscFunctionBegin;
  PetscCall(FEGDevCoeffPrepare(op->disc, op->form, &dev->base.cc, &c));
  if (dev->coo) {
    FEGDevOutput o = {FEG_DEV_OUT_COO, dev->coo, NULL};

    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(FEGDevElementMatrices(d, &c, NULL, d->Ne, &o, &dev->base.tune));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSetValuesCOO(A, dev->coo, INSERT_VALUES));
  } else {
    PetscScalar *va;

    PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(A, &va));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(FEGDevZero(va, dev->nnz));
    if (dev->colorOff) {
      FEGDevOutput o = {FEG_DEV_OUT_CSR_PLAIN, va, dev->pos};

      for (PetscInt k = 0; k < dev->ncolors; k++) PetscCall(FEGDevElementMatrices(d, &c, dev->colorElems + dev->colorOff[k], (int)(dev->colorOff[k + 1] - dev->colorOff[k]), &o, &dev->base.tune));
    } else {
      FEGDevOutput o = {FEG_DEV_OUT_CSR_ATOMIC, va, dev->pos};

      PetscCall(FEGDevElementMatrices(d, &c, NULL, d->Ne, &o, &dev->base.tune));
    }
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(A, &va));
  }
  PetscCall(FEGDevCoeffRelease(op->form, &dev->base.cc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpView_AddTo_CUDA(FEGOp op, PetscViewer viewer)
{
  FEGOp_AddTo_CUDA *dev   = (FEGOp_AddTo_CUDA *)((FEGOp_AddTo *)op->data)->dev;
  const FEGDevDisc *d     = &dev->base.d;
  PetscLogDouble    bytes = (PetscLogDouble)FEGDevOpBytes(&dev->base);

  PetscFunctionBegin;
  if (dev->pos) bytes += (PetscLogDouble)d->Ne * d->Nb * d->Nb * sizeof(int);
  if (dev->coo) bytes += (PetscLogDouble)d->Ne * d->Nb * d->Nb * sizeof(double);
  PetscCall(FEGDevOpView(op, &dev->base, viewer));
  if (dev->coo) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: MatSetValuesCOO of device element matrices\n"));
  else if (dev->colorOff) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: coloured, %" PetscInt_FMT " colours, no atomics\n", dev->ncolors));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: atomics into the CSR values\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU memory: %.4g MB (operator data; the matrix is PETSc's)\n", bytes / 1048576.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpDestroy_AddTo_CUDA(FEGOp op)
{
  FEGOp_AddTo      *a   = (FEGOp_AddTo *)op->data;
  FEGOp_AddTo_CUDA *dev = (FEGOp_AddTo_CUDA *)a->dev;

  PetscFunctionBegin;
  if (dev) {
    PetscCall(FEGDevOpDestroy(&dev->base));
    FEGDevFree(dev->pos);
    FEGDevFree(dev->colorElems);
    FEGDevFree(dev->coo);
    PetscCall(PetscFree(dev->colorOff));
    PetscCall(PetscFree(a->dev));
  }
  PetscCall(FEGOpDestroy_AddTo(op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* installs addto's GPU ops table (FEGOpRegisterDevice()) */
PetscErrorCode FEGOpUseDevice_AddTo(FEGOp op)
{
  PetscFunctionBegin;
  op->ops->setup        = FEGOpSetUp_AddTo_CUDA;
  op->ops->creatematrix = FEGOpCreateMatrix_AddTo_CUDA;
  op->ops->assemble     = FEGOpAssemble_AddTo_CUDA;
  op->ops->view         = FEGOpView_AddTo_CUDA;
  op->ops->destroy      = FEGOpDestroy_AddTo_CUDA;
  op->backend           = "GPU";
  PetscFunctionReturn(PETSC_SUCCESS);
}
