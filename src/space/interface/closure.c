#include <fegpu/private/fegimpl.h>
#include <stdint.h>

/* Closure indices of every cell in bulk. PETSc's closure of a cell (its points, their orientations, the section's
   symmetries and closure permutation applied) depends only on the cones and cone orientations below the cell. Two cells
   whose raw cone DAGs carry the same orientations (the "class" of the cell) therefore have the same closure indices
   up to the offsets of their points: index i is offset(raw point s_i) + r_i for both. PETSc's own
   DMPlexGetClosureIndices() is called once per class, on its first cell; every other cell is array lookups (about 20x
   faster on hexahedra than a call per cell). */

#define FEG_RAW_MAX 256

typedef struct {
  PetscInt         nraw, nsig;
  PetscInt        *raw, *sig;     /* per cell: its raw DAG points in breadth-first cone order, and their cones' orientations */
  FEGSectionLayout cs;            /* the cone section's arrays */
  const PetscInt  *cones, *ornts; /* the plex's cone and orientation arrays */
} FEGRawDAG;

static PetscErrorCode FEGRawDAGCreate(DM dm, FEGRawDAG *g)
{
  PetscSection cs;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscCall(DMPlexGetConeSection(dm, &cs));
  PetscCall(FEGSectionGetLayout(cs, &g->cs));
  PetscCall(DMPlexGetCones(dm, (PetscInt **)&g->cones));
  PetscCall(DMPlexGetConeOrientations(dm, (PetscInt **)&g->ornts));
  PetscCall(PetscMalloc2(FEG_RAW_MAX, &g->raw, FEG_RAW_MAX, &g->sig));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGRawDAGDestroy(FEGRawDAG *g)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(g->raw, g->sig));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The raw DAG of cell c: points reached through cones, repeats kept (a vertex appears once per edge that has it) */
static PetscErrorCode FEGRawDAGRead(FEGRawDAG *g, PetscInt c)
{
  PetscInt n = 1, ns = 0;

  PetscFunctionBegin;
  g->raw[0] = c;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt p = g->raw[i] - g->cs.pStart, cs = g->cs.dof[p], o = g->cs.off[p];

    PetscCheck(n + cs <= FEG_RAW_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cell %" PetscInt_FMT " reaches more than %d points through its cones", c, FEG_RAW_MAX);
    for (PetscInt k = 0; k < cs; k++) {
      g->raw[n++]  = g->cones[o + k];
      g->sig[ns++] = g->ornts[o + k];
    }
  }
  g->nraw = n;
  g->nsig = ns;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt  nsig, *sig;
  PetscInt *slot, *rel; /* index i of the closure is offset(raw[slot[i]]) + rel[i] */
} FEGClosureClass;

typedef struct {
  PetscInt         n, max, cap; /* classes, allocated classes, hash table size (a power of 2) */
  FEGClosureClass *cls;
  PetscInt        *table; /* class number + 1, 0 for an empty slot */
} FEGClassTable;

static uint64_t FEGSigHash(PetscInt n, const PetscInt sig[])
{
  uint64_t h = 1469598103934665603ULL;

  for (PetscInt i = 0; i < n; i++) h = (h ^ (uint64_t)(sig[i] + 64)) * 1099511628211ULL;
  return h;
}

static PetscErrorCode FEGClassTableGrow(FEGClassTable *t)
{
  const PetscInt cap = t->cap ? 2 * t->cap : 64;
  PetscInt      *table;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(cap, &table));
  for (PetscInt c = 0; c < t->n; c++) {
    uint64_t h = FEGSigHash(t->cls[c].nsig, t->cls[c].sig);

    while (table[h & (uint64_t)(cap - 1)]) h++;
    table[h & (uint64_t)(cap - 1)] = c + 1;
  }
  PetscCall(PetscFree(t->table));
  t->table = table;
  t->cap   = cap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the class of the raw DAG just read, -1 if new (then *slot is where to put it) */
static PetscInt FEGClassFind(const FEGClassTable *t, const FEGRawDAG *g, uint64_t *slot)
{
  uint64_t h = FEGSigHash(g->nsig, g->sig);

  for (;; h++) {
    const PetscInt c = t->table[h & (uint64_t)(t->cap - 1)] - 1;

    if (c < 0) {
      *slot = h & (uint64_t)(t->cap - 1);
      return -1;
    }
    if (t->cls[c].nsig == g->nsig && !memcmp(t->cls[c].sig, g->sig, (size_t)g->nsig * sizeof(PetscInt))) return c;
  }
}

static PetscErrorCode FEGClassTableDestroy(FEGClassTable *t)
{
  PetscFunctionBegin;
  for (PetscInt c = 0; c < t->n; c++) PetscCall(PetscFree3(t->cls[c].sig, t->cls[c].slot, t->cls[c].rel));
  PetscCall(PetscFree(t->cls));
  PetscCall(PetscFree(t->table));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* where index x of a new class's first cell lies: slot s of the raw DAG and offset in its point */
static PetscErrorCode FEGClassLocate(const FEGRawDAG *g, const FEGSectionLayout *L, PetscInt c, PetscInt x, PetscInt *slot, PetscInt *rel)
{
  PetscInt s;

  PetscFunctionBegin;
  for (s = 0; s < g->nraw; s++) {
    const PetscInt p = g->raw[s] - L->pStart;

    if (p >= 0 && p < L->pEnd - L->pStart && L->dof[p] > 0 && x >= L->off[p] && x < L->off[p] + L->dof[p]) break;
  }
  PetscCheck(s < g->nraw, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Closure index %" PetscInt_FMT " of cell %" PetscInt_FMT " lies on none of the cell's points", x, c);
  *slot = s;
  *rel  = x - L->off[g->raw[s] - L->pStart];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGPlexGetClosureBulk - the closure indices of cells cStart..cEnd-1 in several local sections on one topology, as
  DMPlexGetClosureIndices(t.dm, t.sec, t.sec, c, PETSC_TRUE, ...) gives them (constrained dofs by their offset, not
  encoded), or the values of a local array at them, in one pass over the cells' cones

  Not Collective

  Input Parameters:
+ dm     - the DMPlex whose cones are read
. cStart - first cell
. cEnd   - end of the cells
. nt     - the number of targets
- t      - the targets: for each a DM with dm's topology (dm, its coordinate DM, an auxiliary DM) and a local section
           on it, the number n of closure indices every cell must have, and either idx (caller-allocated, filled with
           idx[(c-cStart)*n+i]) or vals and x (x[(c-cStart)*n+i] = the real part of vals at that index)

  Output Parameter:
. nclasses - the number of orientation classes met (PETSc's closure was computed once for each and target), or NULL

  Level: developer
@*/
PetscErrorCode FEGPlexGetClosureBulk(DM dm, PetscInt cStart, PetscInt cEnd, PetscInt nt, const FEGClosureTarget t[], PetscInt *nclasses)
{
  FEGRawDAG         g;
  FEGClassTable     tab;
  FEGSectionLayout *lay;
  PetscInt         *base, ntot = 0;

  PetscFunctionBegin;
  if (nclasses) *nclasses = 0;
  if (cEnd <= cStart || nt < 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMemzero(&tab, sizeof(tab)));
  PetscCall(FEGRawDAGCreate(dm, &g));
  PetscCall(FEGClassTableGrow(&tab));
  PetscCall(PetscMalloc2(nt, &lay, nt + 1, &base));
  for (PetscInt k = 0; k < nt; k++) {
    PetscCall(FEGSectionGetLayout(t[k].sec, &lay[k]));
    base[k] = ntot;
    ntot += t[k].n;
  }
  base[nt] = ntot;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt               k;
    uint64_t               hslot;
    const FEGClosureClass *cl;

    PetscCall(FEGRawDAGRead(&g, c));
    k = FEGClassFind(&tab, &g, &hslot);
    if (k < 0) {
      /* a new class: PETSc's closure of this cell in each section, each index located in one of the raw points */
      FEGClosureClass *nc;

      if (2 * (tab.n + 1) > tab.cap) {
        PetscCall(FEGClassTableGrow(&tab));
        (void)FEGClassFind(&tab, &g, &hslot);
      }
      if (tab.n == tab.max) {
        tab.max = tab.max ? 2 * tab.max : 16;
        PetscCall(PetscRealloc((size_t)tab.max * sizeof(FEGClosureClass), &tab.cls));
      }
      nc       = &tab.cls[tab.n];
      nc->nsig = g.nsig;
      PetscCall(PetscMalloc3(g.nsig, &nc->sig, ntot, &nc->slot, ntot, &nc->rel));
      PetscCall(PetscArraycpy(nc->sig, g.sig, g.nsig));
      for (PetscInt j = 0; j < nt; j++) {
        PetscInt nidx, *pidx = NULL;

        PetscCall(DMPlexGetClosureIndices(t[j].dm, t[j].sec, t[j].sec, c, PETSC_TRUE, &nidx, &pidx, NULL, NULL));
        PetscCheck(nidx == t[j].n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " closure indices, expected %" PetscInt_FMT, c, nidx, t[j].n);
        for (PetscInt i = 0; i < t[j].n; i++) PetscCall(FEGClassLocate(&g, &lay[j], c, pidx[i] >= 0 ? pidx[i] : -(pidx[i] + 1), &nc->slot[base[j] + i], &nc->rel[base[j] + i]));
        PetscCall(DMPlexRestoreClosureIndices(t[j].dm, t[j].sec, t[j].sec, c, PETSC_TRUE, &nidx, &pidx, NULL, NULL));
      }
      tab.table[hslot] = ++tab.n;
      k                = tab.n - 1;
    }
    cl = &tab.cls[k];
    for (PetscInt j = 0; j < nt; j++) {
      const FEGSectionLayout *L = &lay[j];
      const PetscInt          n = t[j].n, np = L->pEnd - L->pStart;
      const PetscInt         *slot = cl->slot + base[j], *rel = cl->rel + base[j];
      const size_t            o = (size_t)(c - cStart) * n;

      for (PetscInt i = 0; i < n; i++) {
        const PetscInt p = g.raw[slot[i]] - L->pStart;

        /* same orientations, same kind of points: a point with fewer dofs than its class's first cell means another
           section layout, which this cannot handle */
        PetscCheck(p >= 0 && p < np && rel[i] < L->dof[p], PETSC_COMM_SELF, PETSC_ERR_SUP, "Cell %" PetscInt_FMT ": point %" PetscInt_FMT " has fewer dofs than %" PetscInt_FMT " where a cell of the same orientations had more", c, p + L->pStart, rel[i] + 1);
        if (t[j].x) t[j].x[o + i] = PetscRealPart(t[j].vals[L->off[p] + rel[i]]);
        else t[j].idx[o + i] = L->off[p] + rel[i];
      }
    }
  }
  if (nclasses) *nclasses = tab.n;
  PetscCall(PetscFree2(lay, base));
  PetscCall(FEGClassTableDestroy(&tab));
  PetscCall(FEGRawDAGDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGPlexGetClosureIndicesBulk - the closure indices of cells cStart..cEnd-1 in a local section, as
  DMPlexGetClosureIndices(dm, sec, sec, c, PETSC_TRUE, ...) gives them (constrained dofs by their offset, not encoded):
  FEGPlexGetClosureBulk() with one target

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGPlexGetClosureIndicesBulk(DM dm, PetscSection sec, PetscInt cStart, PetscInt cEnd, PetscInt n, PetscInt idx[], PetscInt *nclasses)
{
  FEGClosureTarget t = {dm, sec, n, idx, NULL, NULL};

  PetscFunctionBegin;
  PetscCall(FEGPlexGetClosureBulk(dm, cStart, cEnd, 1, &t, nclasses));
  PetscFunctionReturn(PETSC_SUCCESS);
}
