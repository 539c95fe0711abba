/* The GPU's element-integration kernels (addto and lma) give the host's element matrices: one element per thread,
   per thread block with its tuning, GEMM, and one entry per thread from the reference tensors (affine cells, constant
   C, symmetric or not), on every cell type; the entries kernel refused where it cannot apply.
   Needs a GPU (make check-gpu).
   fegtest: nsize 1 2 */
#include "gputest.h"

/* Constant C on affine cells (an unperturbed box): the reference-tensor kernels, with C non-symmetric (FORM_CONSTANT:
   every split tensor) and symmetric (FORM_MASSSTIFF: the symmetric ones alone). More than 10 dofs per element: addto
   with one entry per thread and element-major positions (atomic, colour) and COO values; lma one element per thread up
   to 20 dofs, one row of 32 elements per warp above. Triangles P4, quadrilaterals Q3, tetrahedra P3 and P4, hexahedra
   Q2 and Q3, prisms P2; np 1 and 2. Up to 10 dofs (one element per thread, its size compiled in, each pair a <= b
   once): triangles P1 and P2, quadrilaterals Q1 and Q2, tetrahedra P1 and P2, hexahedra Q1, prisms P1; np 1 */
START_TEST(test_gpu_constant_affine)
{
  const DMPolytopeType ct[15]    = {DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON,   DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON,  DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TRI_PRISM, DM_POLYTOPE_TRIANGLE,
                                    DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TRI_PRISM};
  const PetscInt       order[15] = {4, 3, 3, 4, 2, 3, 2, 1, 2, 1, 2, 1, 2, 1, 1};
  const test_form      forms[2]  = {FORM_CONSTANT, FORM_MASSSTIFF};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1 && _i != 2 && _i != 4 && _i != 12) return; /* several processes: P3 and P2 tetrahedra, Q2 hexahedra */
  for (PetscInt f = 0; f < 2; f++) {
    /* then the entries kernel asked for at every size (auto takes it at some, FEGDevAutoKernel()): the types that
       integrate, on several processes addto atomic alone */
    for (PetscInt k = 0; k < 2; k++) {
      const gputest_setup st = {PETSC_FALSE, PETSC_TRUE, forms[f], PETSC_FALSE, k ? "-gpu_feg_op_integration_kernel entries" : NULL};

      for (PetscInt v = 0; v < GPUTEST_NVARIANTS; v++) {
        PetscReal err;
        PetscBool matfree;

        TCHK(PetscStrcmp(gputest_variants[v].strategy, FEGOPMATFREE, &matfree));
        if (k && (matfree || (size > 1 && v != 0))) continue;
        TCHK(gputest_compare_variant(&st, PETSC_COMM_WORLD, ct[_i], order[_i], PETSC_TRUE, PETSC_FALSE, &gputest_variants[v], &err));
        ck_assert_msg(err < 1e-12, "%s P%d %s/%s%s%s (%s constant coefficient, affine cells): GPU differs from host by %g", DMPolytopeTypes[ct[_i]], (int)order[_i], gputest_variants[v].strategy, gputest_variants[v].mode, k ? " with " : "", k ? st.kernel_options : "", fegtest_form_name(forms[f]), (double)err);
      }
    }
  }
}
END_TEST

/* every integration kernel (one element per thread, per block with its tuning options, GEMM) on every cell type */
START_TEST(test_gpu_kernels)
{
  const char *opts[4] = {"-gpu_feg_op_integration_kernel thread", "-gpu_feg_op_integration_kernel block", "-gpu_feg_op_integration_kernel block -gpu_feg_op_integration_nentpt 2 -gpu_feg_op_integration_qchunk 3 -gpu_feg_op_integration_jacobian_shared 0 -gpu_feg_op_integration_block_size 32", "-gpu_feg_op_integration_kernel gemm"};
  const DMPolytopeType ct = fegtest_cells[_i / 4];
  const PetscInt       k = _i % 4, order = (k == 0 && ct == DM_POLYTOPE_HEXAHEDRON) ? 1 : 2; /* Q2: 27 > 20 dofs */
  const PetscBool      cont = PETSC_TRUE;
  gputest_setup        st   = {PETSC_FALSE, PETSC_FALSE, FORM_CONSTANT, PETSC_FALSE, NULL};
  PetscMPIInt          size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  st.kernel_options = opts[k];
  for (PetscInt v = 0; v < GPUTEST_NVARIANTS; v += 3) { /* addto atomic and lma atomic */
    PetscReal err;

    TCHK(gputest_compare_variant(&st, PETSC_COMM_SELF, ct, order, cont, PETSC_TRUE, &gputest_variants[v], &err));
    ck_assert_msg(err < 1e-12, "%s P%d %s with %s: GPU differs from host by %g", DMPolytopeTypes[ct], (int)order, gputest_variants[v].strategy, opts[k], (double)err);
  }
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_nentpt"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_qchunk"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_jacobian_shared"));
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_block_size"));
}
END_TEST

/* -feg_op_integration_kernel entries on an operator without reference tensors (a pointwise coefficient) is an error naming why */
START_TEST(test_gpu_entries_refused)
{
  DM             dm, auxdm;
  Vec            aux;
  FEGForm        form;
  Mat            A = NULL;
  PetscErrorCode ierr;
  fegtest_err    e = {"", 0};
  PetscMPIInt    size;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size > 1) return;
  TCHK(gputest_build(NULL, PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, &dm, &auxdm, &aux, &form));
  TCHK(FEGFormSetOptionsPrefix(form, "gpu_"));
  TCHK(PetscOptionsSetValue(NULL, "-gpu_feg_op_integration_kernel", "entries"));
  TCHK(PetscPushErrorHandler(fegtest_errhandler, &e));
  ierr = fegtest_operator(dm, form, FEGOPLMA, &A);
  TCHK(PetscPopErrorHandler());
  TCHK(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_kernel"));
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE && strstr(e.msg, "-feg_op_integration_kernel entries needs reference tensors") && strstr(e.msg, "non-constant coefficient"), "error %d: %s", (int)ierr, e.msg);
  TCHK(gputest_destroy(&dm, &auxdm, &aux, &form));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  /* separate cases so CK_RUN_CASE=<case> runs one under compute-sanitizer (share/fegpu/sanitize.sh) */
  tc = tcase_create("kernels");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, test_gpu_kernels, 0, 5 * 4);
  tcase_add_loop_test(tc, test_gpu_constant_affine, 0, 15);
  tcase_add_test(tc, test_gpu_entries_refused);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "gpu_integrate", add_tests);
}
