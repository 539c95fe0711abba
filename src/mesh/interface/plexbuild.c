#include <fegpu/private/fegimpl.h>

/* An interpolated DMPlex straight from a cell-vertex list of one cell type, without DMPlexInterpolate()'s hash tables:
   faces (and, in 3D, edges) are found by bucketing vertex tuples by their smallest vertex. The result is the mesh PETSc's
   DMPlexCreateFromCellListPetsc(..., interpolate = PETSC_TRUE, ...) makes, point for point: the same numbering (cells,
   vertices, faces, edges; new points in order of first appearance, grouped by type), cones and orientations. */

/* Distinct vertex sets among n tuples (tuple i: sz[i] <= 4 vertices at v[off[i]], vertices in [0, nv)): id[i] numbers
   the set of tuple i in order of first appearance; first[u] is the first tuple of set u */
static PetscErrorCode FEGUniqueTuples(PetscInt n, PetscInt nv, const PetscInt sz[], const PetscInt off[], const PetscInt v[], PetscInt *nu, PetscInt id[], PetscInt **first)
{
  PetscInt *start, *bucket, *fill;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(nv + 1, &start, nv, &fill));
  PetscCall(PetscMalloc1(n, &bucket));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt m = v[off[i]];

    for (PetscInt k = 1; k < sz[i]; k++) m = PetscMin(m, v[off[i] + k]);
    id[i] = m; /* the key for now */
    start[m + 1]++;
  }
  for (PetscInt m = 0; m < nv; m++) start[m + 1] += start[m];
  for (PetscInt i = 0; i < n; i++) bucket[start[id[i]] + fill[id[i]]++] = i;
  PetscCall(PetscMalloc1(n, first));
  *nu = 0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt  m = id[i], *vi = v + off[i];
    const PetscInt *b     = bucket + start[m];
    PetscInt        found = -1;

    /* the bucket holds tuples in increasing order: the earlier ones already have their set number */
    for (PetscInt j = 0; b[j] != i; j++) {
      const PetscInt *vj = v + off[b[j]];
      PetscInt        k;

      if (sz[b[j]] != sz[i]) continue;
      for (k = 0; k < sz[i]; k++) {
        PetscInt l;

        for (l = 0; l < sz[i]; l++)
          if (vj[l] == vi[k]) break;
        if (l == sz[i]) break;
      }
      if (k == sz[i]) {
        found = id[b[j]];
        break;
      }
    }
    if (found < 0) {
      found           = (*nu)++;
      (*first)[found] = i;
    }
    id[i] = found;
  }
  PetscCall(PetscFree2(start, fill));
  PetscCall(PetscFree(bucket));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static DMPolytopeType FEGFaceType(PetscInt size)
{
  return size == 2 ? DM_POLYTOPE_SEGMENT : (size == 3 ? DM_POLYTOPE_TRIANGLE : DM_POLYTOPE_QUADRILATERAL);
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
- coords      - coords[v*dim+d]

  Output Parameter:
. dm - the mesh, with coordinates

  Level: developer
@*/
PetscErrorCode FEGPlexCreateFromCellList(MPI_Comm comm, const FEGCellInfo *cell, PetscInt numCells, PetscInt numVertices, const PetscInt cells[], const PetscReal coords[], DM *dm)
{
  const PetscInt      dim = cell->dim, nv = cell->nverts, nf = cell->faces.nfaces;
  const FEGCellFaces *cf      = &cell->faces;
  PetscInt            foff[7] = {0}, nraw = numCells * nf, nfaces = 0, nedges = 0, *fsz, *foffs, *fv, *fid, *ffirst, *fnum;
  PetscInt           *esz = NULL, *eoffs = NULL, *ev = NULL, *eid = NULL, *efirst = NULL, typeStart[DM_NUM_POLYTOPES], typeCount[DM_NUM_POLYTOPES];
  PetscInt            fStart, eStart, pEnd, *cones, *ornts;
  PetscSection        cs;

  PetscFunctionBegin;
  for (PetscInt f = 0; f < nf; f++) foff[f + 1] = foff[f] + cf->size[f];
  /* every cell's raw faces */
  PetscCall(PetscMalloc3(nraw, &fsz, nraw, &foffs, (size_t)numCells * foff[nf], &fv));
  PetscCall(PetscMalloc1(nraw, &fid));
  for (PetscInt c = 0; c < numCells; c++)
    for (PetscInt f = 0; f < nf; f++) {
      const PetscInt r = c * nf + f;

      fsz[r]   = cf->size[f];
      foffs[r] = c * foff[nf] + foff[f];
      for (PetscInt k = 0; k < cf->size[f]; k++) fv[foffs[r] + k] = cells[c * nv + cf->vert[foff[f] + k]];
    }
  PetscCall(FEGUniqueTuples(nraw, numVertices, fsz, foffs, fv, &nfaces, fid, &ffirst));
  /* faces numbered contiguously by type, in order of first appearance within a type (as PETSc does) */
  PetscCall(PetscArrayzero(typeCount, DM_NUM_POLYTOPES));
  for (PetscInt u = 0; u < nfaces; u++) typeCount[FEGFaceType(fsz[ffirst[u]])]++;
  fStart       = numCells + numVertices;
  typeStart[0] = fStart;
  for (PetscInt t = 1; t < DM_NUM_POLYTOPES; t++) typeStart[t] = typeStart[t - 1] + typeCount[t - 1];
  PetscCall(PetscMalloc1(nfaces, &fnum));
  for (PetscInt u = 0; u < nfaces; u++) fnum[u] = typeStart[FEGFaceType(fsz[ffirst[u]])]++ - fStart;
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
    for (PetscInt f = 0; f < nfaces; f++) nre += fsz[ffirst[f]];
    PetscCall(PetscMalloc4(nre, &esz, nre, &eoffs, 2 * nre, &ev, nre, &eid));
    nre = 0;
    for (PetscInt f = 0; f < nfaces; f++) {
      const PetscInt s = fsz[ffirst[f]], *fc = fv + foffs[ffirst[f]];

      for (PetscInt k = 0; k < s; k++, nre++) {
        esz[nre]        = 2;
        eoffs[nre]      = 2 * nre;
        ev[2 * nre]     = fc[k];
        ev[2 * nre + 1] = fc[(k + 1) % s];
      }
    }
    PetscCall(FEGUniqueTuples(nre, numVertices, esz, eoffs, ev, &nedges, eid, &efirst));
  }
  pEnd = eStart + nedges;

  PetscCall(DMCreate(comm, dm));
  PetscCall(DMSetType(*dm, DMPLEX));
  PetscCall(DMSetDimension(*dm, dim));
  PetscCall(DMPlexSetChart(*dm, 0, pEnd));
  for (PetscInt c = 0; c < numCells; c++) PetscCall(DMPlexSetConeSize(*dm, c, nf));
  for (PetscInt f = 0; f < nfaces; f++) PetscCall(DMPlexSetConeSize(*dm, fStart + f, dim == 3 ? fsz[ffirst[f]] : 2));
  for (PetscInt e = 0; e < nedges; e++) PetscCall(DMPlexSetConeSize(*dm, eStart + e, 2));
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
      else PetscCall(DMPolytopeGetVertexOrientation(FEGFaceType(fsz[r]), fv + foffs[r0], fv + foffs[r], &ornts[o + f]));
    }
  }
  /* faces: their vertices (2D), or their edges oriented the same way (3D) */
  for (PetscInt f = 0, re = 0; f < nfaces; f++) {
    const PetscInt s = fsz[ffirst[f]], *fc = fv + foffs[ffirst[f]];
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
        else PetscCall(DMPolytopeGetVertexOrientation(DM_POLYTOPE_SEGMENT, ev + eoffs[r0], ev + eoffs[re], &ornts[o + k]));
        re++;
      }
    }
  }
  for (PetscInt e = 0; e < nedges; e++) {
    PetscInt o;

    PetscCall(PetscSectionGetOffset(cs, eStart + e, &o));
    cones[o]     = numCells + ev[eoffs[efirst[e]]];
    cones[o + 1] = numCells + ev[eoffs[efirst[e]] + 1];
    ornts[o] = ornts[o + 1] = 0;
  }
  /* the cell types before stratifying, so that PETSc does not compute them */
  PetscCall(DMCreateLabel(*dm, "celltype"));
  for (PetscInt c = 0; c < numCells; c++) PetscCall(DMPlexSetCellType(*dm, c, cell->ct));
  for (PetscInt v = 0; v < numVertices; v++) PetscCall(DMPlexSetCellType(*dm, numCells + v, DM_POLYTOPE_POINT));
  for (PetscInt f = 0; f < nfaces; f++) PetscCall(DMPlexSetCellType(*dm, fStart + f, FEGFaceType(dim == 3 ? fsz[ffirst[f]] : 2)));
  for (PetscInt e = 0; e < nedges; e++) PetscCall(DMPlexSetCellType(*dm, eStart + e, DM_POLYTOPE_SEGMENT));
  PetscCall(DMPlexSymmetrize(*dm));
  PetscCall(DMPlexStratify(*dm));
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
  PetscCall(PetscFree3(fsz, foffs, fv));
  PetscCall(PetscFree(fid));
  PetscCall(PetscFree(ffirst));
  PetscCall(PetscFree(fnum));
  if (dim == 3) {
    PetscCall(PetscFree4(esz, eoffs, ev, eid));
    PetscCall(PetscFree(efirst));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
