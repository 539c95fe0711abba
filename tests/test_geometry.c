/* matfree sum factorisation with the geometry computed in the kernel from the cells' coordinate nodes
   (-feg_op_matfree_geometry computed) against the stored geometry: products, transposed products and diagonals to
   1e-12 relative, and CG iterates to 1e-12, on perturbed, Kershaw-deformed and curved (second-order) quadrilaterals and
   hexahedra, for every pair set (non-symmetric, symmetric with value-gradient terms, mass and anisotropic diffusion,
   diffusion, the Laplacian, mass). Where it cannot be used it is refused by name. Kershaw's transformation keeps the
   box's boundary and is the identity at eps = 1.
   tests/meshes/annulus_quad2.msh: 3 x 4 second-order quadrilaterals of a quarter annulus (1 < r < 2), nodes on the
   circles.
   fegtest: nsize 1 2 */
#include "fegtest.h"

enum {
  MESH_PERTURBED,
  MESH_KERSHAW,
  MESH_CURVED,
  NMESHES
};
static const char *mesh_names[NMESHES] = {"perturbed", "Kershaw", "curved"};

/* the forms of every pair set, and the Laplacian (the kernels' shortcut for C a multiple of the identity) */
static const test_form geo_forms[] = {FORM_CONSTANT, FORM_SYMMETRIC, FORM_MASSSTIFF, FORM_POISSON, FORM_MASS, FORM_LAPLACE};

static PetscErrorCode geo_mesh(DMPolytopeType ct, int mesh, PetscInt order, PetscBool bc, DM *dm)
{
  PetscFunctionBegin;
  if (mesh == MESH_CURVED) {
    char path[PETSC_MAX_PATH_LEN];

    PetscCall(PetscSNPrintf(path, sizeof(path), ct == DM_POLYTOPE_HEXAHEDRON ? "../share/meshes/annulus_hex2.msh" : "meshes/annulus_quad2.msh"));
    PetscCall(PetscOptionsSetValue(NULL, "-geo_feg_mesh_file", path));
    PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "geo_", dm));
    PetscCall(PetscOptionsClearValue(NULL, "-geo_feg_mesh_file"));
    PetscCall(FEGSetUpDiscretization(*dm, order, PETSC_TRUE, "u"));
    if (bc) PetscCall(fegtest_wall(*dm, fegtest_bcfunc));
  } else {
    PetscInt faces[3];

    faces[0] = faces[1] = faces[2] = fegtest_faces(order, bc, 3);
    PetscCall(FEGCreateBoxMesh(PETSC_COMM_WORLD, ct, faces, NULL, NULL, mesh == MESH_PERTURBED ? 0.2 : 0.0, dm));
    if (mesh == MESH_KERSHAW) PetscCall(FEGMeshKershaw(*dm, 0.3));
    PetscCall(FEGSetUpDiscretization(*dm, order, PETSC_TRUE, "u"));
    if (bc) PetscCall(fegtest_wall(*dm, fegtest_bcfunc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stored (g = 0) and computed (g = 1) operators of one form on one mesh: their products, transposed products
   (plain and added) and diagonals, the largest relative difference; and the view of the computed one */
static PetscErrorCode compare_geometry(DMPolytopeType ct, int mesh, PetscInt order, test_form kind, PetscReal *err, char *view, size_t len)
{
  const char *geo[2] = {"stored", "computed"};
  DM          dm, aux;
  Vec         ax, x, z;
  FEGForm     form;
  Mat         A[2];
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(geo_mesh(ct, mesh, order, fegtest_walls(PETSC_TRUE, order), &dm));
  PetscCall(fegtest_make_form(dm, kind, &aux, &ax, &form));
  for (int g = 0; g < 2; g++) {
    PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_geometry", geo[g]));
    PetscCall(fegtest_operator(dm, form, FEGOPMATFREE, &A[g]));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_geometry"));
  PetscCall(MatCreateVecs(A[0], &x, NULL));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(z, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  {
    Vec xs[2] = {x, x}, zs[2] = {z, z};

    PetscCall(fegtest_opdiff(A, xs, zs, err));
  }
  if (view) PetscCall(fegtest_view_text(A[1], view, len));
  for (int g = 0; g < 2; g++) PetscCall(MatDestroy(&A[g]));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&ax));
  PetscCall(DMDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* computed equals stored for every form, on quadrilaterals (orders 1-4) and hexahedra (1-3) of the three meshes; the
   view says the geometry is computed, from how many nodes */
START_TEST(test_geometry_computed)
{
  const DMPolytopeType ct    = _i / 12 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const int            mesh  = (_i / 4) % 3;
  const PetscInt       order = 1 + _i % 4;
  char                 view[4096], want[64];

  if (ct == DM_POLYTOPE_HEXAHEDRON && order == 4) return;
  snprintf(want, sizeof(want), "from each cell's %d coordinate nodes", (int)(mesh == MESH_CURVED ? (ct == DM_POLYTOPE_HEXAHEDRON ? 27 : 9) : (ct == DM_POLYTOPE_HEXAHEDRON ? 8 : 4)));
  for (size_t f = 0; f < sizeof(geo_forms) / sizeof(geo_forms[0]); f++) {
    PetscReal err;

    TCHK(compare_geometry(ct, mesh, order, geo_forms[f], &err, view, sizeof(view)));
    ck_assert_msg(err < 1e-12, "%s Q%d, %s mesh, form %d: computed geometry differs from stored by %g", DMPolytopeTypes[ct], (int)order, mesh_names[mesh], (int)geo_forms[f], (double)err);
    ck_assert_msg(strstr(view, "matfree geometry: computed") && strstr(view, want), "%s Q%d, %s mesh: the view does not say the geometry is computed %s:\n%s", DMPolytopeTypes[ct], (int)order, mesh_names[mesh], want, view);
    if (geo_forms[f] == FORM_LAPLACE) ck_assert_msg(strstr(view, "C a multiple of the identity") != NULL, "the Laplacian did not take the identity shortcut:\n%s", view);
    if (geo_forms[f] == FORM_POISSON) ck_assert_msg(strstr(view, "C a multiple of the identity") == NULL, "anisotropic diffusion took the identity shortcut:\n%s", view);
  }
}
END_TEST

/* 20 CG iterations (Jacobi from each operator's own diagonal) on the Laplacian of a Kershaw-deformed box and of the
   curved annulus: the iterates of the two geometries agree to 1e-12 */
START_TEST(test_geometry_iterates)
{
  const DMPolytopeType ct     = _i % 2 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const int            mesh   = _i / 2 ? MESH_CURVED : MESH_KERSHAW;
  const PetscInt       order  = ct == DM_POLYTOPE_HEXAHEDRON ? 3 : 4;
  const char          *geo[2] = {"stored", "computed"};
  DM                   dm, aux;
  Vec                  ax, b, u[2];
  FEGForm              form;
  PetscReal            err;

  TCHK(geo_mesh(ct, mesh, order, PETSC_TRUE, &dm));
  TCHK(fegtest_make_form(dm, FORM_LAPLACE, &aux, &ax, &form));
  for (int g = 0; g < 2; g++) {
    Mat A;

    TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_geometry", geo[g]));
    TCHK(fegtest_operator(dm, form, FEGOPMATFREE, &A));
    TCHK(MatCreateVecs(A, &u[g], g ? NULL : &b));
    if (!g) TCHK(FEGComputeRHS(dm, form, b));
    TCHK(fegtest_cg_iterates(A, b, 20, u[g]));
    TCHK(MatDestroy(&A));
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_geometry"));
  TCHK(fegtest_vecdiff(u[1], u[0], &err));
  ck_assert_msg(err < 1e-12, "%s Q%d, %s mesh: 20 CG iterates with computed geometry differ from stored by %g", DMPolytopeTypes[ct], (int)order, mesh_names[mesh], (double)err);
  TCHK(VecDestroy(&u[0]));
  TCHK(VecDestroy(&u[1]));
  TCHK(VecDestroy(&b));
  TCHK(VecDestroy(&ax));
  TCHK(DMDestroy(&aux));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* computed geometry where it cannot be: a coefficient that varies, a kernel other than sumfact, simplices; each
   refused at assembly with the reason; auto on the host keeps it stored */
START_TEST(test_geometry_refused)
{
  DM      dm, aux;
  Vec     ax;
  FEGForm form;
  Mat     A;
  char    view[4096];

  TCHK(geo_mesh(DM_POLYTOPE_HEXAHEDRON, MESH_KERSHAW, 2, PETSC_FALSE, &dm));
  TCHK(fegtest_make_form(dm, FORM_POINTWISE, &aux, &ax, &form));
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_geometry", "computed"));
  EXPECT_ERROR(fegtest_operator(dm, form, FEGOPMATFREE, &A), PETSC_ERR_SUP, "-feg_op_matfree_geometry computed cannot be used: the coefficient is not the same everywhere");
  TCHK(VecDestroy(&ax));
  TCHK(DMDestroy(&aux));
  TCHK(FEGFormDestroy(&form));
  TCHK(fegtest_make_form(dm, FORM_LAPLACE, &aux, &ax, &form));
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_kernel", "qp"));
  EXPECT_ERROR(fegtest_operator(dm, form, FEGOPMATFREE, &A), PETSC_ERR_SUP, "-feg_op_matfree_geometry computed needs the sumfact kernel (quadrilaterals, hexahedra), not qp");
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_kernel"));
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_geometry"));
  TCHK(fegtest_operator(dm, form, FEGOPMATFREE, &A));
  TCHK(fegtest_view_text(A, view, sizeof(view)));
  ck_assert_msg(strstr(view, "matfree geometry: stored (auto on the host)") != NULL, "auto on the host should keep the geometry stored:\n%s", view);
  TCHK(MatDestroy(&A));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
  TCHK(fegtest_setup(PETSC_COMM_WORLD, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  TCHK(fegtest_make_form(dm, FORM_LAPLACE, &aux, &ax, &form));
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_geometry", "computed"));
  EXPECT_ERROR(fegtest_operator(dm, form, FEGOPMATFREE, &A), PETSC_ERR_SUP, "needs the sumfact kernel (quadrilaterals, hexahedra), not refop");
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_geometry"));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* Kershaw's transformation: eps = 1 leaves every coordinate, eps = 0.3 keeps the box's corners and faces (the
   bounding box) and moves interior vertices; eps outside (0, 1] and a 1-D mesh are refused */
START_TEST(test_geometry_kershaw)
{
  const PetscInt faces[3] = {6, 3, 3};
  DM             dm;
  Vec            c, c0;
  PetscReal      lo[3], hi[3], diff[2];

  /* each against its own coordinates before (two box meshes need not be distributed alike) */
  TCHK(FEGCreateBoxMesh(PETSC_COMM_WORLD, DM_POLYTOPE_HEXAHEDRON, faces, NULL, NULL, 0.0, &dm));
  for (int k = 0; k < 2; k++) {
    TCHK(DMGetCoordinates(dm, &c));
    TCHK(VecDuplicate(c, &c0));
    TCHK(VecCopy(c, c0));
    TCHK(FEGMeshKershaw(dm, k ? 0.3 : 1.0));
    TCHK(DMGetCoordinates(dm, &c));
    TCHK(VecAXPY(c0, -1.0, c));
    TCHK(VecNorm(c0, NORM_INFINITY, &diff[k]));
    TCHK(VecDestroy(&c0));
  }
  ck_assert_msg(diff[0] < 1e-15, "Kershaw with eps = 1 moved a vertex by %g", (double)diff[0]);
  ck_assert_msg(diff[1] > 0.05, "Kershaw with eps = 0.3 moved no vertex by more than %g", (double)diff[1]);
  TCHK(DMGetBoundingBox(dm, lo, hi));
  for (int d = 0; d < 3; d++) ck_assert_msg(PetscAbsReal(lo[d]) < 1e-14 && PetscAbsReal(hi[d] - 1.0) < 1e-14, "Kershaw moved the box: [%g, %g] in direction %d", (double)lo[d], (double)hi[d], d);
  EXPECT_ERROR(FEGMeshKershaw(dm, 0.0), PETSC_ERR_ARG_OUTOFRANGE, "is out of range: allowed is (0, 1] (1: no deformation");
  EXPECT_ERROR(FEGMeshKershaw(dm, 1.5), PETSC_ERR_ARG_OUTOFRANGE, "Kershaw's eps 1.5 is out of range");
  TCHK(DMDestroy(&dm));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc = tcase_create("geometry");

  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_geometry_computed, 0, 24);
  tcase_add_loop_test(tc, test_geometry_iterates, 0, 4);
  tcase_add_test(tc, test_geometry_refused);
  tcase_add_test(tc, test_geometry_kershaw);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "geometry", add_tests);
}
