/* FEGOp: the object behind every fegpu operator. Its type (a PetscFunctionList entry) fills the ops table; this file
   creates, configures, sets up, views and destroys it and never names a type. */
#include <fegpu/private/fegopimpl.h>

PetscFunctionList FEGOpList = NULL, FEGOpDeviceList = NULL;
const char *const FEGPmatTypes[]          = {"auto", "none", "addto", "lma", "FEGPmatType", "FEG_PMAT_", NULL};
const char *const FEGPrecisions[]         = {"double", "single", "FEGPrecision", "FEG_PRECISION_", NULL};
const char *const FEGHaloExchanges[]      = {"auto", "ipc", "pinned", "petscsf", "FEGHaloExchange", "FEG_HALO_", NULL};
const char *const FEGScatters[]           = {"atomic", "gather", "FEGScatter", "FEG_SCATTER_", NULL};
const char *const FEGIntegrationKernels[] = {"auto", "thread", "block", "gemm", "entries", "FEGIntegrationKernel", "FEG_INTEGRATION_", NULL};

/*@C
  FEGOpRegister - adds an operator type, selectable with FEGOpSetType() or -feg_op_type

  Not Collective

  Input Parameters:
+ name   - the type's name
- create - the function that fills the new operator's ops table and data (it includes <fegpu/private/fegopimpl.h>)

  Level: advanced

.seealso: FEGOpRegisterDevice(), FEGOpSetType()
@*/
PetscErrorCode FEGOpRegister(const char name[], PetscErrorCode (*create)(FEGOp))
{
  PetscFunctionBegin;
  PetscCall(FEGInitializePackage());
  PetscCall(PetscFunctionListAdd(&FEGOpList, name, create));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpRegisterDevice - gives an operator type its GPU implementation: when the DM's vectors are CUDA vectors,
  FEGOpSetUp() calls use(op) once, before the type's setup, to install the device ops table

  Not Collective

  Level: advanced

.seealso: FEGOpRegister()
@*/
PetscErrorCode FEGOpRegisterDevice(const char name[], PetscErrorCode (*use)(FEGOp))
{
  PetscFunctionBegin;
  PetscCall(FEGInitializePackage());
  PetscCall(PetscFunctionListAdd(&FEGOpDeviceList, name, use));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpCreate - creates an operator; give it a DM, a form and a type, then FEGOpCreateMat() returns its Mat

  Collective

  Input Parameter:
. comm - communicator

  Output Parameter:
. op - the operator

  Level: intermediate

.seealso: FEGOpSetDM(), FEGOpSetForm(), FEGOpSetType(), FEGOpSetFromOptions(), FEGOpCreateMat(), FEGCreateOperator()
@*/
PetscErrorCode FEGOpCreate(MPI_Comm comm, FEGOp *op)
{
  FEGOp o;

  PetscFunctionBegin;
  FEGAssertPointer(op, 2);
  PetscCall(FEGInitializePackage());
  PetscCall(PetscHeaderCreate(o, FEG_OP_CLASSID, "FEGOp", "fegpu finite element operator", "FEGOp", comm, FEGOpDestroy, FEGOpView));
  o->backend       = "host";
  o->pmattype      = FEG_PMAT_AUTO;
  o->overlap       = PETSC_TRUE;
  o->pmatassembled = -1;
  *op              = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpDestroy - destroys an operator (its Mats hold references and keep it alive while they exist)

  Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpDestroy(FEGOp *op)
{
  PetscFunctionBegin;
  if (!op || !*op) PetscFunctionReturn(PETSC_SUCCESS);
  PetscValidHeaderSpecific(*op, FEG_OP_CLASSID, 1);
  if (--((PetscObject)*op)->refct > 0) {
    *op = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscTryTypeMethod(*op, destroy);
  PetscCall(PetscContainerDestroy(&(*op)->disccontainer));
  PetscCall(PetscFree((*op)->autoinfo));
  PetscCall(MatDestroy(&(*op)->pmat));
  PetscCall(VecDestroy(&(*op)->xl));
  PetscCall(VecDestroy(&(*op)->yl));
  PetscCall(FEGFormDestroy(&(*op)->form));
  PetscCall(DMDestroy(&(*op)->dm));
  PetscCall(PetscHeaderDestroy(op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetType - chooses how the operator is stored and applied: FEGOPADDTO, FEGOPLMA, FEGOPMATFREE, FEGOPAUTO or a
  type registered with FEGOpRegister()

  Collective

  Options Database Keys:
+ -feg_op_type <addto,lma,matfree,auto,...> - the type
- -feg_op_auto_applies <k> - with auto: the applications (MatMult) expected per assembly (default 100)

  Level: intermediate

  Note:
  FEGOPAUTO becomes, at FEGOpSetUp(), the type with the least predicted time for its setup (first assembly included)
  and k applications on this DM: a cost model per element whose constants come from calibration runs of
  share/bench/bench on the GPU and on a host core (share/bench/auto/), keyed by cell type, order and whether the DM's
  vectors are on the GPU (orders and cells outside the calibration are scaled from the nearest one). Types whose stored
  data would not fit in 80% of the GPU's free memory are left out; with -feg_op_precision single only types that store
  single precision take part. The chosen type's own options are then read, and FEGOpView() shows the prediction.
@*/
PetscErrorCode FEGOpSetType(FEGOp op, FEGOpType type)
{
  PetscErrorCode (*create)(FEGOp);
  PetscBool same;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)op, type, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up as %s; its type cannot change to %s", ((PetscObject)op)->type_name, type);
  PetscCall(FEGOpRegisterAll());
  PetscCall(PetscFunctionListFind(FEGOpList, type, &create));
  if (!create) {
    const char **names;
    int          n;
    PetscInt    *perm;
    char        *list = NULL;

    PetscCall(PetscFunctionListGet(FEGOpList, &names, &n));
    while (n > 0 && !names[n - 1]) n--; /* PETSc 3.18 counts the array's closing NULL */
    /* alphabetical: the list's own order differs between PETSc versions */
    PetscCall(PetscMalloc1(n, &perm));
    for (int i = 0; i < n; i++) perm[i] = i;
    PetscCall(PetscSortStrWithPermutation(n, names, perm));
    for (int i = 0; i < n; i++) PetscCall(FEGStrAppendf(&list, " %s", names[perm[i]]));
    PetscCall(PetscFree(perm));
    PetscCall(PetscFree(names));
    SETERRQ(PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown fegpu operator type %s (-feg_op_type); registered types:%s", type, list); /* list is lost with the error */
  }
  PetscTryTypeMethod(op, destroy);
  PetscCall(PetscMemzero(op->ops, sizeof(struct _FEGOpOps)));
  op->data   = NULL;
  op->bytes  = 0;
  op->stores = NULL;
  op->single = PETSC_FALSE;
  PetscCall(PetscObjectChangeTypeName((PetscObject)op, type));
  PetscCall((*create)(op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetType - the operator's type

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpGetType(FEGOp op, FEGOpType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(type, 2);
  *type = ((PetscObject)op)->type_name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetDM - the DMPlex with one scalar PetscFE field the operator acts on; essential conditions of its DS
  (DMAddBoundary()) remove the constrained dofs

  Logically Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpSetDM(FEGOp op, DM dm)
{
  PetscBool isplex;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidHeaderSpecific(dm, DM_CLASSID, 2);
  PetscCheck(!op->setupcalled || dm == op->dm, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up on another DM: create a new operator");
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isplex, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_WRONG, "fegpu needs a DMPlex, not a %s", ((PetscObject)dm)->type_name);
  PetscCall(PetscObjectReference((PetscObject)dm));
  PetscCall(DMDestroy(&op->dm));
  op->dm = dm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetDM - the operator's DM (borrowed)

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpGetDM(FEGOp op, DM *dm)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  *dm = op->dm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetForm - the form the operator computes; a new form (or a changed one) is taken at the next assembly

  Logically Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpSetForm(FEGOp op, FEGForm form)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 2);
  PetscCall(PetscObjectReference((PetscObject)form));
  PetscCall(FEGFormDestroy(&op->form));
  op->form = form;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetForm - the operator's form (borrowed)

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpGetForm(FEGOp op, FEGForm *form)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  *form = op->form;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetPmatType - where a preconditioner that needs matrix values gets them, for operators that are not assembled
  (FEGOperatorGetPmat(), and the DM's KSP callbacks of FEGDMSetForm())

  Logically Collective

  Options Database Key:
. -feg_op_pmat <auto,none,addto,lma> - auto: only when the PC needs values, from the stored element matrices where the type
  keeps them (lma), else an addto matrix of the same form

  Level: intermediate
@*/
PetscErrorCode FEGOpSetPmatType(FEGOp op, FEGPmatType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCheck(type >= FEG_PMAT_AUTO && type <= FEG_PMAT_LMA, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "Unknown preconditioning matrix type %d; allowed: auto, none, addto, lma", (int)type);
  if (type != op->pmattype) {
    PetscCall(MatDestroy(&op->pmat));
    op->pmatassembled = -1;
  }
  op->pmattype = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetPmatType - see FEGOpSetPmatType()

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpGetPmatType(FEGOp op, FEGPmatType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  *type = op->pmattype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetPrecision - the precision of the element data the operator stores: with single, lma keeps its element
  matrices in FP32 (half the memory and the bytes each MatMult reads), computed in double and rounded once; vectors,
  products and sums stay double

  Logically Collective

  Options Database Key:
. -feg_op_precision <double,single> - default double

  Notes:
  Rounding the element matrices perturbs the operator by about 6e-8 relative to its entries: a solve stalls near that
  relative residual, so single suits tolerances well above it (discretisation errors, preconditioners).
  Types that store no element data (addto keeps an assembled PetscScalar matrix) refuse single at FEGOpSetUp().

  Level: intermediate

.seealso: FEGOpGetPrecision(), FEGOpSetFromOptions()
@*/
PetscErrorCode FEGOpSetPrecision(FEGOp op, FEGPrecision precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCheck(precision == FEG_PRECISION_DOUBLE || precision == FEG_PRECISION_SINGLE, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "Unknown precision %d; allowed: double, single", (int)precision);
  PetscCheck(!op->setupcalled || precision == op->precision, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up in %s precision; it cannot change to %s", FEGPrecisions[op->precision], FEGPrecisions[precision]);
  op->precision = precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetPrecision - see FEGOpSetPrecision()

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpGetPrecision(FEGOp op, FEGPrecision *precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  *precision = op->precision;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetOptionsPrefix - the prefix of the options the operator reads (-<prefix>feg_op_type, ...)

  Logically Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpSetOptionsPrefix(FEGOp op, const char prefix[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)op, prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* readtype: whether -feg_op_type may change the type and -feg_op_precision apply (not for an operator made for a fixed
   purpose, such as the addto preconditioning matrix of a shell) */
PetscErrorCode FEGOpSetFromOptions_Private(FEGOp op, PetscBool readtype)
{
  char      type[256];
  PetscBool flg;

  PetscFunctionBegin;
  PetscCall(FEGOpRegisterAll());
  PetscObjectOptionsBegin((PetscObject)op);
  /* the names before fegpu 0.3 */
  PetscCall(PetscOptionsDeprecated("-feg_strategy", "-feg_op_type", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_pmat", "-feg_op_pmat", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_precision", "-feg_op_precision", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_halo_overlap", "-feg_op_halo_overlap", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_halo_exchange", "-feg_op_halo_exchange", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_view", "-feg_op_view", "0.3", NULL));
  if (readtype) {
    PetscCall(PetscOptionsFList("-feg_op_type", "How the operator is stored and applied", "FEGOpSetType", FEGOpList, ((PetscObject)op)->type_name ? ((PetscObject)op)->type_name : FEGOPADDTO, type, sizeof(type), &flg));
    if (flg) PetscCall(FEGOpSetType(op, type));
  }
  if (!((PetscObject)op)->type_name) PetscCall(FEGOpSetType(op, FEGOPADDTO));
  PetscCall(PetscOptionsEnum("-feg_op_pmat", "Preconditioning matrix for PCs that need values, for operators that are not assembled", "FEGOpSetPmatType", FEGPmatTypes, (PetscEnum)op->pmattype, (PetscEnum *)&op->pmattype, NULL));
  PetscCall(PetscOptionsBool("-feg_op_halo_overlap", "GPU lma and matfree: apply the elements that touch no ghost dof while ghost values and sums move between processes", "FEGOpSetHaloOverlap", op->overlap, &op->overlap, NULL));
  PetscCall(PetscOptionsEnum("-feg_op_halo_exchange", "GPU overlapped apply on several processes: ghost values and sums moved by fegpu device to device (ipc, processes of one node), from pinned host buffers (pinned), the first that every process allows (auto), or by PetscSF", "FEGOpSetHaloExchange", FEGHaloExchanges,
                             (PetscEnum)op->haloexchange, (PetscEnum *)&op->haloexchange, NULL));
  if (readtype) { /* an operator made for a fixed purpose (an addto preconditioning matrix) stores no element data */
    FEGPrecision p = op->precision;
    PetscBool    flg;

    PetscCall(PetscOptionsEnum("-feg_op_precision", "Precision of the element data the operator stores (lma's element matrices)", "FEGOpSetPrecision", FEGPrecisions, (PetscEnum)p, (PetscEnum *)&p, &flg));
    if (flg) PetscCall(FEGOpSetPrecision(op, p));
  }
  PetscTryTypeMethod(op, setfromoptions, PetscOptionsObject);
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetFromOptions - reads the operator's options: its type, the options every type reads, and the type's own

  Collective

  Options Database Keys:
+ -feg_op_type <addto,lma,matfree,auto> - the type (`FEGOpSetType()`, default addto)
. -feg_op_pmat <auto,none,addto,lma> - `FEGOpSetPmatType()`
. -feg_op_precision <double,single> - `FEGOpSetPrecision()`
. -feg_op_halo_overlap <bool> - `FEGOpSetHaloOverlap()`
. -feg_op_halo_exchange <auto,ipc,pinned,petscsf> - `FEGOpSetHaloExchange()`
. -feg_op_view - `FEGOpView()` when the operator's Mat is assembled (`FEGOpViewFromOptions()`)
- -feg_strategy, -feg_pmat, -feg_precision, -feg_halo_overlap, -feg_halo_exchange, -feg_view - deprecated names of the above

  Note:
  The types' own options are listed with their setters: `FEGOpAutoSetApplies()`, `FEGOpAddToSetMode()`,
  `FEGOpLMASetSymmetric()`, `FEGOpLMASetTiles()`, `FEGOpMatFreeSetKernel()`, `FEGOpMatFreeSetFactored()`,
  `FEGOpMatFreeSetNodal()`, `FEGOpMatFreeSetTiling()`, `FEGOpMatFreeSetGemmWorkspace()`, `FEGOpSetScatter()`,
  `FEGOpSetIntegrationKernel()` and `FEGOpSetIntegrationTuning()`.

  Level: intermediate

.seealso: FEGOpSetType(), FEGOpSetOptionsPrefix()
@*/
PetscErrorCode FEGOpSetFromOptions(FEGOp op)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCall(FEGOpSetFromOptions_Private(op, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetHaloOverlap - whether the GPU apply of lma and matfree on several processes (or with constraints) overlaps the
  ghost exchange with the elements that touch no ghost dof

  Logically Collective

  Input Parameters:
+ op  - the operator
- flg - `PETSC_TRUE` (default): fegpu moves the owned dofs itself, the ghosts move as `FEGOpSetHaloExchange()` says,
        and the interior elements run meanwhile; `PETSC_FALSE`: `DMGlobalToLocal()` and `DMLocalToGlobal()` around one
        kernel

  Options Database Key:
. -feg_op_halo_overlap <bool> - the same

  Level: advanced

.seealso: FEGOpGetHaloOverlap(), FEGOpSetHaloExchange()
@*/
PetscErrorCode FEGOpSetHaloOverlap(FEGOp op, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(op, flg, 2);
  PetscCheck(!op->setupcalled || flg == op->overlap, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the halo overlap before FEGOpSetUp()");
  op->overlap = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetHaloOverlap - see `FEGOpSetHaloOverlap()`

  Not Collective

  Level: advanced
@*/
PetscErrorCode FEGOpGetHaloOverlap(FEGOp op, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(flg, 2);
  *flg = op->overlap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetHaloExchange - who moves the ghost values and sums of the overlapped GPU apply on several processes

  Logically Collective

  Input Parameters:
+ op - the operator
- ex - `FEG_HALO_AUTO` (default: ipc where every neighbour is a process of this node and every buffer opens, else
       pinned), `FEG_HALO_IPC` (fegpu, the packing kernel writing into the other GPUs' buffers, mapped once with CUDA IPC;
       an error where that is not possible), `FEG_HALO_PINNED` (fegpu, through pinned host buffers whose copies queue
       behind the kernels, and MPI point-to-point messages) or `FEG_HALO_PETSCSF` (PetscSF, which with an MPI that is
       not CUDA-aware copies through pageable memory and waits for the device before each message)

  Options Database Key:
. -feg_op_halo_exchange <auto,ipc,pinned,petscsf> - the same

  Level: advanced

.seealso: FEGOpGetHaloExchange(), FEGOpSetHaloOverlap()
@*/
PetscErrorCode FEGOpSetHaloExchange(FEGOp op, FEGHaloExchange ex)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(op, ex, 2);
  PetscCheck(ex >= FEG_HALO_AUTO && ex <= FEG_HALO_PETSCSF, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "Unknown halo exchange %d; allowed: auto, ipc, pinned, petscsf", (int)ex);
  PetscCheck(!op->setupcalled || ex == op->haloexchange, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the halo exchange before FEGOpSetUp()");
  op->haloexchange = ex;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetHaloExchange - see `FEGOpSetHaloExchange()`

  Not Collective

  Level: advanced
@*/
PetscErrorCode FEGOpGetHaloExchange(FEGOp op, FEGHaloExchange *ex)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(ex, 2);
  *ex = op->haloexchange;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetScatter - how the GPU apply of lma and matfree adds element results (actions and diagonals) into a vector;
  no effect on other types

  Logically Collective

  Input Parameters:
+ op      - the operator
- scatter - `FEG_SCATTER_ATOMIC` (default) or `FEG_SCATTER_GATHER`: deterministically through a dof-to-entries map
            built with CUB, the same sums in the same order on every run

  Options Database Key:
. -feg_op_scatter <atomic,gather> - the same (deprecated name: -feg_lma_scatter)

  Level: intermediate

.seealso: FEGOpGetScatter(), FEGFormSetRHSScatter(), FEGOpAddToSetMode()
@*/
PetscErrorCode FEGOpSetScatter(FEGOp op, FEGScatter scatter)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(op, scatter, 2);
  PetscCheck(scatter == FEG_SCATTER_ATOMIC || scatter == FEG_SCATTER_GATHER, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "Unknown scatter %d; allowed: atomic, gather", (int)scatter);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the scatter before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpSetScatter_C", (FEGOp, FEGScatter), (op, scatter));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetScatter - see `FEGOpSetScatter()`; the operator must be lma or matfree

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpGetScatter(FEGOp op, FEGScatter *scatter)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(scatter, 2);
  PetscUseMethod(op, "FEGOpGetScatter_C", (FEGOp, FEGScatter *), (op, scatter));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetIntegrationKernel - the GPU kernel that integrates element matrices, for the types that compute them (addto,
  lma); no effect on other types

  Logically Collective

  Input Parameters:
+ op     - the operator
- kernel - `FEG_INTEGRATION_AUTO` (default: one element per thread up to 10 dofs, 20 on affine cells with constant C,
           DGEMM above; on affine cells with constant C the entries kernel where it pays), `FEG_INTEGRATION_THREAD`,
           `FEG_INTEGRATION_BLOCK` (Kruzel et al.'s Algorithm 2), `FEG_INTEGRATION_GEMM` or `FEG_INTEGRATION_ENTRIES`
           (one element entry per thread from reference tensors: affine cells with constant C only, else an error)

  Options Database Key:
. -feg_op_integration_kernel <auto,thread,block,gemm,entries> - the same (deprecated name: -feg_cuda_kernel)

  Level: advanced

.seealso: FEGOpGetIntegrationKernel(), FEGOpSetIntegrationTuning()
@*/
PetscErrorCode FEGOpSetIntegrationKernel(FEGOp op, FEGIntegrationKernel kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(op, kernel, 2);
  PetscCheck(kernel >= FEG_INTEGRATION_AUTO && kernel <= FEG_INTEGRATION_ENTRIES, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "Unknown integration kernel %d; allowed: auto, thread, block, gemm, entries", (int)kernel);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the integration kernel before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpSetIntegrationKernel_C", (FEGOp, FEGIntegrationKernel), (op, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetIntegrationKernel - see `FEGOpSetIntegrationKernel()`; the operator must be addto or lma

  Not Collective

  Level: advanced
@*/
PetscErrorCode FEGOpGetIntegrationKernel(FEGOp op, FEGIntegrationKernel *kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(kernel, 2);
  PetscUseMethod(op, "FEGOpGetIntegrationKernel_C", (FEGOp, FEGIntegrationKernel *), (op, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetIntegrationTuning - the tuning of the GPU's one-element-per-block integration kernel (addto, lma)

  Logically Collective

  Input Parameters:
+ op        - the operator
. blocksize - threads per block: 0 (by element size) or a multiple of 32 from 32 to 1024
. nentpt    - element matrix entries per thread and part (NENTPT): 0 (by element size), 1, 2, 4, 8 or 16
. qchunk    - quadrature points staged in shared memory at a time: 0 (16, fewer if shared memory is short) or more
- jacshared - stage the element's Jacobian data in shared memory (default `PETSC_TRUE`)

  Options Database Keys:
+ -feg_op_integration_block_size <n> - blocksize (deprecated name: -feg_cuda_block_size)
. -feg_op_integration_nentpt <n> - nentpt (deprecated name: -feg_cuda_nentpt)
. -feg_op_integration_qchunk <n> - qchunk (deprecated name: -feg_cuda_qchunk)
- -feg_op_integration_jacobian_shared <bool> - jacshared (deprecated name: -feg_cuda_jacobian_shared)

  Level: developer

.seealso: FEGOpGetIntegrationTuning(), FEGOpSetIntegrationKernel()
@*/
PetscErrorCode FEGOpSetIntegrationTuning(FEGOp op, PetscInt blocksize, PetscInt nentpt, PetscInt qchunk, PetscBool jacshared)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the integration tuning before FEGOpSetUp()");
  PetscCall(FEGTuningCheck(PetscObjectComm((PetscObject)op), blocksize, nentpt, qchunk));
  PetscTryMethod(op, "FEGOpSetIntegrationTuning_C", (FEGOp, PetscInt, PetscInt, PetscInt, PetscBool), (op, blocksize, nentpt, qchunk, jacshared));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetIntegrationTuning - see `FEGOpSetIntegrationTuning()`; the operator must be addto or lma (any output may be
  NULL)

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGOpGetIntegrationTuning(FEGOp op, PetscInt *blocksize, PetscInt *nentpt, PetscInt *qchunk, PetscBool *jacshared)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscUseMethod(op, "FEGOpGetIntegrationTuning_C", (FEGOp, PetscInt *, PetscInt *, PetscInt *, PetscBool *), (op, blocksize, nentpt, qchunk, jacshared));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpSetUp - reads the discretization and prepares the type's data; on the GPU (the DM's vectors are CUDA vectors)
  the type's device implementation is installed first, once

  Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpSetUp(FEGOp op)
{
  PetscBool ondevice;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  if (op->setupcalled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(op->dm, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "Call FEGOpSetDM() before FEGOpSetUp()");
  PetscCheck(op->form, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "Call FEGOpSetForm() before FEGOpSetUp()");
  if (!((PetscObject)op)->type_name) PetscCall(FEGOpSetType(op, FEGOPADDTO));
  PetscCall(FEGDMIsOnDevice(op->dm, &ondevice));
  PetscCall(FEGDMGetDisc(op->dm, &op->disc, &op->disccontainer));
  if (op->ops->choosetype) { /* auto: become the chosen type, with that type's options */
    char type[256];

    PetscCall((*op->ops->choosetype)(op, ondevice, type, sizeof(type)));
    PetscCall(FEGOpSetType(op, type));
    PetscCall(FEGOpSetFromOptions_Private(op, PETSC_FALSE));
  }
  if (ondevice) {
    PetscErrorCode (*use)(FEGOp);

    PetscCall(PetscFunctionListFind(FEGOpDeviceList, ((PetscObject)op)->type_name, &use));
    PetscCheck(use, PetscObjectComm((PetscObject)op), PETSC_ERR_SUP, "Operator type %s has no GPU implementation (FEGOpRegisterDevice()); use host vectors or another type", ((PetscObject)op)->type_name);
    PetscCall((*use)(op));
  } else PetscCall(FEGDiscSetUpGeometry(op->disc));
  PetscCheck(op->precision == FEG_PRECISION_DOUBLE || op->single, PetscObjectComm((PetscObject)op), PETSC_ERR_SUP, "Operator type %s cannot store its data in %s precision (-feg_op_precision %s, or -feg_mg_precision %s for p-multigrid's levels): only types that keep element data (lma, or auto among them) can; use double",
             ((PetscObject)op)->type_name, FEGPrecisions[op->precision], FEGPrecisions[op->precision], FEGPrecisions[op->precision]);
  PetscCall(PetscLogEventBegin(FEG_Setup, op, 0, 0, 0));
  PetscTryTypeMethod(op, setup);
  PetscCall(PetscLogEventEnd(FEG_Setup, op, 0, 0, 0));
  op->setupcalled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpGetApplyBytes - the bytes one application of a shell operator must move from memory at least, summed over the
  processes: the element data its kernel reads (element matrices, geometric factors, coefficient tensors), the
  element-to-dof indices where it reads them, and each local dof of x read and of y written once. Dividing by a MatMult's
  time gives the bandwidth the kernel reaches (share/bench/bench).

  Collective

  Output Parameter:
. bytes - the count; the operator must be set up

  Level: developer

.seealso: FEGOpView()
@*/
PetscErrorCode FEGOpGetApplyBytes(FEGOp op, PetscLogDouble *bytes)
{
  PetscLogDouble b = 0.0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCheck(op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "Call FEGOpSetUp() (or FEGOpCreateMat()) before FEGOpGetApplyBytes()");
  PetscCheck(op->ops->applybytes, PetscObjectComm((PetscObject)op), PETSC_ERR_SUP, "Operator type %s does not count the bytes of its apply (an assembled type: its Mat's own figures apply)", ((PetscObject)op)->type_name);
  PetscUseTypeMethod(op, applybytes, &b);
  b += 2.0 * sizeof(PetscScalar) * op->disc->nlocal;
  PetscCall(MPIU_Allreduce(&b, bytes, 1, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)op)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpView - prints the operator: type and where it runs, cells, space, sizes, memory and the type's own report

  Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpView(FEGOp op, PetscViewer viewer)
{
  PetscBool iascii;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)op), &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)op, viewer));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (op->setupcalled) {
    FEGDisc          *d     = op->disc;
    PetscInt          ne    = d->Ne, nemax, nesum, ndof;
    PetscLogDouble    bytes = d->bytes + op->bytes, bsum;
    MPI_Comm          comm  = PetscObjectComm((PetscObject)op);
    PetscViewerFormat format;

    PetscCall(MPIU_Allreduce(&ne, &nesum, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(MPIU_Allreduce(&ne, &nemax, 1, MPIU_INT, MPI_MAX, comm));
    PetscCall(MPIU_Allreduce(&d->nglobal, &ndof, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(MPIU_Allreduce(&bytes, &bsum, 1, MPI_DOUBLE, MPI_SUM, comm));
    PetscCall(PetscViewerASCIIPrintf(viewer, "runs on: %s\n", op->backend));
    if (op->autoinfo) PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", op->autoinfo));
    PetscCall(PetscViewerASCIIPrintf(viewer, "cell type: %s, dimension %" PetscInt_FMT "%s\n", DMPolytopeTypes[d->ct], d->dim, d->affine ? ", affine cells" : ""));
    PetscCall(PetscViewerASCIIPrintf(viewer, "space: %s Lagrange of order %" PetscInt_FMT ", %" PetscInt_FMT " dofs and %" PetscInt_FMT " quadrature points per element\n", d->continuous ? "continuous" : "discontinuous", d->order, d->Nb, d->Nq));
    PetscCall(PetscViewerASCIIPrintf(viewer, "elements: %" PetscInt_FMT " (at most %" PetscInt_FMT " per process), unknowns: %" PetscInt_FMT "\n", nesum, nemax, ndof));
    PetscCall(PetscViewerASCIIPrintf(viewer, "host memory: %.4g MB (%.1f bytes per unknown) for indices, coordinates, geometry%s%s\n", bsum / 1048576.0, ndof ? bsum / ndof : 0.0, op->stores ? " and " : "", op->stores ? op->stores : ""));
    if (op->pmattype != FEG_PMAT_AUTO) PetscCall(PetscViewerASCIIPrintf(viewer, "preconditioning matrix: %s\n", FEGPmatTypes[op->pmattype]));
    if (op->precision != FEG_PRECISION_DOUBLE) PetscCall(PetscViewerASCIIPrintf(viewer, "stored data in %s precision\n", FEGPrecisions[op->precision]));
    PetscCall(PetscViewerGetFormat(viewer, &format));
    if (format == PETSC_VIEWER_ASCII_INFO_DETAIL) {
      PetscLogDouble t[4] = {d->tdofmap, d->tgeometry, op->tpattern, op->tdevice}, tmax[4];

      /* wall times vary from run to run: only in the detailed view (-feg_op_view ::ascii_info_detail) */
      PetscCall(MPIU_Allreduce(t, tmax, 4, MPI_DOUBLE, MPI_MAX, comm));
      PetscCall(PetscViewerASCIIPrintf(viewer, "setup phases (s, slowest process): dof map %.3g, geometry %.3g (both the DM's, shared by its operators and right-hand sides), matrix pattern %.3g, device data %.3g\n", tmax[0], tmax[1], tmax[2], tmax[3]));
    }
    PetscTryTypeMethod(op, view, viewer);
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "not set up\n"));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpViewFromOptions - views the operator if an option (-feg_op_view by default) asks for it

  Collective

  Options Database Key:
. -feg_op_view [viewer] - the option read when name is NULL

  Level: intermediate
@*/
PetscErrorCode FEGOpViewFromOptions(FEGOp op, PetscObject obj, const char name[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCall(PetscObjectViewFromOptions((PetscObject)op, obj, name ? name : "-feg_op_view"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the operator must be reassembled for form (its coefficients or auxiliary field changed, or a new form) */
PetscErrorCode FEGOpIsStale_Private(FEGOp op, FEGForm form, PetscBool *stale)
{
  PetscObjectState fs, as = 0;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)form, &fs));
  if (form->aux) PetscCall(PetscObjectStateGet((PetscObject)form->aux, &as));
  *stale = (PetscBool)(!op->nassembled || form != op->form || fs != op->formState || as != op->auxState);
  PetscFunctionReturn(PETSC_SUCCESS);
}
