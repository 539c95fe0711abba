/* GPU lma's storages give the host's products, diagonal and preconditioning matrix: single-precision element matrices,
   the grouped storage (Q3 quadrilaterals, P3 tetrahedra), a symmetric form's upper triangles (3-27 dofs) and the
   product tile by tile, through every integration kernel.
   Needs a GPU (make check-gpu).
   fegtest: nsize 1 2 */
#include "gputest.h"

/* -feg_op_precision single: GPU lma keeps float element matrices that equal the host's single ones (both integrate in
   double and round once; products and sums in double): MatMult, transpose, MatMultAdd and the diagonal with atomics
   and the gather, through every integration kernel's store (thread, block, GEMM), and the preconditioning matrix
   assembled from them */
START_TEST(test_gpu_lma_single)
{
  const char          *opts[3] = {"-gpu_feg_op_integration_kernel thread", "-gpu_feg_op_integration_kernel block", "-gpu_feg_op_integration_kernel gemm"};
  const DMPolytopeType ct      = fegtest_cells[_i / 3];
  const PetscInt       order   = 1 + _i % 3;
  const PetscBool      cont    = PETSC_TRUE;
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1 && order > 2) return;
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_precision", "single"));
  TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_precision", "single"));
  for (int k = -1; k < (order == 2 && size == 1 ? 3 : 0); k++) {
    if (k == 0 && ct == DM_POLYTOPE_HEXAHEDRON) continue; /* Q2: 27 dofs, more than one thread keeps */
    const gputest_setup st = {PETSC_FALSE, PETSC_FALSE, FORM_CONSTANT, PETSC_FALSE, k < 0 ? NULL : opts[k]};

    for (int v = 3; v <= (k < 0 ? 4 : 3); v++) { /* lma atomic, lma gather */
      PetscReal err;

      TCHK(gputest_compare_variant(&st, PETSC_COMM_WORLD, ct, order, cont, PETSC_TRUE, &gputest_variants[v], &err));
      ck_assert_msg(err < 1e-12, "%s P%d single lma/%s %s: GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, gputest_variants[v].mode, st.kernel_options ? st.kernel_options : "", (double)err);
    }
  }
  if (size == 1 && order == 2) {
    DM        dm[2], aux[2];
    Vec       ax[2];
    FEGForm   f[2];
    Mat       A[2], P[2];
    PetscReal err;
    char      text[4096] = "";

    for (int g = 0; g < 2; g++) {
      TCHK(gputest_build(NULL, PETSC_COMM_SELF, ct, order, cont, (PetscBool)g, PETSC_FALSE, &dm[g], &aux[g], &ax[g], &f[g]));
      TCHK(fegtest_operator(dm[g], f[g], FEGOPLMA, &A[g]));
      TCHK(FEGOperatorGetPmat(A[g], &P[g]));
    }
    TCHK(gputest_pmat_diff(P[1], P[0], &err));
    ck_assert_msg(err < 1e-12, "%s P2 single lma: the GPU preconditioning matrix differs from the host's by %g", DMPolytopeTypes[ct], (double)err);
    TCHK(fegtest_view_text(A[1], text, sizeof(text)));
    ck_assert_msg(strstr(text, "element-interleaved matrices in single precision") != NULL, "the view does not say single: %s", text);
    TCHK(gputest_destroy_pair(A, dm, aux, ax, f));
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_precision"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_precision"));
}
END_TEST

/* lma's grouped storage (single at 16 and 20 dofs, double at 16), Q3 quadrilaterals and P3 tetrahedra in double and
   single, written by every integration kernel (auto, thread, block, GEMM; a linear-field coefficient and a constant C,
   non-symmetric and symmetric, on affine cells: the reference tensors) and read by the group kernel: MatMult,
   transpose, MatMultAdd and the diagonal equal the host's, and so does the preconditioning matrix, handed to
   MatSetValuesCOO() ungrouped */
START_TEST(test_gpu_lma_grouped)
{
  const DMPolytopeType ct      = _i / 2 ? DM_POLYTOPE_TETRAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const PetscBool      single  = (PetscBool)(_i % 2);
  const char          *opts[4] = {NULL, "-gpu_feg_op_integration_kernel thread", "-gpu_feg_op_integration_kernel block", "-gpu_feg_op_integration_kernel gemm"};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  if (single) {
    TCHK(PetscOptionsSetValue(NULL, "-feg_op_precision", "single"));
    TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_precision", "single"));
  }
  for (int constant = 0; constant < 3; constant++) /* a linear field, C constant and non-symmetric, and symmetric */
    for (int k = 0; k < 4; k++) {
      DM        dm[2], aux[2];
      Vec       ax[2];
      FEGForm   f[2];
      Mat       A[2], P[2];
      PetscReal err, perr;

      const gputest_setup st = {PETSC_FALSE, (PetscBool)(constant > 0), constant == 2 ? FORM_MASSSTIFF : FORM_CONSTANT, PETSC_FALSE, NULL};

      for (int g = 0; g < 2; g++) {
        TCHK(gputest_build(&st, PETSC_COMM_SELF, ct, 3, PETSC_TRUE, (PetscBool)g, PETSC_FALSE, &dm[g], &aux[g], &ax[g], &f[g]));
        if (g) TCHK(FEGFormSetOptionsPrefix(f[g], "gpu_"));
        if (g && opts[k]) TCHK(PetscOptionsInsertString(NULL, opts[k]));
        TCHK(fegtest_operator(dm[g], f[g], FEGOPLMA, &A[g]));
        if (g && opts[k]) TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_kernel"));
        TCHK(FEGOperatorGetPmat(A[g], &P[g]));
      }
      TCHK(gputest_apply_diff(A[1], dm[1], A[0], dm[0], PETSC_TRUE, &err));
      TCHK(gputest_pmat_diff(P[1], P[0], &perr));
      ck_assert_msg(err < 1e-12 && perr < 1e-12, "%s P3 %s lma (%s, %s): GPU differs from host by %g (products), %g (preconditioning matrix)", DMPolytopeTypes[ct], single ? "single" : "double", constant == 2 ? "symmetric constant C" : (constant ? "constant C" : "linear field"), opts[k] ? opts[k] : "auto kernel", (double)err, (double)perr);
      TCHK(gputest_destroy_pair(A, dm, aux, ax, f));
    }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_precision"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_precision"));
}
END_TEST

/* A symmetric form's lma element matrices kept as their upper triangles (FEGLMASymmetricSize(): 3-10, 15, 18 and 27
   dofs, and 20 in double), written by every integration kernel (auto, thread, block, GEMM through its buffer) and read
   by the one-element kernel (double, and single above 10 dofs) and the pair kernel (single up to 10), with atomics and
   with the gather: MatMult, transpose, MatMultAdd and the diagonal equal the host's full matrices, and so does the
   preconditioning matrix, unpacked for MatSetValuesCOO(). FORM_SYMMETRIC (with value-gradient terms) on the perturbed
   mesh (quadrature on quadrilaterals, hexahedra and prisms, reference tensors on simplices): triangles P1-P4,
   quadrilaterals Q1-Q3, tetrahedra P1-P3, hexahedra Q1-Q2, prisms P1-P2 (order 1 on 4 faces a side); Q3
   quadrilaterals (16 dofs) and single P3 tetrahedra (20) keep full matrices. The view says which, and
   -feg_op_lma_symmetric false keeps them full. With atomics P1 tetrahedra run the product tile by tile (-feg_op_lma_tiles,
   the view says so), and -feg_op_lma_tiles true every size up to 10 dofs. Two processes: order 1, the kernels that read
   through the halo's codes */
START_TEST(test_gpu_lma_symmetric)
{
  const DMPolytopeType cts[14]  = {DM_POLYTOPE_TRIANGLE,    DM_POLYTOPE_TRIANGLE,    DM_POLYTOPE_TRIANGLE,    DM_POLYTOPE_TRIANGLE,   DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_QUADRILATERAL,
                                   DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_HEXAHEDRON,    DM_POLYTOPE_TRI_PRISM,     DM_POLYTOPE_TRI_PRISM};
  const PetscInt       ords[14] = {1, 2, 3, 4, 1, 2, 3, 1, 2, 3, 1, 2, 1, 2};
  const PetscInt       nbs[14]  = {3, 6, 10, 15, 4, 9, 16, 4, 10, 20, 8, 27, 6, 18}; /* dofs per element */
  const DMPolytopeType ct       = cts[_i];
  const PetscInt       order = ords[_i], Nb = nbs[_i];
  const char          *name[7]   = {NULL, "-gpu_feg_op_integration_kernel", "-gpu_feg_op_integration_kernel", "-gpu_feg_op_integration_kernel", "-gpu_feg_op_scatter", "-gpu_feg_op_lma_symmetric", "-gpu_feg_op_lma_tiles"};
  const char          *value[7]  = {NULL, "thread", "block", "gemm", "gather", "false", "true"};
  const gputest_setup  symmetric = {PETSC_FALSE, PETSC_FALSE, FORM_CONSTANT, PETSC_TRUE, NULL};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1 && order > 1) return;
  for (int single = 0; single < 2; single++) {
    if (single) {
      TCHK(PetscOptionsSetValue(NULL, "-feg_op_precision", "single"));
      TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_precision", "single"));
    }
    for (int k = 0; k < 7; k++) {
      DM        dm[2], aux[2];
      Vec       ax[2];
      FEGForm   f[2];
      Mat       A[2], P[2];
      PetscReal err, perr = 0.0;
      char      text[4096] = "";
      PetscBool says, saystiles;

      const PetscBool packed = (PetscBool)(k != 5 && (Nb <= 10 || Nb == 15 || Nb == 18 || Nb == 27 || (Nb == 20 && !single)));
      const PetscBool tiled  = (PetscBool)(k != 4 && Nb <= 10 && (k == 6 || (ct == DM_POLYTOPE_TETRAHEDRON && order == 1)));

      if (size > 1 && k > 0 && k < 4) continue; /* the integration kernels on one process */
      if (k == 1 && Nb > 20) continue;          /* more than one thread keeps */

      for (int g = 0; g < 2; g++) {
        TCHK(gputest_build(&symmetric, PETSC_COMM_WORLD, ct, order, PETSC_TRUE, (PetscBool)g, PETSC_FALSE, &dm[g], &aux[g], &ax[g], &f[g]));
        if (g) TCHK(FEGFormSetOptionsPrefix(f[g], "gpu_"));
        if (g && name[k]) TCHK(PetscOptionsSetValue(NULL, name[k], value[k]));
        TCHK(fegtest_operator(dm[g], f[g], FEGOPLMA, &A[g]));
        if (g && name[k]) TCHK(PetscOptionsClearValue(NULL, name[k]));
        if (size == 1) TCHK(FEGOperatorGetPmat(A[g], &P[g]));
      }
      TCHK(gputest_apply_diff(A[1], dm[1], A[0], dm[0], PETSC_TRUE, &err));
      if (size == 1) TCHK(gputest_pmat_diff(P[1], P[0], &perr));
      ck_assert_msg(err < 1e-12 && perr < 1e-12, "%s P%d %s lma, symmetric form (%s %s): GPU differs from host by %g (products), %g (preconditioning matrix)", DMPolytopeTypes[ct], (int)order, single ? "single" : "double", name[k] ? name[k] : "defaults", value[k] ? value[k] : "", (double)err, (double)perr);
      if (size == 1) { /* the view's text is rank 0's */
        TCHK(fegtest_view_text(A[1], text, sizeof(text)));
        says = (PetscBool)(strstr(text, "symmetric: upper triangles only") != NULL);
        ck_assert_msg(says == packed, "%s P%d %s lma (%s %s): the view %s upper triangles: %s", DMPolytopeTypes[ct], (int)order, single ? "single" : "double", name[k] ? name[k] : "defaults", value[k] ? value[k] : "", says ? "says" : "does not say", text);
        saystiles = (PetscBool)(strstr(text, "per tile of elements") != NULL);
        ck_assert_msg(saystiles == tiled, "%s P%d %s lma (%s %s): the view %s tiles: %s", DMPolytopeTypes[ct], (int)order, single ? "single" : "double", name[k] ? name[k] : "defaults", value[k] ? value[k] : "", saystiles ? "says" : "does not say", text);
      }
      TCHK(gputest_destroy_pair(A, dm, aux, ax, f));
    }
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_precision"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_precision"));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  /* separate cases so CK_RUN_CASE=<case> runs one under compute-sanitizer (share/fegpu/sanitize.sh) */
  tc = tcase_create("single");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_lma_single, 0, 5 * 3);
  tcase_add_loop_test(tc, test_gpu_lma_grouped, 0, 4);
  suite_add_tcase(s, tc);
  tc = tcase_create("symmetric");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_lma_symmetric, 0, 14);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "gpu_lma", add_tests);
}
