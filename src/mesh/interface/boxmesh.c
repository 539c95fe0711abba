#include <fegpu/private/fegmeshimpl.h>

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

/* The cell-vertex list of the box: cell->boxCells cells in each of the n[0] x n[1] (x n[2]) squares (cubes) */
static PetscErrorCode FEGBoxCells(MPI_Comm comm, const FEGCellInfo *cell, const PetscInt n[], PetscInt *numCells, PetscInt **cells)
{
  const PetscInt   nx = n[0], ny = n[1], nz = cell->dim == 3 ? n[2] : 1, per = cell->boxCells * cell->nverts;
  const PetscInt64 nc = (PetscInt64)nx * ny * nz * cell->boxCells;
  PetscInt        *cl;

  PetscFunctionBegin;
  PetscCheck(nc * cell->nverts <= PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "A box of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " has %" PetscInt64_FMT " %s, whose %" PetscInt64_FMT " vertex numbers exceed the %d a 32-bit PetscInt can index; use fewer faces or a PETSc configured --with-64-bit-indices", nx, ny, nz, nc,
             cell->plural, nc * cell->nverts, PETSC_MAX_INT);
  *numCells = (PetscInt)nc;
  PetscCall(PetscMalloc1((size_t)nc * cell->nverts, &cl));
  for (PetscInt k = 0; k < nz; k++)
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        PetscInt corner[8];

        for (PetscInt b = 0; b < 8; b++) corner[b] = (i + (b & 1)) + (nx + 1) * ((j + ((b >> 1) & 1)) + (ny + 1) * (k + ((b >> 2) & 1)));
        (*cell->boxSplit)(corner, &cl[((size_t)(k * ny + j) * nx + i) * per]);
      }
  *cells = cl;
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

  Level: beginner
@*/
PetscErrorCode FEGCreateBoxMesh(MPI_Comm comm, DMPolytopeType ct, const PetscInt faces[], const PetscReal lower[], const PetscReal upper[], PetscReal perturb, DM *dm)
{
  PetscMPIInt        rank, size;
  PetscInt           dim, numCells = 0, numVertices = 0, n[3] = {1, 1, 1}, *cells = NULL;
  PetscReal         *coords = NULL, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const FEGCellInfo *cell;

  PetscFunctionBegin;
  FEGAssertPointer(dm, 7);
  PetscCall(FEGInitializePackage());
  PetscCall(FEGCellInfoGet(comm, ct, &cell));
  dim = cell->dim;
  for (PetscInt d = 0; d < dim; d++) {
    n[d] = faces ? faces[d] : 2;
    PetscCheck(n[d] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "Number of faces %" PetscInt_FMT " in direction %" PetscInt_FMT " must be at least 1", n[d], d);
    if (lower) lo[d] = lower[d];
    if (upper) hi[d] = upper[d];
    PetscCheck(hi[d] > lo[d], comm, PETSC_ERR_ARG_OUTOFRANGE, "Upper bound %g must exceed lower bound %g in direction %" PetscInt_FMT, (double)hi[d], (double)lo[d], d);
  }
  PetscCheck(perturb >= 0.0 && perturb < 0.5, comm, PETSC_ERR_ARG_OUTOFRANGE, "Perturbation %g must be in [0, 0.5) so no cell inverts", (double)perturb);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscLogEventBegin(FEG_BoxMesh, 0, 0, 0, 0));
  if (rank == 0) {
    const PetscInt nz = dim == 3 ? n[2] : 0;

    PetscCall(FEGBoxCells(comm, cell, n, &numCells, &cells));
    numVertices = (n[0] + 1) * (n[1] + 1) * (nz + 1);
    PetscCall(PetscMalloc1(numVertices * dim, &coords));
    for (PetscInt k = 0; k <= nz; k++) {
      for (PetscInt j = 0; j <= n[1]; j++) {
        for (PetscInt i = 0; i <= n[0]; i++) {
          const PetscInt v = i + (n[0] + 1) * (j + (n[1] + 1) * k), ijk[3] = {i, j, k};

          for (PetscInt d = 0; d < dim; d++) {
            const PetscBool interior = (PetscBool)(ijk[d] > 0 && ijk[d] < n[d]);
            const PetscReal h        = (hi[d] - lo[d]) / n[d];

            coords[v * dim + d] = lo[d] + ijk[d] * h + (interior ? perturb * h * FEGHashUnit(v, d) : 0.0);
          }
        }
      }
    }
  }
  /* interpolated directly (PETSc's DMPlexInterpolate() took 10 s for 1M hexahedra) */
  PetscCall(FEGPlexCreateFromCellList(comm, cell, numCells, numVertices, cells, coords, "marker", dm));
  PetscCall(PetscFree(cells));
  PetscCall(PetscFree(coords));
  PetscCall(PetscLogEventEnd(FEG_BoxMesh, 0, 0, 0, 0));
  PetscCall(FEGMeshDistribute_Private(dm, NULL, PETSC_TRUE));
  PetscCall(PetscObjectSetName((PetscObject)*dm, "Mesh"));
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
+ -feg_mesh_file <file>                  - read this mesh file instead of building a box
. -feg_mesh_cell_type <tri,quad,tet,hex,prism> - the box's cells (`FEGCreateBoxMesh()`)
. -feg_mesh_faces <n,n,n>                - the box's subdivisions
. -feg_mesh_lower <x,y,z>                - the box's lower corner
. -feg_mesh_upper <x,y,z>                - the box's upper corner
. -feg_mesh_perturb <r>                  - vertex perturbation, fraction of the spacing
. -feg_mesh_coordinate_order <k>         - coordinates of order k (`FEGMeshSetCoordinateOrder()`), after refinement
. -feg_mesh_kershaw <eps>                - Kershaw's deformation of the box (`FEGMeshKershaw()`), after refinement
. -feg_mesh_reorder <none,metis,sfc>     - renumber each process's cells for locality (`FEGMeshReorder()`; on several
                                           processes the cells that touch a ghost point go last in any case)
. -feg_mesh_reorder_part_size <n>        - cells per METIS part for -feg_mesh_reorder metis (`FEGMeshSetReorderPartSize()`)
. -feg_mesh_fast_refine <bool>           - -dm_refine on one process by `FEGMeshRefine()` (default true)
- -feg_cell_type, -feg_faces, -feg_lower, -feg_upper, -feg_perturb, -feg_reorder, -feg_reorder_part_size, -feg_fast_refine - deprecated names of the above

  Note:
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
  PetscCall(PetscOptionsBool("-feg_mesh_fast_refine", "-dm_refine on one process by FEGMeshRefine() (false: PETSc's DMRefine())", "FEGMeshRefine", fast, &fast, NULL));
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
    PetscCall(FEGMeshDistribute_Private(dm, prefix, (PetscBool)(reorder == FEG_REORDER_NONE)));
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
  /* -dm_refine on one process by fegpu (FEGMeshRefine()), the rest by DMSetFromOptions() */
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
