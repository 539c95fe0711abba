/* A form on a DM: DMCreateMatrix() returns its operator, and a KSP with KSPSetDM() gets operator, right-hand side and,
   for preconditioners that need matrix values, an assembled preconditioning matrix */
#include <fegpu/private/fegopimpl.h>

static PetscErrorCode FEGDMCreateMatrix_Private(DM dm, Mat *A)
{
  FEGForm form;

  PetscFunctionBegin;
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCheck(form, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "No fegpu form on this DM");
  PetscCall(FEGCreateOperator(dm, form, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Assembles a fegpu operator again only when the form or its auxiliary field changed; any other Mat (a user's AIJ
   preconditioning matrix, say) gets the values of an addto operator of the form, whatever -feg_op_type says */
static PetscErrorCode FEGKSPAssemble_Private(DM dm, FEGForm form, Mat M)
{
  FEGOp     op;
  PetscBool stale;

  PetscFunctionBegin;
  PetscCall(FEGOperatorGetOp(M, &op));
  if (op) {
    PetscCall(FEGOpIsStale_Private(op, form, &stale));
    if (stale) PetscCall(FEGOperatorAssemble(M, form));
  } else {
    Mat         T;
    const char *prefix;

    PetscCall(PetscObjectGetOptionsPrefix((PetscObject)form, &prefix));
    PetscCall(FEGCreateOperator_Private(dm, form, prefix, FEGOPADDTO, &T));
    PetscCall(MatCopy(T, M, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&T));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the KSP's preconditioner needs matrix values; those that work from products and the diagonal do not, nor the
   default PETSc chooses for a shell */
static PetscErrorCode FEGPCNeedsValues_Private(KSP ksp, PetscBool *need)
{
  PC        pc;
  PCType    type;
  PetscBool cheap;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &type));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &cheap, PCNONE, PCJACOBI, PCSHELL, PCMAT, ""));
  if (type && !cheap) {
    PetscBool ismg;

    /* PCMG's levels get their own operators from their DMs (their smoothers ask for themselves); it needs the values of
       this one only to form coarse ones by Galerkin products */
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
    if (ismg) {
      PCMGGalerkinType g;

      PetscCall(PCMGGetGalerkin(pc, &g));
      cheap = (PetscBool)(g != PC_MG_GALERKIN_PMAT && g != PC_MG_GALERKIN_BOTH);
    }
  }
  *need = (PetscBool)(type && !cheap);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCMG without -pc_mg_levels: as PCMG takes its levels from a DM's refinements, it gets one per order of the DM's
   polynomial hierarchy (FEGDMGetOrderHierarchy()) */
static PetscErrorCode FEGPCMGSetLevels_Private(KSP ksp, DM dm)
{
  PC          pc;
  PetscBool   ismg, set;
  PetscInt    nl, n;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (!ismg) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCMGGetLevels(pc, &nl));
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscOptionsHasName(((PetscObject)pc)->options, prefix, "-pc_mg_levels", &set));
  if (nl > 1 || set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDMGetOrderHierarchy(dm, &n, NULL));
  if (n > 1) PetscCall(PCMGSetLevels(pc, n, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGKSPComputeOperators_Private(KSP ksp, Mat A, Mat P, void *ctx)
{
  DM      dm;
  FEGForm form;
  FEGOp   op;

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &dm));
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCall(FEGPCMGSetLevels_Private(ksp, dm));
  PetscCall(FEGKSPAssemble_Private(dm, form, A));
  PetscCall(FEGOperatorGetOp(A, &op));
  if (op && !op->ops->creatematrix && op->pmattype != FEG_PMAT_NONE && (P == A || P == op->pmat)) {
    PetscBool need = PETSC_TRUE;

    /* a shell operator: give the PC an assembled matrix when it needs values (or -feg_op_pmat asks for one) */
    if (op->pmattype == FEG_PMAT_AUTO) PetscCall(FEGPCNeedsValues_Private(ksp, &need));
    if (need) {
      Mat Pm;

      PetscCall(FEGOpGetPmat_Private(op, &Pm));
      if (Pm != P) PetscCall(KSPSetOperators(ksp, A, Pm));
    }
  } else if (P != A) PetscCall(FEGKSPAssemble_Private(dm, form, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGKSPComputeRHS_Private(KSP ksp, Vec b, void *ctx)
{
  DM      dm;
  FEGForm form;

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &dm));
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMCoarsen() of a DM with a form: the same mesh at the next lower order, with the same form */
static PetscErrorCode FEGDMCoarsen_Private(DM dm, MPI_Comm comm, DM *dmc)
{
  FEGForm form;

  PetscFunctionBegin;
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCheck(!form || !form->Wq, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "p-multigrid cannot coarsen a form with values at the quadrature points (FEGFormSetQuadratureCoefficient()): they belong to the fine order's quadrature; give the coefficient as an auxiliary field (FEGFormSetAuxiliaryField()), which every level evaluates");
  PetscCall(FEGDMCoarsenOrder(dm, dmc));
  PetscCall(FEGDMSetForm(*dmc, form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDMCreateInterpolation_Private(DM dmc, DM dmf, Mat *P, Vec *scale)
{
  PetscFunctionBegin;
  if (scale) *scale = NULL;
  PetscCall(FEGDMCreateInterpolation(dmc, dmf, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMSetForm - attaches a form to a DMPlex so that DMCreateMatrix() returns fegpu's operator and a KSP with
  KSPSetDM() gets the operator and right-hand side through DMKSPSetComputeOperators()/DMKSPSetComputeRHS(); when the
  operator is a shell (lma, matfree) and the KSP's preconditioner needs matrix values (ILU, LU, GAMG, ...), the PC gets
  an assembled matrix of the same form as its preconditioning matrix (-feg_op_pmat, FEGOpSetPmatType()); and DMCoarsen()
  gives the same mesh at a lower order with the form (`FEGDMSetCoarsenOrder()`) and DMCreateInterpolation() the
  transfer between them (`FEGDMCreateInterpolation()`), so that -pc_type mg builds a p-multigrid hierarchy: without
  -pc_mg_levels, one level per order of `FEGDMGetOrderHierarchy()` (as PCMG takes a DM's refinements)

  Logically Collective

  Input Parameters:
+ dm   - the DMPlex with its discretization set up
- form - the form

  Level: beginner
@*/
PetscErrorCode FEGDMSetForm(DM dm, FEGForm form)
{
  PetscBool isplex;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 2);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isplex, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "fegpu needs a DMPlex, not a %s", ((PetscObject)dm)->type_name);
  PetscCall(PetscObjectCompose((PetscObject)dm, "FEGForm", (PetscObject)form));
  PetscCall(FEGDMSetCreateMatrix(dm, FEGDMCreateMatrix_Private));
  PetscCall(FEGDMSetHierarchyOps(dm, FEGDMCoarsen_Private, FEGDMCreateInterpolation_Private));
  PetscCall(DMKSPSetComputeOperators(dm, FEGKSPComputeOperators_Private, NULL));
  PetscCall(DMKSPSetComputeRHS(dm, FEGKSPComputeRHS_Private, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMGetForm - the form attached with FEGDMSetForm(), or NULL

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGDMGetForm(DM dm, FEGForm *form)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(PetscObjectQuery((PetscObject)dm, "FEGForm", (PetscObject *)form));
  PetscFunctionReturn(PETSC_SUCCESS);
}
