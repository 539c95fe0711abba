#include <fegpu/private/fegmeshimpl.h>
#include <stdint.h>

/* GCC turns the short cone copies of FEGRawDAGRead() (2 to 6 entries) into inline "rep movs" block copies, which
   made the whole read several times slower */
#if defined(__GNUC__) && !defined(__clang__)
  #pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

/* Closure indices of every cell in bulk. PETSc's closure of a cell (its points, their orientations, the section's
   symmetries and closure permutation applied) depends only on the cones and cone orientations below the cell. Two cells
   whose raw cone DAGs carry the same orientations (the "class" of the cell) therefore have the same closure indices
   up to the offsets of their points: index i is offset(raw point s_i) + r_i for both. PETSc's own
   DMPlexGetClosureIndices() is called once per class, on its first cell; every other cell is array lookups.

   Three passes: every cell's signature key (threads), the classes in cell order (serial: PETSc's closure of each new
   class's first cell), every cell's indices with its signature checked against its class's (threads). The cell loops
   are latency-bound walks through the cone arrays, so threads pay off (FEGSetupThreads()). */

#define FEG_RAW_MAX 256

typedef struct {
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The raw DAG of cell c: points reached through cones, repeats kept (a vertex appears once per edge that has it), and
   their cones' orientations; 0 if it has more than FEG_RAW_MAX points. Thread-safe: no PETSc calls. */
static inline PetscBool FEGRawDAGRead(const FEGRawDAG *g, PetscInt c, PetscInt raw[], PetscInt sig[], PetscInt *nraw, PetscInt *nsig)
{
  PetscInt n = 1, ns = 0;

  raw[0] = c;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt p = raw[i] - g->cs.pStart, cs = g->cs.dof[p], o = g->cs.off[p];

    if (n + cs > FEG_RAW_MAX) return PETSC_FALSE;
    for (PetscInt k = 0; k < cs; k++) {
      raw[n++]  = g->cones[o + k];
      sig[ns++] = g->ornts[o + k];
    }
  }
  *nraw = n;
  *nsig = ns;
  return PETSC_TRUE;
}

/* a signature's key: two 64-bit FNV-1a hashes with different offsets (equal keys are checked again on the signatures) */
typedef struct {
  uint64_t a, b;
} FEGSigKey;

static inline FEGSigKey FEGSigKeyOf(PetscInt n, const PetscInt sig[])
{
  FEGSigKey k = {1469598103934665603ULL, 0x84222325cbf29ce4ULL};

  for (PetscInt i = 0; i < n; i++) {
    k.a = (k.a ^ (uint64_t)(sig[i] + 64)) * 1099511628211ULL;
    k.b = (k.b ^ (uint64_t)(sig[i] + 7919)) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
  }
  k.a ^= (uint64_t)n;
  return k;
}

typedef struct {
  FEGSigKey key;
  PetscInt  nsig, *sig;
  PetscInt *slot, *rel; /* index i of the closure is offset(raw[slot[i]]) + rel[i] */
} FEGClosureClass;

typedef struct {
  PetscInt         n, max, cap; /* classes, allocated classes, hash table size (a power of 2) */
  FEGClosureClass *cls;
  PetscInt        *table; /* class number + 1, 0 for an empty slot */
} FEGClassTable;

static PetscErrorCode FEGClassTableGrow(FEGClassTable *t)
{
  const PetscInt cap = t->cap ? 2 * t->cap : 64;
  PetscInt      *table;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(cap, &table));
  for (PetscInt c = 0; c < t->n; c++) {
    uint64_t h = t->cls[c].key.a;

    while (table[h & (uint64_t)(cap - 1)]) h++;
    table[h & (uint64_t)(cap - 1)] = c + 1;
  }
  PetscCall(PetscFree(t->table));
  t->table = table;
  t->cap   = cap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the class of key k, -1 if new (then *slot is where to put it) */
static PetscInt FEGClassFind(const FEGClassTable *t, FEGSigKey k, uint64_t *slot)
{
  for (uint64_t h = k.a;; h++) {
    const PetscInt c = t->table[h & (uint64_t)(t->cap - 1)] - 1;

    if (c < 0) {
      *slot = h & (uint64_t)(t->cap - 1);
      return -1;
    }
    if (t->cls[c].key.a == k.a && t->cls[c].key.b == k.b) return c;
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
static PetscErrorCode FEGClassLocate(const PetscInt raw[], PetscInt nraw, const FEGSectionLayout *L, PetscInt c, PetscInt x, PetscInt *slot, PetscInt *rel)
{
  PetscInt s;

  PetscFunctionBegin;
  for (s = 0; s < nraw; s++) {
    const PetscInt p = raw[s] - L->pStart;

    if (p >= 0 && p < L->pEnd - L->pStart && L->dof[p] > 0 && x >= L->off[p] && x < L->off[p] + L->dof[p]) break;
  }
  PetscCheck(s < nraw, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Closure index %" PetscInt_FMT " of cell %" PetscInt_FMT " lies on none of the cell's points", x, c);
  *slot = s;
  *rel  = x - L->off[raw[s] - L->pStart];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGPlexGetClosureBulk - the closure indices of cells cStart..cEnd-1 in several local sections on one topology, as
  DMPlexGetClosureIndices(t.dm, t.sec, t.sec, c, PETSC_TRUE, ...) gives them (constrained dofs by their offset, not
  encoded), or the values of a local array at them, in one pass over the cells' cones

  Not Collective

  Input Parameters:
+ dm       - the DMPlex whose cones are read
. cStart   - first cell
. cEnd     - end of the cells
. nt       - the number of targets
. t        - the targets: for each a DM with dm's topology (dm, its coordinate DM, an auxiliary DM) and a local section
             on it, the number n of closure indices every cell must have, and either idx (caller-allocated, filled with
             idx[(c-cStart)*n+i]) or vals and x (x[(c-cStart)*n+i] = the real part of vals at that index)
- nthreads - threads for the passes over the cells (FEGSetupThreads(); 1 without OpenMP)

  Output Parameter:
. nclasses - the number of orientation classes met (PETSc's closure was computed once for each and target), or NULL

  Note:
  Against DMPlexGetClosureIndices() cell by cell for a P2 field on one process it is faster by a factor in the tens
  with threads and about 4 on one (share/bench/bench_plex; the factors are in share/doc/performance.md).
  test_dofmap checks it against DMPlexGetClosureIndices() on box and Gmsh meshes, serial and distributed.

  Level: developer
@*/
PetscErrorCode FEGPlexGetClosureBulk(DM dm, PetscInt cStart, PetscInt cEnd, PetscInt nt, const FEGClosureTarget t[], PetscInt nthreads, PetscInt *nclasses)
{
  const PetscInt    Ne = cEnd - cStart;
  FEGRawDAG         g;
  FEGClassTable     tab;
  FEGSectionLayout *lay;
  FEGSigKey        *key;
  PetscInt         *cls, *base, *raw, *sig, nraw = 0, nsig = 0, ntot = 0, over = -1, bad = -1, badp = -1, badr = -1, collide = -1;
  /* threads only where there is enough work to share (and never for the small meshes of the tests under valgrind) */
  const int nth = (int)(Ne >= 16384 ? PetscMax(1, nthreads) : 1);

  PetscFunctionBegin;
  if (nclasses) *nclasses = 0;
  if (Ne <= 0 || nt < 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMemzero(&tab, sizeof(tab)));
  PetscCall(FEGRawDAGCreate(dm, &g));
  PetscCall(FEGClassTableGrow(&tab));
  PetscCall(PetscMalloc4(nt, &lay, nt + 1, &base, FEG_RAW_MAX, &raw, FEG_RAW_MAX, &sig));
  PetscCall(PetscMalloc2(Ne, &key, Ne, &cls));
  for (PetscInt k = 0; k < nt; k++) {
    PetscCall(FEGSectionGetLayout(t[k].sec, &lay[k]));
    base[k] = ntot;
    ntot += t[k].n;
  }
  base[nt] = ntot;

  /* 1: every cell's signature key */
#pragma omp parallel num_threads(nth) reduction(max : over)
  {
    PetscInt r[FEG_RAW_MAX], q[FEG_RAW_MAX], nr = 0, nq = 0;

#pragma omp for schedule(static)
    for (PetscInt e = 0; e < Ne; e++) {
      if (FEGRawDAGRead(&g, cStart + e, r, q, &nr, &nq)) key[e] = FEGSigKeyOf(nq, q);
      else over = PetscMax(over, cStart + e);
    }
  }
  PetscCheck(over < 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cell %" PetscInt_FMT " reaches more than %d points through its cones", over, FEG_RAW_MAX);

  /* 2: the classes, in cell order; PETSc's closure of each new class's first cell in each section */
  for (PetscInt e = 0; e < Ne; e++) {
    const PetscInt c = cStart + e;
    uint64_t       hslot;
    PetscInt       k;

    if (e > 0 && key[e].a == key[e - 1].a && key[e].b == key[e - 1].b) {
      cls[e] = cls[e - 1];
      continue;
    }
    k = FEGClassFind(&tab, key[e], &hslot);
    if (k < 0) {
      FEGClosureClass *nc;

      if (2 * (tab.n + 1) > tab.cap) {
        PetscCall(FEGClassTableGrow(&tab));
        (void)FEGClassFind(&tab, key[e], &hslot);
      }
      if (tab.n == tab.max) {
        tab.max = tab.max ? 2 * tab.max : 16;
        PetscCall(PetscRealloc((size_t)tab.max * sizeof(FEGClosureClass), &tab.cls));
      }
      (void)FEGRawDAGRead(&g, c, raw, sig, &nraw, &nsig);
      nc       = &tab.cls[tab.n];
      nc->key  = key[e];
      nc->nsig = nsig;
      PetscCall(PetscMalloc3(nsig, &nc->sig, ntot, &nc->slot, ntot, &nc->rel));
      PetscCall(PetscArraycpy(nc->sig, sig, nsig));
      for (PetscInt j = 0; j < nt; j++) {
        PetscInt nidx, *pidx = NULL;

        PetscCall(DMPlexGetClosureIndices(t[j].dm, t[j].sec, t[j].sec, c, PETSC_TRUE, &nidx, &pidx, NULL, NULL));
        PetscCheck(nidx == t[j].n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " closure indices, expected %" PetscInt_FMT, c, nidx, t[j].n);
        for (PetscInt i = 0; i < t[j].n; i++) PetscCall(FEGClassLocate(raw, nraw, &lay[j], c, pidx[i] >= 0 ? pidx[i] : -(pidx[i] + 1), &nc->slot[base[j] + i], &nc->rel[base[j] + i]));
        PetscCall(DMPlexRestoreClosureIndices(t[j].dm, t[j].sec, t[j].sec, c, PETSC_TRUE, &nidx, &pidx, NULL, NULL));
      }
      tab.table[hslot] = ++tab.n;
      k                = tab.n - 1;
    }
    cls[e] = k;
  }

  /* 3: every cell's indices, its signature checked against its class's (equal keys of different signatures would be
     caught here), and its points against the class's layout */
#pragma omp parallel num_threads(nth)
  {
    PetscInt r[FEG_RAW_MAX], q[FEG_RAW_MAX], nr = 0, nq = 0;

#pragma omp for schedule(static)
    for (PetscInt e = 0; e < Ne; e++) {
      const FEGClosureClass *cl = &tab.cls[cls[e]];

      (void)FEGRawDAGRead(&g, cStart + e, r, q, &nr, &nq);
      if (nq != cl->nsig || memcmp(q, cl->sig, (size_t)nq * sizeof(PetscInt))) {
#pragma omp critical(feg_closure_error)
        collide = cStart + e;
        continue;
      }
      for (PetscInt j = 0; j < nt; j++) {
        const FEGSectionLayout *L = &lay[j];
        const PetscInt          n = t[j].n, np = L->pEnd - L->pStart;
        const PetscInt         *slot = cl->slot + base[j], *rel = cl->rel + base[j];
        const size_t            o = (size_t)e * n;

        for (PetscInt i = 0; i < n; i++) {
          const PetscInt p = r[slot[i]] - L->pStart;

          /* same orientations, same kind of points: a point with fewer dofs than its class's first cell means another
             section layout, which this cannot handle */
          if (p < 0 || p >= np || rel[i] >= L->dof[p]) {
#pragma omp critical(feg_closure_error)
            {
              bad  = cStart + e;
              badp = p + L->pStart;
              badr = rel[i];
            }
            break;
          }
          if (t[j].x) t[j].x[o + i] = PetscRealPart(t[j].vals[L->off[p] + rel[i]]);
          else t[j].idx[o + i] = L->off[p] + rel[i];
        }
      }
    }
  }
  PetscCheck(collide < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT ": two cone-orientation signatures share a 128-bit key", collide);
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cell %" PetscInt_FMT ": point %" PetscInt_FMT " has fewer than %" PetscInt_FMT " dofs where a cell of the same orientations had more", bad, badp, badr + 1);
  if (nclasses) *nclasses = tab.n;
  PetscCall(PetscFree2(key, cls));
  PetscCall(PetscFree4(lay, base, raw, sig));
  PetscCall(FEGClassTableDestroy(&tab));
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
  PetscCall(FEGPlexGetClosureBulk(dm, cStart, cEnd, 1, &t, 1, nclasses));
  PetscFunctionReturn(PETSC_SUCCESS);
}
