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
  PetscInt        nraw, nsig;
  PetscInt       *raw, *sig;     /* per cell: its raw DAG points in breadth-first cone order, and their cones' orientations */
  PetscInt        pStart, pEnd;  /* the chart */
  PetscInt       *coff, *csize;  /* the cone section as arrays */
  const PetscInt *cones, *ornts; /* the plex's cone and orientation arrays */
} FEGRawDAG;

static PetscErrorCode FEGRawDAGCreate(DM dm, FEGRawDAG *g)
{
  PetscSection cs;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscCall(DMPlexGetChart(dm, &g->pStart, &g->pEnd));
  PetscCall(DMPlexGetConeSection(dm, &cs));
  PetscCall(DMPlexGetCones(dm, (PetscInt **)&g->cones));
  PetscCall(DMPlexGetConeOrientations(dm, (PetscInt **)&g->ornts));
  PetscCall(PetscMalloc4(g->pEnd - g->pStart, &g->coff, g->pEnd - g->pStart, &g->csize, FEG_RAW_MAX, &g->raw, FEG_RAW_MAX, &g->sig));
  for (PetscInt p = g->pStart; p < g->pEnd; p++) {
    PetscCall(PetscSectionGetOffset(cs, p, &g->coff[p - g->pStart]));
    PetscCall(PetscSectionGetDof(cs, p, &g->csize[p - g->pStart]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGRawDAGDestroy(FEGRawDAG *g)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(g->coff, g->csize, g->raw, g->sig));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The raw DAG of cell c: points reached through cones, repeats kept (a vertex appears once per edge that has it) */
static PetscErrorCode FEGRawDAGRead(FEGRawDAG *g, PetscInt c)
{
  PetscInt n = 1, ns = 0;

  PetscFunctionBegin;
  g->raw[0] = c;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt p = g->raw[i] - g->pStart, cs = g->csize[p], o = g->coff[p];

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

/*@C
  FEGPlexGetClosureIndicesBulk - the closure indices of cells cStart..cEnd-1 in a local section, as
  DMPlexGetClosureIndices(dm, sec, sec, c, PETSC_TRUE, ...) gives them (constrained dofs by their offset, not encoded)

  Not Collective

  Input Parameters:
+ dm     - the DMPlex (or a clone sharing its topology: an auxiliary or coordinate DM)
. sec    - a local section on it
. cStart - first cell
. cEnd   - end of the cells
- n      - the number of closure indices every cell must have

  Output Parameters:
+ idx      - idx[(c-cStart)*n+i], caller-allocated
- nclasses - the number of orientation classes met (PETSc's closure was computed once for each), or NULL

  Level: developer
@*/
PetscErrorCode FEGPlexGetClosureIndicesBulk(DM dm, PetscSection sec, PetscInt cStart, PetscInt cEnd, PetscInt n, PetscInt idx[], PetscInt *nclasses)
{
  FEGRawDAG     g;
  FEGClassTable t;
  PetscInt      sStart, sEnd, *off, *dof;

  PetscFunctionBegin;
  if (nclasses) *nclasses = 0;
  if (cEnd <= cStart) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMemzero(&t, sizeof(t)));
  PetscCall(FEGRawDAGCreate(dm, &g));
  PetscCall(FEGClassTableGrow(&t));
  /* the section's offsets and sizes over the whole chart (0 dofs outside the section's chart) */
  PetscCall(PetscSectionGetChart(sec, &sStart, &sEnd));
  PetscCall(PetscMalloc2(g.pEnd - g.pStart, &off, g.pEnd - g.pStart, &dof));
  for (PetscInt p = g.pStart; p < g.pEnd; p++) {
    off[p - g.pStart] = dof[p - g.pStart] = 0;
    if (p < sStart || p >= sEnd) continue;
    PetscCall(PetscSectionGetOffset(sec, p, &off[p - g.pStart]));
    PetscCall(PetscSectionGetDof(sec, p, &dof[p - g.pStart]));
  }
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt              *ci = idx + (size_t)(c - cStart) * n, k;
    uint64_t               hslot;
    const FEGClosureClass *cl;

    PetscCall(FEGRawDAGRead(&g, c));
    k = FEGClassFind(&t, &g, &hslot);
    if (k < 0) {
      /* a new class: PETSc's closure of this cell, each index located in one of the raw points */
      FEGClosureClass *nc;
      PetscInt         nidx, *pidx = NULL;

      if (2 * (t.n + 1) > t.cap) {
        PetscCall(FEGClassTableGrow(&t));
        (void)FEGClassFind(&t, &g, &hslot);
      }
      if (t.n == t.max) {
        t.max = t.max ? 2 * t.max : 16;
        PetscCall(PetscRealloc((size_t)t.max * sizeof(FEGClosureClass), &t.cls));
      }
      nc       = &t.cls[t.n];
      nc->nsig = g.nsig;
      PetscCall(PetscMalloc3(g.nsig, &nc->sig, n, &nc->slot, n, &nc->rel));
      PetscCall(PetscArraycpy(nc->sig, g.sig, g.nsig));
      PetscCall(DMPlexGetClosureIndices(dm, sec, sec, c, PETSC_TRUE, &nidx, &pidx, NULL, NULL));
      PetscCheck(nidx == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " closure indices, expected %" PetscInt_FMT, c, nidx, n);
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt x = pidx[i] >= 0 ? pidx[i] : -(pidx[i] + 1);
        PetscInt       s;

        for (s = 0; s < g.nraw; s++) {
          const PetscInt p = g.raw[s] - g.pStart;

          if (dof[p] > 0 && x >= off[p] && x < off[p] + dof[p]) break;
        }
        PetscCheck(s < g.nraw, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Closure index %" PetscInt_FMT " of cell %" PetscInt_FMT " lies on none of the cell's points", x, c);
        nc->slot[i] = s;
        nc->rel[i]  = x - off[g.raw[s] - g.pStart];
      }
      PetscCall(DMPlexRestoreClosureIndices(dm, sec, sec, c, PETSC_TRUE, &nidx, &pidx, NULL, NULL));
      t.table[hslot] = ++t.n;
      k              = t.n - 1;
    }
    cl = &t.cls[k];
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt p = g.raw[cl->slot[i]] - g.pStart;

      /* same orientations, same kind of points: a point with fewer dofs than its class's first cell means another
         section layout, which this cannot handle */
      PetscCheck(cl->rel[i] < dof[p], PETSC_COMM_SELF, PETSC_ERR_SUP, "Cell %" PetscInt_FMT ": point %" PetscInt_FMT " has %" PetscInt_FMT " dofs where a cell of the same orientations had more than %" PetscInt_FMT, c, p + g.pStart, dof[p], cl->rel[i]);
      ci[i] = off[p] + cl->rel[i];
    }
  }
  if (nclasses) *nclasses = t.n;
  PetscCall(PetscFree2(off, dof));
  PetscCall(FEGClassTableDestroy(&t));
  PetscCall(FEGRawDAGDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}
