/* The polynomial hierarchy of a fegpu DM: the same mesh at lower orders, for p-multigrid through PETSc's PCMG. The
   coarse DM is a clone (topology, coordinates and labels shared), with the Lagrange field of the lower order on the
   same node family and continuity, and the fine DM's essential boundary conditions. */
#include <fegpu/private/fegspaceimpl.h>
#include <petscds.h>

const char *const FEGCoarsenOrders[] = {"halve", "decrement", "FEGCoarsenOrder", "FEG_COARSEN_", NULL};

static PetscInt FEGCoarsenOrderId = -1, FEGCoarsenTopId = -1;

/*@
  FEGDMSetCoarsenOrder - how DMCoarsen() of a DM with a fegpu form lowers the order: halved (p/2, rounded down) or
  decremented (p - 1), down to 1

  Logically Collective

  Input Parameters:
+ dm   - the DMPlex
- type - `FEG_COARSEN_HALVE` (default) or `FEG_COARSEN_DECREMENT`

  Options Database Key:
. -feg_coarsen_order <halve,decrement> - the same, read with the DM's options prefix when the DM is first coarsened

  Level: intermediate

  Note:
  The coarse DMs inherit the setting. The orders of the hierarchy are `FEGDMGetOrderHierarchy()`'s; PCMG needs as many
  levels (`-pc_mg_levels`) as it has orders, or fewer.

.seealso: FEGDMGetCoarsenOrder(), FEGDMGetOrderHierarchy(), FEGDMSetForm()
@*/
PetscErrorCode FEGDMSetCoarsenOrder(DM dm, FEGCoarsenOrder type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(dm, type, 2);
  PetscCheck(type == FEG_COARSEN_HALVE || type == FEG_COARSEN_DECREMENT, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "Coarsening %d is not one of FEG_COARSEN_HALVE, FEG_COARSEN_DECREMENT", (int)type);
  PetscCall(FEGObjectSetSetting_Private((PetscObject)dm, &FEGCoarsenOrderId, (PetscEnum)type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMGetCoarsenOrder - see `FEGDMSetCoarsenOrder()`: the setting, else -feg_coarsen_order from the DM's options
  prefix, else `FEG_COARSEN_HALVE`

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGDMGetCoarsenOrder(DM dm, FEGCoarsenOrder *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(type, 2);
  *type = FEG_COARSEN_HALVE;
  PetscCall(FEGObjectGetSetting_Private((PetscObject)dm, FEGCoarsenOrderId, "-feg_coarsen_order", FEGCoarsenOrders, (PetscEnum *)type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the order, continuity and node family of the DM's (only) Lagrange field */
static PetscErrorCode FEGDMFieldOrder(DM dm, PetscInt *order, PetscBool *continuous, FEGNodeType *nodes)
{
  PetscObject    obj = NULL;
  PetscClassId   id;
  PetscFE        fe;
  PetscSpace     P;
  PetscDualSpace Q;
  PetscInt       Nf, deg;

  PetscFunctionBegin;
  PetscCall(DMGetNumFields(dm, &Nf));
  if (Nf > 0) PetscCall(DMGetField(dm, 0, NULL, &obj));
  if (obj) PetscCall(PetscObjectGetClassId(obj, &id));
  PetscCheck(Nf == 1 && obj && id == PETSCFE_CLASSID, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "A polynomial hierarchy needs the DM's one Lagrange field of FEGSetUpDiscretization(); this DM has %" PetscInt_FMT " fields", Nf);
  fe = (PetscFE)obj;
  PetscCall(PetscFEGetBasisSpace(fe, &P));
  PetscCall(PetscSpaceGetDegree(P, &deg, NULL));
  PetscCall(PetscFEGetDualSpace(fe, &Q));
  PetscCall(PetscDualSpaceLagrangeGetContinuity(Q, continuous));
  *order = deg;
  if (nodes) {
    PetscBool set;

    /* the family the element was made with; equispaced (PETSc's) for one made otherwise */
    PetscCall(FEGFEGetNodeType(fe, nodes, &set));
    if (!set) *nodes = FEG_NODES_EQUISPACED;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt FEGCoarserOrder(FEGCoarsenOrder type, PetscInt p)
{
  return PetscMax(1, type == FEG_COARSEN_HALVE ? p / 2 : p - 1);
}

/* the orders from p down to 1 (orders may be NULL) and their number */
static void FEGOrders(FEGCoarsenOrder type, PetscInt p, PetscInt *n, PetscInt orders[])
{
  for (*n = 0;; p = FEGCoarserOrder(type, p)) {
    if (orders) orders[*n] = p;
    (*n)++;
    if (p == 1) break;
  }
}

/*@
  FEGDMGetOrderHierarchy - the orders of the DM's polynomial hierarchy, finest first: p, then each coarser order
  (`FEGDMSetCoarsenOrder()`) down to 1; PCMG can use at most n levels (-pc_mg_levels n)

  Not Collective

  Input Parameter:
. dm - the DMPlex with its discretization set up (`FEGSetUpDiscretization()`)

  Output Parameters:
+ n      - the number of orders
- orders - the orders (room for 9), or NULL

  Level: intermediate

.seealso: FEGDMSetCoarsenOrder()
@*/
PetscErrorCode FEGDMGetOrderHierarchy(DM dm, PetscInt *n, PetscInt orders[])
{
  PetscInt        p;
  PetscBool       continuous;
  FEGCoarsenOrder type;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(n, 2);
  PetscCall(FEGDMFieldOrder(dm, &p, &continuous, NULL));
  PetscCall(FEGDMGetCoarsenOrder(dm, &type));
  FEGOrders(type, p, n, orders);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMCoarsenOrder - the same mesh at the next lower order of the hierarchy: a clone of the DM sharing its topology,
  coordinates and labels, with the Lagrange field of the lower order (same continuity and node family) and the fine
  DM's essential boundary conditions

  Collective

  Input Parameter:
. dm - a DMPlex with its discretization set up (`FEGSetUpDiscretization()`), of order 2 or more

  Output Parameter:
. dmc - the coarse DM

  Level: developer

  Note:
  `FEGDMSetForm()` makes this the DM's DMCoarsen(), with the form passed on; an order-1 DM cannot be coarsened.

.seealso: FEGDMSetCoarsenOrder(), FEGDMGetOrderHierarchy()
@*/
PetscErrorCode FEGDMCoarsenOrder(DM dm, DM *dmc)
{
  PetscInt        p, pc, top = 0;
  PetscBool       continuous, set = PETSC_FALSE;
  FEGNodeType     nodes;
  FEGCoarsenOrder type;
  PetscObject     fe;
  const char     *name, *prefix;
  VecType         vtype;
  PetscDS         ds, dsc;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(dmc, 2);
  PetscCall(FEGDMFieldOrder(dm, &p, &continuous, &nodes));
  PetscCall(FEGDMGetCoarsenOrder(dm, &type));
  if (FEGCoarsenTopId < 0) PetscCall(PetscObjectComposedDataRegister(&FEGCoarsenTopId));
  PetscCall(PetscObjectComposedDataGetInt((PetscObject)dm, FEGCoarsenTopId, top, set));
  if (!set) top = p;
  if (p == 1) {
    PetscInt n;

    FEGOrders(type, top, &n, NULL);
    SETERRQ(PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "An order-1 space cannot be coarsened: order %" PetscInt_FMT " with -feg_coarsen_order %s has %" PetscInt_FMT " orders, so PCMG takes at most -pc_mg_levels %" PetscInt_FMT " (FEGDMGetOrderHierarchy())", top, FEGCoarsenOrders[type], n, n);
  }
  pc = FEGCoarserOrder(type, p);
  PetscCall(DMGetField(dm, 0, NULL, &fe));
  PetscCall(PetscObjectGetName(fe, &name));
  PetscCall(DMClone(dm, dmc));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)dm, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*dmc, prefix));
  PetscCall(DMGetVecType(dm, &vtype));
  PetscCall(DMSetVecType(*dmc, vtype));
  PetscCall(FEGSetUpDiscretizationWithNodes(*dmc, pc, continuous, nodes, name));
  /* essential boundary conditions: the same labels and values, constrained in the coarse section */
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(DMGetDS(*dmc, &dsc));
  PetscCall(PetscDSCopyBoundary(ds, PETSC_DEFAULT, NULL, dsc));
  PetscCall(DMSetLocalSection(*dmc, NULL));
  PetscCall(FEGDMSetCoarsenOrder(*dmc, type));
  PetscCall(PetscObjectComposedDataSetInt((PetscObject)*dmc, FEGCoarsenTopId, top));
  {
    FEGReorderType eorder;

    /* the same element order, which the interpolation between the levels pairs elements by */
    PetscCall(FEGDMGetElementOrder(dm, &eorder));
    PetscCall(FEGDMSetElementOrder(*dmc, eorder));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
