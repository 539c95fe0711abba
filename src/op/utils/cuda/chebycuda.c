/* Chebyshev steps on the GPU (FEGCreateChebyshevInverse()): the matrix's device CSR arrays and the Vec arrays around
   the launcher (cheby.cu) */
#include <fegpu/private/fegcudaimpl.h>

PETSC_INTERN PetscErrorCode FEGChebyApply_CUDA(FEGCheby *, Vec, Vec);

typedef struct {
  double *r, *d0, *d1;
} FEGChebyWork;

static PetscErrorCode FEGChebyWorkDestroy(void **ctx)
{
  FEGChebyWork *w = (FEGChebyWork *)*ctx;

  PetscFunctionBegin;
  if (!w) PetscFunctionReturn(PETSC_SUCCESS);
  FEGDevFree(w->r);
  FEGDevFree(w->d0);
  FEGDevFree(w->d1);
  PetscCall(PetscFree(w));
  *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGChebyApply_CUDA(FEGCheby *c, Vec b, Vec x)
{
  FEGDevCheby        d;
  FEGChebyWork      *w;
  const PetscScalar *ba, *di, *a;
  PetscScalar       *xa;
  const int         *ia, *ja;
  PetscInt           n;
  PetscBool          cusparse;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)c->A, MATSEQAIJCUSPARSE, &cusparse));
  PetscCheck(cusparse, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "CUDA vectors need the matrix on the GPU (MATSEQAIJCUSPARSE), not a %s", ((PetscObject)c->A)->type_name);
  PetscCall(VecGetLocalSize(x, &n));
  PetscCheck(n < PETSC_MAX_INT / 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "The GPU Chebyshev steps index with 32-bit integers: %" PetscInt_FMT " rows are too many", n);
  if (!c->dev) {
    PetscCall(PetscNew(&w));
    PetscCall(FEGDevMallocCopy((void **)&w->r, NULL, sizeof(double) * n, NULL));
    PetscCall(FEGDevMallocCopy((void **)&w->d0, NULL, sizeof(double) * n, NULL));
    PetscCall(FEGDevMallocCopy((void **)&w->d1, NULL, sizeof(double) * n, NULL));
    c->dev        = w;
    c->devdestroy = FEGChebyWorkDestroy;
  }
  w = (FEGChebyWork *)c->dev;
  PetscCall(MatSeqAIJCUSPARSEGetIJ(c->A, PETSC_FALSE, &ia, &ja));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(c->A, &a));
  PetscCall(VecCUDAGetArrayRead(b, &ba));
  PetscCall(VecCUDAGetArrayRead(c->dinv, &di));
  PetscCall(VecCUDAGetArrayWrite(x, &xa));
  d.n    = (int)n;
  d.ia   = ia;
  d.ja   = ja;
  d.a    = a;
  d.dinv = di;
  d.r    = w->r;
  d.d0   = w->d0;
  d.d1   = w->d1;
  /* threads per row: about half a row's entries, a power of two up to a warp */
  d.lanes = 1;
  while (d.lanes < 32 && 2 * d.lanes * n < c->nnz) d.lanes *= 2;
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(FEGDevChebyApply(&d, ba, xa, (int)c->its, c->theta, c->c1, c->c2));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(c->flops));
  PetscCall(VecCUDARestoreArrayWrite(x, &xa));
  PetscCall(VecCUDARestoreArrayRead(c->dinv, &di));
  PetscCall(VecCUDARestoreArrayRead(b, &ba));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(c->A, &a));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(c->A, PETSC_FALSE, &ia, &ja));
  PetscFunctionReturn(PETSC_SUCCESS);
}
