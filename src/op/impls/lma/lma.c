/* lma on the host: element matrices stored element by element, applied through the element-local shell */
#include "lma.h"

static PetscErrorCode FEGOpSetFromOptions_LMA(FEGOp op, PetscOptionItems *PetscOptionsObject)
{
  FEGOp_LMA *lma = (FEGOp_LMA *)op->data;
  PetscBool  set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "fegpu lma operator");
  PetscCall(FEGScatterSetFromOptions(PetscOptionsObject, &lma->scatter));
  PetscCall(PetscOptionsBool("-feg_lma_symmetric", "GPU lma: keep only the upper triangle of a symmetric form's element matrices (3-10, 15, 18, 20 in double, and 27 dofs)", "FEGOpSetFromOptions", lma->symmetric, &lma->symmetric, NULL));
  PetscCall(PetscOptionsBool("-feg_lma_tiles", "GPU lma with atomics, elements of 3-10 dofs: gather x and sum y per tile of 128 elements in shared memory (default: P1 tetrahedra only)", "FEGOpSetFromOptions", lma->tiles, &lma->tiles, &set));
  if (set) lma->tilesset = PETSC_TRUE;
  PetscCall(FEGTuningSetFromOptions(PetscOptionsObject, PetscObjectComm((PetscObject)op), &lma->tuning));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpSetUp_LMA(FEGOp op)
{
  FEGOp_LMA *lma = (FEGOp_LMA *)op->data;
  FEGDisc   *d   = op->disc;

  PetscFunctionBegin;
  if (op->precision == FEG_PRECISION_SINGLE) PetscCall(PetscMalloc1((size_t)d->Ne * d->Nb * d->Nb, &lma->Kf));
  else PetscCall(PetscMalloc1((size_t)d->Ne * d->Nb * d->Nb, &lma->Ke));
  op->bytes  = (PetscLogDouble)d->Ne * d->Nb * d->Nb * (lma->Kf ? sizeof(float) : sizeof(PetscScalar));
  op->stores = "element matrices";
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAssemble_LMA(FEGOp op, Mat A)
{
  FEGOp_LMA *lma = (FEGOp_LMA *)op->data;

  PetscFunctionBegin;
  if (lma->Kf) PetscCall(FEGOpElementMatricesSingle(op, lma->Kf));
  else PetscCall(FEGOpElementMatrices(op, lma->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* entry i of the stored element matrices, whichever precision they are kept in */
static inline PetscScalar FEGLMAEntry(const FEGOp_LMA *lma, size_t i)
{
  return lma->Kf ? (PetscScalar)lma->Kf[i] : lma->Ke[i];
}

static PetscErrorCode FEGElemApply_LMA(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const PetscInt   Nb  = op->disc->Nb;
  const FEGOp_LMA *lma = (FEGOp_LMA *)op->data;
  const size_t     K   = (size_t)e * Nb * Nb;

  PetscFunctionBeginHot;
  if (!transpose) {
    for (PetscInt a = 0; a < Nb; a++) {
      PetscScalar s = 0.0;

      for (PetscInt b = 0; b < Nb; b++) s += FEGLMAEntry(lma, K + a * Nb + b) * xe[b];
      ye[a] = s;
    }
  } else {
    for (PetscInt a = 0; a < Nb; a++) ye[a] = 0.0;
    for (PetscInt b = 0; b < Nb; b++)
      for (PetscInt a = 0; a < Nb; a++) ye[a] += FEGLMAEntry(lma, K + b * Nb + a) * xe[b];
  }
  PetscCall(PetscLogFlops(2.0 * Nb * Nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemDiag_LMA(FEGOp op, PetscInt e, PetscScalar de[])
{
  const PetscInt   Nb  = op->disc->Nb;
  const FEGOp_LMA *lma = (FEGOp_LMA *)op->data;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) de[a] = FEGLMAEntry(lma, ((size_t)e * Nb + a) * Nb + a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element matrices and one index per element dof */
static PetscErrorCode FEGOpApplyBytes_LMA(FEGOp op, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = op->bytes + (PetscLogDouble)op->disc->Ne * op->disc->Nb * sizeof(PetscInt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApply_LMA(FEGOp op, Vec x, Vec y, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(FEGOpApplyElementLocal(op, FEGElemApply_LMA, x, y, PETSC_FALSE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApplyTranspose_LMA(FEGOp op, Vec x, Vec y, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(FEGOpApplyElementLocal(op, FEGElemApply_LMA, x, y, PETSC_TRUE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpGetDiagonal_LMA(FEGOp op, Vec d)
{
  PetscFunctionBegin;
  PetscCall(FEGOpDiagonalElementLocal(op, FEGElemDiag_LMA, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Element matrices Ke (host or device memory, in the order interleaved says) summed into an AIJ matrix of type plain
   (unless -dm_mat_type says otherwise) through COO; the matrix is made at the first call */
PetscErrorCode FEGOpAssembleValues_LMA_Private(FEGOp op, MatType plain, PetscBool interleaved, const PetscScalar Ke[], Mat *P)
{
  PetscFunctionBegin;
  if (!*P) {
    MatType mtype;

    PetscCall(MatCreate(PetscObjectComm((PetscObject)op), P));
    PetscCall(MatSetSizes(*P, op->disc->nglobal, op->disc->nglobal, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(FEGOpGetMatType(op, plain, &mtype));
    PetscCall(MatSetType(*P, mtype));
    PetscCall(FEGOpPreallocateCOO(op, interleaved, *P));
  }
  PetscCall(MatSetValuesCOO(*P, Ke, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stored element matrices, element by element (single ones widened to PetscScalar for MatSetValuesCOO()) */
static PetscErrorCode FEGOpAssembleValues_LMA(FEGOp op, Mat *P)
{
  FEGOp_LMA   *lma = (FEGOp_LMA *)op->data;
  const size_t n   = (size_t)op->disc->Ne * op->disc->Nb * op->disc->Nb;
  PetscScalar *K   = lma->Ke;

  PetscFunctionBegin;
  if (lma->Kf) {
    PetscCall(PetscMalloc1(n, &K));
    for (size_t i = 0; i < n; i++) K[i] = lma->Kf[i];
  }
  PetscCall(FEGOpAssembleValues_LMA_Private(op, MATAIJ, PETSC_FALSE, K, P));
  if (lma->Kf) PetscCall(PetscFree(K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDestroy_LMA(FEGOp op)
{
  FEGOp_LMA *lma = (FEGOp_LMA *)op->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(lma->Ke));
  PetscCall(PetscFree(lma->Kf));
  PetscCall(PetscFree(op->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGOPLMA: a MATSHELL over the stored element matrices */
PetscErrorCode FEGOpCreate_LMA(FEGOp op)
{
  FEGOp_LMA *lma;

  PetscFunctionBegin;
  PetscCall(PetscNew(&lma));
  PetscCall(FEGCitationsRegister(FEG_CITE_MARKALL));
  PetscCall(FEGCitationsRegister(FEG_CITE_MACIOL));
  PetscCall(FEGCitationsRegister(FEG_CITE_KRUZEL));
  lma->tuning.jacShared   = PETSC_TRUE;
  lma->symmetric          = PETSC_TRUE;
  op->data                = lma;
  op->single              = PETSC_TRUE;
  op->ops->setfromoptions = FEGOpSetFromOptions_LMA;
  op->ops->setup          = FEGOpSetUp_LMA;
  op->ops->assemble       = FEGOpAssemble_LMA;
  op->ops->apply          = FEGOpApply_LMA;
  op->ops->applytranspose = FEGOpApplyTranspose_LMA;
  op->ops->getdiagonal    = FEGOpGetDiagonal_LMA;
  op->ops->applybytes     = FEGOpApplyBytes_LMA;
  op->ops->assemblevalues = FEGOpAssembleValues_LMA;
  op->ops->destroy        = FEGOpDestroy_LMA;
  PetscFunctionReturn(PETSC_SUCCESS);
}
