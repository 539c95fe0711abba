/* fegpu's PetscPartitioner "metis" (METIS k-way on the cell dual graph): it distributes every cell once, balances them,
   and cuts at most 10% more faces than PETSc's "simple" partitioner and 25% more than PT-Scotch where PETSc has it. The
   edge cut is counted here from the distributed mesh itself: the faces that are leaves of the point SF.
   Cell orderings (-feg_mesh_reorder metis, sfc) on the Gmsh square in its file order: the vertices of a cell lie at least 3x
   closer in the numbering, the cells that touch a ghost point come last, and cells, vertices and labels are kept (with
   none the mesh keeps PETSc's distribution order: the operators order their elements themselves, test_distmesh).
   fegtest: nsize 2 3 */
#include "fegtest.h"
#include <petscsf.h>

/* A Gmsh mesh distributed with the given partitioner type: a square of triangles, or a shell of tetrahedra */
static PetscErrorCode distribute(const char *type, const char *file, PetscInt *cut, PetscReal *imbalance, PetscInt *ncells)
{
  DM              dm;
  PetscSF         sf;
  PetscInt        fStart, fEnd, cStart, cEnd, nleaves, local, lcut = 0, mx, sum;
  const PetscInt *leaves;
  PetscMPIInt     size;

  PetscFunctionBegin;
  /* the mesh file reads the partitioner type with the mesh's prefix */
  PetscCall(PetscOptionsSetValue(NULL, "-part_petscpartitioner_type", type));
  PetscCall(PetscOptionsSetValue(NULL, "-part_feg_mesh_file", file));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "part_", &dm));
  PetscCall(PetscOptionsClearValue(NULL, "-part_feg_mesh_file"));
  PetscCall(PetscOptionsClearValue(NULL, "-part_petscpartitioner_type"));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetHeightStratum(dm, 1, &fStart, &fEnd));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
  for (PetscInt l = 0; l < nleaves; l++) {
    const PetscInt p = leaves ? leaves[l] : l;

    if (p >= fStart && p < fEnd) lcut++;
  }
  PetscCall(MPIU_Allreduce(&lcut, cut, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  local = cEnd - cStart;
  PetscCall(MPIU_Allreduce(&local, &mx, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(&local, &sum, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  *imbalance = (PetscReal)mx * size / sum;
  *ncells    = sum;
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* _i: 0 the Gmsh square (2128 triangles), 1 the Gmsh shell (246 tetrahedra) */
START_TEST(test_metis_cut)
{
  const char *file = _i == 0 ? "../share/meshes/square_2128.msh" : "../share/meshes/shell_tet2.msh";
  PetscInt    cm, cs, nm, ns;
  PetscReal   im, is;

  TCHK(distribute(FEGPARTITIONERMETIS, file, &cm, &im, &nm));
  TCHK(distribute(PETSCPARTITIONERSIMPLE, file, &cs, &is, &ns));
  TCHK(PetscPrintf(PETSC_COMM_WORLD, "%s: edge cut metis %" PetscInt_FMT " (imbalance %.3f), simple %" PetscInt_FMT " (%.3f)", _i == 0 ? "square" : "shell", cm, (double)im, cs, (double)is));
  ck_assert_msg(nm == ns, "metis distributed %d cells, simple %d", (int)nm, (int)ns);
  ck_assert_msg(im <= 1.05, "metis leaves a part %.3f times the mean", (double)im);
  /* simple's slabs of the file's cell order are a baseline METIS must not lose to */
  ck_assert_msg(cm <= 1.1 * cs, "metis cuts %d faces, PETSc's simple partitioner %d", (int)cm, (int)cs);
#if defined(PETSC_HAVE_PTSCOTCH) /* the type is always registered; it works only when PETSc was built with it */
  {
    PetscInt  cp, np;
    PetscReal ip;

    TCHK(distribute(PETSCPARTITIONERPTSCOTCH, file, &cp, &ip, &np));
    TCHK(PetscPrintf(PETSC_COMM_WORLD, ", ptscotch %" PetscInt_FMT " (%.3f)", cp, (double)ip));
    ck_assert_msg(cm <= 1.25 * cp, "metis cuts %d faces, PT-Scotch %d", (int)cm, (int)cp);
  }
#endif
  TCHK(PetscPrintf(PETSC_COMM_WORLD, "\n"));
}
END_TEST

/* the mean spread of a cell's vertex numbers, cells and vertices in all, boundary marker points, and whether the cells
   that touch a ghost point all come after those that do not */
static PetscErrorCode ordering(FEGReorderType type, PetscReal *spread, PetscInt counts[3], PetscBool *ghostLast)
{
  DM              dm;
  DMLabel         marker;
  PetscSF         sf;
  PetscInt        cStart, cEnd, vStart, vEnd, pStart, pEnd, nleaves, lc[3], sum = 0;
  const PetscInt *leaves;
  PetscBool      *ghost, seen = PETSC_FALSE, last = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-ord_feg_mesh_file", "../share/meshes/square_2128.msh"));
  PetscCall(PetscOptionsSetValue(NULL, "-ord_feg_mesh_reorder", FEGReorderTypes[type]));
  PetscCall(PetscOptionsSetValue(NULL, "-ord_feg_mesh_reorder_part_size", "32"));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "ord_", &dm));
  PetscCall(PetscOptionsClearValue(NULL, "-ord_feg_mesh_file"));
  PetscCall(PetscOptionsClearValue(NULL, "-ord_feg_mesh_reorder"));
  PetscCall(PetscOptionsClearValue(NULL, "-ord_feg_mesh_reorder_part_size"));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(PetscCalloc1(pEnd - pStart, &ghost));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
  for (PetscInt l = 0; l < nleaves; l++) ghost[(leaves ? leaves[l] : l) - pStart] = PETSC_TRUE;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt *cl = NULL, ncl, lo = PETSC_MAX_INT, hi = PETSC_MIN_INT;
    PetscBool g = PETSC_FALSE;

    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt k = 0; k < ncl; k++) {
      const PetscInt q = cl[2 * k];

      g = (PetscBool)(g || ghost[q - pStart]);
      if (q < vStart || q >= vEnd) continue;
      lo = PetscMin(lo, q);
      hi = PetscMax(hi, q);
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    sum += hi - lo;
    if (g) seen = PETSC_TRUE;
    else if (seen) last = PETSC_FALSE;
  }
  PetscCall(DMGetLabel(dm, "marker", &marker));
  lc[0] = cEnd - cStart;
  lc[1] = vEnd - vStart - nleaves; /* owned points are counted once; the leaves here are vertices and faces */
  {
    IS is;

    PetscCall(DMLabelGetStratumIS(marker, 1, &is));
    lc[2] = 0;
    if (is) PetscCall(ISGetLocalSize(is, &lc[2]));
    PetscCall(ISDestroy(&is));
  }
  for (PetscInt l = 0; l < nleaves; l++) {
    const PetscInt q = leaves ? leaves[l] : l;
    PetscInt       v;

    if (q < vStart || q >= vEnd) lc[1]++; /* not a vertex: undo */
    PetscCall(DMLabelGetValue(marker, q, &v));
    if (v == 1) lc[2]--;
  }
  PetscCall(MPIU_Allreduce(lc, counts, 3, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(&sum, &lc[0], 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  *spread = (PetscReal)lc[0] / counts[0];
  PetscCall(MPIU_Allreduce(&last, ghostLast, 1, MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscCall(PetscFree(ghost));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* _i: 1 metis, 2 sfc, against the file order */
START_TEST(test_reorder)
{
  const FEGReorderType type = (FEGReorderType)(_i + 1);
  PetscReal            s0, s1;
  PetscInt             n0[3], n1[3];
  PetscBool            last0, last1; /* last0: PETSc's order, not renumbered, so either */

  TCHK(ordering(FEG_REORDER_NONE, &s0, n0, &last0));
  TCHK(ordering(type, &s1, n1, &last1));
  TCHK(PetscPrintf(PETSC_COMM_WORLD, "square, mean vertex spread of a cell: file order %.1f, %s %.1f\n", (double)s0, FEGReorderTypes[type], (double)s1));
  ck_assert_msg(s1 * 3.0 <= s0, "%s: spread %g, file order %g", FEGReorderTypes[type], (double)s1, (double)s0);
  ck_assert_msg(last1, "%s: a cell that touches a ghost point comes before one that does not", FEGReorderTypes[type]);
  for (int k = 0; k < 3; k++) ck_assert_msg(n0[k] == n1[k], "%s changed count %d: %d, file order %d", FEGReorderTypes[type], k, (int)n1[k], (int)n0[k]);
}
END_TEST

static void add(Suite *s)
{
  TCase *tc = tcase_create("partition");

  tcase_add_loop_test(tc, test_metis_cut, 0, 2);
  tcase_add_loop_test(tc, test_reorder, 0, 2);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "partition", add);
}
