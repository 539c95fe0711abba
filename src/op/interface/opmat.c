/* An operator's Mat: the type's own assembled matrix, or a MATSHELL whose products call the type's ops. The Mat holds
   a reference to its FEGOp (composed as "FEGOp"), so FEGCreateOperator() can hand out the Mat alone. */
#include <fegpu/private/fegopimpl.h>

/* y (+)= A x or A^T x through the type's apply or applytranspose */
static PetscErrorCode FEGShellProduct(Mat A, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &op));
  PetscCall(PetscLogEventBegin(FEG_Apply, A, x, y, 0));
  if (transpose) PetscUseTypeMethod(op, applytranspose, x, y, add);
  else PetscUseTypeMethod(op, apply, x, y, add);
  PetscCall(PetscLogEventEnd(FEG_Apply, A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_FEGOp(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(FEGShellProduct(A, x, y, PETSC_FALSE, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_FEGOp(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  if (z != y) PetscCall(VecCopy(y, z));
  PetscCall(FEGShellProduct(A, x, z, PETSC_FALSE, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_FEGOp(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(FEGShellProduct(A, x, y, PETSC_TRUE, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_FEGOp(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  if (z != y) PetscCall(VecCopy(y, z));
  PetscCall(FEGShellProduct(A, x, z, PETSC_TRUE, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetDiagonal_FEGOp(Mat A, Vec d)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &op));
  PetscUseTypeMethod(op, getdiagonal, d);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_FEGOp(Mat A, PetscViewer viewer)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &op));
  PetscCall(FEGOpView(op, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the shell's vectors on several processes with CUDA vectors: made on the device without the pinned host copy
   VecSetType(VECMPICUDA) allocates at once (FEGDeviceCreateVec()); KSP's work vectors come from here too */
static PetscErrorCode MatCreateVecs_FEGOp(Mat A, Vec *right, Vec *left)
{
  PetscLayout rmap, cmap;

  PetscFunctionBegin;
  PetscCall(MatGetLayouts(A, &rmap, &cmap));
  if (right) PetscCall(FEGDeviceCreateVec(cmap, right));
  if (left) PetscCall(FEGDeviceCreateVec(rmap, left));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MATSHELL with the products the type provides */
static PetscErrorCode FEGOpMakeShell_Private(FEGOp op, Mat A)
{
  VecType   vtype;
  PetscBool ondevice, lazy;

  PetscFunctionBegin;
  PetscCheck(op->ops->apply, PetscObjectComm((PetscObject)op), PETSC_ERR_SUP, "Operator type %s neither makes its own matrix (creatematrix) nor applies itself (apply)", ((PetscObject)op)->type_name);
  PetscCall(MatSetType(A, MATSHELL));
  PetscCall(MatShellSetContext(A, op));
  PetscCall(MatShellSetOperation(A, MATOP_MULT, FEGMatShellOp(MatMult_FEGOp)));
  PetscCall(MatShellSetOperation(A, MATOP_MULT_ADD, FEGMatShellOp(MatMultAdd_FEGOp)));
  if (op->ops->applytranspose) {
    PetscCall(MatShellSetOperation(A, MATOP_MULT_TRANSPOSE, FEGMatShellOp(MatMultTranspose_FEGOp)));
    PetscCall(MatShellSetOperation(A, MATOP_MULT_TRANSPOSE_ADD, FEGMatShellOp(MatMultTransposeAdd_FEGOp)));
  }
  if (op->ops->getdiagonal) PetscCall(MatShellSetOperation(A, MATOP_GET_DIAGONAL, FEGMatShellOp(MatGetDiagonal_FEGOp)));
  PetscCall(MatShellSetOperation(A, MATOP_VIEW, FEGMatShellOp(MatView_FEGOp)));
  PetscCall(DMGetVecType(op->dm, &vtype));
  PetscCall(MatSetVecType(A, vtype));
  PetscCall(FEGDMIsOnDevice(op->dm, &ondevice)); /* CUDA vectors without CUDA: fegpu's error; else the GPU started */
  PetscCall(FEGDeviceVecIsLazy(PetscObjectComm((PetscObject)A), vtype, &lazy));
  if (lazy) PetscCall(MatShellSetOperation(A, MATOP_CREATE_VECS, FEGMatShellOp(MatCreateVecs_FEGOp)));
  PetscCall(MatSetUp(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (Re)computes the operator from its form into A, and records what it saw */
PetscErrorCode FEGOpAssembleMat_Private(FEGOp op, Mat A)
{
  PetscBool sym;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Assemble, op, A, 0, 0));
  PetscUseTypeMethod(op, assemble, A);
  PetscCall(PetscLogEventEnd(FEG_Assemble, op, A, 0, 0));
  PetscCall(FEGFormIsSymmetric(op->form, &sym));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, sym));
  /* a new state, so preconditioners built on the operator (shells included) update */
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(PetscObjectStateGet((PetscObject)op->form, &op->formState));
  op->auxState = 0;
  if (op->form->aux) PetscCall(PetscObjectStateGet((PetscObject)op->form->aux, &op->auxState));
  op->nassembled++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpCreateMat_Private(FEGOp, Mat *);

/*@
  FEGOpCreateMat - the operator as a Mat, assembled from the form: an AIJ matrix for assembled types (addto), or a
  MATSHELL with MatMult, MatMultAdd, MatMultTranspose(Add), MatGetDiagonal and MatView. Sets the operator up if needed.

  Collective

  Input Parameter:
. op - the operator, with its DM, form and type

  Output Parameter:
. A - the Mat; it holds a reference to op, and MatDestroy() releases it

  Options Database Key:
. -feg_op_view - view the operator once its Mat is assembled (`FEGOpViewFromOptions()`)

  Level: intermediate

.seealso: FEGCreateOperator(), FEGOperatorAssemble(), FEGOperatorGetOp()
@*/
PetscErrorCode FEGOpCreateMat(FEGOp op, Mat *A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(A, 2);
  PetscCall(FEGOpCreateMat_Private(op, A));
  PetscCall(FEGOpViewFromOptions(op, NULL, "-feg_op_view"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGOpCreateMat() without the view (a preconditioning matrix's operator is not the one -feg_op_view asks about) */
static PetscErrorCode FEGOpCreateMat_Private(FEGOp op, Mat *A)
{
  FEGDisc *d;

  PetscFunctionBegin;
  PetscCall(FEGOpSetUp(op));
  PetscCheck(!op->hasmat || !op->ops->creatematrix, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "An operator of type %s assembles into the one matrix it made: create another operator for another matrix", ((PetscObject)op)->type_name);
  op->hasmat = PETSC_TRUE;
  d          = op->disc;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)op), A));
  PetscCall(MatSetSizes(*A, d->nglobal, d->nglobal, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(PetscLogEventBegin(FEG_Setup, op, *A, 0, 0));
  if (op->ops->creatematrix) PetscUseTypeMethod(op, creatematrix, *A);
  else PetscCall(FEGOpMakeShell_Private(op, *A));
  PetscCall(PetscLogEventEnd(FEG_Setup, op, *A, 0, 0));
  PetscCall(MatSetDM(*A, op->dm));
  PetscCall(PetscObjectCompose((PetscObject)*A, "FEGOp", (PetscObject)op));
  PetscCall(FEGOpAssembleMat_Private(op, *A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateOperator - creates the operator of a bilinear form on a DMPlex with one scalar PetscFE field, as a Mat

  Collective

  Input Parameters:
+ dm   - the DMPlex; its local section's constraints (DMAddBoundary() essential conditions) remove those dofs
- form - the form

  Output Parameter:
. A - an assembled AIJ matrix (type addto; MPIAIJ in parallel, type from -dm_mat_type), or a MATSHELL storing element
      matrices (lma) or only what the action needs (matfree), with MatMult, MatMultAdd, MatMultTranspose(Add),
      MatGetDiagonal and MatView

  Options Database Keys (with the form's options prefix):
+ -feg_op_type <addto,lma,matfree,auto> - the operator type (FEGOpSetType())
- -feg_op_view - print type, cell type, order, element and dof counts and memory

  Level: beginner

.seealso: FEGOpCreate(), FEGOperatorAssemble(), FEGOperatorGetOp(), FEGComputeRHS(), FEGDMSetForm()
@*/
PetscErrorCode FEGCreateOperator(DM dm, FEGForm form, Mat *A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 2);
  FEGAssertPointer(A, 3);
  PetscCall(FEGCreateFormOperator_Private(dm, form, FEG_PRECISION_DOUBLE, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGCreateOperator() with the default precision of the element data given (p-multigrid's levels,
   FEGDMSetMGPrecision()): the form's options, and -feg_op_view */
PetscErrorCode FEGCreateFormOperator_Private(DM dm, FEGForm form, FEGPrecision precision, Mat *A)
{
  FEGOp       op;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)form, &prefix));
  PetscCall(FEGCreateOperator_Private(dm, form, prefix, NULL, precision, A));
  PetscCall(FEGOperatorGetOp(*A, &op));
  PetscCall(FEGOpViewFromOptions(op, NULL, "-feg_op_view"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator of form on dm, with the options of prefix; type NULL: from -feg_op_type (default addto) and precision
   the default that -feg_op_precision overrides, else that type and precision whatever the options say (it chose
   another operator's type) */
PetscErrorCode FEGCreateOperator_Private(DM dm, FEGForm form, const char prefix[], FEGOpType type, FEGPrecision precision, Mat *A)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscCall(FEGOpCreate(PetscObjectComm((PetscObject)dm), &op));
  PetscCall(FEGOpSetDM(op, dm));
  PetscCall(FEGOpSetForm(op, form));
  if (type) PetscCall(FEGOpSetType(op, type));
  PetscCall(FEGOpSetPrecision(op, precision));
  PetscCall(FEGOpSetOptionsPrefix(op, prefix));
  PetscCall(FEGOpSetFromOptions_Private(op, (PetscBool)!type));
  PetscCall(FEGOpCreateMat_Private(op, A));
  PetscCall(FEGOpDestroy(&op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOperatorGetOp - the FEGOp behind a Mat from FEGCreateOperator() or FEGOpCreateMat() (borrowed), or NULL for any
  other Mat

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOperatorGetOp(Mat A, FEGOp *op)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  FEGAssertPointer(op, 2);
  PetscCall(PetscObjectQuery((PetscObject)A, "FEGOp", (PetscObject *)op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOperatorGetOpChecked(Mat A, FEGOp *op)
{
  PetscFunctionBegin;
  PetscCall(FEGOperatorGetOp(A, op));
  PetscCheck(*op, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Mat was not created by FEGCreateOperator() or FEGOpCreateMat()");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOperatorAssemble - recomputes an operator from a form (new coefficients or auxiliary field values, same mesh),
  reusing everything set up at creation

  Collective

  Input Parameters:
+ A    - an operator from FEGCreateOperator() or FEGOpCreateMat()
- form - the form, or NULL to keep the operator's

  Level: intermediate
@*/
PetscErrorCode FEGOperatorAssemble(Mat A, FEGForm form)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(FEGOperatorGetOpChecked(A, &op));
  if (form && form != op->form) PetscCall(FEGOpSetForm(op, form));
  PetscCall(FEGOpAssembleMat_Private(op, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOperatorGetType - the type of an operator's FEGOp

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOperatorGetType(Mat A, FEGOpType *type)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(FEGOperatorGetOpChecked(A, &op));
  PetscCall(FEGOpGetType(op, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The assembled preconditioning matrix of a shell operator, made and refreshed after the operator's own assemblies:
   an addto operator of the same form (its own Mat), or what the type assembles from the element matrices it keeps */
PetscErrorCode FEGOpGetPmat_Private(FEGOp op, Mat *P)
{
  FEGPmatType type = op->pmattype;
  PetscBool   stale;

  PetscFunctionBegin;
  if (type == FEG_PMAT_AUTO) type = op->ops->assemblevalues ? FEG_PMAT_LMA : FEG_PMAT_ADDTO;
  PetscCheck(type != FEG_PMAT_LMA || op->ops->assemblevalues, PetscObjectComm((PetscObject)op), PETSC_ERR_SUP, "-feg_op_pmat lma assembles the element matrices the operator keeps, and a %s operator keeps none; use -feg_op_pmat addto",
             ((PetscObject)op)->type_name);
  if (type == FEG_PMAT_ADDTO) {
    if (!op->pmat) {
      const char *prefix;

      PetscCall(PetscObjectGetOptionsPrefix((PetscObject)op, &prefix));
      PetscCall(FEGCreateOperator_Private(op->dm, op->form, prefix, FEGOPADDTO, FEG_PRECISION_DOUBLE, &op->pmat));
    } else {
      FEGOp pop;

      PetscCall(FEGOperatorGetOp(op->pmat, &pop));
      PetscCall(FEGOpIsStale_Private(pop, op->form, &stale));
      if (stale) PetscCall(FEGOperatorAssemble(op->pmat, op->form));
    }
  } else if (op->pmatassembled != op->nassembled) PetscUseTypeMethod(op, assemblevalues, &op->pmat);
  op->pmatassembled = op->nassembled;
  *P                = op->pmat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOperatorGetPmat - an assembled matrix of the operator, for preconditioners that need matrix values (ILU, LU, GAMG,
  SOR, ...): the operator itself when its type assembles it (addto) or with -feg_op_pmat none; otherwise made by the
  operator's -feg_op_pmat choice (FEGOpSetPmatType()) and kept up to date with the operator's assemblies

  Collective

  Input Parameter:
. A - an operator from FEGCreateOperator() or FEGOpCreateMat()

  Output Parameter:
. P - the matrix (borrowed: it lives as long as the operator)

  Level: intermediate

.seealso: FEGOpSetPmatType(), FEGDMSetForm()
@*/
PetscErrorCode FEGOperatorGetPmat(Mat A, Mat *P)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  FEGAssertPointer(P, 2);
  PetscCall(FEGOperatorGetOpChecked(A, &op));
  if (op->ops->creatematrix || op->pmattype == FEG_PMAT_NONE) *P = A;
  else PetscCall(FEGOpGetPmat_Private(op, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
