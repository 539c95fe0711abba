/* A form on a DM: DMCreateMatrix() returns its operator, and a KSP with KSPSetDM() gets operator, right-hand side and,
   for preconditioners that need matrix values, an assembled preconditioning matrix */
#include <fegpu/private/fegopimpl.h>

static PetscInt FEGMGPrecisionId = -1, FEGMGLevelId = -1;

/*@
  FEGDMSetMGPrecision - the precision of the element data of the operators p-multigrid's levels apply: every level's
  smoother and residual, the finest level's included, while the outer Krylov method keeps the operator's own precision
  (mixed precision: a single-precision V-cycle preconditions a double-precision solve)

  Logically Collective

  Input Parameters:
+ dm        - the DMPlex of the finest level, with its form (`FEGDMSetForm()`)
- precision - `FEG_PRECISION_DOUBLE` (default) or `FEG_PRECISION_SINGLE`

  Options Database Key:
. -feg_mg_precision <double,single> - the same, read with the DM's options prefix when PCMG first sets up its levels

  Level: intermediate

  Notes:
  Only operator types that store element data can keep it in single precision (`FEGOpSetPrecision()`): lma, or auto,
  which then chooses among those; the order-1 level's assembled matrix for GAMG stays in double. The coarse DMs
  inherit the setting.

.seealso: FEGDMGetMGPrecision(), FEGOpSetPrecision(), FEGDMSetForm(), FEGDMSetCoarsenOrder()
@*/
PetscErrorCode FEGDMSetMGPrecision(DM dm, FEGPrecision precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(dm, precision, 2);
  PetscCheck(precision == FEG_PRECISION_DOUBLE || precision == FEG_PRECISION_SINGLE, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "Unknown precision %d; allowed: double, single", (int)precision);
  PetscCall(FEGObjectSetSetting_Private((PetscObject)dm, &FEGMGPrecisionId, (PetscEnum)precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMGetMGPrecision - see `FEGDMSetMGPrecision()`: the setting, else -feg_mg_precision from the DM's options prefix,
  else `FEG_PRECISION_DOUBLE`

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGDMGetMGPrecision(DM dm, FEGPrecision *precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(precision, 2);
  *precision = FEG_PRECISION_DOUBLE;
  PetscCall(FEGObjectGetSetting_Private((PetscObject)dm, FEGMGPrecisionId, "-feg_mg_precision", FEGPrecisions, (PetscEnum *)precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the precision of the element data of operators on dm: a coarse level's (made by DMCoarsen()) is the hierarchy's, any
   other DM's the default */
static PetscErrorCode FEGDMOperatorPrecision(DM dm, FEGPrecision *precision)
{
  PetscBool level = PETSC_FALSE;

  PetscFunctionBegin;
  *precision = FEG_PRECISION_DOUBLE;
  PetscCall(FEGObjectGetSetting_Private((PetscObject)dm, FEGMGLevelId, NULL, NULL, (PetscEnum *)&level));
  if (level) PetscCall(FEGDMGetMGPrecision(dm, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDMCreateMatrix_Private(DM dm, Mat *A)
{
  FEGForm      form;
  FEGPrecision precision;

  PetscFunctionBegin;
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCheck(form, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "No fegpu form on this DM");
  PetscCall(FEGDMOperatorPrecision(dm, &precision));
  PetscCall(FEGCreateFormOperator_Private(dm, form, precision, A));
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
    PetscCall(FEGCreateOperator_Private(dm, form, prefix, FEGOPADDTO, FEG_PRECISION_DOUBLE, &T));
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

/* the KSP's PC and its levels when it is PCMG, else NULL */
static PetscErrorCode FEGKSPGetPCMG(KSP ksp, PC *pc, PetscInt *nl)
{
  PetscBool ismg;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)*pc, PCMG, &ismg));
  if (ismg) PetscCall(PCMGGetLevels(*pc, nl));
  else *pc = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCMG without -pc_mg_levels: as PCMG takes its levels from a DM's refinements, it gets one per order of the DM's
   polynomial hierarchy (FEGDMGetOrderHierarchy()) */
static PetscErrorCode FEGPCMGSetLevels_Private(KSP ksp, DM dm)
{
  PC          pc;
  PetscBool   set;
  PetscInt    nl, n;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(FEGKSPGetPCMG(ksp, &pc, &nl));
  if (!pc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscOptionsHasName(((PetscObject)pc)->options, prefix, "-pc_mg_levels", &set));
  if (nl > 1 || set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDMGetOrderHierarchy(dm, &n, NULL));
  if (n > 1) PetscCall(PCMGSetLevels(pc, n, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCMG with levels in another precision than the operator A (FEGDMSetMGPrecision()): the finest level's smoother and
   residual get an operator in that precision of -feg_op_type, as the coarse levels get from their DMs (with auto, the
   best type that stores that precision); PCMG then leaves them alone */
static PetscErrorCode FEGPCMGSetFineOperator_Private(KSP ksp, DM dm, FEGForm form, Mat A)
{
  PC           pc;
  KSP          smoother;
  Mat          As;
  FEGOp        op, sop = NULL;
  FEGPrecision precision;
  PetscInt     nl;
  PetscBool    set;
  const char  *prefix;

  PetscFunctionBegin;
  PetscCall(FEGKSPGetPCMG(ksp, &pc, &nl));
  PetscCall(FEGOperatorGetOp(A, &op));
  if (!pc || nl < 2 || !op) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDMGetMGPrecision(dm, &precision));
  if (precision == op->precision) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCMGGetSmoother(pc, nl - 1, &smoother));
  PetscCall(KSPGetOperatorsSet(smoother, &set, NULL));
  if (set) {
    PetscCall(KSPGetOperators(smoother, &As, NULL));
    PetscCall(FEGOperatorGetOp(As, &sop));
  }
  if (sop && sop->dm == dm && sop->precision == precision) { /* made before: assembled again if the form changed */
    PetscCall(FEGKSPAssemble_Private(dm, form, As));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)form, &prefix));
  PetscCall(FEGCreateOperator_Private(dm, form, prefix, NULL, precision, &As));
  PetscCall(KSPSetOperators(smoother, As, As));
  PetscCall(MatDestroy(&As));
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
  PetscCall(FEGPCMGSetFineOperator_Private(ksp, dm, form, A));
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

/* DMCoarsen() of a DM with a form: the same mesh at the next lower order, with the same form; its operators are a
   level's (FEGDMSetMGPrecision()) */
static PetscErrorCode FEGDMCoarsen_Private(DM dm, MPI_Comm comm, DM *dmc)
{
  FEGForm      form;
  FEGPrecision precision;

  PetscFunctionBegin;
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCheck(!form || !form->Wq, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "p-multigrid cannot coarsen a form with values at the quadrature points (FEGFormSetQuadratureCoefficient()): they belong to the fine order's quadrature; give the coefficient as an auxiliary field (FEGFormSetAuxiliaryField()), which every level evaluates");
  PetscCall(FEGDMGetMGPrecision(dm, &precision));
  PetscCall(FEGDMCoarsenOrder(dm, dmc));
  PetscCall(FEGDMSetForm(*dmc, form));
  PetscCall(FEGDMSetMGPrecision(*dmc, precision));
  PetscCall(FEGObjectSetSetting_Private((PetscObject)*dmc, &FEGMGLevelId, (PetscEnum)PETSC_TRUE));
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
