#include <fegpu/private/fegmeshimpl.h>
#include <petscbt.h>
#include <petscsf.h>

/* An interpolated DMPlex straight from a cell-vertex list of one cell type, without DMPlexInterpolate()'s hash tables:
   faces (and, in 3D, edges) are found through per-vertex lists of the sets whose smallest vertex each vertex is. The
   result is the mesh PETSc's DMPlexCreateFromCellListPetsc(..., interpolate = PETSC_TRUE, ...) makes, point for point:
   the same numbering (cells, vertices, faces, edges; new points in order of first appearance, grouped by type), cones,
   orientations, supports, cell types and depth strata. */

/* The cells' faces as vertex tuples, read through the cell list rather than copied: raw face r = nf * c + j (face j of
   cell c) has sz[j] <= 4 vertices, cells[nv * c + vert[off[j] + k]] */
typedef struct {
  PetscInt        nf, nv;
  const PetscInt *sz, *off, *vert, *cells;
} FEGRawFaces;

static inline PetscInt FEGRawFaceSize(const FEGRawFaces *t, PetscInt r)
{
  return t->sz[r % t->nf];
}

/* The vertices of face j of cell c; returns their number */
static inline PetscInt FEGCellFaceVertices(const FEGRawFaces *t, PetscInt c, PetscInt j, PetscInt v[])
{
  for (PetscInt k = 0; k < t->sz[j]; k++) v[k] = t->cells[t->nv * c + t->vert[t->off[j] + k]];
  return t->sz[j];
}

static inline PetscInt FEGRawFaceVertices(const FEGRawFaces *t, PetscInt r, PetscInt v[])
{
  return FEGCellFaceVertices(t, r / t->nf, r % t->nf, v);
}

static inline PetscInt FEGMinVertex(PetscInt s, const PetscInt v[])
{
  PetscInt m = v[0];

  for (PetscInt k = 1; k < s; k++) m = PetscMin(m, v[k]);
  return m;
}

/* Distinct tuples among n raw ones, each given sorted (key[w r .. w r + w - 1], smallest vertex first, -1 padded),
   numbered in order of first appearance (as DMPlexInterpolate() numbers them): id[r] for every raw tuple, first[u] the
   first raw tuple of set u. The raw tuples are listed per smallest vertex in raw order; within a vertex's list a tuple
   is compared only with the distinct ones before it (a handful: comparing with every tuple of a bucket is quadratic
   in the valence). The vertices' lists are independent and go to nth threads; the numbering is one serial pass. */
static PetscErrorCode FEGUniqueTuples(PetscInt n, PetscInt w, const PetscInt key[], PetscInt nvert, int nth, PetscInt *nu, PetscInt id[], PetscInt **first)
{
  PetscInt *start, *len, *list;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(nvert + 1, &start, nvert, &len));
  PetscCall(PetscMalloc1(n, &list));
  for (PetscInt r = 0; r < n; r++) start[key[w * (size_t)r] + 1]++;
  for (PetscInt m = 0; m < nvert; m++) start[m + 1] += start[m];
  for (PetscInt r = 0; r < n; r++) {
    const PetscInt m = key[w * (size_t)r];

    list[start[m] + len[m]++] = r;
  }
  /* id[r] = the first raw tuple equal to r (r itself for the first of a set) */
#pragma omp parallel for num_threads(nth) schedule(dynamic, 512)
  for (PetscInt m = 0; m < nvert; m++)
    for (PetscInt i = start[m]; i < start[m] + len[m]; i++) {
      const PetscInt  r  = list[i];
      const PetscInt *kr = key + w * (size_t)r;

      id[r] = r;
      for (PetscInt j = start[m]; j < i; j++) {
        const PetscInt  q  = list[j];
        const PetscInt *kq = key + w * (size_t)q;
        PetscInt        k  = 1;

        if (id[q] != q) continue;
        while (k < w && kq[k] == kr[k]) k++;
        if (k == w) {
          id[r] = q;
          break;
        }
      }
    }
  PetscCall(PetscMalloc1(n, first));
  *nu = 0;
  for (PetscInt r = 0; r < n; r++) {
    if (id[r] == r) {
      (*first)[*nu] = r;
      id[r]         = (*nu)++;
    } else id[r] = id[id[r]]; /* numbered already: id[r] < r */
  }
  PetscCall(PetscFree2(start, len));
  PetscCall(PetscFree(list));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Distinct vertex sets among the cells' raw faces (r = nf c + j): FEGUniqueTuples() of their sorted vertices */
static PetscErrorCode FEGUniqueFaces(const FEGRawFaces *t, PetscInt numCells, PetscInt nvert, int nth, PetscInt *nu, PetscInt id[], PetscInt **first)
{
  const PetscInt nf = t->nf, n = numCells * nf;
  PetscInt      *key;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(4 * (size_t)n, &key));
#pragma omp parallel for num_threads(nth) schedule(static)
  for (PetscInt c = 0; c < numCells; c++)
    for (PetscInt j = 0; j < nf; j++) {
      PetscInt       v[4];
      const PetscInt s  = FEGCellFaceVertices(t, c, j, v);
      PetscInt      *kr = key + 4 * ((size_t)c * nf + j);

      /* sorted (at most 4), so a set is its smallest vertex and the three after it (-1 past a segment's or triangle's) */
      for (PetscInt a = 1; a < s; a++)
        for (PetscInt b = a; b > 0 && v[b - 1] > v[b]; b--) {
          const PetscInt x = v[b];

          v[b]     = v[b - 1];
          v[b - 1] = x;
        }
      for (PetscInt k = 0; k < 4; k++) kr[k] = k < s ? v[k] : -1;
    }
  PetscCall(FEGUniqueTuples(n, 4, key, nvert, nth, nu, id, first));
  PetscCall(PetscFree(key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Distinct edges among the faces' edges (face f in order, edge k from its vertex k to k + 1, the vertices of its first
   raw face), numbered in order of first appearance: eid[re] for raw edge re, ev[2 e], ev[2 e + 1] the vertices of edge
   e as first seen */
static PetscErrorCode FEGUniqueEdges(const FEGRawFaces *t, PetscInt nfaces, const PetscInt ffirst[], PetscInt nvert, int nth, PetscInt *ne, PetscInt **eid, PetscInt **ev)
{
  PetscInt *eoff, *key, *first, nre;
  char     *swapped; /* raw edge re runs from its larger vertex to its smaller */

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nfaces + 1, &eoff));
  eoff[0] = 0;
  for (PetscInt f = 0; f < nfaces; f++) eoff[f + 1] = eoff[f] + FEGRawFaceSize(t, ffirst[f]);
  nre = eoff[nfaces];
  PetscCall(PetscMalloc2(2 * (size_t)nre, &key, nre, &swapped));
#pragma omp parallel for num_threads(nth) schedule(static)
  for (PetscInt f = 0; f < nfaces; f++) {
    PetscInt       v[4];
    const PetscInt s = FEGRawFaceVertices(t, ffirst[f], v);

    for (PetscInt k = 0; k < s; k++) {
      const PetscInt a = v[k], b = v[(k + 1) % s], re = eoff[f] + k;

      key[2 * re]     = PetscMin(a, b);
      key[2 * re + 1] = PetscMax(a, b);
      swapped[re]     = (char)(a > b);
    }
  }
  PetscCall(PetscMalloc1(nre, eid));
  PetscCall(FEGUniqueTuples(nre, 2, key, nvert, nth, ne, *eid, &first));
  PetscCall(PetscMalloc1(2 * *ne, ev));
  for (PetscInt e = 0; e < *ne; e++) {
    const PetscInt re = first[e], sw = swapped[re];

    (*ev)[2 * e]     = key[2 * re + sw];
    (*ev)[2 * e + 1] = key[2 * re + 1 - sw];
  }
  PetscCall(PetscFree(first));
  PetscCall(PetscFree2(key, swapped));
  PetscCall(PetscFree(eoff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's orientation of a face (or edge) as seen from a cell (or face), DMPolytopeGetVertexOrientation(), depends only on
   where each of its vertices sits in the face's own cone: computed once per such permutation and looked up after */
typedef struct {
  PetscInt o[3][256]; /* segments, triangles, quadrilaterals: s^s permutation codes */
} FEGOrientationCache;

static DMPolytopeType FEGFaceType(PetscInt size)
{
  return size == 2 ? DM_POLYTOPE_SEGMENT : (size == 3 ? DM_POLYTOPE_TRIANGLE : DM_POLYTOPE_QUADRILATERAL);
}

/* the orientations of segments, triangles and quadrilaterals computed up front (their rotations and reflections, the
   only ways a face's vertices can be seen), so that lookups are thread-safe; other codes stay PETSC_MIN_INT */
static PetscErrorCode FEGOrientationCacheInit(FEGOrientationCache *oc)
{
  PetscFunctionBegin;
  for (PetscInt s = 2; s <= 4; s++) {
    const PetscInt cone[4] = {0, 1, 2, 3};

    for (PetscInt c = 0; c < 256; c++) oc->o[s - 2][c] = PETSC_MIN_INT;
    for (PetscInt r = 0; r < s; r++)
      for (PetscInt refl = 0; refl < 2; refl++) {
        PetscInt seen[4], code = 0;

        for (PetscInt k = 0; k < s; k++) seen[k] = refl ? (r - k + s) % s : (r + k) % s;
        for (PetscInt k = s - 1; k >= 0; k--) code = code * s + seen[k]; /* as FEGOrientationOf() codes it */
        PetscCall(DMPolytopeGetVertexOrientation(FEGFaceType(s), cone, seen, &oc->o[s - 2][code]));
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the orientation of a face with vertices cone (its own order) seen as seen; PETSC_MIN_INT if seen is not a
   permutation of cone. Thread-safe: no PETSc calls */
static inline PetscInt FEGOrientationOf(const FEGOrientationCache *oc, PetscInt s, const PetscInt cone[], const PetscInt seen[])
{
  PetscInt code = 0;

  for (PetscInt k = s - 1; k >= 0; k--) {
    PetscInt l;

    for (l = 0; l < s; l++)
      if (cone[l] == seen[k]) break;
    if (l == s) return PETSC_MIN_INT;
    code = code * s + l;
  }
  return oc->o[s - 2][code];
}

/* A label's stratum from points p with flag[p] set, in increasing order */
static PetscErrorCode FEGLabelSetStratumFromFlags(DMLabel label, PetscInt value, PetscInt pEnd, const PetscBT flag)
{
  PetscInt n = 0, *pts;
  IS       is;

  PetscFunctionBegin;
  for (PetscInt p = 0; p < pEnd; p++)
    if (PetscBTLookup(flag, p)) n++;
  PetscCall(PetscMalloc1(n, &pts));
  n = 0;
  for (PetscInt p = 0; p < pEnd; p++)
    if (PetscBTLookup(flag, p)) pts[n++] = p;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, pts, PETSC_OWN_POINTER, &is));
  PetscCall(ISSetInfo(is, IS_SORTED, IS_LOCAL, PETSC_TRUE, PETSC_TRUE));
  PetscCall(DMLabelSetStratumIS(label, value, is));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt rank, index, local;
} FEGRootLeaf;

static int FEGRootCompare(const void *a, const void *b)
{
  const FEGRootLeaf *x = (const FEGRootLeaf *)a, *y = (const FEGRootLeaf *)b;

  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index ? 1 : 0);
}

/* The cones of the shared edges and faces in their owners' order. Where each process interpolated its part alone (a
   box's block, a refined part), a shared point's cone may list the same points in another order than on its owner, and then the dofs of a section on
   it would be matched in another order (what DMPlexCheckInterfaceCones() checks). The owners send each cone as owner
   numbers; a leaf whose cone differs is turned in place as DMPlexOrientPoint() turns it (its cone and cone
   orientations permuted, its orientation in its supports' cones composed with the inverse), on the cone arrays
   directly: DMPlexOrientPoint() took 13-35 us a point (0.4 s of a 100 x 100 interface of hexahedra, 1.4 s of
   tetrahedra, all on the non-owning process). Everything is sized by the shared points: the owners' roots are
   renumbered 0..nshared-1 for the exchange. */
static PetscErrorCode FEGPlexOrientInterface(DM dm)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  PetscSF            sf, csf;
  const PetscInt    *ilocal, *ioffset, *irootloc;
  const PetscSFNode *iremote;
  PetscInt           nroots, nleaves, nshared = 0, *cidx, *lcidx, *shared;
  PetscSFNode       *rc, *lc, *cremote;
  FEGRootLeaf       *byroot;
  PetscMPIInt        rank, nir = 0;
  PetscSection       cs;
  PetscInt          *cones, *ornts;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(DMPlexGetConeSection(dm, &cs));
  PetscCall(DMPlexGetCones(dm, &cones));
  PetscCall(DMPlexGetConeOrientations(dm, &ornts));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &ilocal, &iremote));
  /* the leaves by their root (rank, index), to find a local point from its owner's number */
  PetscCall(PetscMalloc1(nleaves, &byroot));
  for (PetscInt l = 0; l < nleaves; l++) {
    byroot[l].rank  = iremote[l].rank;
    byroot[l].index = iremote[l].index;
    byroot[l].local = ilocal[l];
  }
  qsort(byroot, (size_t)nleaves, sizeof(*byroot), FEGRootCompare);
  /* the owned points other processes share (the roots their leaves reference), numbered compactly in increasing order;
     the leaves learn their roots' compact numbers. Only the shared roots' entries of cidx are written, and the
     broadcast reads no others: nothing here goes over the whole chart */
  PetscCall(PetscSFSetUp(sf));
  PetscCall(FEGSFGetLeafRanks(sf, &nir, NULL, &ioffset, &irootloc));
  nshared = ioffset[nir];
  PetscCall(PetscMalloc1(nshared + 1, &shared));
  PetscCall(PetscArraycpy(shared, irootloc, nshared));
  PetscCall(PetscSortRemoveDupsInt(&nshared, shared));
  PetscCall(PetscMalloc2(nroots, &cidx, nleaves, &lcidx));
  for (PetscInt i = 0; i < nshared; i++) cidx[shared[i]] = i;
  {
    PetscSF lsf; /* the same graph with contiguous leaves, so that leaf data is indexed by leaf */

    PetscCall(PetscMalloc1(nleaves, &cremote));
    for (PetscInt l = 0; l < nleaves; l++) cremote[l] = iremote[l];
    PetscCall(PetscSFCreate(comm, &lsf));
    PetscCall(PetscSFSetGraph(lsf, nroots, nleaves, NULL, PETSC_OWN_POINTER, cremote, PETSC_COPY_VALUES));
    PetscCall(PetscSFBcastBegin(lsf, MPIU_INT, cidx, lcidx, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(lsf, MPIU_INT, cidx, lcidx, MPI_REPLACE));
    PetscCall(PetscSFDestroy(&lsf));
    for (PetscInt l = 0; l < nleaves; l++) cremote[l].index = lcidx[l];
    PetscCall(PetscSFCreate(comm, &csf));
    PetscCall(PetscSFSetGraph(csf, nshared, nleaves, NULL, PETSC_OWN_POINTER, cremote, PETSC_OWN_POINTER));
  }
  /* each shared point's cone in owner numbers, 4 entries (-1 past its size, and for cones of fewer than two points) */
  PetscCall(PetscMalloc2(4 * nshared, &rc, 4 * nleaves, &lc));
  for (PetscInt i = 0; i < nshared; i++) {
    const PetscInt  p = shared[i];
    const PetscInt *cone;
    PetscInt        n;

    PetscCall(DMPlexGetConeSize(dm, p, &n));
    PetscCall(DMPlexGetCone(dm, p, &cone));
    for (PetscInt k = 0; k < 4; k++) {
      PetscSFNode *r = &rc[4 * i + k];
      PetscInt     l;

      r->rank = r->index = -1;
      if (n < 2 || k >= n) continue;
      PetscCall(PetscFindInt(cone[k], nleaves, ilocal, &l));
      if (l < 0) {
        r->rank  = rank;
        r->index = cone[k];
      } else *r = iremote[l];
    }
  }
  for (PetscInt k = 0; k < 4; k++) {
    /* four exchanges of one node per shared point: rc[4 i + k] strided by 4 is not one array, so gather it */
    PetscSFNode *rk, *lk;

    PetscCall(PetscMalloc2(nshared, &rk, nleaves, &lk));
    for (PetscInt i = 0; i < nshared; i++) rk[i] = rc[4 * i + k];
    PetscCall(PetscSFBcastBegin(csf, MPIU_2INT, rk, lk, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(csf, MPIU_2INT, rk, lk, MPI_REPLACE));
    for (PetscInt l = 0; l < nleaves; l++) lc[4 * l + k] = lk[l];
    PetscCall(PetscFree2(rk, lk));
  }
  for (PetscInt l = 0; l < nleaves; l++) {
    const PetscInt     p    = ilocal[l];
    const PetscSFNode *want = &lc[4 * l];
    const PetscInt    *cone, *arr, *sup;
    PetscInt           n, local[4], o, off, ns, newc[4], newo[4];
    PetscBool          same = PETSC_TRUE;
    DMPolytopeType     ct, ft;

    if (want[0].rank < 0) continue;
    PetscCall(PetscSectionGetDof(cs, p, &n));
    PetscCall(PetscSectionGetOffset(cs, p, &off));
    cone = cones + off;
    /* the owner's order in local points */
    for (PetscInt k = 0; k < n; k++) {
      if (want[k].rank == rank) local[k] = want[k].index;
      else {
        const FEGRootLeaf  q = {want[k].rank, want[k].index, -1};
        const FEGRootLeaf *f = (const FEGRootLeaf *)bsearch(&q, byroot, (size_t)nleaves, sizeof(*byroot), FEGRootCompare);

        PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT ": cone point (%" PetscInt_FMT ", %" PetscInt_FMT ") of its owner is not shared here", p, want[k].rank, want[k].index);
        local[k] = f->local;
      }
      same = (PetscBool)(same && local[k] == cone[k]);
    }
    if (same) continue;
    /* shared points with a cone of two or more: edges of two vertices, faces of three or four edges */
    PetscCheck(n >= 2 && n <= 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Shared point %" PetscInt_FMT " has a cone of %" PetscInt_FMT, p, n);
    ct = n == 2 ? DM_POLYTOPE_SEGMENT : (n == 3 ? DM_POLYTOPE_TRIANGLE : DM_POLYTOPE_QUADRILATERAL);
    ft = n == 2 ? DM_POLYTOPE_POINT : DM_POLYTOPE_SEGMENT;
    PetscCall(DMPolytopeGetOrientation(ct, cone, local, &o));
    arr = FEGPolytopeTypeGetArrangement(ct, o);
    for (PetscInt c = 0; c < n; c++) {
      newc[c] = cone[arr[2 * c]];
      newo[c] = DMPolytopeTypeComposeOrientation(ft, arr[2 * c + 1], ornts[off + arr[2 * c]]);
    }
    for (PetscInt c = 0; c < n; c++) {
      cones[off + c] = newc[c];
      ornts[off + c] = newo[c];
    }
    PetscCall(DMPlexGetSupportSize(dm, p, &ns));
    PetscCall(DMPlexGetSupport(dm, p, &sup));
    for (PetscInt k = 0; k < ns; k++) {
      PetscInt sn, soff;

      PetscCall(PetscSectionGetDof(cs, sup[k], &sn));
      PetscCall(PetscSectionGetOffset(cs, sup[k], &soff));
      for (PetscInt c = 0; c < sn; c++)
        if (cones[soff + c] == p) ornts[soff + c] = DMPolytopeTypeComposeOrientationInv(ct, ornts[soff + c], o);
    }
  }
  PetscCall(PetscSFDestroy(&csf));
  PetscCall(PetscFree2(rc, lc));
  PetscCall(PetscFree(shared));
  PetscCall(PetscFree2(cidx, lcidx));
  PetscCall(PetscFree(byroot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The point SF of a DM whose processes interpolated their parts alone (a box's blocks, refined parts): nleaves leaves
   ilocal (sorted) with their roots iremote, both taken, set on the DM and its coordinate DM; the shared cones are then
   turned to their owners' order (FEGPlexOrientInterface()). Collective. */
PetscErrorCode FEGPlexSetPartsSF(DM dm, PetscInt nleaves, PetscInt ilocal[], PetscSFNode iremote[])
{
  PetscSF  sf;
  PetscInt pEnd;
  DM       cdm;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(dm, NULL, &pEnd));
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)dm), &sf));
  PetscCall(PetscSFSetGraph(sf, pEnd, nleaves, ilocal, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
  PetscCall(DMSetPointSF(dm, sf));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(FEGPlexOrientInterface(dm));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMSetPointSF(cdm, sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether every shared point of the point SF has the same label values as its owner's copy (collective). Each point
   gets a byte with a bit for each of eight of the values found on any process; the owners' bytes go to the leaves by
   one broadcast per eight values. */
static PetscErrorCode FEGLabelAgreesWithOwners(DM dm, DMLabel label, PetscBool *agree)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscSF         sf;
  PetscMPIInt     size, nv, *counts, *displs, graph;
  PetscInt        nroots, nleaves, pEnd, n, nu, bad = 0, *all;
  const PetscInt *ilocal, *vals;
  IS              vis;
  unsigned char  *own, *got;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &ilocal, NULL));
  PetscCall(DMPlexGetChart(dm, NULL, &pEnd)); /* the bytes are indexed by point: a Plex chart starts at 0 */
  /* a DM never distributed has no point SF graph: PETSc's routine decides then */
  graph = nroots >= 0;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &graph, 1, MPI_INT, MPI_LAND, comm));
  if (!graph) {
    *agree = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the values of all processes, sorted */
  PetscCall(DMLabelGetValueIS(label, &vis));
  PetscCall(ISGetIndices(vis, &vals));
  PetscCall(ISGetLocalSize(vis, &n));
  PetscCall(PetscMPIIntCast(n, &nv));
  PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCallMPI(MPI_Allgather(&nv, 1, MPI_INT, counts, 1, MPI_INT, comm));
  displs[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
  PetscCall(PetscMalloc1(displs[size], &all));
  PetscCallMPI(MPI_Allgatherv(vals, nv, MPIU_INT, all, counts, displs, MPIU_INT, comm));
  PetscCall(ISRestoreIndices(vis, &vals));
  PetscCall(ISDestroy(&vis));
  nu = displs[size];
  PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscSortRemoveDupsInt(&nu, all));
  PetscCall(PetscMalloc2(pEnd, &own, pEnd, &got));
  for (PetscInt g = 0; g < nu; g += 8) {
    for (PetscInt j = g; j < PetscMin(g + 8, nu); j++) {
      IS              is;
      const PetscInt *pts;
      PetscInt        m;

      if (j == g) PetscCall(PetscArrayzero(own, pEnd));
      PetscCall(DMLabelGetStratumIS(label, all[j], &is));
      if (!is) continue;
      PetscCall(ISGetLocalSize(is, &m));
      PetscCall(ISGetIndices(is, &pts));
      for (PetscInt i = 0; i < m; i++) own[pts[i]] |= (unsigned char)(1u << (j - g));
      PetscCall(ISRestoreIndices(is, &pts));
      PetscCall(ISDestroy(&is));
    }
    PetscCall(PetscSFBcastBegin(sf, MPI_UNSIGNED_CHAR, own, got, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPI_UNSIGNED_CHAR, own, got, MPI_REPLACE));
    for (PetscInt i = 0; i < nleaves; i++) {
      const PetscInt p = ilocal ? ilocal[i] : i;

      if (got[p] != own[p]) bad++;
    }
  }
  PetscCall(PetscFree2(own, got));
  PetscCall(PetscFree(all));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, comm));
  if (bad) {
    const char *name;

    PetscCall(PetscObjectGetName((PetscObject)label, &name));
    PetscCall(PetscInfo(dm, "Label %s: %" PetscInt_FMT " shared points differ from their owners' values\n", name, bad));
  }
  *agree = (PetscBool)!bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGPlexLabelComplete - DMPlexLabelComplete(), which returns at once when the label is complete already

  Collective

  Input Parameters:
+ dm    - the mesh
- label - the label, completed in place

  Note:
  Every discretization with essential boundary conditions completes their labels again (DMCreateLocalSection() does),
  and those of fegpu's box meshes and of its Gmsh meshes are complete by then. A flag per chart point, swept downwards
  through the cones, finds whether any stratum lacks a point of its closure; on several processes each shared point's
  values are then compared with its owner's (a byte per point and per eight values, one broadcast over the point SF).
  Only when a process lacks a point or a value does PETSc's DMPlexLabelComplete() run, on every process: it walks each
  point's closure and, on several processes, gathers and redistributes the label over the point SF. On one process at
  about 1M cells the check of a complete label is 2-3x faster than PETSc's routine, and it adds about 10% to a
  label PETSc then completes (share/bench/bench_plex; the factors are in share/doc/performance.md).

  Level: developer
@*/
PetscErrorCode FEGPlexLabelComplete(DM dm, DMLabel label)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscMPIInt     size;
  IS              vis;
  const PetscInt *vals;
  PetscInt        nv, pStart, pEnd, depth, added = 0;
  PetscBool       inside = PETSC_TRUE;
  PetscBT         flag   = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(DMLabelGetValueIS(label, &vis));
  PetscCall(ISGetLocalSize(vis, &nv));
  PetscCall(ISGetIndices(vis, &vals));
  for (PetscInt v = 0; v < nv && inside; v++) {
    PetscInt lo, hi;

    PetscCall(DMLabelGetStratumBounds(label, vals[v], &lo, &hi));
    inside = (PetscBool)(hi <= lo || (lo >= pStart && hi <= pEnd));
  }
  if (pStart != 0 || !inside) added = 1; /* PETSc's */
  if (!added) PetscCall(PetscBTCreate(pEnd, &flag));
  for (PetscInt v = 0; v < nv && !added; v++) {
    IS              is;
    const PetscInt *pts;
    PetscInt        n;

    PetscCall(DMLabelGetStratumIS(label, vals[v], &is));
    if (!is) continue;
    PetscCall(PetscBTMemzero(pEnd, flag));
    PetscCall(ISGetLocalSize(is, &n));
    PetscCall(ISGetIndices(is, &pts));
    for (PetscInt i = 0; i < n; i++) PetscCall(PetscBTSet(flag, pts[i]));
    PetscCall(ISRestoreIndices(is, &pts));
    PetscCall(ISDestroy(&is));
    /* a cone's points are one depth down: one downward sweep reaches the whole closure */
    for (PetscInt d = depth; d > 0 && !added; d--) {
      PetscInt s, e;

      PetscCall(DMPlexGetDepthStratum(dm, d, &s, &e));
      for (PetscInt p = s; p < e && !added; p++) {
        const PetscInt *cone;
        PetscInt        nc;

        if (!PetscBTLookup(flag, p)) continue;
        PetscCall(DMPlexGetConeSize(dm, p, &nc));
        PetscCall(DMPlexGetCone(dm, p, &cone));
        for (PetscInt k = 0; k < nc; k++)
          if (!PetscBTLookup(flag, cone[k])) added++;
      }
    }
  }
  PetscCall(PetscBTDestroy(&flag));
  PetscCall(ISRestoreIndices(vis, &vals));
  PetscCall(ISDestroy(&vis));
  if (size > 1) {
    /* PETSc's routine is collective: it runs everywhere when one process needs it */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &added, 1, MPIU_INT, MPI_MAX, comm));
    if (!added) {
      PetscBool agree = PETSC_FALSE;

      PetscCall(FEGLabelAgreesWithOwners(dm, label, &agree));
      added = !agree;
    }
  }
  if (added) PetscCall(DMPlexLabelComplete(dm, label));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A label stratum of the points [start, start + n) */
static PetscErrorCode FEGLabelSetStratumRange(DMLabel label, PetscInt value, PetscInt start, PetscInt n)
{
  IS is;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ISCreateStride(PETSC_COMM_SELF, n, start, 1, &is));
  PetscCall(DMLabelSetStratumIS(label, value, is));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGPlexCreateFromCellList - an interpolated DMPlex from a list of cells of one type, as
  DMPlexCreateFromCellListPetsc() with interpolation makes it, in a fraction of its time

  Collective

  Input Parameters:
+ comm        - communicator; every process passes its own cells (usually all on one process, none elsewhere)
. cell        - the cell type's entry in fegpu's cell table
. numCells    - number of cells on this process
. numVertices - number of vertices on this process
. cells       - cells[c*nverts+i], vertex i of cell c in PETSc's order for the type
. coords      - coords[v*dim+d]
- boundary    - name of a label in which to mark the boundary faces of this process's cells and their closure with
                value 1, as DMPlexMarkBoundaryFaces() and DMPlexLabelComplete() do on one process; or NULL

  Output Parameter:
. dm - the mesh, with coordinates

  Notes:
  Supports, cell types and the depth strata are written directly too: PETSc's DMPlexSymmetrize() and a cell-type label
  filled point by point (hashed, then sorted whenever the DM is cloned) were a third of the time of the direct build.

  Against DMPlexCreateFromCellListPetsc() with interpolation on the same cells, on one process: 15-18x faster at
  about 1M cells with threads and 8-9x on one (share/bench/bench_plex; the factors are in share/doc/performance.md).
  test_space's test_cell_list_interpolation checks it against PETSc's, point by point.

  Level: developer
@*/
PetscErrorCode FEGPlexCreateFromCellList(MPI_Comm comm, const FEGCellInfo *cell, PetscInt numCells, PetscInt numVertices, const PetscInt cells[], const PetscReal coords[], const char boundary[], DM *dm)
{
  PetscFunctionBegin;
  PetscCall(FEGPlexCreateFromCellList_Private(comm, cell, numCells, numVertices, cells, coords, boundary, NULL, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGPlexCreateFromCellList(); with vmask, a face of one cell is marked only if its vertices' masks share a bit (a
   process's part of a box marks the faces on the box's sides, not those it shares with another process) */
PetscErrorCode FEGPlexCreateFromCellList_Private(MPI_Comm comm, const FEGCellInfo *cell, PetscInt numCells, PetscInt numVertices, const PetscInt cells[], const PetscReal coords[], const char boundary[], const unsigned char vmask[], DM *dm)
{
  const PetscInt      dim = cell->dim, nf = cell->faces.nfaces;
  const FEGCellFaces *cf      = &cell->faces;
  PetscInt            foff[7] = {0}, nraw = numCells * nf, nfaces = 0, nedges = 0, *fid, *ffirst, *fnum, *fsize;
  PetscInt           *ev = NULL, *eid = NULL, typeStart[DM_NUM_POLYTOPES], typeCount[DM_NUM_POLYTOPES];
  PetscInt            fStart, eStart, pEnd, coneStorage, *cones, *ornts, *soff, v[4];
  PetscSection        cs;
  DMLabel             label;
  FEGRawFaces         rf;
  FEGOrientationCache oc;
  PetscInt            nthreads, bad = -1;
  int                 nth;

  PetscFunctionBegin;
  PetscCall(FEGInitializePackage());
  PetscCall(FEGSetupThreads(comm, &nthreads));
  nth = FEGLoopThreads(nraw, nthreads);
  PetscCall(PetscLogEventBegin(FEG_PlexFaces, 0, 0, 0, 0));
  for (PetscInt f = 0; f < nf; f++) foff[f + 1] = foff[f] + cf->size[f];
  rf.nf    = nf;
  rf.nv    = cell->nverts;
  rf.sz    = cf->size;
  rf.off   = foff;
  rf.vert  = cf->vert;
  rf.cells = cells;
  PetscCall(FEGOrientationCacheInit(&oc));
  PetscCall(PetscMalloc1(nraw, &fid));
  PetscCall(FEGUniqueFaces(&rf, numCells, numVertices, nth, &nfaces, fid, &ffirst));
  /* faces numbered contiguously by type, in order of first appearance within a type (as PETSc does) */
  PetscCall(PetscArrayzero(typeCount, DM_NUM_POLYTOPES));
  for (PetscInt u = 0; u < nfaces; u++) typeCount[FEGFaceType(FEGRawFaceSize(&rf, ffirst[u]))]++;
  fStart       = numCells + numVertices;
  typeStart[0] = fStart;
  for (PetscInt t = 1; t < DM_NUM_POLYTOPES; t++) typeStart[t] = typeStart[t - 1] + typeCount[t - 1];
  PetscCall(PetscMalloc1(nfaces, &fnum));
  for (PetscInt u = 0; u < nfaces; u++) fnum[u] = typeStart[FEGFaceType(FEGRawFaceSize(&rf, ffirst[u]))]++ - fStart;
  {
    PetscInt *tmp;

    /* ffirst by face number */
    PetscCall(PetscMalloc1(nfaces, &tmp));
    for (PetscInt u = 0; u < nfaces; u++) tmp[fnum[u]] = ffirst[u];
    PetscCall(PetscFree(ffirst));
    ffirst = tmp;
  }
  PetscCall(PetscMalloc1(nfaces, &fsize));
  for (PetscInt f = 0; f < nfaces; f++) fsize[f] = FEGRawFaceSize(&rf, ffirst[f]);
  eStart = fStart + nfaces;
  if (dim == 3) PetscCall(FEGUniqueEdges(&rf, nfaces, ffirst, numVertices, nth, &nedges, &eid, &ev));
  pEnd = eStart + nedges;
  PetscCall(PetscLogEventEnd(FEG_PlexFaces, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(FEG_PlexTopology, 0, 0, 0, 0));

  PetscCall(DMCreate(comm, dm));
  PetscCall(DMSetType(*dm, DMPLEX));
  PetscCall(DMSetDimension(*dm, dim));
  PetscCall(DMPlexSetChart(*dm, 0, pEnd));
  for (PetscInt c = 0; c < numCells; c++) PetscCall(DMPlexSetConeSize(*dm, c, nf));
  for (PetscInt f = 0; f < nfaces; f++) PetscCall(DMPlexSetConeSize(*dm, fStart + f, fsize[f]));
  for (PetscInt e = 0; e < nedges; e++) PetscCall(DMPlexSetConeSize(*dm, eStart + e, 2));
  /* support sizes from the same lists, so that DMSetUp() allocates the supports too */
  PetscCall(PetscCalloc1(pEnd + 1, &soff));
  for (PetscInt r = 0; r < nraw; r++) soff[fStart + fnum[fid[r]] + 1]++;
  if (dim == 2)
    for (PetscInt f = 0; f < nfaces; f++) {
      (void)FEGRawFaceVertices(&rf, ffirst[f], v);
      soff[numCells + v[0] + 1]++;
      soff[numCells + v[1] + 1]++;
    }
  else {
    for (PetscInt re = 0, f = 0; f < nfaces; f++)
      for (PetscInt k = 0; k < fsize[f]; k++) soff[eStart + eid[re++] + 1]++;
    for (PetscInt e = 0; e < 2 * nedges; e++) soff[numCells + ev[e] + 1]++;
  }
  for (PetscInt p = 0; p < pEnd; p++)
    if (soff[p + 1]) PetscCall(DMPlexSetSupportSize(*dm, p, soff[p + 1]));
  for (PetscInt p = 0; p < pEnd; p++) soff[p + 1] += soff[p];
  PetscCall(DMSetUp(*dm));
  PetscCall(DMPlexGetConeSection(*dm, &cs));
  PetscCall(PetscSectionGetStorageSize(cs, &coneStorage));
  {
    PetscInt o0, o1 = 0, o2 = 0;

    /* the cone section lays cones out in chart order (cells, vertices, faces, edges), so offsets run on */
    if (numCells) PetscCall(PetscSectionGetOffset(cs, 0, &o0));
    else o0 = 0;
    if (nfaces) PetscCall(PetscSectionGetOffset(cs, fStart, &o1));
    if (nedges) PetscCall(PetscSectionGetOffset(cs, eStart, &o2));
    PetscCheck(o0 == 0 && (!nfaces || o1 == numCells * nf) && (!nedges || o2 == coneStorage - 2 * nedges), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unexpected cone section layout");
  }
  PetscCall(DMPlexGetCones(*dm, &cones));
  PetscCall(DMPlexGetConeOrientations(*dm, &ornts));
  /* cells: faces, oriented from the face's cone (its first cell's raw face) to this cell's raw face */
#pragma omp parallel for num_threads(nth) schedule(static) reduction(max : bad)
  for (PetscInt c = 0; c < numCells; c++) {
    for (PetscInt f = 0; f < nf; f++) {
      const PetscInt r = c * nf + f, u = fnum[fid[r]], r0 = ffirst[u];
      PetscInt       cv[4], cw[4];

      cones[r] = fStart + u;
      if (r == r0) ornts[r] = 0;
      else {
        const PetscInt s = FEGRawFaceVertices(&rf, r0, cv);

        (void)FEGCellFaceVertices(&rf, c, f, cw);
        ornts[r] = FEGOrientationOf(&oc, s, cv, cw);
        if (ornts[r] == PETSC_MIN_INT) bad = PetscMax(bad, c);
      }
    }
  }
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT ": a face's vertices are not those of its first cell's face", bad);
  /* faces: their vertices (2D), or their edges oriented the same way (3D); raw edges run on from face to face */
  {
    PetscInt *eoff;

    PetscCall(PetscMalloc1(nfaces + 1, &eoff));
    eoff[0] = numCells * nf;
    for (PetscInt f = 0; f < nfaces; f++) eoff[f + 1] = eoff[f] + fsize[f];
#pragma omp parallel for num_threads(nth) schedule(static) reduction(max : bad)
    for (PetscInt f = 0; f < nfaces; f++) {
      PetscInt       fv[4];
      const PetscInt s = FEGRawFaceVertices(&rf, ffirst[f], fv), o = eoff[f], re = eoff[f] - numCells * nf;

      for (PetscInt k = 0; k < s; k++) {
        if (dim == 2) {
          cones[o + k] = numCells + fv[k];
          ornts[o + k] = 0;
        } else {
          const PetscInt e = eid[re + k], seen[2] = {fv[k], fv[(k + 1) % s]};

          cones[o + k] = eStart + e;
          ornts[o + k] = seen[0] == ev[2 * e] ? 0 : FEGOrientationOf(&oc, 2, ev + 2 * e, seen);
          if (ornts[o + k] == PETSC_MIN_INT) bad = PetscMax(bad, fStart + f);
        }
      }
    }
    PetscCall(PetscFree(eoff));
  }
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Face %" PetscInt_FMT ": an edge's vertices are not those of its first face's edge", bad);
  for (PetscInt e = 0, o = coneStorage - 2 * nedges; e < nedges; e++, o += 2) {
    cones[o]     = numCells + ev[2 * e];
    cones[o + 1] = numCells + ev[2 * e + 1];
    ornts[o] = ornts[o + 1] = 0;
  }
  /* supports in increasing order of the point they belong to, as DMPlexSymmetrize() orders them. PETSc has
     DMPlexGetCones() but no DMPlexGetSupports(): the supports are one array, indexed by the support section, which
     DMPlexGetSupport() of the first point with a support (at offset 0) points into; DMPlexSetSupport() point by point
     costs a call per point */
  {
    PetscSection    ss;
    const PetscInt *s0;
    PetscInt       *supp, *fill, q0 = 0, o0 = 0, size, p = 0, o = 0;

    while (q0 < pEnd && soff[q0 + 1] == soff[q0]) q0++;
    PetscCall(DMPlexGetSupportSection(*dm, &ss));
    PetscCall(PetscSectionGetStorageSize(ss, &size));
    if (q0 < pEnd) PetscCall(PetscSectionGetOffset(ss, q0, &o0));
    PetscCheck(size == soff[pEnd] && o0 == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Support section with %" PetscInt_FMT " entries (point %" PetscInt_FMT " at %" PetscInt_FMT "), expected %" PetscInt_FMT " from offset 0", size, q0, o0, soff[pEnd]);
    if (q0 < pEnd) {
      PetscCall(DMPlexGetSupport(*dm, q0, &s0));
      supp = (PetscInt *)s0;
      PetscCall(PetscCalloc1(pEnd, &fill));
      /* the points with cones, in chart order: cells, then faces, then edges (vertices have none) */
      for (; p < numCells; p++)
        for (PetscInt k = 0; k < nf; k++, o++) supp[soff[cones[o]] + fill[cones[o]]++] = p;
      for (p = fStart; p < pEnd; p++)
        for (PetscInt k = 0, n = p < eStart ? fsize[p - fStart] : 2; k < n; k++, o++) supp[soff[cones[o]] + fill[cones[o]]++] = p;
      PetscCall(PetscFree(fill));
    }
  }
  /* the cell types as one range of points each (faces are numbered by type), before stratifying so that PETSc does
     not compute them */
  PetscCall(DMCreateLabel(*dm, "celltype"));
  PetscCall(DMGetLabel(*dm, "celltype", &label));
  PetscCall(FEGLabelSetStratumRange(label, cell->ct, 0, numCells));
  PetscCall(FEGLabelSetStratumRange(label, DM_POLYTOPE_POINT, numCells, numVertices));
  for (PetscInt t = 0, start = fStart; t < DM_NUM_POLYTOPES; start += typeCount[t], t++) PetscCall(FEGLabelSetStratumRange(label, t, start, typeCount[t]));
  PetscCall(FEGLabelSetStratumRange(label, DM_POLYTOPE_SEGMENT, eStart, nedges));
  PetscCall(FEGPlexSetCellTypeCache(*dm, label));
  if (boundary) {
    PetscBT mark;

    /* faces of one cell, and their cones' closure */
    PetscCall(PetscBTCreate(pEnd, &mark));
    for (PetscInt f = fStart; f < eStart; f++) {
      PetscInt o;

      if (soff[f + 1] - soff[f] != 1) continue;
      if (vmask) {
        PetscInt       fv[4];
        const PetscInt s = FEGRawFaceVertices(&rf, ffirst[f - fStart], fv);
        unsigned char  m = 0xff;

        for (PetscInt k = 0; k < s; k++) m &= vmask[fv[k]];
        if (!m) continue;
      }
      PetscCall(PetscBTSet(mark, f));
      PetscCall(PetscSectionGetOffset(cs, f, &o));
      for (PetscInt k = 0; k < fsize[f - fStart]; k++) {
        const PetscInt q = cones[o + k];

        PetscCall(PetscBTSet(mark, q));
        if (dim == 3) {
          PetscInt oq;

          PetscCall(PetscSectionGetOffset(cs, q, &oq));
          PetscCall(PetscBTSet(mark, cones[oq]));
          PetscCall(PetscBTSet(mark, cones[oq + 1]));
        }
      }
    }
    PetscCall(DMCreateLabel(*dm, boundary));
    PetscCall(DMGetLabel(*dm, boundary, &label));
    PetscCall(FEGLabelSetStratumFromFlags(label, 1, pEnd, mark));
    PetscCall(PetscBTDestroy(&mark));
  }
  PetscCall(PetscFree(soff));
  /* the depth strata are ranges too: vertices, edges (3D), faces, cells */
  PetscCall(DMCreateLabel(*dm, "depth"));
  PetscCall(DMGetLabel(*dm, "depth", &label));
  /* every stratum on every process, even one without points, as DMPlexStratify() leaves them */
  for (PetscInt d = 0; d <= dim; d++) PetscCall(DMLabelAddStratum(label, d));
  PetscCall(FEGLabelSetStratumRange(label, 0, numCells, numVertices));
  if (dim == 3) PetscCall(FEGLabelSetStratumRange(label, 1, eStart, nedges));
  PetscCall(FEGLabelSetStratumRange(label, dim - 1, fStart, nfaces));
  PetscCall(FEGLabelSetStratumRange(label, dim, 0, numCells));
  {
    PetscSection cs;
    Vec          X;
    PetscScalar *x;
    PetscInt     bs = dim;

    /* what DMPlexBuildCoordinatesFromCellList() does, without its cost on an interpolated chart (it looks every vertex
       up in the chart) */
    PetscCall(DMGetCoordinateSection(*dm, &cs));
    PetscCall(PetscSectionSetNumFields(cs, 1));
    PetscCall(PetscSectionSetFieldComponents(cs, 0, dim));
    PetscCall(PetscSectionSetChart(cs, numCells, numCells + numVertices));
    for (PetscInt v = numCells; v < numCells + numVertices; v++) {
      PetscCall(PetscSectionSetDof(cs, v, dim));
      PetscCall(PetscSectionSetFieldDof(cs, v, 0, dim));
    }
    PetscCall(PetscSectionSetUp(cs));
    PetscCall(VecCreate(PETSC_COMM_SELF, &X));
    PetscCall(PetscObjectSetName((PetscObject)X, "coordinates"));
    PetscCall(VecSetSizes(X, numVertices * dim, PETSC_DETERMINE));
    PetscCall(VecSetBlockSize(X, bs));
    PetscCall(VecSetType(X, VECSTANDARD));
    PetscCall(VecGetArrayWrite(X, &x));
    for (PetscInt k = 0; k < numVertices * dim; k++) x[k] = coords[k];
    PetscCall(VecRestoreArrayWrite(X, &x));
    PetscCall(DMSetCoordinatesLocal(*dm, X));
    PetscCall(VecDestroy(&X));
  }
  PetscCall(PetscLogEventEnd(FEG_PlexTopology, 0, 0, 0, 0));
  PetscCall(PetscFree(fid));
  PetscCall(PetscFree(ffirst));
  PetscCall(PetscFree(fnum));
  PetscCall(PetscFree(fsize));
  PetscCall(PetscFree(eid));
  PetscCall(PetscFree(ev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
