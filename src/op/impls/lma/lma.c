#include <fegpu/private/fegimpl.h>

/* Element-local shells (lma, and matfree on the host): y (+)= A x or A^T x by gathering each element's values,
   applying the element operator (op->elemApply), scattering-adding, then summing across processes with
   DMLocalToGlobal */
static PetscErrorCode FEGShellApply(Mat A, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  FEGOp              op;
  FEGDisc           *d;
  const PetscScalar *xa;
  PetscScalar       *ya, xe[1024], ye[1024];

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &op));
  d = &op->disc;
#if defined(FEGPU_HAVE_CUDA)
  if (op->ondevice) {
    PetscCall(PetscLogEventBegin(FEG_Apply, A, x, y, 0));
    PetscCall(FEGOpDevApply_Shell(op, x, y, transpose, add));
    PetscCall(PetscLogEventEnd(FEG_Apply, A, x, y, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCheck(d->Nb <= 1024, PETSC_COMM_SELF, PETSC_ERR_SUP, "Element with %" PetscInt_FMT " dofs exceeds the host shell's 1024", d->Nb);
  PetscCall(PetscLogEventBegin(FEG_Apply, A, x, y, 0));
  PetscCall(VecZeroEntries(op->xl));
  PetscCall(DMGlobalToLocal(op->dm, x, INSERT_VALUES, op->xl));
  PetscCall(VecZeroEntries(op->yl));
  PetscCall(VecGetArrayRead(op->xl, &xa));
  PetscCall(VecGetArray(op->yl, &ya));
  for (PetscInt e = 0; e < d->Ne; e++) {
    const PetscInt Nb = d->Nb, *idx = &d->lidx[e * Nb];

    for (PetscInt b = 0; b < Nb; b++) xe[b] = xa[idx[b]];
    PetscCall((*op->elemApply)(op, e, xe, ye, transpose));
    for (PetscInt a = 0; a < Nb; a++) ya[idx[a]] += ye[a];
  }
  PetscCall(VecRestoreArray(op->yl, &ya));
  PetscCall(VecRestoreArrayRead(op->xl, &xa));
  if (!add) PetscCall(VecZeroEntries(y));
  PetscCall(DMLocalToGlobal(op->dm, op->yl, ADD_VALUES, y));
  PetscCall(PetscLogEventEnd(FEG_Apply, A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_FEG_Shell(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(FEGShellApply(A, x, y, PETSC_FALSE, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_FEG_Shell(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(FEGShellApply(A, x, y, PETSC_TRUE, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_FEG_Shell(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  if (z != y) PetscCall(VecCopy(y, z));
  PetscCall(FEGShellApply(A, x, z, PETSC_FALSE, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_FEG_Shell(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  if (z != y) PetscCall(VecCopy(y, z));
  PetscCall(FEGShellApply(A, x, z, PETSC_TRUE, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_FEG_Shell(Mat A, Vec diag)
{
  FEGOp        op;
  FEGDisc     *d;
  PetscScalar *ya;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &op));
  d = &op->disc;
#if defined(FEGPU_HAVE_CUDA)
  if (op->ondevice) {
    PetscCall(FEGOpDevDiagonal_Shell(op, diag));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(VecZeroEntries(op->yl));
  PetscCall(VecGetArray(op->yl, &ya));
  for (PetscInt e = 0; e < d->Ne; e++) {
    const PetscInt Nb = d->Nb, *idx = &d->lidx[e * Nb];
    PetscScalar    de[1024];

    PetscCheck(Nb <= 1024, PETSC_COMM_SELF, PETSC_ERR_SUP, "Element with %" PetscInt_FMT " dofs exceeds the host shell's 1024", Nb);
    PetscCall((*op->elemDiag)(op, e, de));
    for (PetscInt a = 0; a < Nb; a++) ya[idx[a]] += de[a];
  }
  PetscCall(VecRestoreArray(op->yl, &ya));
  PetscCall(VecZeroEntries(diag));
  PetscCall(DMLocalToGlobal(op->dm, op->yl, ADD_VALUES, diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_FEG_Shell(Mat A, PetscViewer viewer)
{
  FEGOp     op;
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatShellGetContext(A, &op));
  PetscCall(FEGOpView(op, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpCreateShell(FEGOp op, Mat *A)
{
  FEGDisc *d = &op->disc;
  VecType  vtype;

  PetscFunctionBegin;
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)op->dm), d->nglobal, d->nglobal, PETSC_DETERMINE, PETSC_DETERMINE, op, A));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, FEGMatShellOp(MatMult_FEG_Shell)));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_ADD, FEGMatShellOp(MatMultAdd_FEG_Shell)));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, FEGMatShellOp(MatMultTranspose_FEG_Shell)));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE_ADD, FEGMatShellOp(MatMultTransposeAdd_FEG_Shell)));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, FEGMatShellOp(MatGetDiagonal_FEG_Shell)));
  PetscCall(MatShellSetOperation(*A, MATOP_VIEW, FEGMatShellOp(MatView_FEG_Shell)));
  PetscCall(DMGetVecType(op->dm, &vtype));
  PetscCall(MatSetVecType(*A, vtype));
  PetscCall(MatSetDM(*A, op->dm));
  PetscCall(DMCreateLocalVector(op->dm, &op->xl));
  PetscCall(DMCreateLocalVector(op->dm, &op->yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after the element data of a shell changed: its symmetry, and a new state so preconditioners built on it update */
PetscErrorCode FEGShellAssembled(FEGOp op, Mat A)
{
  PetscBool sym;

  PetscFunctionBegin;
  PetscCall(FEGFormIsSymmetric(op->form, &sym));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, sym));
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemApply_LMA(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const PetscInt     Nb = op->disc.Nb;
  const PetscScalar *K  = &op->Ke[(size_t)e * Nb * Nb];

  PetscFunctionBeginHot;
  if (!transpose) {
    for (PetscInt a = 0; a < Nb; a++) {
      PetscScalar s = 0.0;

      for (PetscInt b = 0; b < Nb; b++) s += K[a * Nb + b] * xe[b];
      ye[a] = s;
    }
  } else {
    for (PetscInt a = 0; a < Nb; a++) ye[a] = 0.0;
    for (PetscInt b = 0; b < Nb; b++)
      for (PetscInt a = 0; a < Nb; a++) ye[a] += K[b * Nb + a] * xe[b];
  }
  PetscCall(PetscLogFlops(2.0 * Nb * Nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemDiag_LMA(FEGOp op, PetscInt e, PetscScalar de[])
{
  const PetscInt     Nb = op->disc.Nb;
  const PetscScalar *K  = &op->Ke[(size_t)e * Nb * Nb];

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) de[a] = K[a * Nb + a];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpCreateMat_LMA(FEGOp op, Mat *A)
{
  FEGDisc *d = &op->disc;

  PetscFunctionBegin;
  PetscCall(FEGOpCreateShell(op, A));
  op->elemApply = FEGElemApply_LMA;
  op->elemDiag  = FEGElemDiag_LMA;
  if (!op->ondevice) PetscCall(PetscMalloc1((size_t)d->Ne * d->Nb * d->Nb, &op->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpAssemble_LMA(FEGOp op, Mat A)
{
  FEGDisc     *d = &op->disc;
  FEGCoeff     coeff;
  PetscScalar *work;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Integrate, A, 0, 0, 0));
  if (op->ondevice) {
#if defined(FEGPU_HAVE_CUDA)
    PetscCall(FEGOpDevAssemble_Shell(op));
#endif
  } else {
    PetscCall(FEGCoeffSetUp(d, op->form, &coeff));
    PetscCall(PetscMalloc1(2 * d->Nb * (d->dim + 1), &work));
    for (PetscInt e = 0; e < d->Ne; e++) {
      PetscCall(FEGCoeffEvaluate(d, &coeff, e));
      PetscCall(FEGIntegrateElementMatrix(d, &coeff, e, work, &op->Ke[(size_t)e * d->Nb * d->Nb]));
    }
    PetscCall(PetscFree(work));
    PetscCall(FEGCoeffDestroy(&coeff));
  }
  PetscCall(FEGShellAssembled(op, A));
  PetscCall(PetscLogEventEnd(FEG_Integrate, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
