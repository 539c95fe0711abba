/* addto on the host: element matrices integrated one by one and added with MatSetValues() at the elements' global dofs
   into an AIJ matrix (type from the DM, -dm_mat_type) preallocated with exactly the element-connectivity pattern */
#include "addto.h"

const char *const FEGAddToModes[] = {"auto", "atomic", "color", "coo", "gather", "FEGAddToMode", "FEG_ADDTO_", NULL};

static PetscErrorCode FEGOpSetFromOptions_AddTo(FEGOp op, PetscOptionItems *PetscOptionsObject)
{
  FEGOp_AddTo *a = (FEGOp_AddTo *)op->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "fegpu addto operator");
  PetscCall(PetscOptionsDeprecated("-feg_addto_mode", "-feg_op_addto_mode", "0.3", NULL));
  PetscCall(PetscOptionsEnum("-feg_op_addto_mode", "GPU addto: atomics, element colouring, PETSc's MatSetValuesCOO, or stored element matrices summed per CSR entry in a fixed order (auto: gather where the integration kernel takes one element per thread and it fits, else atomic)", "FEGOpAddToSetMode", FEGAddToModes,
                             (PetscEnum)a->mode, (PetscEnum *)&a->mode, NULL));
  PetscCall(FEGTuningSetFromOptions(PetscOptionsObject, PetscObjectComm((PetscObject)op), &a->tuning));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpCreateMatrix_AddTo(FEGOp op, Mat A)
{
  MatType mtype;

  PetscFunctionBegin;
  PetscCall(FEGOpGetMatType(op, MATAIJ, &mtype));
  PetscCall(MatSetType(A, mtype));
  PetscCall(FEGOpPreallocate(op, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAssemble_AddTo(FEGOp op, Mat A)
{
  FEGDisc        *d = op->disc;
  FEGCoeff        coeff;
  const PetscInt *gidx;
  PetscScalar    *work, *Ke;

  PetscFunctionBegin;
  PetscCall(FEGDiscGetGlobalIndices(d, &gidx));
  PetscCall(FEGCoeffSetUp(d, op->form, &coeff));
  PetscCall(PetscMalloc2(2 * d->Nb * FEG_MAX_DERIV, &work, d->Nb * d->Nb, &Ke));
  PetscCall(MatZeroEntries(A));
  for (PetscInt e = 0; e < d->Ne; e++) {
    const PetscInt *gi = gidx + (size_t)e * d->Nb;

    PetscCall(FEGCoeffEvaluate(d, &coeff, e));
    PetscCall(FEGIntegrateElementMatrix(d, &coeff, e, work, Ke));
    /* constrained dofs have index -1, which MatSetValues() drops */
    PetscCall(MatSetValues(A, d->Nb, gi, d->Nb, gi, Ke, ADD_VALUES));
  }
  PetscCall(PetscFree2(work, Ke));
  PetscCall(FEGCoeffDestroy(&coeff));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAddToSetMode_AddTo(FEGOp op, FEGAddToMode mode)
{
  PetscFunctionBegin;
  ((FEGOp_AddTo *)op->data)->mode = mode;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAddToGetMode_AddTo(FEGOp op, FEGAddToMode *mode)
{
  PetscFunctionBegin;
  *mode = ((FEGOp_AddTo *)op->data)->mode;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpAddToSetMode - how GPU addto adds element matrices into the CSR values; no effect on other types

  Logically Collective

  Input Parameters:
+ op   - the operator
- mode - `FEG_ADDTO_ATOMIC` (atomicAdd at positions found at setup), `FEG_ADDTO_COLOR` (element colours, colour after
         colour: the same sums in the same order every run), `FEG_ADDTO_COO` (PETSc's MatSetValuesCOO() of device element
         matrices), `FEG_ADDTO_GATHER` (element matrices stored on the device and each value summed from its entries in
         element order: deterministic) or `FEG_ADDTO_AUTO` (default: gather where the integration kernel takes one element
         per thread and its buffers fit in the free device memory, else atomic)

  Options Database Key:
. -feg_op_addto_mode <auto,atomic,color,coo,gather> - the same (deprecated name: -feg_addto_mode)

  Note:
  On several processes every mode sends the entries of rows owned elsewhere through a PetscSF; color and gather add
  the values received at a position in the order of their senders' ranks, so they are bitwise reproducible on any
  number of processes.

  Level: intermediate

.seealso: FEGOpAddToGetMode(), FEGOpSetIntegrationKernel(), FEGOPADDTO
@*/
PetscErrorCode FEGOpAddToSetMode(FEGOp op, FEGAddToMode mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(op, mode, 2);
  PetscCheck(mode >= FEG_ADDTO_AUTO && mode <= FEG_ADDTO_GATHER, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "Unknown addto mode %d; allowed: auto, atomic, color, coo, gather", (int)mode);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the addto mode before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpAddToSetMode_C", (FEGOp, FEGAddToMode), (op, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpAddToGetMode - see `FEGOpAddToSetMode()`; the operator must be addto

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpAddToGetMode(FEGOp op, FEGAddToMode *mode)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(mode, 2);
  PetscUseMethod(op, "FEGOpAddToGetMode_C", (FEGOp, FEGAddToMode *), (op, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compose (or with compose false remove) addto's settings on the operator */
static PetscErrorCode FEGOpComposeSettings_AddTo(FEGOp op, PetscBool compose)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpAddToSetMode_C", compose ? FEGOpAddToSetMode_AddTo : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpAddToGetMode_C", compose ? FEGOpAddToGetMode_AddTo : NULL));
  PetscCall(FEGTuningCompose(op, compose));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDestroy_AddTo(FEGOp op)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(op->data));
  PetscCall(FEGOpComposeSettings_AddTo(op, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGOPADDTO: an assembled matrix; PETSc's own MatMult and every preconditioner apply to it */
PetscErrorCode FEGOpCreate_AddTo(FEGOp op)
{
  FEGOp_AddTo *a;

  PetscFunctionBegin;
  PetscCall(PetscNew(&a));
  a->tuning.jacShared = PETSC_TRUE;
  PetscCall(FEGCitationsRegister(FEG_CITE_MARKALL));
  PetscCall(FEGCitationsRegister(FEG_CITE_MACIOL));
  PetscCall(FEGCitationsRegister(FEG_CITE_KRUZEL));
  op->data                = a;
  op->ops->setfromoptions = FEGOpSetFromOptions_AddTo;
  op->ops->creatematrix   = FEGOpCreateMatrix_AddTo;
  op->ops->assemble       = FEGOpAssemble_AddTo;
  op->ops->destroy        = FEGOpDestroy_AddTo;
  PetscCall(FEGOpComposeSettings_AddTo(op, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
