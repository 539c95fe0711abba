/* Meshes made on several processes equal the ones made on one. FEGCreateBoxMesh() builds each process's block itself:
   on 1, 2 and 3 processes every cell of the one-process box is found exactly once, with the same vertex coordinates,
   the same faces are marked in "marker" (also for a box too small for a block on each process, distributed from the
   first), PETSc's checks of a distributed mesh pass (DMPlexCheck(): point SF, interface
   cones, symmetry, skeleton, faces, geometry), and each process's cells that touch a ghost point come after those that
   do not; for every cell type, perturbed and not. The operators visit the cells that touch a ghost point last, each
   cell once, in every element order (FEGDMSetElementOrder()), also on meshes not built that way (the small box, the
   Gmsh mesh distributed by PETSc). A Gmsh mesh refined after distribution equals the one refined on one
   process, and so do boxes of every cell type and Gmsh meshes of tetrahedra, hexahedra and prisms refined by fegpu on
   several processes, with every shared vertex's coordinates its owner's. Curved Gmsh meshes (second-order tetrahedra and hexahedra) refined twice keep their volume to roundoff (the
   straight cells of the same file differ by more than 1e-6). A box saved in PETSc's HDF5 format on one process and
   loaded through FEGCreateMeshFromOptions() equals it (where PETSc has HDF5; elsewhere the file is refused by name).
   fegpu's global section of a distributed mesh equals PETSc's, point by point, and its label completion
   (FEGPlexLabelComplete(), FEGDMAddBoundary()) PETSc's.
   fegtest: nsize 1 2 3 */
#include "fegtest.h"
#include <fegpu/private/fegimpl.h>
#include <petscsf.h>
#if defined(PETSC_HAVE_HDF5)
  #include <petscviewerhdf5.h>
#endif

#define MAXW 24 /* coordinates of a cell's vertices: 8 vertices in 3D at most */

/* the sorted vertex coordinates of point p (its closure's vertices), padded with a large value to MAXW */
static PetscErrorCode vertex_key(DM dm, PetscInt p, PetscReal key[MAXW])
{
  PetscInt          *cl = NULL, ncl, vStart, vEnd, cdim, nv = 0;
  Vec                X;
  PetscSection       cs;
  const PetscScalar *x;
  PetscReal          v[8][3];

  PetscFunctionBegin;
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(DMPlexGetTransitiveClosure(dm, p, PETSC_TRUE, &ncl, &cl));
  for (PetscInt k = 0; k < ncl; k++) {
    const PetscInt q = cl[2 * k];
    PetscInt       off;

    if (q < vStart || q >= vEnd) continue;
    PetscCheck(nv < 8, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT " has more than 8 vertices", p);
    PetscCall(PetscSectionGetOffset(cs, q, &off));
    for (PetscInt d = 0; d < 3; d++) v[nv][d] = d < cdim ? PetscRealPart(x[off + d]) : 0.0;
    nv++;
  }
  PetscCall(DMPlexRestoreTransitiveClosure(dm, p, PETSC_TRUE, &ncl, &cl));
  PetscCall(VecRestoreArrayRead(X, &x));
  /* insertion sort of the vertices, lexicographically */
  for (PetscInt a = 1; a < nv; a++)
    for (PetscInt b = a; b > 0; b--) {
      PetscInt d = 0;

      while (d < 3 && v[b - 1][d] == v[b][d]) d++;
      if (d == 3 || v[b - 1][d] < v[b][d]) break;
      for (PetscInt e = 0; e < 3; e++) {
        const PetscReal t = v[b][e];

        v[b][e]     = v[b - 1][e];
        v[b - 1][e] = t;
      }
    }
  for (PetscInt k = 0; k < MAXW; k++) key[k] = k < 3 * nv ? v[k / 3][k % 3] : 1e300;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int cmp_key(const void *a, const void *b)
{
  const PetscReal *x = (const PetscReal *)a, *y = (const PetscReal *)b;

  for (int k = 0; k < MAXW; k++)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

/* the keys of the points [pStart, pEnd) of dm that pass the filter (all: cells; marked and owned: boundary faces) */
static PetscErrorCode point_keys(DM dm, PetscInt height, PetscBool marked, PetscBool ownedOnly, PetscInt *n, PetscReal **keys)
{
  PetscInt        pStart, pEnd, nleaves, cnt = 0;
  const PetscInt *leaves;
  PetscSF         sf;
  DMLabel         label = NULL;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, height, &pStart, &pEnd));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
  if (marked) PetscCall(DMGetLabel(dm, "marker", &label));
  PetscCall(PetscMalloc1((size_t)(pEnd - pStart + 1) * MAXW, keys));
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt l = -1, val = -1;

    if (ownedOnly && nleaves > 0) PetscCall(PetscFindInt(p, nleaves, leaves, &l));
    if (l >= 0) continue;
    if (label) {
      PetscCall(DMLabelGetValue(label, p, &val));
      if (val != 1) continue;
    }
    PetscCall(vertex_key(dm, p, *keys + (size_t)cnt * MAXW));
    cnt++;
  }
  *n = cnt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every point of the distributed mesh dm (cells, or owned boundary faces) is found among those of the serial mesh
   sdm, and every one of those once over all processes */
static PetscErrorCode match(DM dm, DM sdm, PetscInt height, PetscBool marked, PetscInt *missing, PetscInt *wrongCount, PetscInt *nserial)
{
  PetscInt   ns, np, lmissing = 0, lwrong = 0, *found;
  PetscReal *skeys, *pkeys;

  PetscFunctionBegin;
  PetscCall(point_keys(sdm, height, marked, PETSC_FALSE, &ns, &skeys));
  PetscCall(point_keys(dm, height, marked, PETSC_TRUE, &np, &pkeys));
  qsort(skeys, (size_t)ns, sizeof(PetscReal) * MAXW, cmp_key);
  PetscCall(PetscCalloc1(ns + 1, &found));
  for (PetscInt i = 0; i < np; i++) {
    const PetscReal *f = (const PetscReal *)bsearch(pkeys + (size_t)i * MAXW, skeys, (size_t)ns, sizeof(PetscReal) * MAXW, cmp_key);

    if (!f) lmissing++;
    else found[(f - skeys) / MAXW]++;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, found, (PetscMPIInt)ns, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)dm)));
  for (PetscInt i = 0; i < ns; i++)
    if (found[i] != 1) lwrong++;
  PetscCallMPI(MPI_Allreduce(&lmissing, missing, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)dm)));
  *wrongCount = lwrong;
  *nserial    = ns;
  PetscCall(PetscFree(found));
  PetscCall(PetscFree(skeys));
  PetscCall(PetscFree(pkeys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether cell c touches a ghost point (a leaf of the point SF) */
static PetscErrorCode touches_ghost(DM dm, PetscInt c, PetscInt nleaves, const PetscInt leaves[], PetscBool *touches)
{
  PetscInt *cl = NULL, ncl;

  PetscFunctionBegin;
  *touches = PETSC_FALSE;
  PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
  for (PetscInt k = 0; k < ncl && !*touches && nleaves > 0; k++) {
    PetscInt l;

    PetscCall(PetscFindInt(cl[2 * k], nleaves, leaves, &l));
    *touches = (PetscBool)(l >= 0);
  }
  PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the operators' element order (FEGDMSetElementOrder() type) on a P1 space of dm visits every cell once and
   those that touch a ghost point after all the others, the first nint exactly those that touch none */
static PetscErrorCode elements_ghost_last(DM dm, FEGReorderType type, PetscBool *last)
{
  DM              udm;
  FEGDisc        *disc;
  PetscContainer  c;
  PetscInt        nleaves, cStart, cEnd;
  const PetscInt *leaves;
  PetscSF         sf;
  PetscBool      *seen, ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(DMClone(dm, &udm));
  PetscCall(FEGSetUpDiscretization(udm, 1, PETSC_TRUE, "u"));
  PetscCall(FEGDMSetElementOrder(udm, type));
  PetscCall(FEGDMGetDisc(udm, &disc, &c));
  PetscCall(DMPlexGetHeightStratum(udm, 0, &cStart, &cEnd));
  PetscCall(DMGetPointSF(udm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
  PetscCall(PetscCalloc1(cEnd - cStart + 1, &seen));
  if (disc->Ne != cEnd - cStart) ok = PETSC_FALSE;
  for (PetscInt e = 0; e < disc->Ne && ok; e++) {
    const PetscInt cell = FEGDiscCell(disc, e);
    PetscBool      touches;

    if (cell < cStart || cell >= cEnd || seen[cell - cStart]) ok = PETSC_FALSE;
    else {
      seen[cell - cStart] = PETSC_TRUE;
      PetscCall(touches_ghost(udm, cell, nleaves, leaves, &touches));
      if (touches != (PetscBool)(e >= disc->nint)) ok = PETSC_FALSE;
    }
  }
  PetscCall(PetscFree(seen));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(DMDestroy(&udm));
  PetscCallMPI(MPI_Allreduce(&ok, last, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether every cell that touches a ghost point (a leaf of the point SF) comes after every cell that does not */
static PetscErrorCode ghost_last(DM dm, PetscBool *last)
{
  PetscInt        cStart, cEnd, nleaves;
  const PetscInt *leaves;
  PetscSF         sf;
  PetscBool       seen = PETSC_FALSE, ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscBool touches;

    PetscCall(touches_ghost(dm, c, nleaves, leaves, &touches));
    if (touches) seen = PETSC_TRUE;
    else if (seen) ok = PETSC_FALSE;
  }
  PetscCallMPI(MPI_Allreduce(&ok, last, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the distributed mesh against the serial one: cells, then boundary faces */
static void check_equal(DM dm, DM sdm, const char *what)
{
  PetscInt missing, wrong, ns;

  TCHK(match(dm, sdm, 0, PETSC_FALSE, &missing, &wrong, &ns));
  ck_assert_msg(missing == 0, "%s: %d cells are not cells of the one-process mesh", what, (int)missing);
  ck_assert_msg(wrong == 0, "%s: %d of the %d cells of the one-process mesh are not found exactly once", what, (int)wrong, (int)ns);
  TCHK(match(dm, sdm, 1, PETSC_TRUE, &missing, &wrong, &ns));
  ck_assert_msg(ns > 0, "%s: no boundary face in \"marker\"", what);
  ck_assert_msg(missing == 0, "%s: %d faces in \"marker\" are not marked in the one-process mesh", what, (int)missing);
  ck_assert_msg(wrong == 0, "%s: %d of the %d marked faces of the one-process mesh are not marked exactly once", what, (int)wrong, (int)ns);
}

/* _i = 10 small + 2 ct + perturbed; the small box (2 cubes a side) has no block for each of 3 processes and is
   distributed from the first */
START_TEST(test_box_equals_serial)
{
  const DMPolytopeType ct      = fegtest_cells[(_i % 10) / 2];
  const PetscReal      perturb = _i % 2 ? 0.2 : 0.0;
  const PetscBool      small   = (PetscBool)(_i >= 10);
  const PetscInt       dim = fegtest_dim(ct), faces[3] = {small ? 2 : 6, small ? 2 : 4, dim == 3 ? (small ? 2 : 3) : 1};
  DM                   dm, sdm;
  PetscBool            last;
  char                 what[64];

  TCHK(PetscSNPrintf(what, sizeof(what), "%s box of %d cubes a side, perturbation %g", DMPolytopeTypes[ct], (int)faces[0], (double)perturb));
  TCHK(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, NULL, NULL, perturb, &dm));
  TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, ct, faces, NULL, NULL, perturb, &sdm));
  TCHK(DMPlexCheck(dm));
  check_equal(dm, sdm, what);
  /* a box built in blocks has the overlap's order itself (the operators' order is the mesh's, at no cost); the small
     one, distributed from the first process, gets it from the operators' element order */
  if (!small) {
    TCHK(ghost_last(dm, &last));
    ck_assert_msg(last, "%s: a cell that touches a ghost point comes before one that does not", what);
  }
  TCHK(elements_ghost_last(dm, (FEGReorderType)(_i % 3), &last));
  ck_assert_msg(last, "%s: with element order %s the operators do not visit the cells that touch a ghost point last, each once", what, FEGReorderTypes[_i % 3]);
  TCHK(DMDestroy(&dm));
  TCHK(DMDestroy(&sdm));
}
END_TEST

/* A Gmsh square refined after distribution (several processes) against the one refined on one process */
START_TEST(test_gmsh_refined_equals_serial)
{
  DM dm, sdm;

  TCHK(PetscOptionsSetValue(NULL, "-dist_feg_mesh_file", "../share/meshes/square.msh"));
  TCHK(PetscOptionsSetValue(NULL, "-dist_dm_refine", "2"));
  TCHK(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "dist_", &dm));
  TCHK(FEGCreateMeshFromOptions(PETSC_COMM_SELF, "dist_", &sdm));
  TCHK(PetscOptionsClearValue(NULL, "-dist_feg_mesh_file"));
  TCHK(PetscOptionsClearValue(NULL, "-dist_dm_refine"));
  TCHK(DMPlexCheck(dm));
  check_equal(dm, sdm, "Gmsh square refined twice");
  for (PetscInt t = FEG_REORDER_NONE; t <= FEG_REORDER_SFC; t++) {
    PetscBool last;

    /* distributed by PETSc and not renumbered: the operators order the elements themselves */
    TCHK(elements_ghost_last(dm, (FEGReorderType)t, &last));
    ck_assert_msg(last, "Gmsh square refined twice: with element order %s the operators do not visit the cells that touch a ghost point last, each once", FEGReorderTypes[t]);
  }
  TCHK(DMDestroy(&dm));
  TCHK(DMDestroy(&sdm));
}
END_TEST

/* whether every process's local coordinates are their owners' to the bit (a shared vertex computed alike on each
   side): the local coordinates through the global vector (owners' values) and back */
static PetscErrorCode coordinates_agree(DM dm, PetscBool *agree)
{
  DM                 cdm;
  Vec                X, G, L;
  const PetscScalar *x, *l;
  PetscInt           n;
  PetscBool          ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(DMGetCoordinates(dm, &G));
  PetscCall(VecDuplicate(X, &L));
  PetscCall(DMGlobalToLocal(cdm, G, INSERT_VALUES, L));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayRead(L, &l));
  for (PetscInt i = 0; i < n; i++)
    if (x[i] != l[i]) ok = PETSC_FALSE;
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecRestoreArrayRead(L, &l));
  PetscCall(VecDestroy(&L));
  PetscCallMPI(MPI_Allreduce(&ok, agree, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegpu's refinement of a distributed mesh (each process its part, the point SF from the coarse one) against the mesh
   refined on one process: a box built in blocks, every cell type, perturbed and not, refined twice by FEGMeshRefine();
   and three Gmsh files read with straight cells (tetrahedra, hexahedra, prisms), distributed by PETSc and refined twice
   through -dm_refine. PETSc's checks of a distributed mesh (point SF, interface cones, symmetry, skeleton, faces,
   geometry), every refined cell and marked face of the one-process mesh found exactly once, and every process's
   coordinates its owners'. _i < 10: 2 ct + perturbed; 10-12: the files */
START_TEST(test_refine_distributed)
{
  const char *files[] = {"../share/meshes/box_tet2.msh", "../share/meshes/annulus_hex2.msh", "../share/meshes/prism2.msh"};
  DM          dm, sdm;
  PetscBool   agree;
  char        what[96];

  if (_i < 10) {
    const DMPolytopeType ct      = fegtest_cells[_i / 2];
    const PetscReal      perturb = _i % 2 ? 0.2 : 0.0;
    const PetscInt       dim = fegtest_dim(ct), faces[3] = {4, 3, dim == 3 ? 3 : 1};
    DM                   c, r;

    TCHK(PetscSNPrintf(what, sizeof(what), "%s box, perturbation %g, refined twice", DMPolytopeTypes[ct], (double)perturb));
    TCHK(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, NULL, NULL, perturb, &dm));
    TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, ct, faces, NULL, NULL, perturb, &sdm));
    for (PetscInt k = 0; k < 2; k++) {
      TCHK(FEGMeshRefine(dm, &r));
      TCHK(DMDestroy(&dm));
      dm = r;
      TCHK(FEGMeshRefine(sdm, &c));
      TCHK(DMDestroy(&sdm));
      sdm = c;
    }
  } else {
    const char *file = files[_i - 10];

    TCHK(PetscSNPrintf(what, sizeof(what), "%s, straight cells, distributed and refined twice", file));
    TCHK(PetscOptionsSetValue(NULL, "-rd_feg_mesh_file", file));
    TCHK(PetscOptionsSetValue(NULL, "-dm_plex_gmsh_highorder", "false")); /* PETSc reads it without the prefix */
    TCHK(PetscOptionsSetValue(NULL, "-rd_dm_refine", "2"));
    TCHK(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "rd_", &dm));
    TCHK(FEGCreateMeshFromOptions(PETSC_COMM_SELF, "rd_", &sdm));
    TCHK(PetscOptionsClearValue(NULL, "-rd_feg_mesh_file"));
    TCHK(PetscOptionsClearValue(NULL, "-dm_plex_gmsh_highorder"));
    TCHK(PetscOptionsClearValue(NULL, "-rd_dm_refine"));
  }
  TCHK(DMPlexCheck(dm));
  check_equal(dm, sdm, what);
  TCHK(coordinates_agree(dm, &agree));
  ck_assert_msg(agree, "%s: a process's coordinates differ from their owners'", what);
  TCHK(DMDestroy(&dm));
  TCHK(DMDestroy(&sdm));
}
END_TEST

/* fegpu's global section (FEGDMSetUpSection()'s, built from the local section's arrays by DMCreateGlobalVector())
   against PetscSectionCreateGlobalSection() of the same local section and point SF, on the distributed box of each
   cell type (continuous order 2 with walls, discontinuous order 1) and on a Gmsh square distributed by PETSc: every
   point's dofs (-(dof+1) at the leaves), offsets (-(off+1) with the owner's at the leaves), constrained dofs and
   indices, the field's dofs and offsets, and the global vector's rows. _i = 2 ct + discontinuous; 10: the square */
START_TEST(test_global_section)
{
  const DMPolytopeType ct   = fegtest_cells[(_i % 10) / 2];
  const PetscBool      cont = (PetscBool)(_i % 2 == 0 || _i == 10);
  const PetscInt       dim = fegtest_dim(ct), faces[3] = {5, 4, dim == 3 ? 3 : 1};
  DM                   dm;
  Vec                  v;
  PetscSection         s, g, gp;
  PetscSF              psf;
  PetscLayout          map;
  PetscInt             pStart, pEnd, lo[2], hi[2];
  PetscBool            same;
  char                 what[64];

  if (_i < 10) {
    TCHK(PetscSNPrintf(what, sizeof(what), "%s box, %s order %d", DMPolytopeTypes[ct], cont ? "continuous" : "discontinuous", cont ? 2 : 1));
    TCHK(fegtest_box(PETSC_COMM_WORLD, ct, faces, 0.2, cont ? 2 : 1, cont, cont, &dm));
  } else {
    TCHK(PetscSNPrintf(what, sizeof(what), "Gmsh square, continuous order 2"));
    TCHK(PetscOptionsSetValue(NULL, "-gs_feg_mesh_file", "../share/meshes/square.msh"));
    TCHK(PetscOptionsSetValue(NULL, "-gs_dm_refine", "1"));
    TCHK(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "gs_", &dm));
    TCHK(PetscOptionsClearValue(NULL, "-gs_feg_mesh_file"));
    TCHK(PetscOptionsClearValue(NULL, "-gs_dm_refine"));
    TCHK(FEGSetUpDiscretization(dm, 2, PETSC_TRUE, "u"));
    TCHK(fegtest_wall(dm, fegtest_bcfunc));
  }
  TCHK(DMCreateGlobalVector(dm, &v));
  TCHK(DMGetLocalSection(dm, &s));
  TCHK(DMGetGlobalSection(dm, &g));
  TCHK(DMGetPointSF(dm, &psf));
#if PETSC_VERSION_GE(3, 22, 0)
  TCHK(PetscSectionCreateGlobalSection(s, psf, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, &gp));
#else
  TCHK(PetscSectionCreateGlobalSection(s, psf, PETSC_FALSE, PETSC_FALSE, &gp));
#endif
  TCHK(PetscSectionCompare(g, gp, &same));
  ck_assert_msg(same, "%s: the global section differs from PETSc's", what);
  TCHK(PetscSectionGetChart(s, &pStart, &pEnd));
  for (PetscInt p = pStart; p < pEnd; p++) {
    PetscInt        d[2], o[2], cd[2], fd[2], fo[2];
    const PetscInt *ci[2];
    PetscSection    gg[2] = {g, gp};

    for (PetscInt k = 0; k < 2; k++) {
      TCHK(PetscSectionGetDof(gg[k], p, &d[k]));
      TCHK(PetscSectionGetOffset(gg[k], p, &o[k]));
      TCHK(PetscSectionGetConstraintDof(gg[k], p, &cd[k]));
      TCHK(PetscSectionGetConstraintIndices(gg[k], p, &ci[k]));
      TCHK(PetscSectionGetFieldDof(gg[k], p, 0, &fd[k]));
      TCHK(PetscSectionGetFieldOffset(gg[k], p, 0, &fo[k]));
    }
    ck_assert_msg(d[0] == d[1] && o[0] == o[1] && cd[0] == cd[1] && fd[0] == fd[1] && fo[0] == fo[1], "%s: point %d: dofs %d/%d, offset %d/%d, constrained %d/%d, field dofs %d/%d at %d/%d (fegpu's/PETSc's)", what, (int)p, (int)d[0], (int)d[1], (int)o[0], (int)o[1], (int)cd[0], (int)cd[1], (int)fd[0], (int)fd[1], (int)fo[0], (int)fo[1]);
    for (PetscInt i = 0; i < cd[0]; i++) ck_assert_msg(ci[0][i] == ci[1][i], "%s: point %d: constrained dof %d differs", what, (int)p, (int)i);
  }
  TCHK(PetscSectionGetValueLayout(PETSC_COMM_WORLD, gp, &map));
  TCHK(VecGetOwnershipRange(v, &lo[0], &hi[0]));
  TCHK(PetscLayoutGetRange(map, &lo[1], &hi[1]));
  ck_assert_msg(lo[0] == lo[1] && hi[0] == hi[1], "%s: the global vector has rows [%d, %d) here, [%d, %d) by PETSc's section", what, (int)lo[0], (int)hi[0], (int)lo[1], (int)hi[1]);
  TCHK(PetscLayoutDestroy(&map));
  TCHK(PetscSectionDestroy(&gp));
  TCHK(VecDestroy(&v));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* fegpu's global vector (FEGPlexCreateGlobalVector(), its block size found on threads) against PETSc's of the same DM
   (fegtest_global_vector()), on boxes distributed by the builder: a continuous P2 field with walls on hexahedra and
   prisms (block size 1, constrained points), vector fields of dim components on tetrahedra (P1) and triangles (P2, with
   walls: fully constrained points leave the block size dim), and a discontinuous Q1 field on quadrilaterals (all dofs on
   the cells: block size 4) */
START_TEST(test_global_vector)
{
  const DMPolytopeType cts[5] = {DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TRI_PRISM, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL}, ct = cts[_i];
  const PetscInt       dim = fegtest_dim(ct), faces[3] = {4, 3, dim == 3 ? 3 : 1};
  DM                   dm;
  PetscBool            hostcopy;
  char                 what[512];

  if (_i < 2) TCHK(fegtest_box(PETSC_COMM_WORLD, ct, faces, 0.1, 2, PETSC_TRUE, PETSC_TRUE, &dm));
  else if (_i < 4) {
    PetscFE fe;

    TCHK(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, NULL, NULL, 0.1, &dm));
    TCHK(FEGDMSetUpSection(dm));
    TCHK(PetscFECreateLagrange(PETSC_COMM_WORLD, dim, dim, PETSC_TRUE, _i == 2 ? 1 : 2, PETSC_DETERMINE, &fe));
    TCHK(DMSetField(dm, 0, NULL, (PetscObject)fe));
    TCHK(PetscFEDestroy(&fe));
    TCHK(DMCreateDS(dm));
    if (_i == 3) TCHK(fegtest_wall(dm, fegtest_bcfunc));
  } else TCHK(fegtest_box(PETSC_COMM_WORLD, ct, faces, 0.1, 1, PETSC_FALSE, PETSC_FALSE, &dm));
  TCHK(fegtest_global_vector(dm, what, sizeof(what), &hostcopy));
  ck_assert_msg(!what[0], "%s box, case %d: %s", DMPolytopeTypes[ct], (int)_i, what);
  TCHK(DMDestroy(&dm));
}
END_TEST

/* labels a and b hold the same points under the same values */
static void check_same_label(DMLabel a, DMLabel b, const char *what)
{
  IS              vis;
  const PetscInt *vals;
  PetscInt        na, nb;

  TCHK(DMLabelGetNumValues(a, &na));
  TCHK(DMLabelGetNumValues(b, &nb));
  ck_assert_msg(na == nb, "%s: %d values here, %d in PETSc's", what, (int)na, (int)nb);
  TCHK(DMLabelGetValueIS(b, &vis));
  TCHK(ISGetIndices(vis, &vals));
  for (PetscInt v = 0; v < nb; v++) {
    IS        is[2];
    PetscBool same;

    TCHK(DMLabelGetStratumIS(a, vals[v], &is[0]));
    TCHK(DMLabelGetStratumIS(b, vals[v], &is[1]));
    ck_assert_msg(is[0] != NULL, "%s: value %d is missing", what, (int)vals[v]);
    TCHK(ISEqual(is[0], is[1], &same));
    ck_assert_msg(same, "%s, value %d: the completed strata differ from PETSc's", what, (int)vals[v]);
    TCHK(ISDestroy(&is[0]));
    TCHK(ISDestroy(&is[1]));
  }
  TCHK(ISRestoreIndices(vis, &vals));
  TCHK(ISDestroy(&vis));
}

/* marks the closure of point p with value v */
static PetscErrorCode mark_closure(DM dm, DMLabel l, PetscInt p, PetscInt v)
{
  PetscInt *cl = NULL, ncl;

  PetscFunctionBegin;
  PetscCall(DMPlexGetTransitiveClosure(dm, p, PETSC_TRUE, &ncl, &cl));
  for (PetscInt k = 0; k < ncl; k++) PetscCall(DMLabelSetValue(l, cl[2 * k], v));
  PetscCall(DMPlexRestoreTransitiveClosure(dm, p, PETSC_TRUE, &ncl, &cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegpu's label completion (FEGPlexLabelComplete(), which its local section uses) against PETSc's DMPlexLabelComplete()
   on a box built on every process, each cell type: the builder's "marker" (complete, the same on every copy of a
   shared point: fegpu leaves it as it is), the marker plus a value on the closure of the first leaf of each process
   with leaves and one on the closure of rank 0's first root with leaves (complete on each process, but the copies of
   a shared point differ: completed across processes), and the marker plus a value on a cell alone (incomplete) */
START_TEST(test_label_complete_parallel)
{
  const DMPolytopeType ct  = fegtest_cells[_i];
  const PetscInt       dim = fegtest_dim(ct), faces[3] = {4, 3, dim == 3 ? 3 : 1};
  DM                   dm;
  DMLabel              marker;
  PetscSF              sf;
  PetscInt             nroots, nleaves, cStart, cEnd;
  const PetscInt      *leaves, *degree;
  PetscMPIInt          rank;
  const char          *cases[3] = {"marker", "marker differing across processes", "marker plus a cell"};

  TCHK(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, NULL, NULL, 0.0, &dm));
  TCHK(DMGetLabel(dm, "marker", &marker));
  TCHK(DMGetPointSF(dm, &sf));
  TCHK(PetscSFGetGraph(sf, &nroots, &nleaves, &leaves, NULL));
  TCHK(PetscSFComputeDegreeBegin(sf, &degree));
  TCHK(PetscSFComputeDegreeEnd(sf, &degree));
  TCHK(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  TCHK(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  for (PetscInt k = 0; k < 3; k++) {
    DMLabel l[2];
    char    what[96];

    TCHK(PetscSNPrintf(what, sizeof(what), "%s box, %s", DMPolytopeTypes[ct], cases[k]));
    for (PetscInt j = 0; j < 2; j++) {
      TCHK(DMLabelDuplicate(marker, &l[j]));
      if (k == 1 && nleaves > 0) TCHK(mark_closure(dm, l[j], leaves ? leaves[0] : 0, 5 + rank));
      if (k == 1 && rank == 0)
        for (PetscInt p = 0; p < nroots; p++)
          if (degree[p] > 0) {
            TCHK(mark_closure(dm, l[j], p, 4));
            break;
          }
      if (k == 2 && cEnd > cStart) TCHK(DMLabelSetValue(l[j], cStart, 3));
    }
    TCHK(FEGPlexLabelComplete(dm, l[0]));
    TCHK(DMPlexLabelComplete(dm, l[1]));
    check_same_label(l[0], l[1], what);
    for (PetscInt j = 0; j < 2; j++) TCHK(DMLabelDestroy(&l[j]));
  }
  TCHK(DMDestroy(&dm));
}
END_TEST

/* FEGDMAddBoundary() against DMAddBoundary() on the same box, built twice, each cell type: the builder's "marker"
   (complete) and a label of the boundary faces alone (completed by both), each an essential condition of a P2 field;
   the same completed labels, the same local section with its constraints, the same conditions in the PetscDS */
START_TEST(test_add_boundary)
{
  const DMPolytopeType ct  = fegtest_cells[_i];
  const PetscInt       dim = fegtest_dim(ct), faces[3] = {4, 3, dim == 3 ? 3 : 1}, id = 1;
  DM                   dm[2];
  DMLabel              l[2][2];
  PetscSection         s[2];
  PetscDS              ds[2];
  PetscInt             nb[2];
  PetscBool            same;
  char                 what[64];

  for (PetscInt k = 0; k < 2; k++) {
    TCHK(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, NULL, NULL, 0.1, &dm[k]));
    TCHK(FEGSetUpDiscretization(dm[k], 2, PETSC_TRUE, "u"));
    TCHK(DMCreateLabel(dm[k], "faces"));
    TCHK(DMGetLabel(dm[k], "marker", &l[k][0]));
    TCHK(DMGetLabel(dm[k], "faces", &l[k][1]));
    TCHK(DMPlexMarkBoundaryFaces(dm[k], 1, l[k][1]));
    if (k == 0) {
      TCHK(FEGDMAddBoundary(dm[k], DM_BC_ESSENTIAL, "wall", l[k][0], 1, &id, 0, 0, NULL, (void (*)(void))fegtest_bcfunc, NULL, NULL, NULL));
      TCHK(FEGDMAddBoundary(dm[k], DM_BC_ESSENTIAL, "faces", l[k][1], 1, &id, 0, 0, NULL, (void (*)(void))fegtest_bcfunc, NULL, NULL, NULL));
    } else {
      TCHK(DMAddBoundary(dm[k], DM_BC_ESSENTIAL, "wall", l[k][0], 1, &id, 0, 0, NULL, (void (*)(void))fegtest_bcfunc, NULL, NULL, NULL));
      TCHK(DMAddBoundary(dm[k], DM_BC_ESSENTIAL, "faces", l[k][1], 1, &id, 0, 0, NULL, (void (*)(void))fegtest_bcfunc, NULL, NULL, NULL));
    }
    TCHK(DMGetLocalSection(dm[k], &s[k]));
    TCHK(DMGetDS(dm[k], &ds[k]));
    TCHK(PetscDSGetNumBoundary(ds[k], &nb[k]));
  }
  for (PetscInt j = 0; j < 2; j++) {
    TCHK(PetscSNPrintf(what, sizeof(what), "%s box, label %s", DMPolytopeTypes[ct], j ? "faces" : "marker"));
    check_same_label(l[0][j], l[1][j], what);
  }
  ck_assert_msg(nb[0] == 2 && nb[1] == 2, "%s box: %d and %d conditions, not 2", DMPolytopeTypes[ct], (int)nb[0], (int)nb[1]);
  for (PetscInt b = 0; b < 2; b++) {
    DMBoundaryConditionType type[2];
    DMLabel                 bl[2];
    PetscInt                nv[2], field[2];

    for (PetscInt k = 0; k < 2; k++) TCHK(PetscDSGetBoundary(ds[k], b, NULL, &type[k], NULL, &bl[k], &nv[k], NULL, &field[k], NULL, NULL, NULL, NULL, NULL));
    ck_assert_msg(type[0] == type[1] && bl[0] == l[0][b] && bl[1] == l[1][b] && nv[0] == nv[1] && field[0] == field[1], "%s box: condition %d differs", DMPolytopeTypes[ct], (int)b);
  }
  TCHK(PetscSectionCompare(s[0], s[1], &same));
  ck_assert_msg(same, "%s box: the local sections differ", DMPolytopeTypes[ct]);
  for (PetscInt k = 0; k < 2; k++) TCHK(DMDestroy(&dm[k]));
}
END_TEST

#if defined(PETSC_HAVE_HDF5)
/* A box saved with PETSc's HDF5 viewer on one process and loaded through FEGCreateMeshFromOptions() on every process
   (PETSc's parallel DMLoad(), then fegpu's distribution) against the box itself */
START_TEST(test_hdf5_load_equals_serial)
{
  const PetscInt faces[3] = {4, 3, 3};
  DM             dm, sdm;
  PetscMPIInt    rank;

  TCHK(FEGCreateBoxMesh(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, faces, NULL, NULL, 0.2, &sdm));
  TCHK(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) {
    PetscViewer v;

    TCHK(PetscObjectSetName((PetscObject)sdm, "fegpu"));
    TCHK(PetscViewerHDF5Open(PETSC_COMM_SELF, "distmesh.h5", FILE_MODE_WRITE, &v));
    TCHK(PetscViewerPushFormat(v, PETSC_VIEWER_HDF5_PETSC));
    TCHK(DMView(sdm, v));
    TCHK(PetscViewerPopFormat(v));
    TCHK(PetscViewerDestroy(&v));
  }
  TCHK(MPI_Barrier(PETSC_COMM_WORLD));
  TCHK(PetscOptionsSetValue(NULL, "-h5_feg_mesh_file", "distmesh.h5"));
  TCHK(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "h5_", &dm));
  TCHK(PetscOptionsClearValue(NULL, "-h5_feg_mesh_file"));
  TCHK(DMPlexCheck(dm));
  check_equal(dm, sdm, "tetrahedron box loaded from HDF5");
  TCHK(DMDestroy(&dm));
  TCHK(DMDestroy(&sdm));
}
END_TEST
#else
/* without HDF5 an HDF5 file is refused by name, before PETSc is asked to read it */
START_TEST(test_hdf5_load_equals_serial)
{
  DM             dm = NULL;
  PetscErrorCode ierr;

  TCHK(PetscOptionsSetValue(NULL, "-h5_feg_mesh_file", "distmesh.h5"));
  TCHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "h5_", &dm);
  TCHK(PetscPopErrorHandler());
  TCHK(PetscOptionsClearValue(NULL, "-h5_feg_mesh_file"));
  ck_assert_msg(ierr == PETSC_ERR_SUP, "an HDF5 file without HDF5 gave error %d, not PETSC_ERR_SUP", (int)ierr);
  TCHK(DMDestroy(&dm));
}
END_TEST
#endif

/* the volume of dm's cells through its coordinate map, straight or curved */
static PetscErrorCode volume(DM dm, PetscReal *vol)
{
  PetscInt         dim, cStart, cEnd, nq;
  PetscQuadrature  q;
  DMPolytopeType   ct;
  const PetscReal *w;
  PetscReal        v = 0, *J, *detJ, *x;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetCellType(dm, cStart, &ct));
  if (ct == DM_POLYTOPE_TETRAHEDRON || ct == DM_POLYTOPE_TRIANGLE) PetscCall(PetscDTStroudConicalQuadrature(dim, 1, 5, -1.0, 1.0, &q));
  else PetscCall(PetscDTGaussTensorQuadrature(dim, 1, 5, -1.0, 1.0, &q));
  PetscCall(PetscQuadratureGetData(q, NULL, NULL, &nq, NULL, &w));
  PetscCall(PetscMalloc3(nq * dim, &x, nq * dim * dim, &J, nq, &detJ));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscCall(DMPlexComputeCellGeometryFEM(dm, c, q, x, J, NULL, detJ));
    for (PetscInt k = 0; k < nq; k++) v += w[k] * PetscAbsReal(detJ[k]);
  }
  PetscCall(PetscFree3(x, J, detJ));
  PetscCall(PetscQuadratureDestroy(&q));
  PetscCall(MPIU_Allreduce(&v, vol, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the volume of the file's mesh, refined k times, curved (as read) or straight */
static PetscErrorCode file_volume(const char *file, PetscInt k, PetscBool straight, PetscReal *vol)
{
  DM   dm;
  char val[16];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(val, sizeof(val), "%d", (int)k));
  PetscCall(PetscOptionsSetValue(NULL, "-curv_feg_mesh_file", file));
  PetscCall(PetscOptionsSetValue(NULL, "-curv_dm_refine", val));
  if (straight) PetscCall(PetscOptionsSetValue(NULL, "-dm_plex_gmsh_highorder", "false"));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "curv_", &dm));
  PetscCall(PetscOptionsClearValue(NULL, "-curv_feg_mesh_file"));
  PetscCall(PetscOptionsClearValue(NULL, "-curv_dm_refine"));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_plex_gmsh_highorder"));
  PetscCall(volume(dm, vol));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* _i: 0 a shell of second-order tetrahedra, 1 an annulus of second-order hexahedra */
START_TEST(test_curved_refine_keeps_volume)
{
  const char *file = _i == 0 ? "../share/meshes/shell_tet2.msh" : "../share/meshes/annulus_hex2.msh";
  PetscReal   v0, v2, vs;

  TCHK(file_volume(file, 0, PETSC_FALSE, &v0));
  TCHK(file_volume(file, 2, PETSC_FALSE, &v2));
  TCHK(file_volume(file, 2, PETSC_TRUE, &vs));
  TCHK(PetscPrintf(PETSC_COMM_WORLD, "%s: volume %.15g, refined twice %.15g, straight cells refined twice %.15g\n", file, (double)v0, (double)v2, (double)vs));
  ck_assert_msg(PetscAbsReal(v2 - v0) <= 1e-12 * v0, "%s: refined twice the volume is %.15g, not %.15g", file, (double)v2, (double)v0);
  ck_assert_msg(PetscAbsReal(vs - v0) > 1e-6 * v0, "%s: the straight cells' volume %.15g is that of the curved ones", file, (double)vs);
}
END_TEST

static void add(Suite *s)
{
  TCase *tc = tcase_create("distmesh");

  tcase_add_loop_test(tc, test_box_equals_serial, 0, 20);
  tcase_add_test(tc, test_gmsh_refined_equals_serial);
  tcase_add_loop_test(tc, test_refine_distributed, 0, 13);
  tcase_add_loop_test(tc, test_global_section, 0, 11);
  tcase_add_loop_test(tc, test_global_vector, 0, 5);
  tcase_add_loop_test(tc, test_label_complete_parallel, 0, 5);
  tcase_add_loop_test(tc, test_add_boundary, 0, 5);
  tcase_add_test(tc, test_hdf5_load_equals_serial);
  tcase_add_loop_test(tc, test_curved_refine_keeps_volume, 0, 2);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "distmesh", add);
}
