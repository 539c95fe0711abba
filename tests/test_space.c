/* fegtest: nsize 1 2
   Spaces, quadrature and meshes: the prism counts of Table 1 of Kruzel et al., exactness of the quadrature for
   products of shape functions, and box meshes that fill the box with positively oriented cells */
#include "fegtest.h"
#include <fegpu/private/fegimpl.h>

START_TEST(test_prism_table1)
{
  const PetscInt  NS[7] = {6, 18, 40, 75, 126, 196, 288}, NQ[7] = {6, 18, 48, 80, 150, 231, 336};
  const PetscInt  p = _i + 1;
  PetscFE         fe;
  PetscQuadrature q;
  PetscInt        Nb, Nq;

  TCHK(FEGCreateFE(PETSC_COMM_SELF, 3, DM_POLYTOPE_TRI_PRISM, p, PETSC_FALSE, &fe));
  TCHK(PetscFEGetDimension(fe, &Nb));
  TCHK(PetscFEGetQuadrature(fe, &q));
  TCHK(PetscQuadratureGetData(q, NULL, NULL, &Nq, NULL, NULL));
  ck_assert_msg(Nb == NS[_i] && Nq == NQ[_i], "prism p=%d: N_S=%d N_Q=%d, Table 1 has %d and %d", (int)p, (int)Nb, (int)Nq, (int)NS[_i], (int)NQ[_i]);
  TCHK(PetscFEDestroy(&fe));
}
END_TEST

/* The quadrature integrates x^a y^b z^c with a+b+c <= 2p exactly on the reference cell (tensor cells: each exponent <= 2p) */
START_TEST(test_quadrature_exact)
{
  const DMPolytopeType ct = fegtest_cells[_i / 4];
  const PetscInt       p = 1 + 2 * (_i % 4), dim = fegtest_dim(ct);
  PetscQuadrature      q;
  const PetscReal     *x, *w;
  PetscInt             Nq;
  PetscReal            maxerr = 0.0;

  TCHK(FEGCreateQuadrature(dim, ct, p, &q));
  TCHK(PetscQuadratureGetData(q, NULL, NULL, &Nq, &x, &w));
  for (PetscInt a = 0; a <= 2 * p; a++) {
    for (PetscInt b = 0; b <= 2 * p; b++) {
      for (PetscInt c = 0; c <= (dim == 3 ? 2 * p : 0); c++) {
        PetscReal exact = 0.0, sum = 0.0;
        PetscBool simplexlike = (PetscBool)(ct == DM_POLYTOPE_TRIANGLE || ct == DM_POLYTOPE_TETRAHEDRON);

        if (simplexlike && a + b + c > 2 * p) continue;
        if (ct == DM_POLYTOPE_TRI_PRISM && a + b > 2 * p) continue;
        /* reference integrals in the variables s = (x+1)/2 on [0,1]: simplex int s^a t^b u^c = a! b! c! / (a+b+c+dim)! */
        if (simplexlike) {
          exact = PetscExpReal(PetscLGamma(a + 1) + PetscLGamma(b + 1) + PetscLGamma(c + 1) - PetscLGamma(a + b + c + dim + 1));
        } else if (ct == DM_POLYTOPE_TRI_PRISM) {
          exact = PetscExpReal(PetscLGamma(a + 1) + PetscLGamma(b + 1) - PetscLGamma(a + b + 3)) / (c + 1);
        } else {
          exact = 1.0 / ((a + 1) * (b + 1) * (dim == 3 ? (c + 1) : 1));
        }
        for (PetscInt i = 0; i < Nq; i++) {
          const PetscReal s = 0.5 * (x[i * dim] + 1), t = 0.5 * (x[i * dim + 1] + 1), u = dim == 3 ? 0.5 * (x[i * dim + 2] + 1) : 1.0;

          sum += w[i] * PetscPowReal(s, a) * PetscPowReal(t, b) * PetscPowReal(u, c);
        }
        sum /= PetscPowReal(2.0, dim);
        maxerr = PetscMax(maxerr, PetscAbsReal(sum - exact) / exact);
      }
    }
  }
  ck_assert_msg(maxerr < 1e-12, "%s p=%d: quadrature not exact for degree 2p, relative error %g", DMPolytopeTypes[ct], (int)p, (double)maxerr);
  TCHK(PetscQuadratureDestroy(&q));
}
END_TEST

/* Each box mesh fills [0,2]x[0,1]x[0,3] with positively oriented cells, serial or distributed */
START_TEST(test_box_volume)
{
  const DMPolytopeType ct       = fegtest_cells[_i];
  const PetscInt       faces[3] = {3, 2, 2};
  const PetscReal      lo[3] = {0, 0, 0}, hi[3] = {2, 1, 3};
  DM                   dm;
  PetscInt             cStart, cEnd, dim = fegtest_dim(ct);
  PetscReal            vol = 0.0, gvol, vmin = PETSC_MAX_REAL, gmin;

  TCHK(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, lo, hi, 0.3, &dm));
  TCHK(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  {
    PetscQuadrature  q;
    const PetscReal *w;
    PetscInt         Nq;
    PetscReal       *v0, *J, *invJ, *detJ;

    /* the integral of det J: exact for the multilinear maps of perturbed hexahedra and prisms (FVM volumes are not) */
    TCHK(FEGCreateQuadrature(dim, ct, 2, &q));
    TCHK(PetscQuadratureGetData(q, NULL, NULL, &Nq, NULL, &w));
    TCHK(PetscMalloc4(Nq * dim, &v0, Nq * dim * dim, &J, Nq * dim * dim, &invJ, Nq, &detJ));
    for (PetscInt c = cStart; c < cEnd; c++) {
      PetscReal v = 0.0;

      TCHK(DMPlexComputeCellGeometryFEM(dm, c, q, v0, J, invJ, detJ));
      for (PetscInt i = 0; i < Nq; i++) {
        v += w[i] * detJ[ct == DM_POLYTOPE_TRIANGLE || ct == DM_POLYTOPE_TETRAHEDRON ? 0 : i];
        vmin = PetscMin(vmin, detJ[ct == DM_POLYTOPE_TRIANGLE || ct == DM_POLYTOPE_TETRAHEDRON ? 0 : i]);
      }
      vol += v;
    }
    TCHK(PetscFree4(v0, J, invJ, detJ));
    TCHK(PetscQuadratureDestroy(&q));
  }
  (void)MPI_Allreduce(&vol, &gvol, 1, MPIU_REAL, MPI_SUM, PETSC_COMM_WORLD);
  (void)MPI_Allreduce(&vmin, &gmin, 1, MPIU_REAL, MPI_MIN, PETSC_COMM_WORLD);
  ck_assert_msg(PetscAbsReal(gvol - (dim == 2 ? 2.0 : 6.0)) < 1e-12, "%s: mesh volume %g", DMPolytopeTypes[ct], (double)gvol);
  ck_assert_msg(gmin > 0, "%s: a cell has volume %g", DMPolytopeTypes[ct], (double)gmin);
  TCHK(DMDestroy(&dm));
}
END_TEST

/* A mesh's cell-vertex list and vertex coordinates (through DMPlexUninterpolate()) */
static PetscErrorCode cell_list(DM dm, DMPolytopeType *ct, PetscInt *nc, PetscInt *nvx, PetscInt *nper, PetscInt **cells, PetscReal **coords)
{
  DM                 udm;
  PetscInt           cStart, cEnd, vStart, vEnd, dim;
  Vec                X;
  const PetscScalar *x;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexUninterpolate(dm, &udm));
  PetscCall(DMPlexGetHeightStratum(udm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(udm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetCellType(dm, cStart, ct));
  PetscCall(DMPlexGetConeSize(udm, cStart, nper));
  *nc  = cEnd - cStart;
  *nvx = vEnd - vStart;
  PetscCall(PetscMalloc2(*nc * *nper, cells, *nvx * dim, coords));
  for (PetscInt c = cStart; c < cEnd; c++) {
    const PetscInt *cone;

    PetscCall(DMPlexGetCone(udm, c, &cone));
    for (PetscInt k = 0; k < *nper; k++) (*cells)[(c - cStart) * *nper + k] = cone[k] - vStart;
  }
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt k = 0; k < *nvx * dim; k++) (*coords)[k] = PetscRealPart(x[k]);
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(DMDestroy(&udm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A deterministic shuffle of a cell list, so that faces and edges appear in another order and cells' closures meet many
   orientations */
static PetscErrorCode shuffle_cells(PetscInt nc, PetscInt nper, PetscInt cells[])
{
  PetscRandom r;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  for (PetscInt c = nc - 1; c > 0; c--) {
    PetscReal u;
    PetscInt  j;

    PetscCall(PetscRandomGetValueReal(r, &u));
    j = (PetscInt)(u * (c + 1)) % (c + 1);
    for (PetscInt k = 0; k < nper; k++) {
      const PetscInt t = cells[c * nper + k];

      cells[c * nper + k] = cells[j * nper + k];
      cells[j * nper + k] = t;
    }
  }
  PetscCall(PetscRandomDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Two meshes identical point for point: chart, cones, orientations, cell types, vertex coordinates */
static PetscErrorCode same_plex(DM a, DM b)
{
  PetscInt  pStart, pEnd, qStart, qEnd, na, nb;
  Vec       xa, xb;
  PetscReal diff;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(a, &pStart, &pEnd));
  PetscCall(DMPlexGetChart(b, &qStart, &qEnd));
  PetscCheck(pStart == qStart && pEnd == qEnd, PETSC_COMM_SELF, PETSC_ERR_PLIB, "charts [%d, %d) and [%d, %d)", (int)pStart, (int)pEnd, (int)qStart, (int)qEnd);
  for (PetscInt p = pStart; p < pEnd; p++) {
    const PetscInt *ca, *cb, *oa, *ob;
    DMPolytopeType  ta, tb;

    PetscCall(DMPlexGetConeSize(a, p, &na));
    PetscCall(DMPlexGetConeSize(b, p, &nb));
    PetscCall(DMPlexGetCellType(a, p, &ta));
    PetscCall(DMPlexGetCellType(b, p, &tb));
    PetscCheck(na == nb && ta == tb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "point %d: cone sizes %d and %d, types %s and %s", (int)p, (int)na, (int)nb, DMPolytopeTypes[ta], DMPolytopeTypes[tb]);
    PetscCall(DMPlexGetCone(a, p, &ca));
    PetscCall(DMPlexGetCone(b, p, &cb));
    PetscCall(DMPlexGetConeOrientation(a, p, &oa));
    PetscCall(DMPlexGetConeOrientation(b, p, &ob));
    for (PetscInt k = 0; k < na; k++)
      PetscCheck(ca[k] == cb[k] && oa[k] == ob[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "point %d cone entry %d: %d (orientation %d) and %d (orientation %d)", (int)p, (int)k, (int)ca[k], (int)oa[k], (int)cb[k], (int)ob[k]);
    /* supports and depth are written directly, not by DMPlexSymmetrize() and DMPlexStratify() */
    PetscCall(DMPlexGetSupportSize(a, p, &na));
    PetscCall(DMPlexGetSupportSize(b, p, &nb));
    PetscCheck(na == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "point %d: support sizes %d and %d", (int)p, (int)na, (int)nb);
    PetscCall(DMPlexGetSupport(a, p, &ca));
    PetscCall(DMPlexGetSupport(b, p, &cb));
    for (PetscInt k = 0; k < na; k++) PetscCheck(ca[k] == cb[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "point %d support entry %d: %d and %d", (int)p, (int)k, (int)ca[k], (int)cb[k]);
    PetscCall(DMPlexGetPointDepth(a, p, &na));
    PetscCall(DMPlexGetPointDepth(b, p, &nb));
    PetscCheck(na == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "point %d: depths %d and %d", (int)p, (int)na, (int)nb);
  }
  PetscCall(DMPlexGetDepth(a, &na));
  PetscCall(DMPlexGetDepth(b, &nb));
  PetscCheck(na == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "depths %d and %d", (int)na, (int)nb);
  PetscCall(DMGetCoordinatesLocal(a, &xa));
  PetscCall(DMGetCoordinatesLocal(b, &xb));
  PetscCall(VecGetSize(xa, &na));
  PetscCall(VecGetSize(xb, &nb));
  PetscCheck(na == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d and %d coordinates", (int)na, (int)nb);
  PetscCall(VecAXPY(xb, -1.0, xa));
  PetscCall(VecNorm(xb, NORM_INFINITY, &diff));
  PetscCall(VecAXPY(xb, 1.0, xa));
  PetscCheck(diff == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "coordinates differ by %g", (double)diff);
  PetscCall(DMPlexCheckFaces(a, 0));
  PetscCall(DMPlexCheckSymmetry(a));
  PetscCall(DMPlexCheckSkeleton(a, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same points in label "marker" of a and b, all with value 1 */
static PetscErrorCode same_marker(DM a, DM b)
{
  DMLabel   la, lb;
  IS        ia, ib;
  PetscInt  na, nb;
  PetscBool eq;

  PetscFunctionBegin;
  PetscCall(DMGetLabel(a, "marker", &la));
  PetscCall(DMGetLabel(b, "marker", &lb));
  PetscCall(DMLabelGetNumValues(la, &na));
  PetscCall(DMLabelGetNumValues(lb, &nb));
  PetscCheck(na == 1 && nb == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "marker labels with %d and %d values", (int)na, (int)nb);
  PetscCall(DMLabelGetStratumIS(la, 1, &ia));
  PetscCall(DMLabelGetStratumIS(lb, 1, &ib));
  PetscCall(ISEqual(ia, ib, &eq));
  PetscCall(ISGetLocalSize(ia, &na));
  PetscCall(ISGetLocalSize(ib, &nb));
  PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "marker labels differ (%d and %d points)", (int)na, (int)nb);
  PetscCall(ISDestroy(&ia));
  PetscCall(ISDestroy(&ib));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegpu's direct interpolation of a cell list equals PETSc's DMPlexCreateFromCellListPetsc() with DMPlexInterpolate()
   (cones, orientations, supports, depth, cell types; the boundary label equals DMPlexMarkBoundaryFaces() +
   DMPlexLabelComplete()): the box meshes of every type (cells shuffled, so faces and edges appear in another order) and unstructured Gmsh meshes */
START_TEST(test_cell_list_interpolation)
{
  const char        *files[2] = {"square_944.msh", "shell_tet2.msh"};
  DM                 dm, mine, petsc;
  DMPolytopeType     ct;
  PetscInt           nc = 0, nvx = 0, nper = 0, *cells, dim;
  PetscReal         *coords;
  const FEGCellInfo *info;

  if (_i >= 7) {
    /* boxes large enough for the face and edge search's threads (65536 raw faces), with 3 of them; too slow for the
       valgrind run, which skips them */
    const DMPolytopeType big[2] = {DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON};
    const PetscInt       n = _i == 7 ? 15 : 24, faces[3] = {n, n, n};

    if (getenv("FEGTEST_VALGRIND")) return;
    TCHK(PetscOptionsSetValue(NULL, "-feg_setup_threads", "3"));
    TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, big[_i - 7], faces, NULL, NULL, 0.3, &dm));
  } else if (_i < 5) {
    const PetscInt faces[3] = {4, 3, 3};

    TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, fegtest_cells[_i], faces, NULL, NULL, 0.3, &dm));
  } else {
    char path[PETSC_MAX_PATH_LEN];

    TCHK(PetscSNPrintf(path, sizeof(path), "../share/meshes/%s", files[_i - 5]));
    TCHK(DMPlexCreateGmshFromFile(PETSC_COMM_SELF, path, PETSC_TRUE, &dm));
  }
  TCHK(DMGetDimension(dm, &dim));
  TCHK(cell_list(dm, &ct, &nc, &nvx, &nper, &cells, &coords));
  if (_i < 5 || _i >= 7) TCHK(shuffle_cells(nc, nper, cells));
  TCHK(FEGCellInfoGet(PETSC_COMM_SELF, ct, &info));
  TCHK(FEGPlexCreateFromCellList(PETSC_COMM_SELF, info, nc, nvx, cells, coords, "marker", &mine));
  if (info->listedAs != ct) {
    DM udm;

    /* PETSc's reader takes 6-vertex cells for tensor prisms: set the type before interpolating */
    TCHK(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, dim, nc, nvx, nper, PETSC_FALSE, cells, dim, coords, &udm));
    for (PetscInt c = 0; c < nc; c++) {
      DMLabel ctl;

      TCHK(DMPlexGetCellTypeLabel(udm, &ctl));
      TCHK(DMLabelClearValue(ctl, c, info->listedAs));
      TCHK(DMPlexSetCellType(udm, c, ct));
    }
    TCHK(DMPlexInterpolate(udm, &petsc));
    TCHK(DMPlexCopyCoordinates(udm, petsc));
    TCHK(DMDestroy(&udm));
  } else TCHK(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, dim, nc, nvx, nper, PETSC_TRUE, cells, dim, coords, &petsc));
  TCHK(same_plex(mine, petsc));
  {
    DMLabel label;

    /* the boundary marked directly, against PETSc's own marking of the same faces */
    TCHK(DMCreateLabel(petsc, "marker"));
    TCHK(DMGetLabel(petsc, "marker", &label));
    TCHK(DMPlexMarkBoundaryFaces(petsc, 1, label));
    TCHK(DMPlexLabelComplete(petsc, label));
    TCHK(same_marker(mine, petsc));
  }
  TCHK(PetscFree2(cells, coords));
  TCHK(DMDestroy(&mine));
  TCHK(DMDestroy(&petsc));
  TCHK(DMDestroy(&dm));
  TCHK(PetscOptionsClearValue(NULL, "-feg_setup_threads"));
}
END_TEST

/* A point as the sorted vertices of its closure (vertices numbered through vmap) and its depth, and a cell's vertices in
   closure order */
typedef struct {
  PetscInt depth, n, v[8], ord[8];
} RefPoint;

static int refpoint_cmp(const void *a, const void *b)
{
  const RefPoint *x = (const RefPoint *)a, *y = (const RefPoint *)b;

  if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
  if (x->n != y->n) return x->n < y->n ? -1 : 1;
  for (PetscInt i = 0; i < x->n; i++)
    if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
  return 0;
}

static PetscErrorCode ref_point(DM dm, PetscInt p, const PetscInt vmap[], RefPoint *r)
{
  PetscInt *cl = NULL, n, vStart, vEnd;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetPointDepth(dm, p, &r->depth));
  r->n = 0;
  PetscCall(DMPlexGetTransitiveClosure(dm, p, PETSC_TRUE, &n, &cl));
  for (PetscInt i = 0; i < n; i++)
    if (cl[2 * i] >= vStart && cl[2 * i] < vEnd) {
      PetscCheck(r->n < 8, PETSC_COMM_SELF, PETSC_ERR_PLIB, "point %d has more than 8 vertices", (int)p);
      r->ord[r->n] = r->v[r->n] = vmap ? vmap[cl[2 * i] - vStart] : cl[2 * i] - vStart;
      r->n++;
    }
  PetscCall(DMPlexRestoreTransitiveClosure(dm, p, PETSC_TRUE, &n, &cl));
  PetscCall(PetscSortInt(r->n, r->v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vertices compared by their coordinates (rounded to 1e-9), for PetscTimSort() */
typedef struct {
  const PetscReal *x;
  PetscInt         dim;
} vsort_ctx;

static int vsort_cmp(const void *a, const void *b, void *ctx)
{
  const vsort_ctx *v = (const vsort_ctx *)ctx;
  const PetscInt   i = *(const PetscInt *)a, j = *(const PetscInt *)b;

  for (PetscInt d = 0; d < v->dim; d++) {
    const PetscReal s = PetscFloorReal(v->x[i * v->dim + d] * 1e9 + 0.5), t = PetscFloorReal(v->x[j * v->dim + d] * 1e9 + 0.5);

    if (s != t) return s < t ? -1 : 1;
  }
  return 0;
}

/* the vertices of dm in coordinate order */
static PetscErrorCode vertex_order(DM dm, PetscInt *nv, PetscInt **order, PetscReal **x)
{
  PetscInt           vStart, vEnd, dim;
  Vec                X;
  const PetscScalar *a;
  PetscSection       cs;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  *nv = vEnd - vStart;
  PetscCall(PetscMalloc2(*nv, order, *nv * dim, x));
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(VecGetArrayRead(X, &a));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt o;

    PetscCall(PetscSectionGetOffset(cs, v, &o));
    for (PetscInt d = 0; d < dim; d++) (*x)[(v - vStart) * dim + d] = PetscRealPart(a[o + d]);
    (*order)[v - vStart] = v - vStart;
  }
  PetscCall(VecRestoreArrayRead(X, &a));
  {
    vsort_ctx ctx = {*x, dim};

    PetscCall(PetscTimSort(*nv, *order, sizeof(PetscInt), vsort_cmp, &ctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegpu's refinement of a mesh is PETSc's (DMRefine()) up to point numbers: the same vertices (coordinates to 1e-12),
   cells with the same vertices in the same closure order, the same faces and edges, every label's strata the same
   points */
static PetscErrorCode same_refined(DM mine, DM petsc)
{
  PetscInt   nm, np, *om, *op, *vmap, dim, pStart, pEnd, qStart, qEnd, nl;
  PetscReal *xm, *xp;
  RefPoint  *rm, *rp;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(mine, &dim));
  PetscCall(vertex_order(mine, &nm, &om, &xm));
  PetscCall(vertex_order(petsc, &np, &op, &xp));
  PetscCheck(nm == np, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d and %d vertices", (int)nm, (int)np);
  PetscCall(PetscMalloc1(nm, &vmap));
  for (PetscInt i = 0; i < nm; i++) {
    for (PetscInt d = 0; d < dim; d++)
      PetscCheck(PetscAbsReal(xm[om[i] * dim + d] - xp[op[i] * dim + d]) < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "vertex %d: coordinate %d is %g here and %g in PETSc's", (int)om[i], (int)d, (double)xm[om[i] * dim + d], (double)xp[op[i] * dim + d]);
    vmap[om[i]] = op[i];
  }
  PetscCall(DMPlexGetChart(mine, &pStart, &pEnd));
  PetscCall(DMPlexGetChart(petsc, &qStart, &qEnd));
  PetscCheck(pEnd - pStart == qEnd - qStart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "charts of %d and %d points", (int)(pEnd - pStart), (int)(qEnd - qStart));
  PetscCall(PetscMalloc2(pEnd - pStart, &rm, qEnd - qStart, &rp));
  for (PetscInt p = pStart; p < pEnd; p++) PetscCall(ref_point(mine, p, vmap, &rm[p - pStart]));
  for (PetscInt p = qStart; p < qEnd; p++) PetscCall(ref_point(petsc, p, NULL, &rp[p - qStart]));
  qsort(rm, (size_t)(pEnd - pStart), sizeof(RefPoint), refpoint_cmp);
  qsort(rp, (size_t)(qEnd - qStart), sizeof(RefPoint), refpoint_cmp);
  for (PetscInt i = 0; i < pEnd - pStart; i++) {
    PetscCheck(!refpoint_cmp(&rm[i], &rp[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a point of depth %d with %d vertices here, of depth %d with %d vertices in PETSc's", (int)rm[i].depth, (int)rm[i].n, (int)rp[i].depth, (int)rp[i].n);
    if (rm[i].depth == dim)
      for (PetscInt k = 0; k < rm[i].n; k++) PetscCheck(rm[i].ord[k] == rp[i].ord[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "a cell's vertex %d is %d here and %d in PETSc's (vertex order)", (int)k, (int)rm[i].ord[k], (int)rp[i].ord[k]);
  }
  PetscCall(DMGetNumLabels(petsc, &nl));
  for (PetscInt l = 0; l < nl; l++) {
    const char     *name;
    DMLabel         lm, lp;
    IS              vis;
    const PetscInt *vals;
    PetscInt        nv;

    PetscCall(DMGetLabelName(petsc, l, &name));
    PetscCall(DMGetLabel(mine, name, &lm));
    PetscCall(DMGetLabel(petsc, name, &lp));
    PetscCheck(lm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no label %s", name);
    PetscCall(DMLabelGetValueIS(lp, &vis));
    PetscCall(ISGetLocalSize(vis, &nv));
    PetscCall(ISGetIndices(vis, &vals));
    for (PetscInt v = 0; v < nv; v++) {
      IS              im, ip;
      PetscInt        a, b;
      const PetscInt *pa, *pb;

      PetscCall(DMLabelGetStratumIS(lm, vals[v], &im));
      PetscCall(DMLabelGetStratumIS(lp, vals[v], &ip));
      PetscCall(DMLabelGetStratumSize(lm, vals[v], &a));
      PetscCall(DMLabelGetStratumSize(lp, vals[v], &b));
      PetscCheck(a == b, PETSC_COMM_SELF, PETSC_ERR_PLIB, "label %s value %d: %d points here and %d in PETSc's", name, (int)vals[v], (int)a, (int)b);
      if (a) {
        PetscCall(ISGetIndices(im, &pa));
        PetscCall(ISGetIndices(ip, &pb));
        for (PetscInt i = 0; i < a; i++) PetscCall(ref_point(mine, pa[i], vmap, &rm[i]));
        for (PetscInt i = 0; i < b; i++) PetscCall(ref_point(petsc, pb[i], NULL, &rp[i]));
        PetscCall(ISRestoreIndices(im, &pa));
        PetscCall(ISRestoreIndices(ip, &pb));
        qsort(rm, (size_t)a, sizeof(RefPoint), refpoint_cmp);
        qsort(rp, (size_t)b, sizeof(RefPoint), refpoint_cmp);
        for (PetscInt i = 0; i < a; i++) PetscCheck(!refpoint_cmp(&rm[i], &rp[i]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "label %s value %d: another point of depth %d", name, (int)vals[v], (int)rm[i].depth);
      }
      PetscCall(ISDestroy(&im));
      PetscCall(ISDestroy(&ip));
    }
    PetscCall(ISRestoreIndices(vis, &vals));
    PetscCall(ISDestroy(&vis));
  }
  PetscCall(DMPlexCheckFaces(mine, 0));
  PetscCall(DMPlexCheckSymmetry(mine));
  PetscCall(DMPlexCheckSkeleton(mine, 0));
  PetscCall(PetscFree2(rm, rp));
  PetscCall(PetscFree(vmap));
  PetscCall(PetscFree2(om, xm));
  PetscCall(PetscFree2(op, xp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGMeshRefine() against PETSc's DMRefine(), twice in a row: perturbed boxes of every cell type, shuffled (their
   closures meet many orientations), a Gmsh triangle mesh and a Gmsh tetrahedral mesh read with straight cells, with
   their Gmsh labels and fegpu's "marker"; then -dm_refine through FEGCreateMeshFromOptions() */
START_TEST(test_refine)
{
  DM          dm, mine[2], petsc[2];
  const char *files[2] = {"square_944.msh", "box_tet2.msh"};

  if (_i < 5) {
    const PetscInt     faces[3] = {3, 2, 2};
    DM                 base;
    PetscInt           nc, nvx, nper, *cells, dim;
    PetscReal         *coords;
    DMPolytopeType     ct;
    const FEGCellInfo *info;

    TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, fegtest_cells[_i], faces, NULL, NULL, 0.3, &base));
    TCHK(DMGetDimension(base, &dim));
    TCHK(cell_list(base, &ct, &nc, &nvx, &nper, &cells, &coords));
    TCHK(shuffle_cells(nc, nper, cells));
    TCHK(FEGCellInfoGet(PETSC_COMM_SELF, ct, &info));
    TCHK(FEGPlexCreateFromCellList(PETSC_COMM_SELF, info, nc, nvx, cells, coords, "marker", &dm));
    {
      DMLabel label;

      /* a label of several values on cells, faces and vertices; and one with every cell (a Gmsh "Cell Sets"), whose
         refined stratum fegpu orders by a pass over the fine points rather than a sort */
      TCHK(DMCreateLabel(dm, "sets"));
      TCHK(DMGetLabel(dm, "sets", &label));
      for (PetscInt c = 0; c < nc; c += 3) TCHK(DMLabelSetValue(label, c, 1 + c % 2));
      TCHK(DMLabelSetValue(label, nc, 7));
      TCHK(DMLabelSetValue(label, nc + nvx, 5));
      TCHK(DMCreateLabel(dm, "all"));
      TCHK(DMGetLabel(dm, "all", &label));
      for (PetscInt c = 0; c < nc; c++) TCHK(DMLabelSetValue(label, c, 3));
    }
    TCHK(PetscFree2(cells, coords));
    TCHK(DMDestroy(&base));
  } else {
    char path[PETSC_MAX_PATH_LEN];

    TCHK(PetscSNPrintf(path, sizeof(path), "../share/meshes/%s", files[_i - 5]));
    TCHK(PetscOptionsSetValue(NULL, "-dm_plex_gmsh_highorder", "false"));
    TCHK(DMPlexCreateGmshFromFile(PETSC_COMM_SELF, path, PETSC_TRUE, &dm));
    TCHK(PetscOptionsClearValue(NULL, "-dm_plex_gmsh_highorder"));
  }
  TCHK(FEGMeshRefine(dm, &mine[0]));
  TCHK(DMRefine(dm, PETSC_COMM_SELF, &petsc[0]));
  TCHK(same_refined(mine[0], petsc[0]));
  mine[1] = petsc[1] = NULL;
  /* the second level (its coarse mesh made by fegpu) is too slow for the Gmsh meshes under valgrind */
  if (_i < 5 || !getenv("FEGTEST_VALGRIND")) {
    TCHK(FEGMeshRefine(mine[0], &mine[1]));
    TCHK(DMRefine(petsc[0], PETSC_COMM_SELF, &petsc[1]));
    TCHK(same_refined(mine[1], petsc[1]));
  }
  for (PetscInt k = 0; k < 2; k++) {
    TCHK(DMDestroy(&mine[k]));
    TCHK(DMDestroy(&petsc[k]));
  }
  TCHK(DMDestroy(&dm));
  if (_i == 0) {
    PetscInt  k;
    PetscBool set;

    /* the options path: fegpu's -dm_refine against PETSc's (-feg_mesh_fast_refine false), and -dm_refine left as given */
    TCHK(PetscOptionsSetValue(NULL, "-fast_feg_mesh_file", "../share/meshes/square_944.msh"));
    TCHK(PetscOptionsSetValue(NULL, "-fast_dm_refine", "2"));
    TCHK(PetscOptionsSetValue(NULL, "-slow_feg_mesh_file", "../share/meshes/square_944.msh"));
    TCHK(PetscOptionsSetValue(NULL, "-slow_dm_refine", "2"));
    TCHK(PetscOptionsSetValue(NULL, "-slow_feg_mesh_fast_refine", "false"));
    TCHK(FEGCreateMeshFromOptions(PETSC_COMM_SELF, "fast_", &mine[0]));
    TCHK(FEGCreateMeshFromOptions(PETSC_COMM_SELF, "slow_", &petsc[0]));
    TCHK(PetscOptionsGetInt(NULL, "fast_", "-dm_refine", &k, &set));
    ck_assert_msg(set && k == 2, "-fast_dm_refine is %d after the mesh was made, not 2", (int)k);
    TCHK(same_refined(mine[0], petsc[0]));
    {
      PetscInt c0, c1;

      /* fegpu's numbering: coarse cell c's children are 4c..4c+3, so cell 1 lies in cell 0's corner, not PETSc's */
      TCHK(DMPlexGetHeightStratum(mine[0], 0, &c0, &c1));
      ck_assert_msg(c1 - c0 == 944 * 16, "%d cells after two refinements of 944", (int)(c1 - c0));
    }
    TCHK(DMDestroy(&mine[0]));
    TCHK(DMDestroy(&petsc[0]));
    TCHK(PetscOptionsClearValue(NULL, "-fast_feg_mesh_file"));
    TCHK(PetscOptionsClearValue(NULL, "-fast_dm_refine"));
    TCHK(PetscOptionsClearValue(NULL, "-slow_feg_mesh_file"));
    TCHK(PetscOptionsClearValue(NULL, "-slow_dm_refine"));
    TCHK(PetscOptionsClearValue(NULL, "-slow_feg_mesh_fast_refine"));
  }
}
END_TEST

/* what FEGMeshRefine() refuses: curved (second-order) coordinates; on several processes every process refuses when one
   part cannot be refined (the file read on rank 0, nothing elsewhere), each saying why, and none is left waiting */
START_TEST(test_refine_errors)
{
  DM          dm, rdm;
  PetscMPIInt rank;

  TCHK(DMPlexCreateGmshFromFile(PETSC_COMM_SELF, "../share/meshes/box_tet2.msh", PETSC_TRUE, &dm));
  EXPECT_ERROR(FEGMeshRefine(dm, &rdm), PETSC_ERR_SUP, "FEGMeshRefine() cannot refine this mesh: its coordinates are not one point per vertex (point 0 has 30); DMRefine() can");
  TCHK(DMDestroy(&dm));
  (void)MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  TCHK(DMPlexCreateGmshFromFile(PETSC_COMM_WORLD, "../share/meshes/box_tet2.msh", PETSC_TRUE, &dm));
  if (!rank) EXPECT_ERROR(FEGMeshRefine(dm, &rdm), PETSC_ERR_SUP, "FEGMeshRefine() cannot refine this mesh: its coordinates are not one point per vertex (point 0 has 30); DMRefine() can");
  else EXPECT_ERROR(FEGMeshRefine(dm, &rdm), PETSC_ERR_SUP, "FEGMeshRefine() cannot refine this mesh: another process's part of it cannot be; DMRefine() can");
  TCHK(DMDestroy(&dm));
}
END_TEST

/* fegpu's local section (FEGDMSetUpSection(), which FEGSetUpDiscretization() installs on every mesh) against PETSc's
   on the same mesh and field: dofs, offsets, constrained dofs of an essential condition, and every cell's closure
   symmetries (the permutations and flips of each point's dofs at the orientations it is seen at); every cell type,
   orders 1 to 3, continuous and discontinuous (order 1: a 2-component cellwise constant field), on a shuffled box; and
   the global sections. Continuous prisms of order >= 2 are left out: PETSc's section is wrong there, which is why
   fegpu's exists. */
static PetscErrorCode section_same(PetscInt ict, PetscInt order, PetscBool cont, const PetscInt faces[3])
{
  DM                 base, dm[2];
  PetscSection       s[2];
  PetscInt           nc, nvx, nper, *cells, pStart, pEnd, cStart, cEnd, dim;
  PetscReal         *coords;
  DMPolytopeType     ct;
  const FEGCellInfo *info;

  PetscFunctionBeginUser;
  TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, fegtest_cells[ict], faces, NULL, NULL, 0.3, &base));
  TCHK(DMGetDimension(base, &dim));
  TCHK(cell_list(base, &ct, &nc, &nvx, &nper, &cells, &coords));
  TCHK(shuffle_cells(nc, nper, cells));
  TCHK(FEGCellInfoGet(PETSC_COMM_SELF, ct, &info));
  for (PetscInt k = 0; k < 2; k++) {
    PetscFE fe;

    TCHK(FEGPlexCreateFromCellList(PETSC_COMM_SELF, info, nc, nvx, cells, coords, "marker", &dm[k]));
    /* discontinuous order 1: a 2-component cellwise constant field instead (advdiff's velocity) */
    if (!cont && order == 1) TCHK(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, dim, 2, ct, 0, PETSC_DETERMINE, &fe));
    else TCHK(FEGCreateFE(PETSC_COMM_SELF, dim, ct, order, cont, &fe));
    TCHK(DMSetField(dm[k], 0, NULL, (PetscObject)fe));
    TCHK(PetscFEDestroy(&fe));
    TCHK(DMCreateDS(dm[k]));
    if (cont) TCHK(fegtest_wall(dm[k], NULL));
    if (k == 0) TCHK(FEGDMSetUpSection(dm[k]));
    TCHK(DMGetLocalSection(dm[k], &s[k]));
  }
  TCHK(PetscSectionGetChart(s[0], &pStart, &pEnd));
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt        d[2], o[2], cd[2];
    const PetscInt *ci[2];

    for (PetscInt k = 0; k < 2; k++) {
      TCHK(PetscSectionGetDof(s[k], p, &d[k]));
      TCHK(PetscSectionGetOffset(s[k], p, &o[k]));
      TCHK(PetscSectionGetConstraintDof(s[k], p, &cd[k]));
      TCHK(PetscSectionGetConstraintIndices(s[k], p, &ci[k]));
    }
    ck_assert_msg(d[0] == d[1] && o[0] == o[1] && cd[0] == cd[1], "%s order %d: point %d has %d dofs at %d (%d constrained) here, %d at %d (%d) in PETSc's", DMPolytopeTypes[ct], (int)order, (int)p, (int)d[0], (int)o[0], (int)cd[0], (int)d[1], (int)o[1], (int)cd[1]);
    for (PetscInt i = 0; i < cd[0]; i++) ck_assert_msg(ci[0][i] == ci[1][i], "point %d: constrained dof %d differs", (int)p, (int)i);
  }
  {
    /* the rest of the local sections too: field dofs, offsets and constraints, largest dofs */
    PetscBool same;
    PetscInt  md[2], fmd[2];

    TCHK(PetscSectionCompare(s[0], s[1], &same));
    ck_assert_msg(same, "%s order %d: the local section differs from PETSc's", DMPolytopeTypes[ct], (int)order);
    for (PetscInt k = 0; k < 2; k++) {
      PetscSection f;

      TCHK(PetscSectionGetMaxDof(s[k], &md[k]));
      TCHK(PetscSectionGetField(s[k], 0, &f));
      TCHK(PetscSectionGetMaxDof(f, &fmd[k]));
    }
    ck_assert_msg(md[0] == md[1] && fmd[0] == fmd[1], "%s order %d: largest dofs %d and %d (field %d and %d) against PETSc's", DMPolytopeTypes[ct], (int)order, (int)md[0], (int)md[1], (int)fmd[0], (int)fmd[1]);
  }
  TCHK(DMPlexGetHeightStratum(dm[0], 0, &cStart, &cEnd));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt            n, *cl = NULL, nd;
    const PetscInt    **perms[2];
    const PetscScalar **flips[2];

    TCHK(DMPlexGetTransitiveClosure(dm[0], c, PETSC_TRUE, &n, &cl));
    for (PetscInt k = 0; k < 2; k++) TCHK(PetscSectionGetFieldPointSyms(s[k], 0, n, cl, &perms[k], &flips[k]));
    for (PetscInt i = 0; i < n; i++) {
      TCHK(PetscSectionGetDof(s[0], cl[2 * i], &nd));
      for (PetscInt j = 0; j < nd; j++) {
        const PetscInt    a = perms[0] && perms[0][i] ? perms[0][i][j] : j, b = perms[1] && perms[1][i] ? perms[1][i][j] : j;
        const PetscScalar fa = flips[0] && flips[0][i] ? flips[0][i][j] : 1.0, fb = flips[1] && flips[1][i] ? flips[1][i][j] : 1.0;

        ck_assert_msg(a == b && fa == fb, "%s order %d: cell %d, closure point %d (orientation %d), dof %d goes to %d here and %d in PETSc's", DMPolytopeTypes[ct], (int)order, (int)c, (int)cl[2 * i], (int)cl[2 * i + 1], (int)j, (int)a, (int)b);
      }
    }
    for (PetscInt k = 0; k < 2; k++) TCHK(PetscSectionRestoreFieldPointSyms(s[k], 0, n, cl, &perms[k], &flips[k]));
    TCHK(DMPlexRestoreTransitiveClosure(dm[0], c, PETSC_TRUE, &n, &cl));
  }
  {
    /* the global section fegpu builds on one process (FEGDMSetUpGlobalSection(), by DMCreateGlobalVector()) against
       PETSc's from the same local section and point SF, and against PETSc's DM with PETSc's sections: dofs, offsets,
       constraints, the field's dofs and offsets, and the global vector's size */
    PetscSection g[3];
    PetscSF      psf;
    Vec          v[2];
    PetscInt     n[2];

    TCHK(DMCreateGlobalVector(dm[0], &v[0]));
    TCHK(DMCreateGlobalVector(dm[1], &v[1]));
    TCHK(DMGetGlobalSection(dm[0], &g[0]));
    TCHK(DMGetGlobalSection(dm[1], &g[1]));
    TCHK(DMGetPointSF(dm[0], &psf));
#if PETSC_VERSION_GE(3, 22, 0)
    TCHK(PetscSectionCreateGlobalSection(s[0], psf, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, &g[2]));
#else
    TCHK(PetscSectionCreateGlobalSection(s[0], psf, PETSC_FALSE, PETSC_FALSE, &g[2]));
#endif
    for (PetscInt k = 0; k < 2; k++) TCHK(VecGetSize(v[k], &n[k]));
    ck_assert_msg(n[0] == n[1], "%s order %d: global vectors of %d and %d (PETSc's) entries", DMPolytopeTypes[ct], (int)order, (int)n[0], (int)n[1]);
    for (PetscInt k = 1; k < 3; k++) {
      PetscBool same;

      TCHK(PetscSectionCompare(g[0], g[k], &same));
      ck_assert_msg(same, "%s order %d: the global section differs from PETSc's (%s)", DMPolytopeTypes[ct], (int)order, k == 1 ? "its own DM" : "of the same local section");
      for (PetscInt p = pStart; p < pEnd; p++) {
        PetscInt d[2], o[2], cd[2], fd[2], fo[2];

        TCHK(PetscSectionGetDof(g[0], p, &d[0]));
        TCHK(PetscSectionGetDof(g[k], p, &d[1]));
        TCHK(PetscSectionGetOffset(g[0], p, &o[0]));
        TCHK(PetscSectionGetOffset(g[k], p, &o[1]));
        TCHK(PetscSectionGetConstraintDof(g[0], p, &cd[0]));
        TCHK(PetscSectionGetConstraintDof(g[k], p, &cd[1]));
        TCHK(PetscSectionGetFieldDof(g[0], p, 0, &fd[0]));
        TCHK(PetscSectionGetFieldDof(g[k], p, 0, &fd[1]));
        TCHK(PetscSectionGetFieldOffset(g[0], p, 0, &fo[0]));
        TCHK(PetscSectionGetFieldOffset(g[k], p, 0, &fo[1]));
        ck_assert_msg(d[0] == d[1] && o[0] == o[1] && cd[0] == cd[1] && fd[0] == fd[1] && fo[0] == fo[1], "%s order %d: global point %d: dofs %d/%d, offset %d/%d, constrained %d/%d, field dofs %d/%d at %d/%d (fegpu's/PETSc's)", DMPolytopeTypes[ct], (int)order, (int)p, (int)d[0], (int)d[1], (int)o[0], (int)o[1], (int)cd[0], (int)cd[1], (int)fd[0], (int)fd[1], (int)fo[0], (int)fo[1]);
      }
    }
    TCHK(PetscSectionDestroy(&g[2]));
    for (PetscInt k = 0; k < 2; k++) TCHK(VecDestroy(&v[k]));
  }
  for (PetscInt k = 0; k < 2; k++) TCHK(DMDestroy(&dm[k]));
  TCHK(PetscFree2(cells, coords));
  TCHK(DMDestroy(&base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_section_same)
{
  const PetscInt  ict = _i / 6, order = 1 + (_i / 2) % 3, faces[3] = {3, 2, 2};
  const PetscBool cont = (PetscBool)(_i % 2 == 0);

  if (cont && order > 1 && fegtest_cells[ict] == DM_POLYTOPE_TRI_PRISM) return;
  TCHK(section_same(ict, order, cont, faces));
}
END_TEST

/* the same on a mesh of more than 65536 points (69k: 20^3 Q2 hexahedra), where fegpu builds its sections' arrays on
   several threads, three here so the blocks are uneven */
START_TEST(test_section_large)
{
  const PetscInt faces[3] = {20, 20, 20};

  TCHK(PetscOptionsSetValue(NULL, "-feg_setup_threads", "3"));
  TCHK(section_same(3, 2, PETSC_TRUE, faces));
  TCHK(PetscOptionsClearValue(NULL, "-feg_setup_threads"));
}
END_TEST

/* fegpu's label completion (FEGPlexLabelComplete(), which fegpu's local section and Gmsh meshes use) against PETSc's
   DMPlexLabelComplete() on the same shuffled box of each cell type: boundary faces (value 1), every fifth cell (7),
   every seventh point of depth 1 (3), and the builder's "marker", complete already; every stratum compared */
START_TEST(test_label_complete)
{
  const PetscInt     faces[3] = {3, 2, 2};
  const char        *names[2] = {"l", "marker"};
  DM                 base, dm[2];
  PetscInt           nc, nvx, nper, *cells;
  PetscReal         *coords;
  DMPolytopeType     ct;
  const FEGCellInfo *info;

  TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, fegtest_cells[_i], faces, NULL, NULL, 0.3, &base));
  TCHK(cell_list(base, &ct, &nc, &nvx, &nper, &cells, &coords));
  TCHK(shuffle_cells(nc, nper, cells));
  TCHK(FEGCellInfoGet(PETSC_COMM_SELF, ct, &info));
  for (PetscInt k = 0; k < 2; k++) {
    DMLabel  l;
    PetscInt s, e, cs, ce;

    TCHK(FEGPlexCreateFromCellList(PETSC_COMM_SELF, info, nc, nvx, cells, coords, "marker", &dm[k]));
    TCHK(DMCreateLabel(dm[k], "l"));
    TCHK(DMGetLabel(dm[k], "l", &l));
    TCHK(DMPlexMarkBoundaryFaces(dm[k], 1, l));
    TCHK(DMPlexGetHeightStratum(dm[k], 0, &cs, &ce));
    for (PetscInt c = cs; c < ce; c += 5) TCHK(DMLabelSetValue(l, c, 7));
    TCHK(DMPlexGetDepthStratum(dm[k], 1, &s, &e));
    for (PetscInt p = s; p < e; p += 7) TCHK(DMLabelSetValue(l, p, 3));
    for (PetscInt n = 0; n < 2; n++) {
      TCHK(DMGetLabel(dm[k], names[n], &l));
      if (k == 0) TCHK(FEGPlexLabelComplete(dm[k], l));
      else TCHK(DMPlexLabelComplete(dm[k], l));
    }
  }
  for (PetscInt n = 0; n < 2; n++) {
    DMLabel         l[2];
    IS              vis;
    const PetscInt *vals;
    PetscInt        nv[2];

    for (PetscInt k = 0; k < 2; k++) {
      TCHK(DMGetLabel(dm[k], names[n], &l[k]));
      TCHK(DMLabelGetNumValues(l[k], &nv[k]));
    }
    ck_assert_msg(nv[0] == nv[1], "%s, label %s: %d values here, %d in PETSc's", DMPolytopeTypes[ct], names[n], (int)nv[0], (int)nv[1]);
    TCHK(DMLabelGetValueIS(l[1], &vis));
    TCHK(ISGetIndices(vis, &vals));
    for (PetscInt v = 0; v < nv[1]; v++) {
      IS        is[2];
      PetscBool same;

      for (PetscInt k = 0; k < 2; k++) TCHK(DMLabelGetStratumIS(l[k], vals[v], &is[k]));
      TCHK(ISEqual(is[0], is[1], &same));
      ck_assert_msg(same, "%s, label %s, value %d: the completed strata differ", DMPolytopeTypes[ct], names[n], (int)vals[v]);
      for (PetscInt k = 0; k < 2; k++) TCHK(ISDestroy(&is[k]));
    }
    TCHK(ISRestoreIndices(vis, &vals));
    TCHK(ISDestroy(&vis));
  }
  for (PetscInt k = 0; k < 2; k++) TCHK(DMDestroy(&dm[k]));
  TCHK(PetscFree2(cells, coords));
  TCHK(DMDestroy(&base));
}
END_TEST

/* fegpu's tabulation of quadrilateral and hexahedral elements from 1D factors equals PETSc's (prime basis times the
   inverse Vandermonde matrix of the same basis and dual spaces): values, first and second derivatives at random
   points, orders 1 to 8, equispaced continuous, discontinuous and GLL nodes */
START_TEST(test_tensor_tabulation)
{
  const DMPolytopeType ct  = _i < 24 ? DM_POLYTOPE_QUADRILATERAL : DM_POLYTOPE_HEXAHEDRON;
  const PetscInt       dim = _i < 24 ? 2 : 3, order = 1 + (_i % 24) / 3, kind = _i % 3, np = 20;
  PetscFE              fe, ref;
  PetscSpace           P;
  PetscDualSpace       Q;
  PetscTabulation      T, R;
  PetscReal            pts[20 * 3], err = 0, mag = 0;
  PetscRandom          r;
  PetscInt             Nb;

  /* PETSc's own tabulation of orders 5 to 8 is too slow under valgrind (the code is the same at every order) */
  if (order > 4 && getenv("FEGTEST_VALGRIND")) return;
  TCHK(FEGCreateFEWithNodes(PETSC_COMM_SELF, dim, ct, order, (PetscBool)(kind != 1), kind == 2 ? FEG_NODES_GLL : FEG_NODES_EQUISPACED, &fe));
  TCHK(PetscFEGetBasisSpace(fe, &P));
  TCHK(PetscFEGetDualSpace(fe, &Q));
  TCHK(PetscFECreate(PETSC_COMM_SELF, &ref));
  TCHK(PetscFESetType(ref, PETSCFEBASIC));
  TCHK(PetscFESetNumComponents(ref, 1));
  TCHK(PetscFESetBasisSpace(ref, P));
  TCHK(PetscFESetDualSpace(ref, Q));
  TCHK(PetscFESetUp(ref));
  TCHK(PetscRandomCreate(PETSC_COMM_SELF, &r));
  TCHK(PetscRandomSetInterval(r, -1.0, 1.0));
  for (PetscInt i = 0; i < np * dim; i++) TCHK(PetscRandomGetValueReal(r, &pts[i]));
  TCHK(PetscRandomDestroy(&r));
  TCHK(PetscFECreateTabulation(fe, 1, np, pts, 2, &T));
  TCHK(PetscFECreateTabulation(ref, 1, np, pts, 2, &R));
  TCHK(PetscFEGetDimension(fe, &Nb));
  for (PetscInt k = 0, n = np * Nb; k <= 2; k++, n *= dim)
    for (PetscInt i = 0; i < n; i++) {
      err = PetscMax(err, PetscAbsReal(T->T[k][i] - R->T[k][i]));
      mag = PetscMax(mag, PetscAbsReal(R->T[k][i]));
    }
  /* PETSc's own product loses digits to the Vandermonde matrix's condition at order 8 */
  ck_assert_msg(err <= 1e-9 * PetscMax(1.0, mag), "%s order %d (%s): tabulations differ by %g (largest entry %g)", DMPolytopeTypes[ct], (int)order, kind == 0 ? "continuous" : kind == 1 ? "discontinuous" : "GLL", (double)err, (double)mag);
  TCHK(PetscTabulationDestroy(&T));
  TCHK(PetscTabulationDestroy(&R));
  TCHK(PetscFEDestroy(&ref));
  TCHK(PetscFEDestroy(&fe));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("tables");
  tcase_add_loop_test(tc, test_prism_table1, 0, 7);
  tcase_add_loop_test(tc, test_quadrature_exact, 0, 5 * 4);
  tcase_add_loop_test(tc, test_box_volume, 0, 5);
  tcase_add_loop_test(tc, test_cell_list_interpolation, 0, 9);
  tcase_add_loop_test(tc, test_refine, 0, 7);
  tcase_add_test(tc, test_refine_errors);
  tcase_add_loop_test(tc, test_section_same, 0, 5 * 6);
  tcase_add_test(tc, test_section_large);
  tcase_add_loop_test(tc, test_label_complete, 0, 5);
  tcase_add_loop_test(tc, test_tensor_tabulation, 0, 48);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "space", add_tests);
}
