/* fegpu's PetscPartitioner "metis" (METIS k-way on the cell dual graph): it distributes every cell once, balances them,
   and cuts at most 10% more faces than PETSc's "simple" partitioner and 25% more than PT-Scotch where PETSc has it. The
   edge cut is counted here from the distributed mesh itself: the faces that are leaves of the point SF.
   fegtest: nsize 2 3 */
#include "fegtest.h"
#include <petscsf.h>

/* A mesh distributed with the given partitioner type: a Gmsh square of triangles, or a box of tetrahedra */
static PetscErrorCode distribute(const char *type, PetscBool gmsh, PetscInt *cut, PetscReal *imbalance, PetscInt *ncells)
{
  DM              dm;
  PetscSF         sf;
  PetscInt        fStart, fEnd, cStart, cEnd, nleaves, local, lcut = 0, mx, sum;
  const PetscInt *leaves;
  PetscMPIInt     size;
  const PetscInt  faces[3] = {8, 8, 8};

  PetscFunctionBegin;
  /* the box reads the partitioner type without prefix, the mesh file with the mesh's prefix */
  PetscCall(PetscOptionsSetValue(NULL, gmsh ? "-part_petscpartitioner_type" : "-petscpartitioner_type", type));
  if (gmsh) {
    PetscCall(PetscOptionsSetValue(NULL, "-part_feg_mesh_file", "../share/meshes/square_2128.msh"));
    PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "part_", &dm));
    PetscCall(PetscOptionsClearValue(NULL, "-part_feg_mesh_file"));
  } else PetscCall(FEGCreateBoxMesh(PETSC_COMM_WORLD, DM_POLYTOPE_TETRAHEDRON, faces, NULL, NULL, 0.0, &dm));
  PetscCall(PetscOptionsClearValue(NULL, gmsh ? "-part_petscpartitioner_type" : "-petscpartitioner_type"));
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

/* _i: 0 the Gmsh square (2128 triangles), 1 a box of 3072 tetrahedra */
START_TEST(test_metis_cut)
{
  const PetscBool gmsh = _i == 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscInt        cm, cs, nm, ns;
  PetscReal       im, is;

  TCHK(distribute(FEGPARTITIONERMETIS, gmsh, &cm, &im, &nm));
  TCHK(distribute(PETSCPARTITIONERSIMPLE, gmsh, &cs, &is, &ns));
  TCHK(PetscPrintf(PETSC_COMM_WORLD, "%s: edge cut metis %" PetscInt_FMT " (imbalance %.3f), simple %" PetscInt_FMT " (%.3f)", gmsh ? "square" : "box", cm, (double)im, cs, (double)is));
  ck_assert_msg(nm == ns, "metis distributed %d cells, simple %d", (int)nm, (int)ns);
  ck_assert_msg(im <= 1.05, "metis leaves a part %.3f times the mean", (double)im);
  /* on a box in lexicographic order simple's slabs are close to optimal; METIS must not lose much there */
  ck_assert_msg(cm <= 1.1 * cs, "metis cuts %d faces, PETSc's simple partitioner %d", (int)cm, (int)cs);
#if defined(PETSC_HAVE_PTSCOTCH) /* the type is always registered; it works only when PETSc was built with it */
  {
    PetscInt  cp, np;
    PetscReal ip;

    TCHK(distribute(PETSCPARTITIONERPTSCOTCH, gmsh, &cp, &ip, &np));
    TCHK(PetscPrintf(PETSC_COMM_WORLD, ", ptscotch %" PetscInt_FMT " (%.3f)", cp, (double)ip));
    ck_assert_msg(cm <= 1.25 * cp, "metis cuts %d faces, PT-Scotch %d", (int)cm, (int)cp);
  }
#endif
  TCHK(PetscPrintf(PETSC_COMM_WORLD, "\n"));
}
END_TEST

static void add(Suite *s)
{
  TCase *tc = tcase_create("partition");

  tcase_add_loop_test(tc, test_metis_cut, 0, 2);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "partition", add);
}
