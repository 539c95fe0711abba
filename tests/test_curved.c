/* Curved (second-order) meshes from Gmsh files, read through FEGCreateMeshFromOptions():
   - the geometry agrees with the fields' closures (PETSc's reader orders the nodes of high-order tetrahedra by Gmsh's
     vertex list, so without fegpu's repair every field is evaluated at rotated points),
   - every operator type and the right-hand side equal PETSc's own DMPlex FEM assembly on curved tetrahedra and hexahedra,
   - a manufactured solution solved by fegpu equals PETSc's own solve of the same problem and converges with the order,
   - second-order prisms, which PETSc's reader cannot represent, are refused with a message saying so. */
#include "fegtest.h"

static const PetscScalar Csym[16] = {1.0, 0, 0, 0, 0, 1.0, 0.3, 0.1, 0, 0.3, 2.0, 0.2, 0, 0.1, 0.2, 1.5};

/* Reads ../share/meshes/<name> with fegpu, a Lagrange field of the order, optionally an essential condition */
static PetscErrorCode mesh_from_file(const char *name, PetscInt order, fegtest_fn bc, DM *dm)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, sizeof(path), "../share/meshes/%s", name));
  PetscCall(PetscOptionsSetValue(NULL, "-curved_feg_mesh_file", path));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, "curved_", dm));
  PetscCall(PetscOptionsClearValue(NULL, "-curved_feg_mesh_file"));
  PetscCall(FEGSetUpDiscretization(*dm, order, PETSC_TRUE, "u"));
  if (bc) PetscCall(fegtest_wall(*dm, bc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode quadratic(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = x[0] * x[0] + 2.0 * x[1] * x[1] + 3.0 * x[2] * x[2] + x[0] * x[1] - x[2];
  return PETSC_SUCCESS;
}

/* Straight-edged second-order tetrahedra: P2 fields hold a quadratic exactly, which needs the coordinate map to
   parametrise each cell with its vertices in the closure's order (PETSc alone gives an L2 error of about 0.1 here) */
START_TEST(test_p2_geometry_matches_closure)
{
  DM        dm;
  Vec       u;
  PetscReal err;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {quadratic};

  TCHK(mesh_from_file("box_tet2.msh", 2, NULL, &dm));
  TCHK(DMCreateGlobalVector(dm, &u));
  TCHK(DMProjectFunction(dm, 0.0, funcs, NULL, INSERT_ALL_VALUES, u));
  TCHK(DMComputeL2Diff(dm, 0.0, funcs, NULL, u, &err));
  ck_assert_msg(err < 1e-12, "P2 interpolation of a quadratic on straight second-order tetrahedra has L2 error %g", (double)err);
  TCHK(VecDestroy(&u));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* y = A x for a fixed x, compared with PETSc's J x */
static PetscErrorCode action_diff(Mat A, Mat J, PetscReal *rel)
{
  Vec x, y, z;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(J, &x, &y));
  PetscCall(VecDuplicate(y, &z));
  {
    PetscInt     lo, hi;
    PetscScalar *a;

    PetscCall(VecGetOwnershipRange(x, &lo, &hi));
    PetscCall(VecGetArray(x, &a));
    for (PetscInt i = lo; i < hi; i++) a[i - lo] = PetscSinReal(0.37 * (PetscReal)i + 0.1);
    PetscCall(VecRestoreArray(x, &a));
  }
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(J, x, z));
  PetscCall(fegtest_vecdiff(y, z, rel));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* _i: mesh (curved tetrahedra, curved hexahedra), then order 1..3 */
START_TEST(test_curved_oracle)
{
  const char *mesh     = _i / 3 ? "annulus_hex2.msh" : "shell_tet2.msh";
  PetscInt    order    = _i % 3 + 1;
  const char *types[3] = {FEGOPADDTO, FEGOPLMA, FEGOPMATFREE};
  DM          dm, auxdm;
  Vec         aux, F, b;
  FEGForm     form;
  Mat         J;
  PetscReal   rel;

  /* the coarse shell has no interior vertex: at order 1 an essential condition would leave no unknowns */
  TCHK(mesh_from_file(mesh, order, order > 1 ? fegtest_bcfunc : NULL, &dm));
  TCHK(fegtest_aux(dm, &auxdm, &aux));
  TCHK(fegtest_form(PETSC_COMM_WORLD, auxdm, aux, PETSC_TRUE, &form));
  TCHK(fegtest_oracle(dm, auxdm, aux, PETSC_TRUE, &J, &F));
  for (int t = 0; t < 3; t++) {
    Mat A;

    TCHK(fegtest_operator(dm, form, types[t], &A));
    if (t == 0) {
      TCHK(fegtest_matdiff(A, J, &rel));
      ck_assert_msg(rel < 1e-12, "%s P%d: %s matrix differs from PETSc's by %g (relative, Frobenius)", mesh, (int)order, types[t], (double)rel);
    }
    TCHK(action_diff(A, J, &rel));
    ck_assert_msg(rel < 1e-12, "%s P%d: %s action differs from PETSc's by %g (relative)", mesh, (int)order, types[t], (double)rel);
    TCHK(MatDestroy(&A));
  }
  TCHK(DMCreateGlobalVector(dm, &b));
  TCHK(FEGComputeRHS(dm, form, b));
  TCHK(VecScale(F, -1.0));
  TCHK(fegtest_vecdiff(b, F, &rel));
  ck_assert_msg(rel < 1e-12, "%s P%d: right-hand side differs from PETSc's by %g (relative)", mesh, (int)order, (double)rel);
  TCHK(VecDestroy(&b));
  TCHK(VecDestroy(&F));
  TCHK(MatDestroy(&J));
  TCHK(VecDestroy(&aux));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&auxdm));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* -div(K grad u) + u = f with K from Csym and fegtest_exact's u */
static PetscScalar mms_source(PetscInt dim, const PetscReal x[])
{
  return fegtest_source(dim, Csym, x);
}

static PetscErrorCode feg_source(PetscInt dim, PetscInt Nw, const PetscReal x[], const PetscScalar w[], const PetscScalar gradw[], PetscScalar C[], PetscScalar D[], void *ctx)
{
  D[0] = mms_source(dim, x);
  return PETSC_SUCCESS;
}

/* PETSc's pointwise functions of the same problem: F(u) = int (u - f) v + K grad u . grad v */
static void mms_f0(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f0[])
{
  f0[0] = Csym[0] * u[0] - mms_source(dim, x);
}

static void mms_f1(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f1[])
{
  for (PetscInt j = 0; j < dim; j++) {
    f1[j] = 0;
    for (PetscInt i = 0; i < dim; i++) f1[j] += Csym[(i + 1) * 4 + j + 1] * u_x[i];
  }
}

static void mms_g0(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = Csym[0];
}

static void mms_g3(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt i = 0; i < dim; i++)
    for (PetscInt j = 0; j < dim; j++) g3[j * dim + i] = Csym[(i + 1) * 4 + j + 1];
}

/* fegpu's solve (FEGDMSetForm, CG) and PETSc's (SNES on its own FEM residual and Jacobian) of the same problem */
static PetscErrorCode solve_both(PetscInt order, PetscReal *efeg, PetscReal *epetsc, PetscReal *diff)
{
  DM      dm, dmp;
  FEGForm form;
  KSP     ksp;
  SNES    snes;
  Vec     u, up;
  PetscDS ds;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fegtest_exact};

  PetscFunctionBegin;
  PetscCall(mesh_from_file("shell_tet2.msh", order, fegtest_exact, &dm));
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, Csym, NULL));
  PetscCall(FEGFormSetPointwiseCoefficient(form, feg_source, NULL));
  PetscCall(FEGDMSetForm(dm, form));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-13, 1e-50, PETSC_DEFAULT, 5000));
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(KSPGetSolution(ksp, &u));
  PetscCall(DMComputeL2Diff(dm, 0.0, funcs, NULL, u, efeg));

  PetscCall(mesh_from_file("shell_tet2.msh", order, fegtest_exact, &dmp));
  PetscCall(DMGetDS(dmp, &ds));
  PetscCall(PetscDSSetResidual(ds, 0, mms_f0, mms_f1));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, mms_g0, NULL, NULL, mms_g3));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetDM(snes, dmp));
  PetscCall(DMSNESSetBoundaryLocal(dmp, DMPlexSNESComputeBoundaryFEM, NULL));
  PetscCall(DMSNESSetFunctionLocal(dmp, (PetscErrorCode(*)(DM, Vec, Vec, void *))DMPlexSNESComputeResidualFEM, NULL));
  PetscCall(DMSNESSetJacobianLocal(dmp, (PetscErrorCode(*)(DM, Vec, Mat, Mat, void *))DMPlexSNESComputeJacobianFEM, NULL));
  PetscCall(SNESSetType(snes, SNESKSPONLY));
  {
    KSP pksp;
    PC  pc;

    PetscCall(SNESGetKSP(snes, &pksp));
    PetscCall(KSPSetType(pksp, KSPPREONLY));
    PetscCall(KSPGetPC(pksp, &pc));
    PetscCall(PCSetType(pc, PCLU));
  }
  PetscCall(DMCreateGlobalVector(dmp, &up));
  PetscCall(VecZeroEntries(up));
  PetscCall(SNESSolve(snes, NULL, up));
  PetscCall(DMComputeL2Diff(dmp, 0.0, funcs, NULL, up, epetsc));
  PetscCall(fegtest_vecdiff(u, up, diff));

  PetscCall(VecDestroy(&up));
  PetscCall(SNESDestroy(&snes));
  PetscCall(DMDestroy(&dmp));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_curved_convergence)
{
  PetscReal efeg[3], epetsc[3], diff;

  for (PetscInt p = 1; p <= 3; p++) {
    TCHK(solve_both(p, &efeg[p - 1], &epetsc[p - 1], &diff));
    ck_assert_msg(diff < 1e-9, "curved tetrahedra P%d: fegpu's solution differs from PETSc's by %g (relative)", (int)p, (double)diff);
    ck_assert_msg(PetscAbsReal(efeg[p - 1] - epetsc[p - 1]) <= 1e-6 * epetsc[p - 1], "curved tetrahedra P%d: L2 error %g, PETSc's %g", (int)p, (double)efeg[p - 1], (double)epetsc[p - 1]);
  }
  /* the same mesh at orders 1, 2, 3 (h about 0.45): each order gains at least a factor 5 (measured: 7.4 and 10.4) */
  ck_assert_msg(efeg[1] < efeg[0] / 5 && efeg[2] < efeg[1] / 5, "curved tetrahedra: L2 errors %g %g %g do not fall with the order", (double)efeg[0], (double)efeg[1], (double)efeg[2]);
}
END_TEST

START_TEST(test_p2_prisms_refused)
{
  DM             dm  = NULL;
  fegtest_err    err = {"", 0};
  PetscErrorCode e;

  TCHK(PetscPushErrorHandler(fegtest_errhandler, &err));
  e = mesh_from_file("prism2.msh", 1, NULL, &dm);
  TCHK(PetscPopErrorHandler());
  TCHK(PetscOptionsClearValue(NULL, "-curved_feg_mesh_file"));
  ck_assert_msg(e == PETSC_ERR_SUP, "reading second-order prisms returned %d (message: %s)", (int)e, err.msg);
  ck_assert_msg(strstr(err.msg, "coordinate space, which cannot represent them; read the file with straight cells (-dm_plex_gmsh_highorder false)"), "message: %s", err.msg);
  /* the advice works */
  TCHK(PetscOptionsSetValue(NULL, "-dm_plex_gmsh_highorder", "false"));
  TCHK(mesh_from_file("prism2.msh", 1, NULL, &dm));
  TCHK(PetscOptionsClearValue(NULL, "-dm_plex_gmsh_highorder"));
  TCHK(DMDestroy(&dm));
}
END_TEST

static void add(Suite *s)
{
  TCase *tc = tcase_create("curved");

  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_p2_geometry_matches_closure);
  tcase_add_loop_test(tc, test_curved_oracle, 0, 6);
  tcase_add_test(tc, test_curved_convergence);
  tcase_add_test(tc, test_p2_prisms_refused);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "curved", add);
}
