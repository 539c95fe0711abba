/* -feg_op_type auto: at setup the operator becomes the registered type with the least predicted time for its setup
   (first assembly included) and the expected number of applications, from a cost model whose per-element constants
   come from calibration runs of share/bench/bench on the device (share/bench/auto/, table automodel.h) */
#include <fegpu/private/fegopimpl.h>

typedef struct {
  const char *device; /* "gpu" or "cpu" */
  const char *cell;   /* FEGCellInfo.name */
  int         affine; /* calibrated on affine cells (one Jacobian per cell, reference tensors) */
  int         order;
  const char *type;
  double      setup0, setup1; /* seconds of setup: setup0 + setup1 Ne */
  double      apply0, apply1; /* seconds of one MatMult: apply0 + apply1 Ne */
  double      bytes;          /* bytes a MatMult moves per element */
} FEGAutoModelRow;

#include "automodel.h"

typedef struct {
  PetscInt applies; /* FEGOpAutoSetApplies() */
} FEGOp_Auto;

/* the values FEGOpAutoSetApplies() and -feg_op_auto_applies accept */
static PetscErrorCode FEGAutoCheckApplies(MPI_Comm comm, PetscInt k)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Applications per assembly (-feg_op_auto_applies) %" PetscInt_FMT " must be at least 0", k);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpSetFromOptions_Auto(FEGOp op, PetscOptionItems *PetscOptionsObject)
{
  FEGOp_Auto *a = (FEGOp_Auto *)op->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "fegpu auto operator");
  PetscCall(PetscOptionsDeprecated("-feg_auto_applies", "-feg_op_auto_applies", "0.3", NULL));
  PetscCall(PetscOptionsInt("-feg_op_auto_applies", "Applications (MatMult) expected per assembly, for the auto type's choice", "FEGOpAutoSetApplies", a->applies, &a->applies, NULL));
  PetscCall(FEGAutoCheckApplies(PetscObjectComm((PetscObject)op), a->applies));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the model's row for a type nearest to (cell, affine, order) on this device, and the row's cell: the same order, else
   the nearest lower one (or higher, below the table's first order); rows of the same cell calibrated on the other kind
   of cells (affine or not) when the table has none of this kind; cells the table lacks take a table cell of the same
   shape family (triangles: tetrahedra, quadrilaterals: hexahedra) */
static PetscErrorCode FEGAutoModelFind(const char *device, const FEGCellInfo *cell, PetscBool affine, PetscInt order, const char *type, const FEGAutoModelRow **row, const FEGCellInfo **rowcell)
{
  const PetscInt n = (PetscInt)(sizeof(FEGAutoModel) / sizeof(FEGAutoModel[0]));

  PetscFunctionBegin;
  *row = NULL;
  for (int pass = 0; pass < 3 && !*row; pass++) {
    for (PetscInt i = 0; i < n; i++) {
      const FEGAutoModelRow *r = &FEGAutoModel[i], *best = *row;
      const FEGCellInfo     *rc;
      PetscEnum              c;
      PetscBool              found;

      if (strcmp(r->device, device) || strcmp(r->type, type)) continue;
      PetscCall(PetscEnumFind(FEGCellNames, r->cell, &c, &found)); /* FEGCellNames lists FEGCellInfos' names in order */
      if (!found) continue;
      rc = &FEGCellInfos[c];
      if (pass == 0 && (rc != cell || r->affine != (int)affine)) continue;
      if (pass == 1 && rc != cell) continue;
      if (pass == 2 && (rc->simplex != cell->simplex || rc->tensor != cell->tensor)) continue;
      if (!best || (r->order <= order && (best->order > order || r->order > best->order)) || (r->order > order && best->order > order && r->order < best->order)) {
        *row     = r;
        *rowcell = rc;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dofs of the order-p continuous Lagrange element on a cell: simplices C(p + dim, dim), tensor cells (p + 1)^dim,
   prisms a triangle's times a segment's */
static PetscInt FEGAutoNb(const FEGCellInfo *cell, PetscInt p)
{
  if (cell->simplex) return cell->dim == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
  if (cell->tensor) return cell->dim == 2 ? (p + 1) * (p + 1) : (p + 1) * (p + 1) * (p + 1);
  return (p + 1) * (p + 1) * (p + 2) / 2;
}

/* a row's predicted setup and per-application seconds and bytes for Ne elements of Nb dofs, the per-element parts
   scaled from the row's element: element matrices and assembled rows grow as Nb^2, matfree's stored data as Nb and its
   work as Nb^(4/3) */
static void FEGAutoModelEval(const FEGAutoModelRow *r, PetscInt rowNb, PetscInt Nb, PetscInt Ne, PetscBool matfree, double *setup, double *apply, double *bytes)
{
  const double s = (double)Nb / (double)rowNb;

  *setup = r->setup0 + r->setup1 * (double)Ne * (matfree ? s : s * s);
  *apply = r->apply0 + r->apply1 * (double)Ne * (matfree ? PetscPowReal(s, 4.0 / 3.0) : s * s);
  *bytes = r->bytes * (double)Ne * (matfree ? s : s * s);
}

/* the chosen type into type[], its reasons into op->autoinfo */
static PetscErrorCode FEGOpChooseType_Auto(FEGOp op, PetscBool ondevice, char type[], size_t len)
{
  FEGOp_Auto  *a      = (FEGOp_Auto *)op->data;
  FEGDisc     *d      = op->disc;
  const char  *device = ondevice ? "gpu" : "cpu";
  const char **names;
  int          ntypes;
  PetscInt     Ne    = d->Ne;
  double       bestt = PETSC_MAX_REAL, freebytes = PETSC_MAX_REAL;
  char        *line = NULL;
  MPI_Comm     comm = PetscObjectComm((PetscObject)op);

  PetscFunctionBegin;
  type[0] = 0;
  /* the slowest process decides the time */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &Ne, 1, MPIU_INT, MPI_MAX, comm));
  if (ondevice && FEGDevice.meminfo) {
    size_t fr, tot;

    PetscCall((*FEGDevice.meminfo)(&fr, &tot));
    freebytes = 0.8 * (double)fr;
  }
  /* every process must choose the same type: the fullest GPU decides what fits */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &freebytes, 1, MPI_DOUBLE, MPI_MIN, comm));
  PetscCall(FEGOpRegisterAll());
  PetscCall(PetscFunctionListGet(FEGOpList, &names, &ntypes));
  for (int i = 0; i < ntypes && names[i]; i++) { /* the array ends with NULL, which n counts */
    const FEGAutoModelRow *r;
    FEGOp                  probe;
    const FEGCellInfo     *rc = NULL;
    PetscBool              single, matfree;
    double                 setup, apply, bytes, t;

    if (!strcmp(names[i], FEGOPAUTO)) continue;
    PetscCall(FEGAutoModelFind(device, d->cell, d->affine, d->order, names[i], &r, &rc));
    if (!r) continue;
    if (op->precision == FEG_PRECISION_SINGLE) { /* its create function says whether the type stores single */
      PetscCall(FEGOpCreate(PETSC_COMM_SELF, &probe));
      PetscCall(FEGOpSetType(probe, names[i]));
      single = probe->single;
      PetscCall(FEGOpDestroy(&probe));
      if (!single) continue;
    }
    matfree = (PetscBool)!strcmp(r->type, FEGOPMATFREE);
    FEGAutoModelEval(r, FEGAutoNb(rc, r->order), d->Nb, Ne, matfree, &setup, &apply, &bytes);
    t = setup + (double)a->applies * apply;
    if (bytes > freebytes) {
      PetscCall(FEGStrAppendf(&line, "%s%s needs %.3g GB (too much)", line ? ", " : "", names[i], bytes / 1e9));
      continue;
    }
    PetscCall(FEGStrAppendf(&line, "%s%s %.3g s", line ? ", " : "", names[i], t));
    if (t < bestt) {
      bestt = t;
      PetscCall(PetscStrncpy(type, names[i], len));
    }
  }
  PetscCall(PetscFree(names));
  PetscCheck(type[0], comm, PETSC_ERR_SUP, "-feg_op_type auto has no model for %s of order %" PetscInt_FMT " on the %s%s; choose the type with -feg_op_type", d->cell->plural, d->order, device, op->precision == FEG_PRECISION_SINGLE ? " in single precision" : "");
  PetscCall(PetscFree(op->autoinfo));
  PetscCall(FEGStrAppendf(&op->autoinfo, "chosen by -feg_op_type auto for %" PetscInt_FMT " applications; predicted setup + applications: %s (model: %s)", a->applies, line, FEGAutoModelSource));
  PetscCall(PetscFree(line));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAutoSetApplies_Auto(FEGOp op, PetscInt k)
{
  PetscFunctionBegin;
  ((FEGOp_Auto *)op->data)->applies = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAutoGetApplies_Auto(FEGOp op, PetscInt *k)
{
  PetscFunctionBegin;
  *k = ((FEGOp_Auto *)op->data)->applies;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpAutoSetApplies - the applications (MatMult) an auto operator expects per assembly, which weigh setup against the
  cost of an application in its choice of type; no effect on other types

  Logically Collective

  Input Parameters:
+ op - the operator, of type `FEGOPAUTO`
- k  - the applications, at least 0 (default 100)

  Options Database Key:
. -feg_op_auto_applies <k> - the same (deprecated name: -feg_auto_applies)

  Note:
  At `FEGOpSetUp()` the operator becomes another type, and this setting is gone with it.

  Level: intermediate

.seealso: FEGOpAutoGetApplies(), FEGOPAUTO, FEGOpSetType()
@*/
PetscErrorCode FEGOpAutoSetApplies(FEGOp op, PetscInt k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(op, k, 2);
  PetscCall(FEGAutoCheckApplies(PetscObjectComm((PetscObject)op), k));
  PetscTryMethod(op, "FEGOpAutoSetApplies_C", (FEGOp, PetscInt), (op, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpAutoGetApplies - see `FEGOpAutoSetApplies()`; the operator must be of type `FEGOPAUTO` (not yet set up)

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOpAutoGetApplies(FEGOp op, PetscInt *k)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(k, 2);
  PetscUseMethod(op, "FEGOpAutoGetApplies_C", (FEGOp, PetscInt *), (op, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpDestroy_Auto(FEGOp op)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(op->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpAutoSetApplies_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpAutoGetApplies_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode FEGOpCreate_Auto(FEGOp op)
{
  FEGOp_Auto *a;

  PetscFunctionBegin;
  PetscCall(PetscNew(&a));
  a->applies              = 100;
  op->data                = a;
  op->ops->setfromoptions = FEGOpSetFromOptions_Auto;
  op->ops->choosetype     = FEGOpChooseType_Auto;
  op->ops->destroy        = FEGOpDestroy_Auto;
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpAutoSetApplies_C", FEGOpAutoSetApplies_Auto));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpAutoGetApplies_C", FEGOpAutoGetApplies_Auto));
  PetscFunctionReturn(PETSC_SUCCESS);
}
