#include <fegpu/private/fegmeshimpl.h>
#include <petscsf.h>
#include <petscbt.h>

/* Deterministic value in [-1/2, 1/2) from a vertex number, so serial and parallel meshes are identical */
static PetscReal FEGHashUnit(PetscInt v, PetscInt d)
{
  PetscInt64 x = (PetscInt64)v * 3 + d + 1;

  x = (x ^ (x >> 17)) * 0x45d9f3bLL;
  x = (x ^ (x >> 15)) * 0x45d9f3bLL;
  x = x ^ (x >> 16);
  return (PetscReal)(x & 0xFFFFF) / (PetscReal)0x100000 - 0.5;
}

/* The cells of one square (cube) of the box, from its corners corner[i + 2j + 4k]; vertex orders follow PETSc's
   reference cells (DMPlexCreateReferenceCell), so every cell has a positive Jacobian. The cell table names these. */
void FEGBoxSplitTriangle(const PetscInt c[], PetscInt cells[])
{
  const PetscInt t[6] = {c[0], c[1], c[3], c[0], c[3], c[2]};

  for (PetscInt l = 0; l < 6; l++) cells[l] = t[l];
}

void FEGBoxSplitQuadrilateral(const PetscInt c[], PetscInt cells[])
{
  const PetscInt q[4] = {c[0], c[1], c[3], c[2]};

  for (PetscInt l = 0; l < 4; l++) cells[l] = q[l];
}

void FEGBoxSplitHexahedron(const PetscInt c[], PetscInt cells[])
{
  const PetscInt h[8] = {c[0], c[2], c[3], c[1], c[4], c[5], c[7], c[6]};

  for (PetscInt l = 0; l < 8; l++) cells[l] = h[l];
}

/* CCW triangles (a, b, c) of the square; PETSc's prism has a clockwise bottom and the top vertex over bottom vertex 0,
   2, 1 */
void FEGBoxSplitPrism(const PetscInt c[], PetscInt cells[])
{
  const PetscInt tri[2][3] = {
    {0, 1, 3},
    {0, 3, 2}
  };

  for (PetscInt t = 0; t < 2; t++) {
    const PetscInt a = tri[t][0], b = tri[t][1], cc = tri[t][2];
    const PetscInt p[6] = {c[a], c[cc], c[b], c[a + 4], c[b + 4], c[cc + 4]};

    for (PetscInt l = 0; l < 6; l++) cells[6 * t + l] = p[l];
  }
}

/* Kuhn subdivision: one tetrahedron per path 000 -> 111 along the axes, conforming between cubes */
void FEGBoxSplitTetrahedron(const PetscInt c[], PetscInt cells[])
{
  const PetscInt perm[6][3] = {
    {0, 1, 2},
    {0, 2, 1},
    {1, 0, 2},
    {1, 2, 0},
    {2, 0, 1},
    {2, 1, 0}
  };

  for (PetscInt t = 0; t < 6; t++) {
    PetscInt o[3] = {0, 0, 0}, vt[4], x[4][3];

    for (PetscInt s = 0; s < 4; s++) {
      if (s > 0) o[perm[t][s - 1]] = 1;
      vt[s] = c[o[0] + 2 * o[1] + 4 * o[2]];
      for (PetscInt d = 0; d < 3; d++) x[s][d] = o[d];
    }
    {
      const PetscInt a[3] = {x[1][0] - x[0][0], x[1][1] - x[0][1], x[1][2] - x[0][2]};
      const PetscInt b[3] = {x[2][0] - x[0][0], x[2][1] - x[0][1], x[2][2] - x[0][2]};
      const PetscInt e[3] = {x[3][0] - x[0][0], x[3][1] - x[0][1], x[3][2] - x[0][2]};
      const PetscInt det  = a[0] * (b[1] * e[2] - b[2] * e[1]) - a[1] * (b[0] * e[2] - b[2] * e[0]) + a[2] * (b[0] * e[1] - b[1] * e[0]);

      /* PETSc's reference tetrahedron has a negative determinant in this vertex order */
      if (det > 0) {
        PetscInt tmp = vt[2];
        vt[2]        = vt[3];
        vt[3]        = tmp;
      }
    }
    for (PetscInt l = 0; l < 4; l++) cells[4 * t + l] = vt[l];
  }
}

/* The box's squares (cubes) split into p[0] x p[1] x p[2] blocks, one per process: along direction d block a holds the
   squares [a n[d] / p[d], (a + 1) n[d] / p[d]). Everything about another process's block is computed, not sent. */
typedef struct {
  PetscInt dim, n[3], p[3];
} FEGBoxPartition;

static inline PetscInt FEGBoxPartStart(const FEGBoxPartition *bp, PetscInt d, PetscInt a)
{
  return (PetscInt)((PetscInt64)a * bp->n[d] / bp->p[d]);
}

/* the block along d that holds square i */
static inline PetscInt FEGBoxPartOf(const FEGBoxPartition *bp, PetscInt d, PetscInt i)
{
  return (PetscInt)(((PetscInt64)(i + 1) * bp->p[d] - 1) / bp->n[d]);
}

/* the squares [lo[d], hi[d]) of process r */
static void FEGBoxBlock(const FEGBoxPartition *bp, PetscInt r, PetscInt lo[3], PetscInt hi[3])
{
  const PetscInt a[3] = {r % bp->p[0], (r / bp->p[0]) % bp->p[1], r / (bp->p[0] * bp->p[1])};

  for (PetscInt d = 0; d < 3; d++) {
    lo[d] = FEGBoxPartStart(bp, d, a[d]);
    hi[d] = FEGBoxPartStart(bp, d, a[d] + 1);
  }
}

/* the global position ijk of a block's vertex v (numbered in the block's lexicographic order, ext[d] vertices along d) */
static inline void FEGBoxVertexIJK(const PetscInt ext[3], const PetscInt lo[3], PetscInt v, PetscInt ijk[3])
{
  ijk[0] = lo[0] + v % ext[0];
  ijk[1] = lo[1] + (v / ext[0]) % ext[1];
  ijk[2] = lo[2] + v / (ext[0] * ext[1]);
}

/* The process grid: among the factorisations of size that leave no block empty, the one whose largest block has the
   fewest squares, then the fewest squares' faces between blocks (what DMDA chooses for a structured grid). Returns
   PETSC_FALSE when every factorisation leaves a block empty (more processes along some direction than squares) */
static PetscBool FEGBoxPartitionCreate(PetscInt dim, const PetscInt n[], PetscMPIInt size, FEGBoxPartition *bp)
{
  PetscInt64 best[2] = {-1, -1}; /* none yet */

  bp->dim = dim;
  for (PetscInt d = 0; d < 3; d++) {
    bp->n[d] = d < dim ? n[d] : 1;
    bp->p[d] = 1;
  }
  for (PetscInt a = 1; a <= size; a++) {
    if (size % a) continue;
    for (PetscInt b = 1; b <= size / a; b++) {
      const PetscInt q[3] = {a, b, size / a / b};
      PetscInt64     load = 1, area = 0;

      if ((size / a) % b || (dim == 2 && q[2] != 1)) continue;
      if (q[0] > bp->n[0] || q[1] > bp->n[1] || q[2] > bp->n[2]) continue;
      for (PetscInt d = 0; d < dim; d++) {
        PetscInt64 between = q[d] - 1;

        load *= (bp->n[d] + q[d] - 1) / q[d];
        for (PetscInt e = 0; e < dim; e++)
          if (e != d) between *= bp->n[e];
        area += between;
      }
      if (best[0] < 0 || load < best[0] || (load == best[0] && area < best[1])) {
        best[0] = load;
        best[1] = area;
        for (PetscInt d = 0; d < 3; d++) bp->p[d] = q[d];
      }
    }
  }
  return (PetscBool)(best[0] >= 0);
}

/* the process that owns vertex ijk (the lowest of those whose squares touch it) and its point number there */
static void FEGBoxVertexOwner(const FEGBoxPartition *bp, const FEGCellInfo *cell, const PetscInt ijk[3], PetscInt *owner, PetscInt *point)
{
  PetscInt a[3], lo[3], hi[3], nc = cell->boxCells, v = 0;

  /* the lowest block along each direction among the squares at ijk, which are ijk - 1 and ijk */
  for (PetscInt d = 0; d < 3; d++) a[d] = FEGBoxPartOf(bp, d, ijk[d] > 0 ? ijk[d] - 1 : 0);
  *owner = a[0] + bp->p[0] * (a[1] + bp->p[1] * a[2]);
  FEGBoxBlock(bp, *owner, lo, hi);
  for (PetscInt d = 0; d < bp->dim; d++) nc *= hi[d] - lo[d];
  for (PetscInt d = bp->dim - 1; d >= 0; d--) v = v * (hi[d] - lo[d] + 1) + ijk[d] - lo[d];
  *point = nc + v;
}

/* The blocks along direction d that hold a point whose vertices lie at lo..hi along d (hi - lo is 0 or 1): a point
   across a square is in that square's block; one at a vertex plane in the blocks on both sides of it */
static void FEGBoxHolders(const FEGBoxPartition *bp, PetscInt d, PetscInt lo, PetscInt hi, PetscInt *a0, PetscInt *a1)
{
  if (d >= bp->dim) *a0 = *a1 = 0;
  else if (hi > lo) *a0 = *a1 = FEGBoxPartOf(bp, d, lo);
  else {
    *a0 = FEGBoxPartOf(bp, d, lo > 0 ? lo - 1 : 0);
    *a1 = FEGBoxPartOf(bp, d, lo < bp->n[d] ? lo : lo - 1);
  }
}

typedef struct {
  PetscInt  n, size;
  PetscInt *key, *point;
} FEGKeyList;

static PetscErrorCode FEGKeyListAdd(FEGKeyList *l, PetscInt key, PetscInt point)
{
  PetscFunctionBegin;
  if (l->n == l->size) {
    l->size = PetscMax(2 * l->size, 1024);
    PetscCall(PetscRealloc(sizeof(PetscInt) * l->size, &l->key));
    PetscCall(PetscRealloc(sizeof(PetscInt) * l->size, &l->point));
  }
  l->key[l->n]     = key;
  l->point[l->n++] = point;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what FEGBoxKeyPoint() needs to name a point (FEGBoxMatchedSF()) */
typedef struct {
  const FEGBoxPartition *bp;
  const PetscInt        *lo, *ext, *code;
  PetscInt               numCells, nvl;
  const PetscInt64      *off, *plane;
  PetscMPIInt            rank;
  FEGKeyList            *roots, *leaves;
} FEGBoxKey;

/* Edge or face q with vertices v[0..nv) (repeats allowed): if other blocks hold it, its key goes to the roots (this
   process owns it) or the leaves */
static PetscErrorCode FEGBoxKeyPoint(const FEGBoxKey *k, PetscInt q, PetscInt nv, const PetscInt v[])
{
  const FEGBoxPartition *bp      = k->bp;
  PetscInt               cmin[3] = {PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT}, cmax[3] = {-1, -1, -1}, x[8][3], mask = 0, owner = 0, key = -1;
  PetscBool              shared = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(nv <= 8, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT " has %" PetscInt_FMT " vertex entries", q, nv);
  for (PetscInt m = 0; m < nv; m++) {
    const PetscInt w = v[m] - k->numCells;

    PetscCheck(w >= 0 && w < k->nvl, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT ": %" PetscInt_FMT " is not a vertex of the block", q, v[m]);
    FEGBoxVertexIJK(k->ext, k->lo, w, x[m]);
    for (PetscInt d = 0; d < 3; d++) {
      cmin[d] = PetscMin(cmin[d], x[m][d]);
      cmax[d] = PetscMax(cmax[d], x[m][d]);
    }
  }
  for (PetscInt m = 0; m < nv; m++) mask |= (PetscInt)1 << ((x[m][0] - cmin[0]) + 2 * (x[m][1] - cmin[1]) + 4 * (x[m][2] - cmin[2]));
  for (PetscInt d = 2; d >= 0; d--) {
    PetscInt a0, a1;

    PetscCheck(cmax[d] - cmin[d] <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT " spans %" PetscInt_FMT " squares along %" PetscInt_FMT, q, cmax[d] - cmin[d], d);
    FEGBoxHolders(bp, d, cmin[d], cmax[d], &a0, &a1);
    if (a1 > a0) {
      PetscInt64 place = 0;

      /* the plane between blocks a0 and a1 along d (the lowest such d, the last one met) */
      for (PetscInt e = bp->dim - 1; e >= 0; e--)
        if (e != d) place = place * (bp->n[e] + 1) + cmin[e];
      key    = (PetscInt)(k->off[d] + ((a1 - 1) * k->plane[d] + place) * 64);
      shared = PETSC_TRUE;
    }
    owner = owner * bp->p[d] + a0;
  }
  if (!shared) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck((mask & 1) && k->code[mask >> 1] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT ": corner set %" PetscInt_FMT " of its cube has no key", q, mask);
  PetscCall(FEGKeyListAdd(owner == k->rank ? k->roots : k->leaves, key + k->code[mask >> 1], q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block's vertices on a side that faces another block (lower: only those on a lower side, which lower blocks own), in
   increasing order, in a new array (none for an empty block, nvl = 0). Found row by row along x, so the work goes with
   the sides, not the block's volume: counted in a first pass, listed in a second */
static PetscErrorCode FEGBoxSideVertices(const FEGBoxPartition *bp, const PetscInt lo[], const PetscInt hi[], const PetscInt ext[], PetscInt nvl, PetscBool lower, PetscInt *n, PetscInt **v)
{
  const PetscBool first = (PetscBool)(lo[0] > 0), last = (PetscBool)(!lower && hi[0] < bp->n[0] && ext[0] > 1);
  PetscInt        m = 0;

  PetscFunctionBegin;
  *v = NULL;
  for (PetscInt pass = 0; pass < 2; pass++) {
    if (pass) PetscCall(PetscMalloc1(m + 1, v));
    m = 0;
    for (PetscInt k = 0; k < ext[2] && nvl; k++)
      for (PetscInt j = 0; j < ext[1]; j++) {
        const PetscInt jk[3] = {0, lo[1] + j, lo[2] + k}, base = ext[0] * (j + ext[1] * k);
        PetscBool      row = PETSC_FALSE;

        for (PetscInt d = 1; d < bp->dim; d++) row = (PetscBool)(row || (jk[d] == lo[d] && lo[d] > 0) || (!lower && jk[d] == hi[d] && hi[d] < bp->n[d]));
        if (row) {
          for (PetscInt i = 0; i < ext[0]; i++, m++)
            if (pass) (*v)[m] = base + i;
        } else {
          if (first) {
            if (pass) (*v)[m] = base;
            m++;
          }
          if (last) {
            if (pass) (*v)[m] = base + ext[0] - 1;
            m++;
          }
        }
      }
  }
  *n = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The edges and faces this block shares with others, in the SF of their owners' points. A shared point lies in a plane
   between two blocks (x_d = the start of block a along d, the lowest such d); every edge and face of the box's cells
   lies in one cube, and its vertices are 0 or 1 from the cube's lowest corner along each direction. So it is named on
   every process by a key: the plane, the lowest corner's place in it, times 64, plus the set of that cube's corners it
   has (the lowest and 1 to 3 others: 63 sets). Keys go with the area between blocks, not the mesh. A point is held by
   the blocks whose region holds it (the mesh is conforming and every cube split alike) and owned, as vertices are, by
   the lowest of them. The shared points are found from the stars of the block's vertices on a side that faces another
   block, so the work goes with the interface; PetscSFCreateByMatchingIndices() matches the keys. */
static PetscErrorCode FEGBoxMatchedSF(DM dm, const FEGBoxPartition *bp, const PetscInt lo[], const PetscInt hi[], PetscInt numCells, PetscSF *sf)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)dm);
  PetscMPIInt rank;
  PetscInt    ext[3], nvl = 1, code[128], nc = 0;
  FEGBoxKey   key;
  PetscInt64  nkeys = 0, plane[3], off[3]; /* the keys; per direction d, the places in one plane and the first key */
  FEGKeyList  roots = {0, 0, NULL, NULL}, leaves = {0, 0, NULL, NULL};
  PetscBT     seen;
  PetscLayout layout;
  PetscInt    pEnd, nside, *side;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    plane[d] = 1;
    for (PetscInt e = 0; e < bp->dim; e++)
      if (e != d) plane[d] *= bp->n[e] + 1;
    off[d] = nkeys;
    nkeys += d < bp->dim ? (bp->p[d] - 1) * plane[d] * 64 : 0;
  }
  PetscCheck(nkeys <= PETSC_MAX_INT, comm, PETSC_ERR_SUP, "The %" PetscInt64_FMT " keys of the shared edges and faces between %d x %d x %d blocks exceed the %d a 32-bit PetscInt can index; use fewer processes or a PETSc configured --with-64-bit-indices", nkeys,
             (int)bp->p[0], (int)bp->p[1], (int)bp->p[2], PETSC_MAX_INT);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(DMPlexGetChart(dm, NULL, &pEnd));
  for (PetscInt d = 0; d < 3; d++) {
    ext[d] = d < bp->dim ? hi[d] - lo[d] + 1 : 1;
    nvl *= ext[d];
  }
  if (!numCells) nvl = 0;
  /* the sets of 1 to 3 further corners (bits 1..7 of the corner mask, corner 1 + 2 y + 4 z), numbered in turn */
  for (PetscInt r = 0; r < 128; r++) {
    PetscInt bits = 0;

    for (PetscInt b = 0; b < 7; b++) bits += (r >> b) & 1;
    code[r] = bits >= 1 && bits <= 3 ? nc++ : -1;
  }
  PetscCall(PetscBTCreate(pEnd, &seen));
  key.bp       = bp;
  key.lo       = lo;
  key.ext      = ext;
  key.numCells = numCells;
  key.nvl      = nvl;
  key.off      = off;
  key.plane    = plane;
  key.code     = code;
  key.rank     = rank;
  key.roots    = &roots;
  key.leaves   = &leaves;
  /* the edges through each side vertex (its support) and, in 3D, the faces through those edges: every shared edge and
     face has a vertex on a side, and its cones give its vertices without a closure's work */
  PetscCall(FEGBoxSideVertices(bp, lo, hi, ext, nvl, PETSC_FALSE, &nside, &side));
  for (PetscInt s = 0; s < nside; s++) {
    const PetscInt *es, v = side[s];
    PetscInt        ne;

    PetscCall(DMPlexGetSupportSize(dm, numCells + v, &ne));
    PetscCall(DMPlexGetSupport(dm, numCells + v, &es));
    for (PetscInt i = 0; i < ne; i++) {
      const PetscInt *ev, *fs;
      PetscInt        nf;

      if (!PetscBTLookupSet(seen, es[i])) {
        PetscCall(DMPlexGetCone(dm, es[i], &ev));
        PetscCall(FEGBoxKeyPoint(&key, es[i], 2, ev));
      }
      if (bp->dim < 3) continue;
      PetscCall(DMPlexGetSupportSize(dm, es[i], &nf));
      PetscCall(DMPlexGetSupport(dm, es[i], &fs));
      for (PetscInt j = 0; j < nf; j++) {
        const PetscInt *fe;
        PetscInt        nfe, nv = 0, fv[8];

        if (PetscBTLookupSet(seen, fs[j])) continue;
        PetscCall(DMPlexGetConeSize(dm, fs[j], &nfe));
        PetscCall(DMPlexGetCone(dm, fs[j], &fe));
        for (PetscInt k = 0; k < nfe && k < 4; k++) {
          PetscCall(DMPlexGetCone(dm, fe[k], &ev));
          fv[nv++] = ev[0];
          fv[nv++] = ev[1];
        }
        PetscCall(FEGBoxKeyPoint(&key, fs[j], nv, fv));
      }
    }
  }
  PetscCall(PetscBTDestroy(&seen));
  PetscCall(PetscFree(side));
  PetscCall(PetscLayoutCreate(comm, &layout));
  PetscCall(PetscLayoutSetSize(layout, (PetscInt)nkeys));
  PetscCall(PetscLayoutSetUp(layout));
  PetscCall(PetscSFCreateByMatchingIndices(layout, roots.n, roots.key, roots.point, 0, leaves.n, leaves.key, leaves.point, 0, NULL, sf));
  PetscCall(PetscLayoutDestroy(&layout));
  {
    PetscInt nl;

    PetscCall(PetscSFGetGraph(*sf, NULL, &nl, NULL, NULL));
    PetscCheck(nl == leaves.n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " of the block's %" PetscInt_FMT " shared edges and faces found no owner", leaves.n - nl, leaves.n);
  }
  PetscCall(PetscFree(roots.key));
  PetscCall(PetscFree(roots.point));
  PetscCall(PetscFree(leaves.key));
  PetscCall(PetscFree(leaves.point));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The point SF of a box built block by block: the shared vertices from the block layout, the edges and faces between
   blocks by their keys (FEGBoxMatchedSF()), the leaves sorted by point; then the shared cones turned to their owners'
   order */
static PetscErrorCode FEGBoxPointSF(DM dm, const FEGBoxPartition *bp, const FEGCellInfo *cell, const PetscInt lo[], const PetscInt hi[], PetscInt numCells)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  PetscMPIInt        rank;
  PetscInt           nl = 0, nvl = 1, nown = 1, ext[3], *ilocal, nm, *perm, *sl, nlow, *low;
  PetscSFNode       *iremote;
  PetscSF            msf;
  const PetscInt    *ilm;
  const PetscSFNode *irm;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  for (PetscInt d = 0; d < 3; d++) {
    ext[d] = d < bp->dim ? hi[d] - lo[d] + 1 : 1;
    nvl *= ext[d];
    nown *= ext[d] - (d < bp->dim && lo[d] > 0 ? 1 : 0);
  }
  if (!numCells) nvl = nown = 0;
  PetscCall(FEGBoxMatchedSF(dm, bp, lo, hi, numCells, &msf));
  PetscCall(PetscSFGetGraph(msf, NULL, &nm, &ilm, &irm));
  /* the vertex leaves are those on the block's lower sides (those of a lower block): all but nown */
  PetscCall(PetscMalloc1(nvl - nown + nm, &ilocal));
  PetscCall(PetscMalloc1(nvl - nown + nm, &iremote));
  PetscCall(FEGBoxSideVertices(bp, lo, hi, ext, nvl, PETSC_TRUE, &nlow, &low));
  for (PetscInt s = 0; s < nlow; s++) {
    const PetscInt v = low[s];
    PetscInt       ijk[3], owner, point;

    FEGBoxVertexIJK(ext, lo, v, ijk);
    FEGBoxVertexOwner(bp, cell, ijk, &owner, &point);
    if (owner == rank) continue;
    PetscCheck(nl < nvl - nown, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Block vertex %" PetscInt_FMT " belongs to process %" PetscInt_FMT " but is not on a lower side", v, owner);
    ilocal[nl]        = numCells + v;
    iremote[nl].rank  = owner;
    iremote[nl].index = point;
    nl++;
  }
  PetscCall(PetscFree(low));
  PetscCheck(nl == nvl - nown, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " of the block's vertices belong to other processes, expected %" PetscInt_FMT, nl, nvl - nown);
  /* the edges and faces after the vertices (the chart's order), sorted by point like them */
  PetscCall(PetscMalloc2(nm, &perm, nm, &sl));
  for (PetscInt l = 0; l < nm; l++) {
    perm[l] = l;
    sl[l]   = ilm ? ilm[l] : l;
  }
  PetscCall(PetscSortIntWithPermutation(nm, sl, perm));
  for (PetscInt l = 0; l < nm; l++) {
    ilocal[nl + l]  = sl[perm[l]];
    iremote[nl + l] = irm[perm[l]];
  }
  PetscCall(PetscFree2(perm, sl));
  PetscCall(PetscSFDestroy(&msf));
  PetscCall(PetscInfo(dm, "Point SF: %" PetscInt_FMT " shared vertices from the block layout, %" PetscInt_FMT " shared edges and faces matched by key\n", nl, nm));
  PetscCall(FEGPlexSetPartsSF(dm, nl + nm, ilocal, iremote));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This process's block of the box: its cells (those of the squares that touch a ghost point last, so that the
   operators' elements that touch none form a prefix), its vertices in the block's lexicographic order with
   their coordinates, and which sides of the box each vertex lies on (bit 2d: lower side along d, 2d + 1: upper) */
static PetscErrorCode FEGBoxBlockCells(const FEGBoxPartition *bp, const FEGCellInfo *cell, const PetscInt lo[], const PetscInt hi[], const PetscReal blo[], const PetscReal bhi[], PetscReal perturb, PetscInt *numCells, PetscInt **cells, PetscInt *numVertices, PetscReal **coords, unsigned char **vmask)
{
  const PetscInt dim = bp->dim, per = cell->boxCells * cell->nverts;
  PetscInt       ext[3], ns = 1, nv = 1, c = 0;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    ext[d] = d < dim ? hi[d] - lo[d] + 1 : 1;
    ns *= hi[d] - lo[d];
    nv *= ext[d];
  }
  if (!ns) nv = 0;
  *numCells    = ns * cell->boxCells;
  *numVertices = nv;
  PetscCall(PetscMalloc1((size_t)ns * per, cells));
  PetscCall(PetscMalloc1((size_t)nv * dim, coords));
  PetscCall(PetscMalloc1(nv, vmask));
  for (PetscInt pass = 0; pass < 2; pass++)
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt ijk[3]    = {i, j, k};
          PetscInt       corner[8] = {0}, touches = 0;

          /* a vertex on a block below along some direction is that block's (FEGBoxVertexOwner()), and so are the
             edges and faces through it: the ghost points are on the lower sides */
          for (PetscInt d = 0; d < dim; d++) touches |= ijk[d] == lo[d] && lo[d] > 0;
          if (touches != pass) continue;
          for (PetscInt b = 0; b < (1 << dim); b++) corner[b] = (i - lo[0] + (b & 1)) + ext[0] * ((j - lo[1] + ((b >> 1) & 1)) + ext[1] * (k - lo[2] + ((b >> 2) & 1)));
          (*cell->boxSplit)(corner, &(*cells)[(size_t)c * per]);
          c++;
        }
  for (PetscInt v = 0; v < nv; v++) {
    PetscInt ijk[3], g;

    FEGBoxVertexIJK(ext, lo, v, ijk);
    /* the global number, which the perturbation hashes, so that every partition gives the same mesh */
    g           = ijk[0] + (bp->n[0] + 1) * (ijk[1] + (bp->n[1] + 1) * ijk[2]);
    (*vmask)[v] = 0;
    for (PetscInt d = 0; d < dim; d++) {
      const PetscBool interior = (PetscBool)(ijk[d] > 0 && ijk[d] < bp->n[d]);
      const PetscReal h        = (bhi[d] - blo[d]) / bp->n[d];

      (*coords)[v * dim + d] = blo[d] + ijk[d] * h + (interior ? perturb * h * FEGHashUnit(g, d) : 0.0);
      if (ijk[d] == 0) (*vmask)[v] |= (unsigned char)(1 << (2 * d));
      if (ijk[d] == bp->n[d]) (*vmask)[v] |= (unsigned char)(1 << (2 * d + 1));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateBoxMesh - creates a distributed, interpolated DMPlex of a box split into triangles, quadrilaterals,
  tetrahedra (6 per cube), hexahedra or triangular prisms (2 per cube), with the boundary marked in the label "marker"

  Collective

  Input Parameters:
+ comm    - communicator
. ct      - cell type
. faces   - number of cube edges along each direction (dim values)
. lower   - lower corner (dim values), or NULL for 0
. upper   - upper corner (dim values), or NULL for 1
- perturb - interior vertices move by up to perturb/2 of the spacing along each axis (0 for a uniform mesh); with
            quadrilaterals, hexahedra and prisms this makes the cells non-affine

  Output Parameter:
. dm - the mesh

  Notes:
  PETSc's own DMPlexCreateBoxMesh() needs a mesh generator for simplices; this builds the cell list itself.

  Each process builds only its own block of the box: the squares (cubes) are split into one block per process, a
  process grid chosen as DMDA chooses one (the largest block as small as it can be, then the least area between
  blocks). The point SF is computed from the block layout for the vertices, and for the edges and faces between blocks
  by matching keys that name them on every process (their plane between blocks, place and corners), so no process
  holds more than its part and nothing global is sent. In each block the cells of the
  cubes that touch a ghost point come last, so the operators' element order (`FEGDMSetElementOrder()`) is the
  mesh's. The mesh is the same for every number of processes: the same cells, vertices and coordinates (the
  perturbation hashes a vertex's global number), and the same "marker" label. The
  partitioner options (-petscpartitioner_type) are not read: they apply to meshes read from files. Only a box too small
  for a block on every process (3 processes and 2 cubes a side) is built on the first process and distributed by
  DMPlexDistribute() with those options.

  Level: beginner

.seealso: FEGCreateMeshFromOptions()
@*/
PetscErrorCode FEGCreateBoxMesh(MPI_Comm comm, DMPolytopeType ct, const PetscInt faces[], const PetscReal lower[], const PetscReal upper[], PetscReal perturb, DM *dm)
{
  PetscMPIInt        rank, size;
  PetscInt           dim, numCells = 0, numVertices = 0, n[3] = {1, 1, 1}, *cells = NULL, lo[3], hi[3];
  PetscReal         *coords = NULL, blo[3] = {0, 0, 0}, bhi[3] = {1, 1, 1};
  unsigned char     *vmask = NULL;
  const FEGCellInfo *cell;
  FEGBoxPartition    bp;
  PetscInt64         nc;
  PetscBool          blocks;

  PetscFunctionBegin;
  FEGAssertPointer(dm, 7);
  PetscCall(FEGInitializePackage());
  PetscCall(FEGCellInfoGet(comm, ct, &cell));
  dim = cell->dim;
  for (PetscInt d = 0; d < dim; d++) {
    n[d] = faces ? faces[d] : 2;
    PetscCheck(n[d] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "Number of faces %" PetscInt_FMT " in direction %" PetscInt_FMT " must be at least 1", n[d], d);
    if (lower) blo[d] = lower[d];
    if (upper) bhi[d] = upper[d];
    PetscCheck(bhi[d] > blo[d], comm, PETSC_ERR_ARG_OUTOFRANGE, "Upper bound %g must exceed lower bound %g in direction %" PetscInt_FMT, (double)bhi[d], (double)blo[d], d);
  }
  PetscCheck(perturb >= 0.0 && perturb < 0.5, comm, PETSC_ERR_ARG_OUTOFRANGE, "Perturbation %g must be in [0, 0.5) so no cell inverts", (double)perturb);
  nc = (PetscInt64)n[0] * n[1] * n[2] * cell->boxCells;
  /* the mesh's points are numbered by PetscInt, across processes too (sections, global vectors) */
  PetscCheck(nc * cell->nverts <= PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "A box of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " has %" PetscInt64_FMT " %s, whose %" PetscInt64_FMT " vertex numbers exceed the %d a 32-bit PetscInt can index; use fewer faces or a PETSc configured --with-64-bit-indices", n[0], n[1], dim == 3 ? n[2] : 1, nc,
             cell->plural, nc * cell->nverts, PETSC_MAX_INT);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscLogEventBegin(FEG_BoxMesh, 0, 0, 0, 0));
  blocks = FEGBoxPartitionCreate(dim, n, size, &bp);
  if (blocks) FEGBoxBlock(&bp, rank, lo, hi);
  else {
    /* too few squares for a block each: the first process builds the box, DMPlexDistribute() shares it out */
    PetscCall(PetscInfo(NULL, "A box of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " squares has no block for each of %d processes: built on the first and distributed\n", n[0], n[1], n[2], (int)size));
    for (PetscInt d = 0; d < 3; d++) {
      lo[d] = 0;
      hi[d] = rank ? 0 : bp.n[d];
    }
  }
  PetscCall(FEGBoxBlockCells(&bp, cell, lo, hi, blo, bhi, perturb, &numCells, &cells, &numVertices, &coords, &vmask));
  /* interpolated directly (PETSc's DMPlexInterpolate() took 10 s for 1M hexahedra) */
  PetscCall(FEGPlexCreateFromCellList_Private(comm, cell, numCells, numVertices, cells, coords, "marker", vmask, dm));
  PetscCall(PetscFree(cells));
  PetscCall(PetscFree(coords));
  PetscCall(PetscFree(vmask));
  if (size > 1 && blocks) {
    PetscCall(PetscLogEventBegin(FEG_BoxSF, 0, 0, 0, 0));
    PetscCall(FEGBoxPointSF(*dm, &bp, cell, lo, hi, numCells));
    PetscCall(PetscLogEventEnd(FEG_BoxSF, 0, 0, 0, 0));
  }
  PetscCall(PetscLogEventEnd(FEG_BoxMesh, 0, 0, 0, 0));
  if (!blocks) PetscCall(FEGMeshDistribute_Private(dm, NULL));
  /* distributed already: DMSetFromOptions() must not partition it again (it would by default) */
  PetscCall(DMPlexDistributeSetDefault(*dm, PETSC_FALSE));
  /* the name fegpu reads a saved mesh under (FEGCreateMeshFromOptions() of an HDF5 file) */
  PetscCall(PetscObjectSetName((PetscObject)*dm, "fegpu"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Kershaw's 1D maps of [0, 1] (libCEED's examples/petsc/src/petscutils.c, after Kershaw, J. Comput. Phys. 1981):
   the points crowd toward the right or the left end for eps < 1; eps = 1 is the identity */
static PetscReal FEGKershawRight(PetscReal eps, PetscReal x)
{
  return x <= 0.5 ? (2 - eps) * x : 1 + eps * (x - 1);
}

static PetscReal FEGKershawLeft(PetscReal eps, PetscReal x)
{
  return 1 - FEGKershawRight(eps, 1 - x);
}

static PetscReal FEGKershawStep(PetscReal a, PetscReal b, PetscReal t)
{
  return t <= 0 ? a : (t >= 1 ? b : a + (b - a) * t);
}

/* one point of the unit box: x stays, y (and z) move by the maps of x's sixth of the box, blended between them */
static void FEGKershawPoint(PetscInt dim, PetscReal eps, PetscReal p[])
{
  const PetscInt  layer  = (PetscInt)(p[0] * 6);
  const PetscReal lambda = (p[0] - layer / 6.0) * 6;

  for (PetscInt d = 1; d < dim; d++) {
    const PetscReal y = p[d], l = FEGKershawLeft(eps, y), r = FEGKershawRight(eps, y);

    switch (layer) {
    case 0:
      p[d] = l;
      break;
    case 1:
    case 4:
      p[d] = FEGKershawStep(l, r, lambda);
      break;
    case 2:
      p[d] = FEGKershawStep(r, l, lambda / 2);
      break;
    case 3:
      p[d] = FEGKershawStep(r, l, (1 + lambda) / 2);
      break;
    default:
      p[d] = r;
    }
  }
}

/*@
  FEGMeshKershaw - deforms a box mesh by Kershaw's transformation, the deformed mesh of the CEED benchmarks and of
  libCEED's multigrid example (its -eps): the box is cut into sixths along x, and in each the y (and z) coordinates are
  moved by piecewise-linear maps that crowd them toward one side, alternating from sixth to sixth. Cells stay
  hexahedra (quadrilaterals) but are no longer affine; the boundary of the box is kept.

  Collective

  Input Parameters:
+ dm  - a mesh of a box in 2 or 3 dimensions (its bounding box is mapped to the unit box and back)
- eps - in (0, 1]: 1 leaves the mesh as it is, smaller values deform it more (0.3 is the benchmarks' value)

  Options Database Key:
. -feg_mesh_kershaw <eps> - `FEGCreateMeshFromOptions()` applies it to the mesh it makes, after refinement

  Notes:
  Every coordinate node moves, so second-order coordinates (`FEGMeshSetCoordinateOrder()`) give curved cells. Straight
  cells stay valid (positive Jacobian) for any eps in (0, 1]; second-order cells across the maps' kinks can invert for
  small eps (0.3 did on boxes of 25 and 49 cells a side, 0.5 did not), which operators refuse by name. For the
  deformation to follow the sixths exactly, use a multiple of 6 cells along x.

  Level: intermediate
@*/
PetscErrorCode FEGMeshKershaw(DM dm, PetscReal eps)
{
  PetscInt  dim, cdim;
  PetscReal lo[3], hi[3];
  Vec       coords[2] = {NULL, NULL};

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(eps > 0.0 && eps <= 1.0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "Kershaw's eps %g is out of range: allowed is (0, 1] (1: no deformation; the benchmarks use 0.3)", (double)eps);
  PetscCheck((dim == 2 || dim == 3) && cdim == dim, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "Kershaw's transformation deforms a box in 2 or 3 dimensions, not a mesh of dimension %" PetscInt_FMT " with %" PetscInt_FMT " coordinates", dim, cdim);
  PetscCall(DMGetBoundingBox(dm, lo, hi));
  PetscCall(DMGetCoordinatesLocal(dm, &coords[0]));
  PetscCall(DMGetCellCoordinatesLocal(dm, &coords[1]));
  for (PetscInt k = 0; k < 2; k++) {
    PetscScalar *c;
    PetscInt     n;

    if (!coords[k]) continue;
    PetscCall(VecGetLocalSize(coords[k], &n));
    PetscCall(VecGetArray(coords[k], &c));
    for (PetscInt i = 0; i + dim <= n; i += dim) {
      PetscReal p[3];

      for (PetscInt d = 0; d < dim; d++) p[d] = (PetscRealPart(c[i + d]) - lo[d]) / (hi[d] - lo[d]);
      FEGKershawPoint(dim, eps, p);
      for (PetscInt d = 0; d < dim; d++) c[i + d] = lo[d] + p[d] * (hi[d] - lo[d]);
    }
    PetscCall(VecRestoreArray(coords[k], &c));
  }
  /* the global coordinates follow the local ones */
  PetscCall(DMSetCoordinatesLocal(dm, coords[0]));
  if (coords[1]) PetscCall(DMSetCellCoordinatesLocal(dm, coords[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGMeshSetCoordinateOrder - gives a mesh coordinates of a higher order: a Lagrange coordinate space of that order into
  which the current coordinates are projected (the cells keep their shape); a deformation applied afterwards, such as
  `FEGMeshKershaw()`, moves every coordinate node and so curves the cells

  Collective

  Input Parameters:
+ dm    - the mesh
- order - 1 (nothing to do) to 3

  Options Database Key:
. -feg_mesh_coordinate_order <order> - `FEGCreateMeshFromOptions()` applies it after refinement, before -feg_mesh_kershaw

  Level: intermediate

.seealso: FEGMeshKershaw(), FEGCreateMeshFromOptions()
@*/
PetscErrorCode FEGMeshSetCoordinateOrder(DM dm, PetscInt order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCheck(order >= 1 && order <= 3, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "Coordinate order %" PetscInt_FMT " is out of range: allowed are 1 to 3", order);
  if (order > 1) PetscCall(FEGPlexCreateCoordinateSpace(dm, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateMeshFromOptions - creates a mesh from the options database: a Gmsh (or any DMPlexCreateFromFile()) file, or a
  box of a chosen cell type; then distributes it and applies DMSetFromOptions() (-dm_refine, -dm_view, ...)

  Collective

  Options Database Keys:
+ -feg_mesh_file <file>                  - read this mesh file (Gmsh .msh, PETSc HDF5 .h5) instead of building a box
. -feg_mesh_cell_type <tri,quad,tet,hex,prism> - the box's cells (`FEGCreateBoxMesh()`)
. -feg_mesh_faces <n,n,n>                - the box's subdivisions
. -feg_mesh_lower <x,y,z>                - the box's lower corner
. -feg_mesh_upper <x,y,z>                - the box's upper corner
. -feg_mesh_perturb <r>                  - vertex perturbation, fraction of the spacing
. -feg_mesh_coordinate_order <k>         - coordinates of order k (`FEGMeshSetCoordinateOrder()`), after refinement
. -feg_mesh_kershaw <eps>                - Kershaw's deformation of the box (`FEGMeshKershaw()`), after refinement
. -feg_mesh_reorder <none,metis,sfc>     - renumber each process's cells, and so its dofs, for locality (`FEGMeshReorder()`;
                                           the operators' element order alone is `FEGDMSetElementOrder()`)
. -feg_mesh_reorder_part_size <n>        - cells per METIS part for -feg_mesh_reorder metis (`FEGMeshSetReorderPartSize()`)
. -feg_mesh_fast_refine <bool>           - -dm_refine by `FEGMeshRefine()` (default true), also after distribution
- -feg_cell_type, -feg_faces, -feg_lower, -feg_upper, -feg_perturb, -feg_reorder, -feg_reorder_part_size, -feg_fast_refine - deprecated names of the above

  Notes:
  A file's mesh is read and distributed (METIS partitions it with -petscpartitioner_type metis), then -dm_refine refines
  it on every process, so large meshes come from small files. Curved cells (second-order Gmsh meshes, coordinates of
  order k) are refined by fegpu so that they keep their geometry: every node of the refined mesh is placed by its coarse
  cell's map of order k (PETSc's DMRefine() alone would leave them straight with a coordinate space they do not fill).

  A file ending in .h5 is a DMPlex saved in PETSc's HDF5 format (DMView() with PETSC_VIEWER_HDF5_PETSC) under the
  name "fegpu", the name fegpu gives its meshes; PETSc's DMLoad() reads it in parallel, and it is then distributed and
  refined as above. A PETSc without HDF5 refuses it by name.

  Second-order Gmsh tetrahedra are repaired after PETSc reads them: PETSc (3.18 to 3.22) stores their coordinate nodes
  in Gmsh's vertex order, not the closure's, which evaluates every field at rotated points. Second-order prisms, which
  PETSc cannot represent, are refused (read them with -dm_plex_gmsh_highorder false).

  Level: beginner
@*/
PetscErrorCode FEGCreateMeshFromOptions(MPI_Comm comm, const char prefix[], DM *dm)
{
  char file[PETSC_MAX_PATH_LEN] = "";
  /* one slot more than any dimension, so a fourth value is seen and refused rather than dropped */
  PetscInt       ctype = 0, faces[4] = {4, 4, 4, 4}, nf = 4, nl = 4, nu = 4, dim, nref;
  PetscReal      lower[4] = {0, 0, 0, 0}, upper[4] = {1, 1, 1, 1}, perturb = 0.0, kershaw = 1.0;
  PetscBool      flg, fset, lset, uset, ondevice, kset;
  PetscInt       corder  = 1;
  FEGReorderType reorder = FEG_REORDER_NONE;
  PetscInt       psize   = 256;
  PetscBool      pset = PETSC_FALSE, fast = PETSC_TRUE;

  PetscFunctionBegin;
  FEGAssertPointer(dm, 3);
  PetscCall(FEGInitializePackage()); /* its log events time the read */
  PetscOptionsBegin(comm, prefix, "fegpu mesh options", "DM");
  PetscCall(PetscOptionsDeprecated("-feg_cell_type", "-feg_mesh_cell_type", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_faces", "-feg_mesh_faces", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_lower", "-feg_mesh_lower", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_upper", "-feg_mesh_upper", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_perturb", "-feg_mesh_perturb", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_reorder", "-feg_mesh_reorder", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_reorder_part_size", "-feg_mesh_reorder_part_size", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_fast_refine", "-feg_mesh_fast_refine", "0.3", NULL));
  PetscCall(PetscOptionsString("-feg_mesh_file", "Mesh file (Gmsh .msh, ...)", "FEGCreateMeshFromOptions", file, file, sizeof(file), &flg));
  PetscCall(PetscOptionsEList("-feg_mesh_cell_type", "Cell type of the box mesh", "FEGCreateBoxMesh", FEGCellNames, FEGNumCellInfos, FEGCellNames[ctype], &ctype, NULL));
  PetscCall(PetscOptionsIntArray("-feg_mesh_faces", "Subdivisions of the box", "FEGCreateBoxMesh", faces, &nf, &fset));
  PetscCall(PetscOptionsRealArray("-feg_mesh_lower", "Lower corner of the box", "FEGCreateBoxMesh", lower, &nl, &lset));
  PetscCall(PetscOptionsRealArray("-feg_mesh_upper", "Upper corner of the box", "FEGCreateBoxMesh", upper, &nu, &uset));
  PetscCall(PetscOptionsReal("-feg_mesh_perturb", "Random vertex perturbation, fraction of the spacing", "FEGCreateBoxMesh", perturb, &perturb, NULL));
  PetscCall(PetscOptionsInt("-feg_mesh_coordinate_order", "Order of the coordinates (1 to 3), after refinement", "FEGMeshSetCoordinateOrder", corder, &corder, NULL));
  PetscCall(PetscOptionsReal("-feg_mesh_kershaw", "Kershaw's deformation of the box, eps in (0, 1] (1: none)", "FEGMeshKershaw", kershaw, &kershaw, &kset));
  PetscCall(PetscOptionsEnum("-feg_mesh_reorder", "Renumber each process's cells for locality", "FEGMeshReorder", FEGReorderTypes, (PetscEnum)reorder, (PetscEnum *)&reorder, NULL));
  PetscCall(PetscOptionsInt("-feg_mesh_reorder_part_size", "Cells per METIS part for -feg_mesh_reorder metis", "FEGMeshSetReorderPartSize", psize, &psize, &pset));
  PetscCall(PetscOptionsBool("-feg_mesh_fast_refine", "-dm_refine by FEGMeshRefine() (false: PETSc's DMRefine())", "FEGMeshRefine", fast, &fast, NULL));
  PetscOptionsEnd();
  if (file[0]) {
    PetscBool has;

    PetscCall(FEGMeshReadFile_Private(comm, file, dm));
    PetscCall(DMHasLabel(*dm, "marker", &has));
    if (!has) {
      DMLabel label;

      PetscCall(DMCreateLabel(*dm, "marker"));
      PetscCall(DMGetLabel(*dm, "marker", &label));
      PetscCall(DMPlexMarkBoundaryFaces(*dm, 1, label));
      PetscCall(FEGPlexLabelComplete(*dm, label));
    }
    PetscCall(FEGMeshDistribute_Private(dm, prefix));
  } else {
    dim = FEGCellInfos[ctype].dim;
    if (!fset) nf = dim;
    PetscCheck(nf == 1 || nf == dim, comm, PETSC_ERR_ARG_SIZ, "-feg_mesh_faces needs 1 or %" PetscInt_FMT " values for a %s box, got %" PetscInt_FMT, dim, FEGCellNames[ctype], nf);
    PetscCheck(!lset || nl == dim, comm, PETSC_ERR_ARG_SIZ, "-feg_mesh_lower needs %" PetscInt_FMT " values for a %s box, got %" PetscInt_FMT, dim, FEGCellNames[ctype], nl);
    PetscCheck(!uset || nu == dim, comm, PETSC_ERR_ARG_SIZ, "-feg_mesh_upper needs %" PetscInt_FMT " values for a %s box, got %" PetscInt_FMT, dim, FEGCellNames[ctype], nu);
    if (nf == 1) faces[1] = faces[2] = faces[0];
    PetscCall(FEGCreateBoxMesh(comm, FEGCellInfos[ctype].ct, faces, lower, upper, perturb, dm));
  }
  if (reorder != FEG_REORDER_NONE) {
    DM rdm;

    /* before DMSetFromOptions(), so that -dm_refine refines the renumbered mesh and keeps its locality */
    if (prefix) PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*dm, prefix));
    if (pset) PetscCall(FEGMeshSetReorderPartSize(*dm, psize));
    PetscCall(FEGMeshReorder(*dm, reorder, &rdm));
    PetscCall(DMDestroy(dm));
    *dm = rdm;
  }
  if (prefix) PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*dm, prefix));
  /* -dm_refine by fegpu (FEGMeshRefine()) where it applies, the rest by DMSetFromOptions() */
  PetscCall(FEGMeshRefineFromOptions_Private(dm, fast, &nref));
  PetscCall(DMSetFromOptions(*dm));
  PetscCall(FEGMeshRefineFromOptionsEnd_Private(*dm, nref));
  PetscCall(FEGMeshSetCoordinateOrder(*dm, corder));
  if (kset) PetscCall(FEGMeshKershaw(*dm, kershaw));
  /* -dm_vec_type cuda with a fegpu or PETSc without CUDA: say so now, not as PETSc's "Unknown vector type" later */
  PetscCall(FEGDMIsOnDevice(*dm, &ondevice));
  PetscCall(DMViewFromOptions(*dm, NULL, "-dm_view"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
