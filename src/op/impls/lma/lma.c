/* lma on the host: element matrices stored element by element, applied through the element-local shell */
#include "lma.h"

static PetscErrorCode FEGOpSetFromOptions_LMA(FEGOp op, PetscOptionItems *PetscOptionsObject)
{
  FEGOp_LMA *lma = (FEGOp_LMA *)op->data;
  PetscBool  set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "fegpu lma operator");
  PetscCall(PetscOptionsDeprecated("-feg_lma_symmetric", "-feg_op_lma_symmetric", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_lma_tiles", "-feg_op_lma_tiles", "0.3", NULL));
  PetscCall(FEGScatterSetFromOptions(PetscOptionsObject, &lma->scatter));
  PetscCall(PetscOptionsBool("-feg_op_lma_symmetric", "GPU lma: keep only the upper triangle of a symmetric form's element matrices (3-10, 15, 18, 20 in double, and 27 dofs)", "FEGOpLMASetSymmetric", lma->symmetric, &lma->symmetric, NULL));
  PetscCall(PetscOptionsBool("-feg_op_lma_tiles", "GPU lma with atomics, elements of 3-10 dofs: gather x and sum y per tile of 128 elements in shared memory (default: P1 tetrahedra only)", "FEGOpLMASetTiles", lma->tiles, &lma->tiles, &set));
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

/* ------------------------------------------------------------------------------------------ lma's own settings */
static PetscErrorCode FEGOpLMASetSymmetric_LMA(FEGOp op, PetscBool flg)
{
  PetscFunctionBegin;
  ((FEGOp_LMA *)op->data)->symmetric = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpLMAGetSymmetric_LMA(FEGOp op, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((FEGOp_LMA *)op->data)->symmetric;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpLMASetTiles_LMA(FEGOp op, PetscBool flg)
{
  FEGOp_LMA *lma = (FEGOp_LMA *)op->data;

  PetscFunctionBegin;
  lma->tiles    = flg;
  lma->tilesset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpLMAGetTiles_LMA(FEGOp op, PetscBool *flg, PetscBool *set)
{
  FEGOp_LMA *lma = (FEGOp_LMA *)op->data;

  PetscFunctionBegin;
  if (flg) *flg = lma->tilesset ? lma->tiles : (op->disc ? FEGLMATilesDefault(op->disc) : PETSC_FALSE);
  if (set) *set = lma->tilesset;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpSetScatter_LMA(FEGOp op, FEGScatter scatter)
{
  PetscFunctionBegin;
  ((FEGOp_LMA *)op->data)->scatter = scatter;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpGetScatter_LMA(FEGOp op, FEGScatter *scatter)
{
  PetscFunctionBegin;
  *scatter = ((FEGOp_LMA *)op->data)->scatter;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compose (or with compose false remove) lma's settings on the operator */
static PetscErrorCode FEGOpComposeSettings_LMA(FEGOp op, PetscBool compose)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpLMASetSymmetric_C", compose ? FEGOpLMASetSymmetric_LMA : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpLMAGetSymmetric_C", compose ? FEGOpLMAGetSymmetric_LMA : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpLMASetTiles_C", compose ? FEGOpLMASetTiles_LMA : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpLMAGetTiles_C", compose ? FEGOpLMAGetTiles_LMA : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpSetScatter_C", compose ? FEGOpSetScatter_LMA : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpGetScatter_C", compose ? FEGOpGetScatter_LMA : NULL));
  PetscCall(FEGTuningCompose(op, compose));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpLMASetSymmetric - whether GPU lma keeps a symmetric form's element matrices (`FEGFormIsSymmetric()`) as their
  upper triangles, at the sizes with their kernels (3-10, 15, 18, 20 in double, and 27 dofs): half the memory and of
  the element-matrix bytes each MatMult reads; no effect on other types

  Logically Collective

  Input Parameters:
+ op  - the operator
- flg - `PETSC_TRUE` (default) or `PETSC_FALSE` (full matrices)

  Options Database Key:
. -feg_op_lma_symmetric <bool> - the same (deprecated name: -feg_lma_symmetric)

  Level: advanced

.seealso: FEGOpLMAGetSymmetric(), FEGOpLMASetTiles(), FEGOPLMA
@*/
PetscErrorCode FEGOpLMASetSymmetric(FEGOp op, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(op, flg, 2);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the storage before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpLMASetSymmetric_C", (FEGOp, PetscBool), (op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpLMAGetSymmetric - see `FEGOpLMASetSymmetric()`; the operator must be lma

  Not Collective

  Level: advanced
@*/
PetscErrorCode FEGOpLMAGetSymmetric(FEGOp op, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(flg, 2);
  PetscUseMethod(op, "FEGOpLMAGetSymmetric_C", (FEGOp, PetscBool *), (op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpLMASetTiles - whether GPU lma with atomic adds applies its element matrices tile by tile (elements of 3-10
  dofs): each tile's 128 elements' distinct dofs gathered once into shared memory and their sums added once; no effect
  on other types

  Logically Collective

  Input Parameters:
+ op  - the operator
- flg - `PETSC_TRUE` at every size of 3-10 dofs, or `PETSC_FALSE`; without a call, on for P1 tetrahedra alone

  Options Database Key:
. -feg_op_lma_tiles <bool> - the same (deprecated name: -feg_lma_tiles)

  Level: advanced

.seealso: FEGOpLMAGetTiles(), FEGOpLMASetSymmetric(), FEGOpSetScatter()
@*/
PetscErrorCode FEGOpLMASetTiles(FEGOp op, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(op, flg, 2);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the tiles before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpLMASetTiles_C", (FEGOp, PetscBool), (op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpLMAGetTiles - see `FEGOpLMASetTiles()`; the operator must be lma

  Not Collective

  Input Parameter:
. op - the operator

  Output Parameters:
+ flg - whether the tiles are asked for: the value set, else the default for the operator's mesh once it is set up
        (`PETSC_FALSE` before); NULL if not wanted
- set - whether `FEGOpLMASetTiles()` or the option set it; NULL if not wanted

  Level: advanced
@*/
PetscErrorCode FEGOpLMAGetTiles(FEGOp op, PetscBool *flg, PetscBool *set)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscUseMethod(op, "FEGOpLMAGetTiles_C", (FEGOp, PetscBool *, PetscBool *), (op, flg, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDestroy_LMA(FEGOp op)
{
  FEGOp_LMA *lma = (FEGOp_LMA *)op->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(lma->Ke));
  PetscCall(PetscFree(lma->Kf));
  PetscCall(PetscFree(op->data));
  PetscCall(FEGOpComposeSettings_LMA(op, PETSC_FALSE));
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
  PetscCall(FEGOpComposeSettings_LMA(op, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
