/* addto on the host: element matrices integrated one by one and added with MatSetValues() at the elements' global dofs
   into an AIJ matrix (type from the DM, -dm_mat_type) preallocated with exactly the element-connectivity pattern */
#include "addto.h"

const char *const FEGAddtoModes[] = {"auto", "atomic", "color", "coo", "gather", "FEGAddtoMode", "FEG_ADDTO_", NULL};

static PetscErrorCode FEGOpSetFromOptions_AddTo(FEGOp op, PetscOptionItems *PetscOptionsObject)
{
  FEGOp_AddTo *a = (FEGOp_AddTo *)op->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "fegpu addto operator");
  PetscCall(PetscOptionsEnum("-feg_addto_mode", "GPU addto: atomics, element colouring, PETSc's MatSetValuesCOO, or stored element matrices summed per CSR entry in a fixed order (auto: gather where the integration kernel takes one element per thread and it fits, else atomic)", "FEGOpSetFromOptions", FEGAddtoModes,
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

PetscErrorCode FEGOpDestroy_AddTo(FEGOp op)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(op->data));
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
  PetscFunctionReturn(PETSC_SUCCESS);
}
