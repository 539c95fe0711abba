/* Element-local operators on the host: gather each element's values, apply the element operator, scatter-add, and sum
   across processes with DMLocalToGlobal. lma, matfree and applications' types apply through these. */
#include <fegpu/private/fegopimpl.h>

#define FEG_HOST_MAXNB 1024

/*@C
  FEGOpGetLocalVectors - local work vectors of an element-local operator (created on first use, owned by the operator)

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGOpGetLocalVectors(FEGOp op, Vec *xl, Vec *yl)
{
  PetscFunctionBegin;
  if (!op->xl) PetscCall(DMCreateLocalVector(op->dm, &op->xl));
  if (!op->yl) PetscCall(DMCreateLocalVector(op->dm, &op->yl));
  if (xl) *xl = op->xl;
  if (yl) *yl = op->yl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpApplyElementLocal - y (+)= A x or A^T x with the element operator fn(op, e, xe, ye, transpose)

  Collective

  Level: developer
@*/
PetscErrorCode FEGOpApplyElementLocal(FEGOp op, FEGElemApplyFn fn, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  FEGDisc           *d = op->disc;
  const PetscScalar *xa;
  PetscScalar       *ya, xe[FEG_HOST_MAXNB], ye[FEG_HOST_MAXNB];
  Vec                xl, yl;

  PetscFunctionBegin;
  PetscCheck(d->Nb <= FEG_HOST_MAXNB, PETSC_COMM_SELF, PETSC_ERR_SUP, "Element with %" PetscInt_FMT " dofs exceeds the host shell's %d", d->Nb, FEG_HOST_MAXNB);
  PetscCall(FEGOpGetLocalVectors(op, &xl, &yl));
  PetscCall(VecZeroEntries(xl));
  PetscCall(DMGlobalToLocal(op->dm, x, INSERT_VALUES, xl));
  PetscCall(VecZeroEntries(yl));
  PetscCall(VecGetArrayRead(xl, &xa));
  PetscCall(VecGetArray(yl, &ya));
  for (PetscInt e = 0; e < d->Ne; e++) {
    const PetscInt Nb = d->Nb, *idx = &d->lidx[e * Nb];

    for (PetscInt b = 0; b < Nb; b++) xe[b] = xa[idx[b]];
    PetscCall((*fn)(op, e, xe, ye, transpose));
    for (PetscInt a = 0; a < Nb; a++) ya[idx[a]] += ye[a];
  }
  PetscCall(VecRestoreArray(yl, &ya));
  PetscCall(VecRestoreArrayRead(xl, &xa));
  if (!add) PetscCall(VecZeroEntries(y));
  PetscCall(DMLocalToGlobal(op->dm, yl, ADD_VALUES, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpDiagonalElementLocal - the diagonal from the element diagonals fn(op, e, de)

  Collective

  Level: developer
@*/
PetscErrorCode FEGOpDiagonalElementLocal(FEGOp op, FEGElemDiagFn fn, Vec diag)
{
  FEGDisc     *d = op->disc;
  PetscScalar *ya, de[FEG_HOST_MAXNB];
  Vec          yl;

  PetscFunctionBegin;
  PetscCheck(d->Nb <= FEG_HOST_MAXNB, PETSC_COMM_SELF, PETSC_ERR_SUP, "Element with %" PetscInt_FMT " dofs exceeds the host shell's %d", d->Nb, FEG_HOST_MAXNB);
  PetscCall(FEGOpGetLocalVectors(op, NULL, &yl));
  PetscCall(VecZeroEntries(yl));
  PetscCall(VecGetArray(yl, &ya));
  for (PetscInt e = 0; e < d->Ne; e++) {
    const PetscInt *idx = &d->lidx[e * d->Nb];

    PetscCall((*fn)(op, e, de));
    for (PetscInt a = 0; a < d->Nb; a++) ya[idx[a]] += de[a];
  }
  PetscCall(VecRestoreArray(yl, &ya));
  PetscCall(VecZeroEntries(diag));
  PetscCall(DMLocalToGlobal(op->dm, yl, ADD_VALUES, diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}
