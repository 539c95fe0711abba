/* An application registers an operator type of its own with FEGOpRegister(), written against fegpu's private API
   (<fegpu/private/fegopimpl.h>): element matrices kept element by element and applied through the element-local
   shell. Selected with -feg_op_type through a DM and a KSP, it solves the same problem as the assembled operator.
   fegtest: nsize 1 2 */
#include <stdio.h>
#include <stdlib.h>
#include "fegtest.h"
#include <fegpu/private/fegopimpl.h>

/* ------------------------------------------------------------------------------------ the application's type */
typedef struct {
  PetscScalar *Ke;
  PetscInt     applies;
} MyOp;

static PetscErrorCode MySetUp(FEGOp op)
{
  MyOp *my = (MyOp *)op->data;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1((size_t)op->disc->Ne * op->disc->Nb * op->disc->Nb, &my->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MyAssemble(FEGOp op, Mat A)
{
  PetscFunctionBegin;
  PetscCall(FEGOpElementMatrices(op, ((MyOp *)op->data)->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MyElemApply(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const PetscInt     Nb = op->disc->Nb;
  const PetscScalar *K  = &((MyOp *)op->data)->Ke[(size_t)e * Nb * Nb];

  PetscFunctionBegin;
  for (PetscInt a = 0; a < Nb; a++) {
    ye[a] = 0.0;
    for (PetscInt b = 0; b < Nb; b++) ye[a] += (transpose ? K[b * Nb + a] : K[a * Nb + b]) * xe[b];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MyElemDiag(FEGOp op, PetscInt e, PetscScalar de[])
{
  const PetscInt     Nb = op->disc->Nb;
  const PetscScalar *K  = &((MyOp *)op->data)->Ke[(size_t)e * Nb * Nb];

  PetscFunctionBegin;
  for (PetscInt a = 0; a < Nb; a++) de[a] = K[a * Nb + a];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MyApply(FEGOp op, Vec x, Vec y, PetscBool add)
{
  PetscFunctionBegin;
  ((MyOp *)op->data)->applies++;
  PetscCall(FEGOpApplyElementLocal(op, MyElemApply, x, y, PETSC_FALSE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MyDiagonal(FEGOp op, Vec d)
{
  PetscFunctionBegin;
  PetscCall(FEGOpDiagonalElementLocal(op, MyElemDiag, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MyView(FEGOp op, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "my operator: %" PetscInt_FMT " applications\n", ((MyOp *)op->data)->applies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MyDestroy(FEGOp op)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(((MyOp *)op->data)->Ke));
  PetscCall(PetscFree(op->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MyCreate(FEGOp op)
{
  MyOp *my;

  PetscFunctionBegin;
  PetscCall(PetscNew(&my));
  op->data             = my;
  op->ops->setup       = MySetUp;
  op->ops->assemble    = MyAssemble;
  op->ops->apply       = MyApply;
  op->ops->getdiagonal = MyDiagonal;
  op->ops->view        = MyView;
  op->ops->destroy     = MyDestroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------- tests */
/* the solution and CG iterations with the DM's operator of type (from -feg_op_type through the form's prefix),
   and the type the operator got */
static PetscErrorCode solve(DM dm, const char *type, Vec *sol, PetscInt *its, char *used, size_t len)
{
  KSP       ksp;
  Mat       A;
  FEGOpType t;

  PetscFunctionBegin;
  PetscCall(fegtest_dm_solve(dm, "my_", type, NULL, PCJACOBI, sol, &ksp));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(FEGOperatorGetType(A, &t));
  PetscCall(PetscStrncpy(used, t, len));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_registered_type_solves)
{
  const DMPolytopeType ct = _i ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  DM                   dm;
  Vec                  xa, xm;
  PetscInt             ia, im;
  PetscReal            err = PETSC_MAX_REAL; /* set by fegtest_vecdiff; quiets -Wmaybe-uninitialized */
  char                 ta[64], tm[64];

  TCHK(FEGOpRegister("mylma", MyCreate));
  TCHK(fegtest_setup(PETSC_COMM_WORLD, ct, 2, PETSC_TRUE, PETSC_TRUE, 4, &dm));
  TCHK(solve(dm, FEGOPADDTO, &xa, &ia, ta, sizeof(ta)));
  TCHK(solve(dm, "mylma", &xm, &im, tm, sizeof(tm)));
  ck_assert_msg(!strcmp(tm, "mylma") && !strcmp(ta, FEGOPADDTO), "operators of types %s and %s, expected mylma and addto", tm, ta);
  TCHK(fegtest_vecdiff(xm, xa, &err));
  ck_assert_msg(err < 1e-10, "%s: the registered type's solution differs from addto's by %g", DMPolytopeTypes[ct], (double)err);
  ck_assert_msg(im == ia, "%s: CG took %d iterations with the registered type, %d with addto", DMPolytopeTypes[ct], (int)im, (int)ia);
  TCHK(VecDestroy(&xa));
  TCHK(VecDestroy(&xm));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* the type's own view is part of FEGOpView(), and the operator it makes is a shell calling its apply */
START_TEST(test_registered_type_object)
{
  DM          dm;
  FEGForm     form;
  FEGOp       op;
  Mat         A;
  Vec         x, y;
  PetscViewer viewer;
  char       *out = NULL;
  size_t      len = 0;
  FILE       *f;
  PetscMPIInt rank;
  MyOp       *my;

  TCHK(FEGOpRegister("mylma", MyCreate));
  TCHK(fegtest_setup(PETSC_COMM_WORLD, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 3, &dm));
  TCHK(fegtest_form(PETSC_COMM_WORLD, NULL, NULL, PETSC_FALSE, &form));
  TCHK(FEGOpCreate(PETSC_COMM_WORLD, &op));
  TCHK(FEGOpSetDM(op, dm));
  TCHK(FEGOpSetForm(op, form));
  TCHK(FEGOpSetType(op, "mylma"));
  TCHK(FEGOpCreateMat(op, &A));
  TCHK(MatCreateVecs(A, &x, &y));
  TCHK(VecSet(x, 1.0));
  TCHK(MatMult(A, x, y));
  TCHK(MatMult(A, x, y));
  my = (MyOp *)op->data;
  ck_assert_int_eq((int)my->applies, 2);
  f = open_memstream(&out, &len);
  ck_assert(f != NULL);
  TCHK(PetscViewerASCIIOpenWithFILE(PETSC_COMM_WORLD, f, &viewer));
  TCHK(FEGOpView(op, viewer));
  TCHK(PetscViewerDestroy(&viewer));
  fclose(f);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (!rank) ck_assert_msg(strstr(out, "type: mylma") && strstr(out, "my operator: 2 applications") && !strstr(out, "setup phases"), "view of the registered type: %s", out);
  free(out);
  /* the detailed view adds the setup phases (wall times, so not in the plain view that example outputs are diffed on) */
  out = NULL;
  f   = open_memstream(&out, &len);
  ck_assert(f != NULL);
  TCHK(PetscViewerASCIIOpenWithFILE(PETSC_COMM_WORLD, f, &viewer));
  TCHK(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO_DETAIL));
  TCHK(FEGOpView(op, viewer));
  TCHK(PetscViewerPopFormat(viewer));
  TCHK(PetscViewerDestroy(&viewer));
  fclose(f);
  if (!rank) ck_assert_msg(strstr(out, "setup phases (s, slowest process): dof map ") && strstr(out, "matrix pattern "), "detailed view: %s", out);
  free(out);
  TCHK(VecDestroy(&x));
  TCHK(VecDestroy(&y));
  TCHK(MatDestroy(&A));
  TCHK(FEGOpDestroy(&op));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* an operator made with the options PREFIX and the options VALUES (name, value pairs, NULL-terminated), set from
   options; the options are cleared again */
static PetscErrorCode op_from_options(DM dm, FEGForm form, const char *prefix, const char *const values[], FEGOp *op)
{
  char name[128];

  PetscFunctionBegin;
  for (PetscInt i = 0; values[i]; i += 2) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix, values[i] + 1));
    PetscCall(PetscOptionsSetValue(NULL, name, values[i + 1]));
  }
  PetscCall(FEGOpCreate(PetscObjectComm((PetscObject)dm), op));
  PetscCall(FEGOpSetDM(*op, dm));
  PetscCall(FEGOpSetForm(*op, form));
  PetscCall(FEGOpSetOptionsPrefix(*op, prefix));
  PetscCall(FEGOpSetFromOptions(*op));
  for (PetscInt i = 0; values[i]; i += 2) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix, values[i] + 1));
    PetscCall(PetscOptionsClearValue(NULL, name));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every type's setting has a setter and a getter that agree; the options set the same through the operator's prefix,
   under their names and under the names before fegpu 0.3 (deprecated); another type's setter is ignored, its getter
   refused */
START_TEST(test_options)
{
  DM                   dm, box;
  FEGForm              form;
  FEGOp                op;
  PetscBool            flg, set, tg;
  FEGScatter           sc;
  FEGMatFreeKernel     k;
  FEGAddToMode         mode;
  FEGIntegrationKernel ik;
  FEGOpType            t;
  PetscInt             n, ne, nb, nr, cStart, cEnd, cells;
  const char *const    lma[]    = {"-feg_op_type", "lma", "-feg_op_lma_symmetric", "false", "-feg_op_lma_tiles", "true", "-feg_op_scatter", "gather", NULL};
  const char *const    lmaold[] = {"-feg_strategy", "lma", "-feg_lma_symmetric", "false", "-feg_lma_tiles", "true", "-feg_lma_scatter", "gather", NULL};
  const char *const    mf[]     = {"-feg_op_type", "matfree", "-feg_op_matfree_kernel", "qp", "-feg_op_matfree_factored", "false", "-feg_op_matfree_ne", "2", "-feg_op_matfree_gemm_mb", "24", NULL};
  const char *const    mfold[]  = {"-feg_strategy", "matfree", "-feg_matfree_kernel", "qp", "-feg_matfree_factored", "false", "-feg_matfree_ne", "2", "-feg_matfree_gemm_mb", "24", NULL};
  const char *const    add[]    = {"-feg_op_type", "addto", "-feg_op_addto_mode", "color", "-feg_op_integration_kernel", "gemm", NULL};
  const char *const    addold[] = {"-feg_strategy", "addto", "-feg_addto_mode", "color", "-feg_cuda_kernel", "gemm", NULL};
  const char *const    aut[]    = {"-feg_op_type", "auto", "-feg_op_auto_applies", "7", NULL};
  const char *const    autold[] = {"-feg_strategy", "auto", "-feg_auto_applies", "7", NULL};
  const char *const   *lmas[] = {lma, lmaold}, *const * mfs[] = {mf, mfold}, *const * adds[] = {add, addold}, *const * auts[] = {aut, autold};
  const char *const    mesh[]    = {"-m_feg_mesh_cell_type", "quad", "-m_feg_mesh_faces", "3,2", NULL};
  const char *const    meshold[] = {"-n_feg_cell_type", "quad", "-n_feg_faces", "3,2", NULL};

  TCHK(fegtest_setup(PETSC_COMM_WORLD, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 3, &dm));
  TCHK(fegtest_form(PETSC_COMM_WORLD, NULL, NULL, PETSC_FALSE, &form));
  /* setters and getters */
  TCHK(FEGOpCreate(PETSC_COMM_WORLD, &op));
  TCHK(FEGOpSetType(op, FEGOPLMA));
  TCHK(FEGOpLMASetSymmetric(op, PETSC_FALSE));
  TCHK(FEGOpLMAGetSymmetric(op, &flg));
  ck_assert_msg(!flg, "FEGOpLMAGetSymmetric() after FEGOpLMASetSymmetric(false) says true");
  TCHK(FEGOpLMAGetTiles(op, &tg, &set));
  ck_assert_msg(!set, "FEGOpLMAGetTiles() says the tiles were set before they were");
  TCHK(FEGOpLMASetTiles(op, PETSC_TRUE));
  TCHK(FEGOpLMAGetTiles(op, &tg, &set));
  ck_assert_msg(tg && set, "FEGOpLMAGetTiles() after FEGOpLMASetTiles(true) gives %d (set %d)", (int)tg, (int)set);
  TCHK(FEGOpSetScatter(op, FEG_SCATTER_GATHER));
  TCHK(FEGOpGetScatter(op, &sc));
  ck_assert_msg(sc == FEG_SCATTER_GATHER, "FEGOpGetScatter() gives %s after gather", FEGScatters[sc]);
  TCHK(FEGOpSetIntegrationKernel(op, FEG_INTEGRATION_BLOCK));
  TCHK(FEGOpGetIntegrationKernel(op, &ik));
  ck_assert_msg(ik == FEG_INTEGRATION_BLOCK, "FEGOpGetIntegrationKernel() gives %s after block", FEGIntegrationKernels[ik]);
  TCHK(FEGOpMatFreeSetKernel(op, FEG_MATFREE_QP));                                                                        /* another type's setting: ignored, as PETSc's type setters are */
  EXPECT_ERROR(FEGOpMatFreeGetKernel(op, &k), PETSC_ERR_SUP, "Cannot locate function FEGOpMatFreeGetKernel_C in object"); /* PETSc's own refusal of another type's method */
  TCHK(FEGOpSetType(op, FEGOPMATFREE));
  TCHK(FEGOpMatFreeSetTiling(op, 2, 4, 1));
  TCHK(FEGOpMatFreeGetTiling(op, &ne, &nb, &nr));
  ck_assert_msg(ne == 2 && nb == 4 && nr == 1, "FEGOpMatFreeGetTiling() gives %d %d %d after 2 4 1", (int)ne, (int)nb, (int)nr);
  TCHK(FEGOpSetType(op, FEGOPAUTO));
  TCHK(FEGOpAutoSetApplies(op, 3));
  TCHK(FEGOpAutoGetApplies(op, &n));
  ck_assert_msg(n == 3, "FEGOpAutoGetApplies() gives %d after 3", (int)n);
  TCHK(FEGOpDestroy(&op));
  TCHK(FEGFormSetRHSScatter(form, FEG_SCATTER_GATHER));
  TCHK(FEGFormGetRHSScatter(form, &sc));
  ck_assert_msg(sc == FEG_SCATTER_GATHER, "FEGFormGetRHSScatter() gives %s after gather", FEGScatters[sc]);
  TCHK(FEGMeshSetReorderPartSize(dm, 100));
  TCHK(FEGMeshGetReorderPartSize(dm, &n));
  ck_assert_msg(n == 100, "FEGMeshGetReorderPartSize() gives %d after 100", (int)n);

  /* the options, new names and deprecated ones, through a prefix */
  for (int old = 0; old < 2; old++) {
    TCHK(op_from_options(dm, form, "p_", lmas[old], &op));
    TCHK(FEGOpGetType(op, &t));
    ck_assert_msg(!strcmp(t, FEGOPLMA), "%s options: type %s, expected lma", old ? "deprecated" : "current", t);
    TCHK(FEGOpLMAGetSymmetric(op, &flg));
    TCHK(FEGOpLMAGetTiles(op, &tg, &set));
    TCHK(FEGOpGetScatter(op, &sc));
    ck_assert_msg(!flg && tg && set && sc == FEG_SCATTER_GATHER, "%s lma options: symmetric %d tiles %d scatter %s, expected 0 1 gather", old ? "deprecated" : "current", (int)flg, (int)tg, FEGScatters[sc]);
    TCHK(FEGOpDestroy(&op));

    TCHK(op_from_options(dm, form, "p_", mfs[old], &op));
    TCHK(FEGOpGetType(op, &t));
    TCHK(FEGOpMatFreeGetKernel(op, &k));
    TCHK(FEGOpMatFreeGetFactored(op, &flg));
    TCHK(FEGOpMatFreeGetTiling(op, &ne, &nb, &nr));
    TCHK(FEGOpMatFreeGetGemmWorkspace(op, &n));
    ck_assert_msg(!strcmp(t, FEGOPMATFREE) && k == FEG_MATFREE_QP && !flg && ne == 2 && n == 24, "%s matfree options: type %s kernel %s factored %d ne %d gemm MB %d, expected matfree qp 0 2 24", old ? "deprecated" : "current", t, FEGMatFreeKernels[k], (int)flg, (int)ne, (int)n);
    TCHK(FEGOpDestroy(&op));

    TCHK(op_from_options(dm, form, "p_", adds[old], &op));
    TCHK(FEGOpGetType(op, &t));
    TCHK(FEGOpAddToGetMode(op, &mode));
    TCHK(FEGOpGetIntegrationKernel(op, &ik));
    ck_assert_msg(!strcmp(t, FEGOPADDTO) && mode == FEG_ADDTO_COLOR && ik == FEG_INTEGRATION_GEMM, "%s addto options: type %s mode %s kernel %s, expected addto color gemm", old ? "deprecated" : "current", t, FEGAddToModes[mode], FEGIntegrationKernels[ik]);
    TCHK(FEGOpDestroy(&op));

    TCHK(op_from_options(dm, form, "p_", auts[old], &op));
    TCHK(FEGOpAutoGetApplies(op, &n));
    ck_assert_msg(n == 7, "%s auto options: %d applications, expected 7", old ? "deprecated" : "current", (int)n);
    TCHK(FEGOpDestroy(&op));

    /* mesh options, with the prefix given to FEGCreateMeshFromOptions() */
    for (PetscInt i = 0; (old ? meshold : mesh)[i]; i += 2) TCHK(PetscOptionsSetValue(NULL, (old ? meshold : mesh)[i], (old ? meshold : mesh)[i + 1]));
    TCHK(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, old ? "n_" : "m_", &box));
    TCHK(DMPlexGetHeightStratum(box, 0, &cStart, &cEnd));
    n = cEnd - cStart;
    ck_assert(MPI_Allreduce(&n, &cells, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD) == MPI_SUCCESS);
    ck_assert_msg(cells == 6, "%s mesh options (quad, faces 3,2): %d cells, expected 6", old ? "deprecated" : "current", (int)cells);
    TCHK(DMDestroy(&box));
    for (PetscInt i = 0; (old ? meshold : mesh)[i]; i += 2) TCHK(PetscOptionsClearValue(NULL, (old ? meshold : mesh)[i]));
  }
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("register");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_registered_type_solves, 0, 2);
  tcase_add_test(tc, test_registered_type_object);
  tcase_add_test(tc, test_options);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "optype", add_tests);
}
