/* The transfer between two orders of a polynomial hierarchy on the GPU: its data copied to the device on first use,
   and the Vec arrays around the launcher (interp.cu) */
#include <fegpu/private/fegcudaimpl.h>

PETSC_INTERN PetscErrorCode FEGInterpApply_CUDA(FEGInterp *, Vec, Vec, PetscBool);

static PetscErrorCode FEGDevInterpDestroy(void **ctx)
{
  FEGDevInterp *d = (FEGDevInterp *)*ctx;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  FEGDevFree(d->Pe);
  FEGDevFree(d->fidx);
  FEGDevFree(d->cidx);
  FEGDevFree(d->w);
  FEGDevFree(d->Ef);
  FEGDevFree(d->Ec);
  PetscCall(PetscFree(d));
  *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an index array as int on the device */
static PetscErrorCode FEGDevInterpIndices(PetscInt n, const PetscInt a[], int **d)
{
  int *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &t));
  for (PetscInt k = 0; k < n; k++) t[k] = (int)a[k];
  PetscCall(FEGDevMallocCopy((void **)d, t, sizeof(int) * n, NULL));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevInterpCreate(FEGInterp *ip)
{
  FEGDevInterp *d;
  double       *Pc;
  const size_t  work = (size_t)64 << 20; /* bytes of the chunk work arrays */

  PetscFunctionBegin;
  PetscCheck((PetscInt64)ip->Ne * PetscMax(ip->Nbf, ip->Nbc) < PETSC_MAX_INT && ip->nf < PETSC_MAX_INT && ip->nc < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "The GPU transfer indexes with 32-bit integers: %" PetscInt_FMT " elements of %" PetscInt_FMT " dofs are too many for one process", ip->Ne, ip->Nbf);
  PetscCall(PetscNew(&d));
  d->Ne    = (int)ip->Ne;
  d->Nbf   = (int)ip->Nbf;
  d->Nbc   = (int)ip->Nbc;
  d->chunk = (int)PetscMax(1, PetscMin(ip->Ne, (PetscInt)(work / (sizeof(double) * (ip->Nbf + ip->Nbc)))));
  PetscCall(PetscMalloc1(ip->Nbf * ip->Nbc, &Pc));
  for (PetscInt a = 0; a < ip->Nbf; a++)
    for (PetscInt b = 0; b < ip->Nbc; b++) Pc[a + b * ip->Nbf] = ip->Pe[a * ip->Nbc + b];
  PetscCall(FEGDevMallocCopy((void **)&d->Pe, Pc, sizeof(double) * ip->Nbf * ip->Nbc, NULL));
  PetscCall(PetscFree(Pc));
  PetscCall(FEGDevInterpIndices(ip->Ne * ip->Nbf, ip->fidx, &d->fidx));
  PetscCall(FEGDevInterpIndices(ip->Ne * ip->Nbc, ip->cidx, &d->cidx));
  PetscCall(FEGDevMallocCopy((void **)&d->w, ip->nf ? ip->w : NULL, sizeof(double) * ip->nf, NULL));
  PetscCall(FEGDevMallocCopy((void **)&d->Ef, NULL, sizeof(double) * d->chunk * ip->Nbf, NULL));
  PetscCall(FEGDevMallocCopy((void **)&d->Ec, NULL, sizeof(double) * d->chunk * ip->Nbc, NULL));
  ip->dev        = d;
  ip->devdestroy = FEGDevInterpDestroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGInterpApply_CUDA(FEGInterp *ip, Vec x, Vec y, PetscBool transpose)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscInt           ny;

  PetscFunctionBegin;
  if (!ip->dev) PetscCall(FEGDevInterpCreate(ip));
  PetscCall(VecGetLocalSize(y, &ny));
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(FEGDevInterpApply((FEGDevInterp *)ip->dev, xa, ya, (int)transpose, (int)ny));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(ip->flops));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}
