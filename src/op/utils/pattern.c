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
  FEGOpPreallocate - preallocates A (sizes and type already set) with exactly the element-connectivity pattern and
  makes it final: the columns of every local row are gathered from the elements that touch its dof (through the
  element-to-dof map, no closures) and sorted once; on one process they give the row counts and are inserted as explicit
  zeros, on several they go through a MATPREALLOCATOR so that rows owned elsewhere reach their owner

  Collective

  Level: developer
@*/
PetscErrorCode FEGOpPreallocate(FEGOp op, Mat A)
{
  FEGDisc        *d  = op->disc;
  const PetscInt  Ne = d->Ne, Nb = d->Nb, n = d->nlocal;
  const PetscInt *gidx;
  PetscInt       *doff, *delem, *rowg, *ia, *ja, *len, maxrow = 0;
  PetscScalar    *zeros;
  PetscMPIInt     size;
  Mat             P  = NULL;
  PetscLogDouble  t0 = 0.0;

  PetscFunctionBegin;
  PetscCall(FEGDiscGetGlobalIndices(d, &gidx));
  PetscCall(FEGPhaseBegin(FEG_SetupPattern, (PetscObject)op, &t0));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)op), &size));
  /* local dof -> elements touching it, and its global row (-1: constrained) */
  PetscCall(FEGDiscGetDofElements(d, &doff, &delem));
  PetscCall(PetscCalloc2(n, &rowg, n + 1, &ia));
  for (PetscInt i = 0; i < n; i++) rowg[i] = -1;
  for (size_t k = 0; k < (size_t)Ne * Nb; k++) rowg[d->lidx[k]] = gidx[k];
  /* each row's columns: room for every element's, then sorted without duplicates in place */
  for (PetscInt i = 0; i < n; i++) ia[i + 1] = ia[i] + (rowg[i] >= 0 ? (doff[i + 1] - doff[i]) * Nb : 0);
  PetscCall(PetscMalloc2(ia[n], &ja, n, &len));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt m = 0, *row = ja + ia[i];

    if (rowg[i] >= 0) {
      for (PetscInt k = doff[i]; k < doff[i + 1]; k++)
        for (PetscInt b = 0; b < Nb; b++) {
          const PetscInt g = gidx[delem[k] * Nb + b];

          if (g >= 0) row[m++] = g;
        }
      PetscCall(PetscSortRemoveDupsInt(&m, row));
    }
    len[i] = m;
    maxrow = PetscMax(maxrow, m);
  }
  PetscCall(PetscCalloc1(maxrow, &zeros));
  if (size == 1) {
    PetscInt *nnz, *nnzu;

    PetscCall(PetscCalloc2(n, &nnz, n, &nnzu));
    for (PetscInt i = 0; i < n; i++) {
      if (rowg[i] < 0) continue;
      nnz[rowg[i]] = len[i];
      for (PetscInt j = 0; j < len[i]; j++) nnzu[rowg[i]] += ja[ia[i] + j] >= rowg[i];
    }
    PetscCall(MatXAIJSetPreallocation(A, 1, nnz, NULL, nnzu, NULL));
    PetscCall(PetscFree2(nnz, nnzu));
  } else {
    PetscCall(MatCreate(PetscObjectComm((PetscObject)op), &P));
    PetscCall(MatSetSizes(P, d->nglobal, d->nglobal, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(P, MATPREALLOCATOR));
    PetscCall(MatSetUp(P));
  }
  for (PetscInt i = 0; i < n; i++)
    if (len[i]) PetscCall(MatSetValues(P ? P : A, 1, &rowg[i], len[i], ja + ia[i], zeros, INSERT_VALUES));
  if (P) {
    PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatPreallocatorPreallocate(P, PETSC_TRUE, A));
    PetscCall(MatDestroy(&P));
  } else {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree(zeros));
  PetscCall(PetscFree2(ja, len));
  PetscCall(PetscFree2(doff, delem));
  PetscCall(PetscFree2(rowg, ia));
  PetscCall(FEGPhaseEnd(FEG_SetupPattern, (PetscObject)op, t0, &op->tpattern));
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
  FEGDisc        *d  = op->disc;
  const PetscInt  Ne = d->Ne, Nb = d->Nb;
  const PetscInt *gidx;
  PetscInt       *ci, *cj;
  PetscLogDouble  t0 = 0.0;

  PetscFunctionBegin;
  PetscCall(FEGDiscGetGlobalIndices(d, &gidx));
  PetscCall(FEGPhaseBegin(FEG_SetupPattern, (PetscObject)op, &t0));
  PetscCall(PetscMalloc2((size_t)Ne * Nb * Nb, &ci, (size_t)Ne * Nb * Nb, &cj));
  for (PetscInt e = 0; e < Ne; e++) {
    const PetscInt *gi = gidx + (size_t)e * Nb;

    for (PetscInt a = 0; a < Nb; a++)
      for (PetscInt b = 0; b < Nb; b++) {
        const size_t k = interleaved ? ((size_t)a * Nb + b) * Ne + e : ((size_t)e * Nb + a) * Nb + b;

        ci[k] = gi[a];
        cj[k] = gi[b];
      }
  }
  PetscCall(MatSetPreallocationCOO(A, (PetscCount)Ne * Nb * Nb, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(FEGPhaseEnd(FEG_SetupPattern, (PetscObject)op, t0, &op->tpattern));
  PetscFunctionReturn(PETSC_SUCCESS);
}
