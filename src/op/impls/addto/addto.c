#include <fegpu/private/fegimpl.h>

/* An AIJ matrix (type from the DM, -dm_mat_type) with exactly the element-connectivity pattern, found by running
   the closures through a MATPREALLOCATOR */
PetscErrorCode FEGOpCreateMat_AddTo(FEGOp op, Mat *A)
{
  FEGDisc     *d = &op->disc;
  DM           dm = op->dm;
  Mat          P;
  MatType      mtype;
  PetscSection lsec, gsec;
  PetscScalar *zeros;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Setup, dm, 0, 0, 0));
  PetscCall(DMGetLocalSection(dm, &lsec));
  PetscCall(DMGetGlobalSection(dm, &gsec));
  PetscCall(DMGetMatType(dm, &mtype));
  if (op->ondevice) {
    PetscBool plain;

    /* on the GPU the default AIJ becomes AIJCUSPARSE, so the values stay on the device */
    PetscCall(PetscStrcmp(mtype ? mtype : MATAIJ, MATAIJ, &plain));
    if (plain) mtype = MATAIJCUSPARSE;
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), A));
  PetscCall(MatSetSizes(*A, d->nglobal, d->nglobal, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*A, mtype ? mtype : MATAIJ));
  if (op->ondevice && op->addtoMode == FEG_ADDTO_COO) {
#if defined(FEGPU_HAVE_CUDA)
    PetscCall(FEGOpDevCreateMat_AddTo(op, *A));
#endif
  } else {
    PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), &P));
    PetscCall(MatSetSizes(P, d->nglobal, d->nglobal, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(P, MATPREALLOCATOR));
    PetscCall(MatSetUp(P));
    PetscCall(PetscCalloc1(d->Nb * d->Nb, &zeros));
    for (PetscInt c = d->cStart; c < d->cEnd; c++) PetscCall(DMPlexMatSetClosure(dm, lsec, gsec, P, c, zeros, INSERT_VALUES));
    PetscCall(PetscFree(zeros));
    PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatPreallocatorPreallocate(P, PETSC_TRUE, *A));
    PetscCall(MatDestroy(&P));
#if defined(FEGPU_HAVE_CUDA)
    if (op->ondevice) PetscCall(FEGOpDevCreateMat_AddTo(op, *A));
#endif
  }
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(MatSetDM(*A, dm));
  PetscCall(PetscLogEventEnd(FEG_Setup, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpAssemble_AddTo(FEGOp op, Mat A)
{
  FEGDisc     *d = &op->disc;
  FEGCoeff     coeff;
  PetscSection lsec, gsec;
  PetscScalar *work, *Ke;
  PetscBool    sym;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Assemble, A, 0, 0, 0));
#if defined(FEGPU_HAVE_CUDA)
  if (op->ondevice) {
    PetscCall(FEGOpDevAssemble_AddTo(op, A));
    PetscCall(FEGFormIsSymmetric(op->form, &sym));
    if (sym) PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(PetscLogEventEnd(FEG_Assemble, A, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(DMGetLocalSection(op->dm, &lsec));
  PetscCall(DMGetGlobalSection(op->dm, &gsec));
  PetscCall(FEGCoeffSetUp(d, op->form, &coeff));
  PetscCall(PetscMalloc2(2 * d->Nb * (d->dim + 1), &work, d->Nb * d->Nb, &Ke));
  PetscCall(MatZeroEntries(A));
  for (PetscInt e = 0; e < d->Ne; e++) {
    PetscCall(FEGCoeffEvaluate(d, &coeff, e));
    PetscCall(FEGIntegrateElementMatrix(d, &coeff, e, work, Ke));
    PetscCall(DMPlexMatSetClosure(op->dm, lsec, gsec, A, d->cStart + e, Ke, ADD_VALUES));
  }
  PetscCall(PetscFree2(work, Ke));
  PetscCall(FEGCoeffDestroy(&coeff));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(FEGFormIsSymmetric(op->form, &sym));
  if (sym) PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PetscLogEventEnd(FEG_Assemble, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
