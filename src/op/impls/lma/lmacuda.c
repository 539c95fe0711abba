/* lma on the GPU: element matrices integrated on the device and kept element-interleaved there; MatMult, its transpose
   and the diagonal by the kernels of lma.cu */
#include "lma.h"
#include "lmacuda.h"
#include <fegpu/private/fegcudaimpl.h>

typedef struct {
  FEGDevOp  base;
  FEGDevLMA k;       /* what the kernels take: sizes, indices, element matrices, tiles */
  int      *gidx;    /* with atomic adds: global indices with codes (base.gindex), which k.idx then is; else NULL */
  PetscBool gshared; /* gidx is the discretization's (one process), not this operator's */
} FEGOp_LMA_CUDA;

/* entries and bytes of the stored element matrices */
static size_t FEGLMAEntries(const FEGOp_LMA_CUDA *dev)
{
  const size_t Nb = (size_t)dev->k.Nb;

  return (size_t)dev->k.Ne * (dev->k.sym ? Nb * (Nb + 1) / 2 : Nb * Nb);
}

static size_t FEGLMABytes(const FEGOp_LMA_CUDA *dev)
{
  return FEGLMAEntries(dev) * (dev->k.single ? sizeof(float) : sizeof(double));
}

static FEGOp_LMA_CUDA *FEGLMADev(FEGOp op)
{
  return (FEGOp_LMA_CUDA *)((FEGOp_LMA *)op->data)->dev;
}

/* tiles of FEG_LMA_TILE elements at the sizes with their kernels (atomic adds only: the transpose gather sums per dof
   already), cut at the element ranges the overlapped apply launches (dev->base.nfirst, nint) so each range is whole
   tiles. By default on P1 tetrahedra alone (FEGLMATilesDefault()): elsewhere the latency between the tile kernel's
   phases costs as much as the gathers it saves */
static PetscErrorCode FEGLMATilesSetUp(FEGOp op, FEGOp_LMA *lma, FEGOp_LMA_CUDA *dev)
{
  const int Ne = dev->base.d.Ne;
  int       cut[4], ncut = 0, ntiles = 0, *start;

  PetscFunctionBegin;
  if (lma->tilesset ? !lma->tiles : !FEGLMATilesDefault(op->disc)) PetscFunctionReturn(PETSC_SUCCESS);
  if (!FEGDevSmallNb(dev->base.d.Nb) || !Ne) PetscFunctionReturn(PETSC_SUCCESS);
  cut[ncut++] = 0;
  if (dev->base.overlap) {
    if (dev->base.nfirst > 0 && dev->base.nfirst < Ne) cut[ncut++] = (int)dev->base.nfirst;
    if (dev->base.nint > dev->base.nfirst && dev->base.nint < Ne) cut[ncut++] = (int)dev->base.nint;
  }
  cut[ncut] = Ne;
  for (int k = 0; k < ncut; k++) ntiles += (cut[k + 1] - cut[k] + FEG_LMA_TILE - 1) / FEG_LMA_TILE;
  PetscCall(PetscMalloc1(ntiles + 1, &start));
  ntiles = 0;
  for (int k = 0; k < ncut; k++)
    for (int e = cut[k]; e < cut[k + 1]; e += FEG_LMA_TILE) start[ntiles++] = e;
  start[ntiles] = Ne;
  PetscCall(FEGDevLMATilesCreate(&dev->k, ntiles, start));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGLMATilesDestroy(FEGLMATiles *tl)
{
  PetscFunctionBegin;
  FEGDevFree(tl->start);
  FEGDevFree(tl->off);
  FEGDevFree(tl->dof);
  FEGDevFree(tl->end);
  FEGDevFree(tl->lidx);
  FEGDevFree(tl->perm);
  PetscCall(PetscFree(tl->hstart));
  tl->ntiles = 0;
  tl->bytes  = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpSetUp_LMA_CUDA(FEGOp op)
{
  FEGOp_LMA      *lma = (FEGOp_LMA *)op->data;
  FEGOp_LMA_CUDA *dev;
  PetscBool       sym;

  PetscFunctionBegin;
  PetscCall(PetscNew(&dev));
  lma->dev = dev;
  PetscCall(FEGDevOpSetUp(op, PETSC_TRUE, &lma->tuning, lma->scatter, &dev->base));
  /* with atomic adds, global indices (-1: constrained; on several processes < -1: the halo's ghost buffers): no copies
     into and out of a local vector around the kernel, as sum factorisation */
  PetscCall(FEGDevOpTableGlobalIndices(op, &dev->base, &dev->gidx, &dev->gshared));
  dev->k.Ne     = dev->base.d.Ne;
  dev->k.Nb     = dev->base.d.Nb;
  dev->k.idx    = dev->gidx ? dev->gidx : dev->base.d.idx;
  dev->k.single = op->precision == FEG_PRECISION_SINGLE;
  /* a symmetric form's element matrices are symmetric: at the sizes with their kernels half of each is enough */
  PetscCall(FEGFormIsSymmetric(op->form, &sym));
  dev->k.sym = lma->symmetric && sym && FEGLMASymmetricSize(dev->k.Nb, dev->k.single);
  PetscCall(FEGDevMallocCopy(&dev->k.Ke, NULL, FEGLMABytes(dev), NULL));
  if (!dev->base.tlist) PetscCall(FEGLMATilesSetUp(op, lma, dev));
  op->stores = "element matrices on the GPU";
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAssemble_LMA_CUDA(FEGOp op, Mat A)
{
  FEGOp_LMA_CUDA *dev = FEGLMADev(op);
  FEGDevCoeff     c;
  FEGDevOutput    o = {FEG_DEV_OUT_LMA, NULL, NULL};

  PetscFunctionBegin;
  if (dev->k.single) {
    o.out   = FEG_DEV_OUT_LMA_SINGLE;
    o.valsf = (float *)dev->k.Ke;
  } else {
    o.vals    = (double *)dev->k.Ke;
    o.grouped = FEGLMADoubleGrouped(dev->k.Nb);
  }
  o.sym = dev->k.sym;
  PetscCall(PetscLogEventBegin(FEG_Integrate, op, 0, 0, 0));
  PetscCall(FEGDevCoeffPrepare(op->disc, op->form, &dev->base.cc, &c));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(FEGDevElementMatrices(&dev->base.d, &c, NULL, dev->base.d.Ne, &o, &dev->base.tune));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevCoeffRelease(op->form, &dev->base.cc));
  PetscCall(PetscLogEventEnd(FEG_Integrate, op, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGLMAKernel(FEGOp op, const FEGDevLaunch *L)
{
  PetscFunctionBegin;
  PetscCall(FEGDevLMAApply(&FEGLMADev(op)->k, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApply_LMA_CUDA(FEGOp op, Vec x, Vec y, PetscBool add)
{
  FEGOp_LMA_CUDA *dev = FEGLMADev(op);

  PetscFunctionBegin;
  PetscCall(FEGDevOpApply(op, &dev->base, FEGLMAKernel, 2.0 * op->disc->Ne * op->disc->Nb * op->disc->Nb, PETSC_FALSE, x, y, PETSC_FALSE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApplyTranspose_LMA_CUDA(FEGOp op, Vec x, Vec y, PetscBool add)
{
  FEGOp_LMA_CUDA *dev = FEGLMADev(op);

  PetscFunctionBegin;
  PetscCall(FEGDevOpApply(op, &dev->base, FEGLMAKernel, 2.0 * op->disc->Ne * op->disc->Nb * op->disc->Nb, PETSC_FALSE, x, y, PETSC_TRUE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpGetDiagonal_LMA_CUDA(FEGOp op, Vec d)
{
  PetscFunctionBegin;
  PetscCall(FEGDevOpDiagonal(op, &FEGLMADev(op)->base, FEGLMAKernel, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device element matrices, in their interleaved order, into an AIJCUSPARSE matrix (single ones widened to double,
   grouped ones ungrouped, packed ones unpacked, in a temporary for MatSetValuesCOO()) */
static PetscErrorCode FEGOpAssembleValues_LMA_CUDA(FEGOp op, Mat *P)
{
  FEGOp_LMA_CUDA *dev  = FEGLMADev(op);
  double         *K    = (double *)dev->k.Ke;
  const PetscBool copy = (PetscBool)(dev->k.single || dev->k.sym || FEGLMADoubleGrouped(dev->k.Nb));

  PetscFunctionBegin;
  if (copy) {
    const size_t n = (size_t)dev->base.d.Ne * dev->base.d.Nb * dev->base.d.Nb;

    PetscCall(FEGDevMallocCopy((void **)&K, NULL, n * sizeof(double), NULL));
    PetscCall(FEGDevLMAWiden(&dev->k, K));
  }
  PetscCall(FEGOpAssembleValues_LMA_Private(op, MATAIJCUSPARSE, PETSC_TRUE, K, P));
  if (copy) FEGDevFree(K);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApplyBytes_LMA_CUDA(FEGOp op, PetscLogDouble *bytes)
{
  FEGOp_LMA_CUDA *dev = FEGLMADev(op);

  PetscFunctionBegin;
  /* the tiles' arrays are read once per product in place of the element indices */
  *bytes = (PetscLogDouble)FEGLMABytes(dev) + (dev->k.tiles.ntiles ? (PetscLogDouble)dev->k.tiles.bytes : (PetscLogDouble)dev->base.d.Ne * dev->base.d.Nb * sizeof(int));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpView_LMA_CUDA(FEGOp op, PetscViewer viewer)
{
  FEGOp_LMA_CUDA *dev = FEGLMADev(op);

  PetscFunctionBegin;
  PetscCall(FEGDevOpView(op, &dev->base, viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU lma: element-interleaved matrices in %s precision%s, scatter by %s%s\n", dev->k.single ? "single" : "double", dev->k.sym ? " (symmetric: upper triangles only)" : "",
                                   dev->base.tlist ? "transpose gather" : (dev->k.tiles.ntiles ? "atomics per tile of elements (shared-memory gathers and sums)" : "atomics"), dev->base.direct ? ", no global-to-local copies (one process, no constraints)" : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU memory: %.4g MB\n",
                                   ((PetscLogDouble)FEGDevOpBytes(&dev->base) + (PetscLogDouble)FEGLMABytes(dev) + (dev->gidx ? (PetscLogDouble)dev->base.d.Ne * dev->base.d.Nb * sizeof(int) : 0.0) + (PetscLogDouble)dev->k.tiles.bytes) / 1048576.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpDestroy_LMA_CUDA(FEGOp op)
{
  FEGOp_LMA      *lma = (FEGOp_LMA *)op->data;
  FEGOp_LMA_CUDA *dev = (FEGOp_LMA_CUDA *)lma->dev;

  PetscFunctionBegin;
  if (dev) {
    PetscCall(FEGDevOpDestroy(&dev->base));
    FEGDevFree(dev->k.Ke);
    if (!dev->gshared) FEGDevFree(dev->gidx);
    PetscCall(FEGLMATilesDestroy(&dev->k.tiles));
    PetscCall(PetscFree(lma->dev));
  }
  PetscCall(FEGOpDestroy_LMA(op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* installs lma's GPU ops table (FEGOpRegisterDevice()) */
PetscErrorCode FEGOpUseDevice_LMA(FEGOp op)
{
  PetscFunctionBegin;
  op->ops->setup          = FEGOpSetUp_LMA_CUDA;
  op->ops->assemble       = FEGOpAssemble_LMA_CUDA;
  op->ops->apply          = FEGOpApply_LMA_CUDA;
  op->ops->applytranspose = FEGOpApplyTranspose_LMA_CUDA;
  op->ops->getdiagonal    = FEGOpGetDiagonal_LMA_CUDA;
  op->ops->assemblevalues = FEGOpAssembleValues_LMA_CUDA;
  op->ops->view           = FEGOpView_LMA_CUDA;
  op->ops->applybytes     = FEGOpApplyBytes_LMA_CUDA;
  op->ops->destroy        = FEGOpDestroy_LMA_CUDA;
  op->backend             = "GPU";
  PetscFunctionReturn(PETSC_SUCCESS);
}
