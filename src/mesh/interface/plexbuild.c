#include <fegpu/private/fegimpl.h>
#include <petscbt.h>

/* An interpolated DMPlex straight from a cell-vertex list of one cell type, without DMPlexInterpolate()'s hash tables:
   faces (and, in 3D, edges) are found by bucketing vertex tuples by their smallest vertex. The result is the mesh PETSc's
   DMPlexCreateFromCellListPetsc(..., interpolate = PETSC_TRUE, ...) makes, point for point: the same numbering (cells,
   vertices, faces, edges; new points in order of first appearance, grouped by type), cones and orientations. */

/* n vertex tuples laid out periodically: tuple i = period * q + j has sz[j] <= 4 vertices at v[stride * q + off[j]] (a
   cell's faces, or one edge after another), so no per-tuple sizes or offsets are stored */
typedef struct {
  PetscInt        period, stride;
  const PetscInt *sz, *off, *v;
} FEGTuples;

static inline PetscInt FEGTupleSize(const FEGTuples *t, PetscInt i)
{
  return t->sz[i % t->period];
}

static inline const PetscInt *FEGTupleVertices(const FEGTuples *t, PetscInt i)
{
  return t->v + t->stride * (i / t->period) + t->off[i % t->period];
}

/* Whether tuples i and j hold the same vertex set */
static inline PetscBool FEGTuplesEqual(const FEGTuples *t, PetscInt i, PetscInt j)
{
  const PetscInt s = FEGTupleSize(t, i), *vi = FEGTupleVertices(t, i), *vj = FEGTupleVertices(t, j);
  PetscInt       k;

  if (FEGTupleSize(t, j) != s) return PETSC_FALSE;
  for (k = 0; k < s; k++) {
    PetscInt l;

    for (l = 0; l < s; l++)
      if (vj[l] == vi[k]) break;
    if (l == s) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/* Distinct vertex sets among n tuples (vertices in [0, nv)): id[i] numbers the set of tuple i in order of first
   appearance; first[u] is the first tuple of set u. Tuples are bucketed by their smallest vertex m and, within a bucket,
   chained by their second smallest vertex s, so a tuple is compared only with the earlier distinct sets that share the
   edge (m, s): comparing within whole buckets was quadratic in the vertex valence (1.8 s for a million tetrahedra). */
static PetscErrorCode FEGUniqueTuples(PetscInt n, PetscInt nv, const FEGTuples *t, PetscInt *nu, PetscInt id[], PetscInt **first)
{
  PetscInt *start, *bucket, *rep, *next, *stamp, *head;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nv + 1, &start));
  PetscCall(PetscMalloc4(n, &bucket, n, &rep, nv, &stamp, nv, &head));
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt *vi = FEGTupleVertices(t, i);
    PetscInt        m  = vi[0];

    for (PetscInt k = 1; k < FEGTupleSize(t, i); k++) m = PetscMin(m, vi[k]);
    id[i] = m; /* the key for now */
    start[m + 1]++;
  }
  for (PetscInt m = 0; m < nv; m++) start[m + 1] += start[m];
  /* fill each bucket from its end, so that it holds its tuples in increasing order and start[m] ends at its beginning */
  for (PetscInt i = n - 1; i >= 0; i--) bucket[--start[id[i] + 1]] = i;
  for (PetscInt v = 0; v < nv; v++) stamp[v] = -1;
  next = id; /* the keys are in the buckets now */
  for (PetscInt m = 0; m < nv; m++) {
    for (PetscInt b = start[m]; b < start[m + 1]; b++) {
      const PetscInt i = bucket[b], *vi = FEGTupleVertices(t, i);
      PetscInt       s = PETSC_MAX_INT, j, last = -1;

      for (PetscInt k = 0; k < FEGTupleSize(t, i); k++)
        if (vi[k] != m) s = PetscMin(s, vi[k]);
      rep[i] = i;
      /* the earlier sets with smallest vertices (m, s), in increasing order: the first equal one is the set's first tuple */
      for (j = stamp[s] == m ? head[s] : -1; j >= 0; last = j, j = next[j])
        if (FEGTuplesEqual(t, i, j)) break;
      if (j >= 0) rep[i] = j;
      else {
        next[i] = -1;
        if (last >= 0) next[last] = i;
        else {
          stamp[s] = m;
          head[s]  = i;
        }
      }
    }
  }
  /* number the sets by their first tuples: rep[i] <= i, so its number is known */
  PetscCall(PetscMalloc1(n, first));
  *nu = 0;
  for (PetscInt i = 0; i < n; i++) {
    if (rep[i] == i) {
      (*first)[*nu] = i;
      id[i]         = (*nu)++;
    } else id[i] = id[rep[i]];
  }
  PetscCall(PetscFree(start));
  PetscCall(PetscFree4(bucket, rep, stamp, head));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static DMPolytopeType FEGFaceType(PetscInt size)
{
  return size == 2 ? DM_POLYTOPE_SEGMENT : (size == 3 ? DM_POLYTOPE_TRIANGLE : DM_POLYTOPE_QUADRILATERAL);
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

  Note:
  Supports, cell types and the depth strata are written directly too: PETSc's DMPlexSymmetrize() and a cell-type label
  filled point by point (hashed, then sorted whenever the DM is cloned) took 1.5 s of the 4 s of a million hexahedra.

  Level: developer
@*/
PetscErrorCode FEGPlexCreateFromCellList(MPI_Comm comm, const FEGCellInfo *cell, PetscInt numCells, PetscInt numVertices, const PetscInt cells[], const PetscReal coords[], const char boundary[], DM *dm)
{
  const PetscInt      dim = cell->dim, nv = cell->nverts, nf = cell->faces.nfaces;
  const FEGCellFaces *cf      = &cell->faces;
  PetscInt            foff[7] = {0}, nraw = numCells * nf, nfaces = 0, nedges = 0, *fv, *fid, *ffirst, *fnum;
  PetscInt           *ev = NULL, *eid = NULL, *efirst = NULL, typeStart[DM_NUM_POLYTOPES], typeCount[DM_NUM_POLYTOPES];
  PetscInt            fStart, eStart, pEnd, *cones, *ornts, *soff;
  PetscSection        cs;
  DMLabel             label;
  FEGTuples           ft;

  PetscFunctionBegin;
  PetscCall(FEGInitializePackage());
  PetscCall(PetscLogEventBegin(FEG_PlexFaces, 0, 0, 0, 0));
  for (PetscInt f = 0; f < nf; f++) foff[f + 1] = foff[f] + cf->size[f];
  /* every cell's raw faces */
  PetscCall(PetscMalloc1((size_t)numCells * foff[nf], &fv));
  PetscCall(PetscMalloc1(nraw, &fid));
  for (PetscInt c = 0; c < numCells; c++)
    for (PetscInt f = 0; f < nf; f++) {
      for (PetscInt k = 0; k < cf->size[f]; k++) fv[c * foff[nf] + foff[f] + k] = cells[c * nv + cf->vert[foff[f] + k]];
    }
  ft.period = nf;
  ft.stride = foff[nf];
  ft.sz     = cf->size;
  ft.off    = foff;
  ft.v      = fv;
  PetscCall(FEGUniqueTuples(nraw, numVertices, &ft, &nfaces, fid, &ffirst));
  /* faces numbered contiguously by type, in order of first appearance within a type (as PETSc does) */
  PetscCall(PetscArrayzero(typeCount, DM_NUM_POLYTOPES));
  for (PetscInt u = 0; u < nfaces; u++) typeCount[FEGFaceType(FEGTupleSize(&ft, ffirst[u]))]++;
  fStart       = numCells + numVertices;
  typeStart[0] = fStart;
  for (PetscInt t = 1; t < DM_NUM_POLYTOPES; t++) typeStart[t] = typeStart[t - 1] + typeCount[t - 1];
  PetscCall(PetscMalloc1(nfaces, &fnum));
  for (PetscInt u = 0; u < nfaces; u++) fnum[u] = typeStart[FEGFaceType(FEGTupleSize(&ft, ffirst[u]))]++ - fStart;
  {
    PetscInt *tmp;

    /* ffirst by face number */
    PetscCall(PetscMalloc1(nfaces, &tmp));
    for (PetscInt u = 0; u < nfaces; u++) tmp[fnum[u]] = ffirst[u];
    PetscCall(PetscFree(ffirst));
    ffirst = tmp;
  }
  eStart = fStart + nfaces;
  if (dim == 3) {
    PetscInt nre = 0;

    /* each face's raw edges, faces in their final order, from the face's vertex cone */
    for (PetscInt f = 0; f < nfaces; f++) nre += FEGTupleSize(&ft, ffirst[f]);
    PetscCall(PetscMalloc2(2 * nre, &ev, nre, &eid));
    nre = 0;
    for (PetscInt f = 0; f < nfaces; f++) {
      const PetscInt s = FEGTupleSize(&ft, ffirst[f]), *fc = FEGTupleVertices(&ft, ffirst[f]);

      for (PetscInt k = 0; k < s; k++, nre++) {
        ev[2 * nre]     = fc[k];
        ev[2 * nre + 1] = fc[(k + 1) % s];
      }
    }
    {
      const PetscInt two = 2, zero = 0;
      FEGTuples      et = {1, 2, &two, &zero, ev};

      PetscCall(FEGUniqueTuples(nre, numVertices, &et, &nedges, eid, &efirst));
    }
  }
  pEnd = eStart + nedges;
  PetscCall(PetscLogEventEnd(FEG_PlexFaces, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(FEG_PlexTopology, 0, 0, 0, 0));

  PetscCall(DMCreate(comm, dm));
  PetscCall(DMSetType(*dm, DMPLEX));
  PetscCall(DMSetDimension(*dm, dim));
  PetscCall(DMPlexSetChart(*dm, 0, pEnd));
  for (PetscInt c = 0; c < numCells; c++) PetscCall(DMPlexSetConeSize(*dm, c, nf));
  for (PetscInt f = 0; f < nfaces; f++) PetscCall(DMPlexSetConeSize(*dm, fStart + f, FEGTupleSize(&ft, ffirst[f])));
  for (PetscInt e = 0; e < nedges; e++) PetscCall(DMPlexSetConeSize(*dm, eStart + e, 2));
  /* support sizes from the same lists, so that DMSetUp() allocates the supports too */
  PetscCall(PetscCalloc1(pEnd + 1, &soff));
  for (PetscInt r = 0; r < nraw; r++) soff[fStart + fnum[fid[r]] + 1]++;
  for (PetscInt f = 0, re = 0; f < nfaces; f++) {
    const PetscInt s = FEGTupleSize(&ft, ffirst[f]), *fc = FEGTupleVertices(&ft, ffirst[f]);

    for (PetscInt k = 0; k < s; k++) {
      if (dim == 2) soff[numCells + fc[k] + 1]++;
      else soff[eStart + eid[re++] + 1]++;
    }
  }
  for (PetscInt e = 0; e < nedges; e++) {
    soff[numCells + ev[2 * efirst[e]] + 1]++;
    soff[numCells + ev[2 * efirst[e] + 1] + 1]++;
  }
  for (PetscInt p = 0; p < pEnd; p++)
    if (soff[p + 1]) PetscCall(DMPlexSetSupportSize(*dm, p, soff[p + 1]));
  for (PetscInt p = 0; p < pEnd; p++) soff[p + 1] += soff[p];
  PetscCall(DMSetUp(*dm));
  PetscCall(DMPlexGetConeSection(*dm, &cs));
  PetscCall(DMPlexGetCones(*dm, &cones));
  PetscCall(DMPlexGetConeOrientations(*dm, &ornts));
  /* cells: faces, oriented from the face's cone (its first cell's raw face) to this cell's raw face */
  for (PetscInt c = 0; c < numCells; c++) {
    PetscInt o;

    PetscCall(PetscSectionGetOffset(cs, c, &o));
    for (PetscInt f = 0; f < nf; f++) {
      const PetscInt r = c * nf + f, u = fnum[fid[r]], r0 = ffirst[u];

      cones[o + f] = fStart + u;
      if (r == r0) ornts[o + f] = 0;
      else PetscCall(DMPolytopeGetVertexOrientation(FEGFaceType(FEGTupleSize(&ft, r)), FEGTupleVertices(&ft, r0), FEGTupleVertices(&ft, r), &ornts[o + f]));
    }
  }
  /* faces: their vertices (2D), or their edges oriented the same way (3D) */
  for (PetscInt f = 0, re = 0; f < nfaces; f++) {
    const PetscInt s = FEGTupleSize(&ft, ffirst[f]), *fc = FEGTupleVertices(&ft, ffirst[f]);
    PetscInt       o;

    PetscCall(PetscSectionGetOffset(cs, fStart + f, &o));
    for (PetscInt k = 0; k < s; k++) {
      if (dim == 2) {
        cones[o + k] = numCells + fc[k];
        ornts[o + k] = 0;
      } else {
        const PetscInt u = eid[re], r0 = efirst[u];

        cones[o + k] = eStart + u;
        if (re == r0) ornts[o + k] = 0;
        else PetscCall(DMPolytopeGetVertexOrientation(DM_POLYTOPE_SEGMENT, ev + 2 * r0, ev + 2 * re, &ornts[o + k]));
        re++;
      }
    }
  }
  for (PetscInt e = 0; e < nedges; e++) {
    PetscInt o;

    PetscCall(PetscSectionGetOffset(cs, eStart + e, &o));
    cones[o]     = numCells + ev[2 * efirst[e]];
    cones[o + 1] = numCells + ev[2 * efirst[e] + 1];
    ornts[o] = ornts[o + 1] = 0;
  }
  /* supports in increasing order of the point they belong to, as DMPlexSymmetrize() orders them. PETSc has
     DMPlexGetCones() but no DMPlexGetSupports(): the supports are one array, indexed by the support section, which
     DMPlexGetSupport() of the first point with a support (at offset 0) points into; DMPlexSetSupport() point by point
     cost 0.4 s for a million hexahedra */
  {
    PetscSection    ss;
    const PetscInt *s0;
    PetscInt       *supp, *fill, q0 = 0, o0, size, p = 0, o = 0;

    while (q0 < pEnd && soff[q0 + 1] == soff[q0]) q0++;
    PetscCall(DMPlexGetSupportSection(*dm, &ss));
    PetscCall(PetscSectionGetStorageSize(ss, &size));
    PetscCall(PetscSectionGetOffset(ss, PetscMin(q0, pEnd - 1), &o0));
    PetscCheck(size == soff[pEnd] && (q0 == pEnd || o0 == 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Support section with %" PetscInt_FMT " entries (point %" PetscInt_FMT " at %" PetscInt_FMT "), expected %" PetscInt_FMT " from offset 0", size, q0, o0, soff[pEnd]);
    if (q0 < pEnd) {
      PetscCall(DMPlexGetSupport(*dm, q0, &s0));
      supp = (PetscInt *)s0;
      PetscCall(PetscCalloc1(pEnd, &fill));
      /* the points with cones, in chart order: cells, then faces, then edges (vertices have none) */
      for (; p < numCells; p++)
        for (PetscInt k = 0; k < nf; k++, o++) supp[soff[cones[o]] + fill[cones[o]]++] = p;
      for (p = fStart; p < pEnd; p++)
        for (PetscInt k = 0, n = p < eStart ? FEGTupleSize(&ft, ffirst[p - fStart]) : 2; k < n; k++, o++) supp[soff[cones[o]] + fill[cones[o]]++] = p;
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
  if (boundary) {
    PetscBT mark;

    /* faces of one cell, and their cones' closure */
    PetscCall(PetscBTCreate(pEnd, &mark));
    for (PetscInt f = fStart; f < eStart; f++) {
      PetscInt o;

      if (soff[f + 1] - soff[f] != 1) continue;
      PetscCall(PetscBTSet(mark, f));
      PetscCall(PetscSectionGetOffset(cs, f, &o));
      for (PetscInt k = 0, s = FEGTupleSize(&ft, ffirst[f - fStart]); k < s; k++) {
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
  PetscCall(FEGLabelSetStratumRange(label, 0, numCells, numVertices));
  if (dim == 3) PetscCall(FEGLabelSetStratumRange(label, 1, eStart, nedges));
  PetscCall(FEGLabelSetStratumRange(label, dim - 1, fStart, nfaces));
  PetscCall(FEGLabelSetStratumRange(label, dim, 0, numCells));
  {
    PetscSection cs;
    Vec          X;
    PetscScalar *x;
    PetscInt     bs = dim;

    /* what DMPlexBuildCoordinatesFromCellList() does, without its cost on an interpolated chart (0.9 s for 1M
       hexahedra) */
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
  PetscCall(PetscFree(fv));
  PetscCall(PetscFree(fid));
  PetscCall(PetscFree(ffirst));
  PetscCall(PetscFree(fnum));
  if (dim == 3) {
    PetscCall(PetscFree2(ev, eid));
    PetscCall(PetscFree(efirst));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
