/* The matrix pattern of a DM's element connectivity, for operator types that make AIJ matrices */
#include <fegpu/private/fegopimpl.h>

/*@C
  FEGOpGetMatType - the matrix type of an assembled operator: the DM's (-dm_mat_type), with the plain AIJ default
  replaced by plain (MATAIJ on the host, MATAIJCUSPARSE on the GPU so that values stay on the device)

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGOpGetMatType(FEGOp op, MatType plain, MatType *mtype)
{
  PetscBool isaij;

  PetscFunctionBegin;
  PetscCall(DMGetMatType(op->dm, mtype));
  PetscCall(PetscStrcmp(*mtype ? *mtype : MATAIJ, MATAIJ, &isaij));
  if (isaij) *mtype = plain;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpPreallocate - preallocates A (sizes and type already set) with exactly the element-connectivity pattern, found
  by running the closures through a MATPREALLOCATOR

  Collective

  Level: developer
@*/
PetscErrorCode FEGOpPreallocate(FEGOp op, Mat A)
{
  FEGDisc     *d = &op->disc;
  Mat          P;
  PetscSection lsec, gsec;
  PetscScalar *zeros;

  PetscFunctionBegin;
  PetscCall(DMGetLocalSection(op->dm, &lsec));
  PetscCall(DMGetGlobalSection(op->dm, &gsec));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)op->dm), &P));
  PetscCall(MatSetSizes(P, d->nglobal, d->nglobal, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(P, MATPREALLOCATOR));
  PetscCall(MatSetUp(P));
  PetscCall(PetscCalloc1(d->Nb * d->Nb, &zeros));
  for (PetscInt c = d->cStart; c < d->cEnd; c++) PetscCall(DMPlexMatSetClosure(op->dm, lsec, gsec, P, c, zeros, INSERT_VALUES));
  PetscCall(PetscFree(zeros));
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatPreallocatorPreallocate(P, PETSC_TRUE, A));
  PetscCall(MatDestroy(&P));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpPreallocateCOO - preallocates A (sizes and type already set) with MatSetPreallocationCOO() for every element
  matrix entry, so that MatSetValuesCOO() takes the element matrices as they are stored: element by element
  (Ke[(e*Nb+a)*Nb+b]) or element-interleaved (Ke[(a*Nb+b)*Ne+e]); constrained dofs get negative indices, which the
  COO assembly drops

  Collective

  Level: developer
@*/
PetscErrorCode FEGOpPreallocateCOO(FEGOp op, PetscBool interleaved, Mat A)
{
  FEGDisc       *d  = &op->disc;
  const PetscInt Ne = d->Ne, Nb = d->Nb;
  PetscSection   lsec, gsec;
  PetscInt      *ci, *cj;

  PetscFunctionBegin;
  PetscCall(DMGetLocalSection(op->dm, &lsec));
  PetscCall(DMGetGlobalSection(op->dm, &gsec));
  PetscCall(PetscMalloc2((size_t)Ne * Nb * Nb, &ci, (size_t)Ne * Nb * Nb, &cj));
  for (PetscInt e = 0; e < Ne; e++) {
    PetscInt n, *gi = NULL;

    PetscCall(DMPlexGetClosureIndices(op->dm, lsec, gsec, d->cStart + e, PETSC_TRUE, &n, &gi, NULL, NULL));
    for (PetscInt a = 0; a < Nb; a++)
      for (PetscInt b = 0; b < Nb; b++) {
        const size_t k = interleaved ? ((size_t)a * Nb + b) * Ne + e : ((size_t)e * Nb + a) * Nb + b;

        ci[k] = gi[a];
        cj[k] = gi[b];
      }
    PetscCall(DMPlexRestoreClosureIndices(op->dm, lsec, gsec, d->cStart + e, PETSC_TRUE, &n, &gi, NULL, NULL));
  }
  PetscCall(MatSetPreallocationCOO(A, (PetscCount)Ne * Nb * Nb, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(PETSC_SUCCESS);
}
