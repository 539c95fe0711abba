/* Right-hand sides b(v) - a(g, v) */
#include <fegpu/private/fegopimpl.h>

static PetscErrorCode FEGComputeRHS_Host(FEGDisc *disc, FEGForm form, Vec b)
{
  DM                 dm = disc->dm;
  FEGCoeff           coeff;
  Vec                bl, gl;
  PetscInt           nlift, *lift, l = 0;
  PetscScalar       *work, *Fe, *ge, *ba;
  const PetscScalar *ga;

  PetscFunctionBegin;
  PetscCall(FEGCoeffSetUp(disc, form, &coeff));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(DMGetLocalVector(dm, &gl));
  PetscCall(VecZeroEntries(bl));
  PetscCall(FEGDiscBoundaryValues(disc, gl, NULL, &nlift, &lift));
  PetscCall(PetscMalloc3(2 * disc->Nb * FEG_MAX_DERIV, &work, disc->Nb, &Fe, disc->Nb, &ge));
  PetscCall(VecGetArrayRead(gl, &ga));
  PetscCall(VecGetArray(bl, &ba));
  for (PetscInt e = 0; e < disc->Ne; e++) {
    const PetscInt *idx = &disc->lidx[e * disc->Nb];

    PetscCall(FEGCoeffEvaluate(disc, &coeff, e));
    PetscCall(FEGIntegrateElementVector(disc, &coeff, e, work, Fe));
    /* lift lists the elements with a non-zero boundary value, in order */
    if (l < nlift && lift[l] == e) {
      for (PetscInt c = 0; c < disc->Nb; c++) ge[c] = ga[idx[c]];
      PetscCall(FEGIntegrateElementLift(disc, &coeff, e, ge, Fe));
      l++;
    }
    for (PetscInt a = 0; a < disc->Nb; a++) ba[idx[a]] += Fe[a];
  }
  PetscCall(VecRestoreArray(bl, &ba));
  PetscCall(VecRestoreArrayRead(gl, &ga));
  PetscCall(VecZeroEntries(b));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(PetscFree3(work, Fe, ge));
  PetscCall(PetscFree(lift));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscCall(DMRestoreLocalVector(dm, &gl));
  PetscCall(FEGCoeffDestroy(&coeff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGComputeRHS - assembles the right-hand side b(v) - a(g, v) for the free dofs, where g holds the essential boundary
  values of the DM's PetscDS (DMAddBoundary()) and zero elsewhere; on the GPU when the DM's vectors are CUDA vectors

  Collective

  Input Parameters:
+ dm   - the DMPlex
. form - the form (its D gives b, its C the boundary lifting)
- b    - a global Vec of dm

  Level: beginner
@*/
PetscErrorCode FEGComputeRHS(DM dm, FEGForm form, Vec b)
{
  FEGDisc       *disc;
  PetscContainer c;
  PetscInt       n;
  PetscBool      ondevice;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 2);
  PetscValidHeaderSpecific(b, VEC_CLASSID, 3);
  PetscCall(FEGDMIsOnDevice(dm, &ondevice));
  /* the discretization the DM's operators share, read once for all calls */
  PetscCall(FEGDMGetDisc(dm, &disc, &c));
  PetscCall(VecGetLocalSize(b, &n));
  PetscCheck(n == disc->nglobal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Right-hand side Vec has local size %" PetscInt_FMT " but the DM's global Vecs have %" PetscInt_FMT " (use DMCreateGlobalVector())", n, disc->nglobal);
  PetscCall(PetscLogEventBegin(FEG_RHS, dm, b, 0, 0));
  if (ondevice) PetscCall((*FEGComputeRHSDevice)(disc, form, b));
  else PetscCall(FEGComputeRHS_Host(disc, form, b));
  PetscCall(PetscLogEventEnd(FEG_RHS, dm, b, 0, 0));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
