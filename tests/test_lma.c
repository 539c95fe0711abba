/* The LMA and matfree shells apply the same operator as the assembled matrix: MatMult, MatMultAdd, MatMultTranspose(Add) and
   MatGetDiagonal, for a non-symmetric CDR form with a coefficient field and essential boundary conditions; lma with
   single-precision element matrices within rounding of it.
   fegtest: nsize 1 2 */
#include "fegtest.h"
#include <fegpu/private/fegcuda.h>

typedef struct {
  PetscReal mult, multadd, multt, multtadd, diag, pmat;
} lma_result;

/* options of the shell compare_shell() makes, and what an auto shell became */
typedef struct {
  const char *precision;  /* -feg_op_precision of the shell (the assembled reference stays double), or NULL */
  const char *applies;    /* -feg_op_auto_applies of an auto shell, or NULL */
  char        type[64];   /* out: the type an auto shell became */
  char        view[4096]; /* out: and its view */
} shell_opts;

static PetscErrorCode compare_shell(shell_opts *so, DMPolytopeType ct, PetscInt order, PetscBool cont, FEGOpType shell, test_form kind, const char *mfkernel, lma_result *r)
{
  DM          dm, auxdm;
  Vec         aux, x, y, ya, z, za, d, da;
  FEGForm     form;
  Mat         A, L;
  FEGOpType   s;
  PetscBool   same;
  PetscRandom rnd;
  shell_opts  none = {NULL, NULL, "", ""};

  PetscFunctionBegin;
  if (!so) so = &none;
  /* at orders 5 to 8 in 3-D, whose element matrices cost seconds each on the host, one cell per process in a row */
  if (fegtest_dim(ct) == 3 && order > 4) {
    PetscMPIInt size;
    PetscInt    faces[3] = {1, 1, 1};

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    faces[0] = size;
    PetscCall(fegtest_box(PETSC_COMM_WORLD, ct, faces, 0.2, order, cont, fegtest_walls(cont, order), &dm));
  } else PetscCall(fegtest_setup(PETSC_COMM_WORLD, ct, order, cont, fegtest_walls(cont, order), 2, &dm));
  PetscCall(fegtest_make_form(dm, kind, &auxdm, &aux, &form));
  PetscCall(fegtest_operator(dm, form, FEGOPADDTO, &A));
  if (mfkernel) PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_kernel", mfkernel));
  if (so->precision) PetscCall(PetscOptionsSetValue(NULL, "-feg_op_precision", so->precision));
  if (so->applies) PetscCall(PetscOptionsSetValue(NULL, "-feg_op_auto_applies", so->applies));
  PetscCall(fegtest_operator(dm, form, shell, &L));
  if (so->applies) PetscCall(PetscOptionsClearValue(NULL, "-feg_op_auto_applies"));
  if (so->precision) PetscCall(PetscOptionsClearValue(NULL, "-feg_op_precision"));
  if (mfkernel) PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_kernel"));
  PetscCall(FEGOperatorGetType(L, &s));
  PetscCall(PetscStrcmp(shell, FEGOPAUTO, &same));
  if (same) { /* auto: any type it became, and its view */
    FEGOp       op;
    PetscViewer v;
    FILE       *fp;
    size_t      n;

    PetscCall(PetscStrncpy(so->type, s, sizeof(so->type)));
    PetscCall(FEGOperatorGetOp(L, &op));
    PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, "test_lma_auto_view.txt", &v));
    PetscCall(FEGOpView(op, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    fp          = fopen("test_lma_auto_view.txt", "r");
    n           = fp ? fread(so->view, 1, sizeof(so->view) - 1, fp) : 0;
    so->view[n] = 0;
    if (fp) fclose(fp);
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    if (!PetscGlobalRank) (void)remove("test_lma_auto_view.txt");
  } else {
    PetscCall(PetscStrcmp(s, shell, &same));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "expected a %s operator, got %s", shell, s);
  }
  PetscCall(MatCreateVecs(L, &x, &y));
  PetscCall(VecDuplicate(y, &ya));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &za));
  PetscCall(VecDuplicate(y, &d));
  PetscCall(VecDuplicate(y, &da));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 42));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(z, rnd));

  PetscCall(MatMult(L, x, y));
  PetscCall(MatMult(A, x, ya));
  PetscCall(fegtest_vecdiff(y, ya, &r->mult));
  PetscCall(MatMultAdd(L, x, z, y));
  PetscCall(MatMultAdd(A, x, z, ya));
  PetscCall(fegtest_vecdiff(y, ya, &r->multadd));
  PetscCall(MatMultTranspose(L, x, y));
  PetscCall(MatMultTranspose(A, x, ya));
  PetscCall(fegtest_vecdiff(y, ya, &r->multt));
  PetscCall(VecCopy(z, za));
  PetscCall(MatMultTransposeAdd(L, x, z, z));
  PetscCall(MatMultTransposeAdd(A, x, za, za));
  PetscCall(fegtest_vecdiff(z, za, &r->multtadd));
  PetscCall(MatGetDiagonal(L, d));
  PetscCall(MatGetDiagonal(A, da));
  PetscCall(fegtest_vecdiff(d, da, &r->diag));
  if (so->precision) { /* the preconditioning matrix assembled from the stored element matrices */
    Mat P;

    PetscCall(FEGOperatorGetPmat(L, &P));
    PetscCall(fegtest_matdiff(P, A, &r->pmat));
  }

  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&za));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&da));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&L));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_lma_equals_assembled)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 4];
  const PetscInt       order = 1 + (_i % 4) / 2;
  PetscBool            cont  = (PetscBool)(_i % 2 == 0);
  lma_result           r;

  TCHK(compare_shell(NULL, ct, order, cont, FEGOPLMA, FORM_POINTWISE, NULL, &r));
  ck_assert_msg(r.mult < 1e-12 && r.multadd < 1e-12, "%s P%d: MatMult/MatMultAdd differ by %g/%g", DMPolytopeTypes[ct], (int)order, (double)r.mult, (double)r.multadd);
  ck_assert_msg(r.multt < 1e-12 && r.multtadd < 1e-12, "%s P%d: MatMultTranspose(Add) differ by %g/%g", DMPolytopeTypes[ct], (int)order, (double)r.multt, (double)r.multtadd);
  ck_assert_msg(r.diag < 1e-12, "%s P%d: MatGetDiagonal differs by %g", DMPolytopeTypes[ct], (int)order, (double)r.diag);
}
END_TEST

/* -feg_op_precision single: the element matrices rounded to float once; every product differs from the double assembled
   operator by rounding (more than 1e-10, so double storage fails) and by no more than it (1e-5); the preconditioning
   matrix too */
START_TEST(test_lma_single)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 3];
  const PetscInt       order = 1 + _i % 3;
  const PetscBool      cont  = PETSC_TRUE;
  lma_result           r;
  shell_opts           single = {"single", NULL, "", ""};

  TCHK(compare_shell(&single, ct, order, cont, FEGOPLMA, FORM_POINTWISE, NULL, &r));
  {
    const PetscReal   e[6]    = {r.mult, r.multadd, r.multt, r.multtadd, r.diag, r.pmat};
    const char *const what[6] = {"MatMult", "MatMultAdd", "MatMultTranspose", "MatMultTransposeAdd", "MatGetDiagonal", "preconditioning matrix"};

    for (int k = 0; k < 6; k++) ck_assert_msg(e[k] > 1e-10 && e[k] < 1e-5, "%s P%d single lma: %s differs from the double assembled operator by %g (rounding to float gives 1e-10..1e-5)", DMPolytopeTypes[ct], (int)order, what[k], (double)e[k]);
  }
}
END_TEST

/* where entry k of element e is in the GPU's single or double lma storage */
static size_t layout_index(int single, int Nb, size_t k, size_t e, size_t Ne)
{
  return single ? FEGLMASingleIndex(Nb, k, e, Ne) : FEGLMADoubleIndex(Nb, k, e, Ne);
}

/* The GPU's lma storage (FEGLMASingleIndex(), FEGLMADoubleIndex()) puts the Nb*Nb entries of Ne elements on
   0..Nb*Nb*Ne-1 once each: element-interleaved one by one (Ke[k*Ne+e]) where not grouped, and at the grouped sizes a
   group's entries (four floats, two doubles) are consecutive, 16-byte aligned, all of one row (the kernels read a row
   as whole float4 or double2 groups, the integration kernels store four entries of a row at once) */
START_TEST(test_lma_layout)
{
  const int Ne = 7, sizes[] = {3, 4, 6, 8, 9, 10, 15, 16, 18, 20, 27, 35};

  for (int single = 0; single < 2; single++) {
    const int   W    = single ? FEG_LMA_SW : FEG_LMA_DW;
    const char *prec = single ? "single" : "double";

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
      const int      Nb = sizes[i], grouped = single ? FEGLMASingleGrouped(Nb) : FEGLMADoubleGrouped(Nb);
      const size_t   n = (size_t)Nb * Nb * Ne;
      unsigned char *seen;

      seen = (unsigned char *)calloc(n, 1);
      ck_assert(seen != NULL);
      for (size_t k = 0; k < (size_t)Nb * Nb; k++)
        for (size_t e = 0; e < (size_t)Ne; e++) {
          const size_t p = layout_index(single, Nb, k, e, Ne);

          ck_assert_msg(p < n && !seen[p], "%s Nb %d: entry %zu of element %zu at %zu, outside 0..%zu or taken twice", prec, Nb, k, e, p, n - 1);
          seen[p] = 1;
          if (!grouped) ck_assert_msg(p == k * Ne + e, "%s Nb %d is not grouped, but entry %zu of element %zu is at %zu", prec, Nb, k, e, p);
          else {
            /* the integration kernels store four entries of a row at once (a single group, two double pairs) */
            ck_assert_msg(Nb % FEG_LMA_SW == 0, "grouped Nb %d is not a multiple of %d: a group would span two rows", Nb, FEG_LMA_SW);
            ck_assert_msg(p % W == k % W, "%s Nb %d: entry %zu of element %zu at %zu is not in its group's slot", prec, Nb, k, e, p);
            if (k % W) ck_assert_msg(p == layout_index(single, Nb, k - 1, e, Ne) + 1, "%s Nb %d: entries %zu and %zu of element %zu are not consecutive", prec, Nb, k - 1, k, e);
          }
        }
      free(seen);
    }
  }
  ck_assert_msg(FEGLMASingleGrouped(16) && FEGLMASingleGrouped(20), "single: 16 and 20 dofs are grouped (their GPU kernel reads float4 groups)");
  ck_assert_msg(FEGLMADoubleGrouped(16) && !FEGLMADoubleGrouped(20), "double: 16 dofs are grouped (their GPU kernel reads double2 pairs), 20 are not");
}
END_TEST

/* FEGOpGetApplyBytes(): lma counts its element matrices (8 or 4 bytes an entry), an index per element dof and x and y
   once per local dof; matfree its stored data instead of the matrices; addto, an assembled type, refuses */
static PetscErrorCode apply_bytes(FEGOpType type, const char *precision, PetscLogDouble *bytes, PetscInt *Ne, PetscInt *Nb, PetscInt *nlocal)
{
  DM       dm, auxdm;
  Vec      aux, xl;
  FEGForm  form;
  Mat      L;
  FEGOp    op;
  PetscFE  fe;
  PetscInt cs, ce;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 2, PETSC_TRUE, PETSC_TRUE, 3, &dm));
  PetscCall(fegtest_make_form(dm, FORM_CONSTANT, &auxdm, &aux, &form));
  if (precision) PetscCall(PetscOptionsSetValue(NULL, "-feg_op_precision", precision));
  PetscCall(fegtest_operator(dm, form, type, &L));
  if (precision) PetscCall(PetscOptionsClearValue(NULL, "-feg_op_precision"));
  PetscCall(FEGOperatorGetOp(L, &op));
  PetscCall(FEGOpGetApplyBytes(op, bytes));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cs, &ce));
  PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
  PetscCall(PetscFEGetDimension(fe, Nb));
  PetscCall(DMGetLocalVector(dm, &xl));
  PetscCall(VecGetSize(xl, nlocal));
  PetscCall(DMRestoreLocalVector(dm, &xl));
  *Ne = ce - cs;
  PetscCall(MatDestroy(&L));
  if (aux) PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  if (auxdm) PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_apply_bytes)
{
  PetscLogDouble b[3];
  PetscInt       Ne, Nb, nl;

  TCHK(apply_bytes(FEGOPLMA, NULL, &b[0], &Ne, &Nb, &nl));
  TCHK(apply_bytes(FEGOPLMA, "single", &b[1], &Ne, &Nb, &nl));
  TCHK(apply_bytes(FEGOPMATFREE, NULL, &b[2], &Ne, &Nb, &nl));
  ck_assert_msg(b[0] == (PetscLogDouble)Ne * (Nb * Nb * 8.0 + Nb * sizeof(PetscInt)) + 16.0 * nl, "lma counts %g bytes for %d elements of %d dofs", b[0], (int)Ne, (int)Nb);
  ck_assert_msg(b[1] == (PetscLogDouble)Ne * (Nb * Nb * 4.0 + Nb * sizeof(PetscInt)) + 16.0 * nl, "single lma counts %g bytes", b[1]);
  ck_assert_msg(b[2] > 16.0 * nl && b[2] < b[1], "matfree (affine triangles, per-element factors) counts %g bytes, not fewer than single lma's %g", b[2], b[1]);
  EXPECT_ERROR(apply_bytes(FEGOPADDTO, NULL, &b[0], &Ne, &Nb, &nl), PETSC_ERR_SUP, "Operator type addto does not count the bytes of its apply");
}
END_TEST

/* matfree: every cell type, orders 1..8, continuous and discontinuous spaces in turn */
START_TEST(test_matfree_equals_assembled)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 8];
  const PetscInt       k     = _i % 8;
  const PetscInt       order = 1 + k;
  PetscBool            cont  = (PetscBool)(k % 2 == 0);
  lma_result           r;

  TCHK(compare_shell(NULL, ct, order, cont, FEGOPMATFREE, FORM_POINTWISE, "qp", &r));
  ck_assert_msg(r.mult < 1e-12 && r.multadd < 1e-12, "%s P%d matfree: MatMult/MatMultAdd differ by %g/%g", DMPolytopeTypes[ct], (int)order, (double)r.mult, (double)r.multadd);
  ck_assert_msg(r.multt < 1e-12 && r.multtadd < 1e-12, "%s P%d matfree: MatMultTranspose(Add) differ by %g/%g", DMPolytopeTypes[ct], (int)order, (double)r.multt, (double)r.multtadd);
  ck_assert_msg(r.diag < 1e-12, "%s P%d matfree: MatGetDiagonal differs by %g", DMPolytopeTypes[ct], (int)order, (double)r.diag);
}
END_TEST

/* Coefficients given at the quadrature points: lma, and matfree with the kernel it picks (qp on simplices and prisms,
   sumfact on quadrilaterals and hexahedra), apply the operator addto assembles from them (test_oracle checks that one
   against PETSc's assembly) */
START_TEST(test_quadrature_coefficients)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 2];
  const FEGOpType      shell = _i % 2 ? FEGOPMATFREE : FEGOPLMA;
  lma_result           r;

  TCHK(compare_shell(NULL, ct, 2, PETSC_TRUE, shell, FORM_QPOINTS, NULL, &r));
  ck_assert_msg(r.mult < 1e-12 && r.multadd < 1e-12 && r.multt < 1e-12 && r.multtadd < 1e-12 && r.diag < 1e-12, "%s P2 %s with quadrature-point coefficients: Mult %g, MultAdd %g, MultTranspose %g, MultTransposeAdd %g, diagonal %g", DMPolytopeTypes[ct], shell,
                (double)r.mult, (double)r.multadd, (double)r.multt, (double)r.multtadd, (double)r.diag);
}
END_TEST

/* The specialised kernels, forced so a silent fallback cannot pass: refop on triangles and tetrahedra (C constant per
   cell), sumfact on quadrilaterals and hexahedra (any coefficient, non-affine cells), every stored-pair set */
START_TEST(test_matfree_kernels)
{
  const DMPolytopeType cells[] = {DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON};
  const DMPolytopeType ct      = cells[_i / 8];
  const PetscInt       k       = _i % 8;
  const PetscInt       order   = 1 + k; /* orders 1 to 8 against the assembled operator */
  const PetscBool      cont    = (PetscBool)(k % 2 == 0);
  const PetscBool      simplex = (PetscBool)(ct == DM_POLYTOPE_TRIANGLE || ct == DM_POLYTOPE_TETRAHEDRON);

  for (int f = simplex ? FORM_CONSTANT : FORM_POINTWISE; f < NFORMS; f++) {
    lma_result r;

    TCHK(compare_shell(NULL, ct, order, cont, FEGOPMATFREE, (test_form)f, simplex ? "refop" : "sumfact", &r));
    ck_assert_msg(r.mult < 1e-12 && r.multadd < 1e-12, "%s P%d %s %s: MatMult/MatMultAdd differ by %g/%g", DMPolytopeTypes[ct], (int)order, simplex ? "refop" : "sumfact", fegtest_form_name(f), (double)r.mult, (double)r.multadd);
    ck_assert_msg(r.multt < 1e-12 && r.multtadd < 1e-12, "%s P%d %s %s: MatMultTranspose(Add) differ by %g/%g", DMPolytopeTypes[ct], (int)order, simplex ? "refop" : "sumfact", fegtest_form_name(f), (double)r.multt, (double)r.multtadd);
    ck_assert_msg(r.diag < 1e-12, "%s P%d %s %s: MatGetDiagonal differs by %g", DMPolytopeTypes[ct], (int)order, simplex ? "refop" : "sumfact", fegtest_form_name(f), (double)r.diag);
  }
}
END_TEST

/* GLL nodes with the Gauss rule, and GLL nodes collocated with the GLL rule (B1 = I, skipped by the kernels):
   sumfact equals the assembled operator for every form, and the collocated space is recognised as such */
START_TEST(test_matfree_gll)
{
  /* hexahedra of orders 1-4, quadrilaterals of orders 1-4 and 7, 8 (whose PETSc tables are off by 1e-12) */
  const DMPolytopeType ct    = _i / 8 == 1 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const PetscInt       order = _i < 16 ? 1 + (_i % 8) / 2 : 7 + (_i % 4) / 2;
  const PetscBool      cont = (PetscBool)(order % 2 == 1), colloc = (PetscBool)(_i % 2 == 1);
  const char          *nodes = colloc ? "gll_collocated" : "gll";

  TCHK(PetscOptionsSetValue(NULL, "-feg_fe_nodes", nodes));
  for (int f = FORM_POINTWISE; f < NFORMS; f++) {
    lma_result r;

    TCHK(compare_shell(NULL, ct, order, cont, FEGOPMATFREE, (test_form)f, "sumfact", &r));
    ck_assert_msg(r.mult < 1e-12 && r.multadd < 1e-12, "%s P%d %s %s: MatMult/MatMultAdd differ by %g/%g", DMPolytopeTypes[ct], (int)order, nodes, fegtest_form_name(f), (double)r.mult, (double)r.multadd);
    ck_assert_msg(r.multt < 1e-12 && r.multtadd < 1e-12, "%s P%d %s %s: MatMultTranspose(Add) differ by %g/%g", DMPolytopeTypes[ct], (int)order, nodes, fegtest_form_name(f), (double)r.multt, (double)r.multtadd);
    ck_assert_msg(r.diag < 1e-12, "%s P%d %s %s: MatGetDiagonal differs by %g", DMPolytopeTypes[ct], (int)order, nodes, fegtest_form_name(f), (double)r.diag);
  }
  {
    DM          dm, auxdm;
    Vec         aux, x, y;
    FEGForm     form;
    Mat         L;
    char        text[4096] = "";
    const char *found;

    TCHK(fegtest_setup(PETSC_COMM_WORLD, ct, order, cont, PETSC_FALSE, 2, &dm));
    TCHK(fegtest_make_form(dm, FORM_MASS, &auxdm, &aux, &form));
    TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_kernel", "sumfact"));
    TCHK(fegtest_operator(dm, form, FEGOPMATFREE, &L));
    TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_kernel"));
    TCHK(MatCreateVecs(L, &x, &y));
    TCHK(MatMult(L, x, y));
    TCHK(fegtest_view_text(L, text, sizeof(text)));
    found = strstr(text, "Gauss-Lobatto-Legendre points per direction, collocated");
    ck_assert_msg(colloc ? found != NULL : found == NULL, "%s P%d %s: the view says %s", DMPolytopeTypes[ct], (int)order, nodes, text);
    ck_assert_msg(strstr(text, "mass Chat entries") != NULL, "the mass form is not stored as mass only: %s", text);
    TCHK(VecDestroy(&x));
    TCHK(VecDestroy(&y));
    TCHK(MatDestroy(&L));
    TCHK(FEGFormDestroy(&form));
    TCHK(DMDestroy(&dm));
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_fe_nodes"));
}
END_TEST

/* Order 8 hexahedra on GLL nodes, collocated: PETSc's tables are off by 1e-12 there and sum factorisation must still
   recognise the tensor structure (it once fell back to qp, 300 times slower); sumfact equals qp on one cell */
START_TEST(test_matfree_gll_order8)
{
  DM          dm, auxdm;
  Vec         aux, x, y[2];
  FEGForm     form;
  Mat         L[2];
  PetscRandom rnd;
  PetscReal   err;
  const char *kernels[2] = {"sumfact", "qp"};

  TCHK(PetscOptionsSetValue(NULL, "-feg_fe_nodes", "gll_collocated"));
  TCHK(fegtest_setup(PETSC_COMM_WORLD, DM_POLYTOPE_HEXAHEDRON, 8, PETSC_TRUE, PETSC_TRUE, 1, &dm));
  TCHK(PetscOptionsClearValue(NULL, "-feg_fe_nodes"));
  TCHK(fegtest_make_form(dm, FORM_POISSON, &auxdm, &aux, &form));
  for (int k = 0; k < 2; k++) {
    TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_kernel", kernels[k]));
    TCHK(fegtest_operator(dm, form, FEGOPMATFREE, &L[k]));
    TCHK(MatCreateVecs(L[k], NULL, &y[k]));
  }
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_kernel"));
  TCHK(VecDuplicate(y[0], &x));
  TCHK(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  TCHK(VecSetRandom(x, rnd));
  TCHK(PetscRandomDestroy(&rnd));
  for (int k = 0; k < 2; k++) TCHK(MatMult(L[k], x, y[k]));
  TCHK(fegtest_vecdiff(y[0], y[1], &err));
  ck_assert_msg(err < 1e-10, "order 8 GLL hexahedron: sumfact differs from qp by %g", (double)err);
  for (int k = 0; k < 2; k++) {
    TCHK(VecDestroy(&y[k]));
    TCHK(MatDestroy(&L[k]));
  }
  TCHK(VecDestroy(&x));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* Kernels that cannot apply are refused with an error, not replaced */
START_TEST(test_matfree_refused)
{
  DM      dm, auxdm;
  Vec     aux;
  FEGForm form;
  Mat     L;
  /* refop on a pointwise coefficient, refop on hexahedra, mma (a GPU kernel) on host vectors */
  const char *why[3] = {"-feg_op_matfree_kernel refop needs a coefficient constant on each cell", "-feg_op_matfree_kernel refop needs affine simplices (triangles, tetrahedra with straight edges), not hexahedron cells", "-feg_op_matfree_kernel mma is a GPU kernel (FP64 tensor cores): it needs CUDA vectors (-dm_vec_type cuda)"};

  TCHK(fegtest_setup(PETSC_COMM_WORLD, _i == 1 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TRIANGLE, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  TCHK(fegtest_make_form(dm, _i ? FORM_CONSTANT : FORM_POINTWISE, &auxdm, &aux, &form));
  TCHK(PetscOptionsSetValue(NULL, "-feg_op_matfree_kernel", _i == 2 ? "mma" : "refop"));
  EXPECT_ERROR(fegtest_operator(dm, form, FEGOPMATFREE, &L), PETSC_ERR_SUP, why[_i]);
  TCHK(PetscOptionsClearValue(NULL, "-feg_op_matfree_kernel"));
  TCHK(VecDestroy(&aux));
  TCHK(DMDestroy(&auxdm));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* -feg_op_type auto becomes one of the registered types (which one is its cost model's business) and applies the
   same operator as the assembled matrix; its view says why; with single precision it takes a type that stores single */
START_TEST(test_auto)
{
  const DMPolytopeType ct         = fegtest_cells[_i / 3];
  const PetscInt       order      = 1 + _i % 3;
  const char          *applies[3] = {"1", "100", "100000000"};
  char                 expect[128];
  lma_result           r;
  shell_opts           so = {NULL, NULL, "", ""};

  for (int k = 0; k < 3; k++) {
    so.applies = applies[k];
    TCHK(compare_shell(&so, ct, order, PETSC_TRUE, FEGOPAUTO, FORM_POINTWISE, NULL, &r));
    ck_assert_msg(!strcmp(so.type, FEGOPADDTO) || !strcmp(so.type, FEGOPLMA) || !strcmp(so.type, FEGOPMATFREE), "%s P%d: auto became %s", DMPolytopeTypes[ct], (int)order, so.type);
    ck_assert_msg(r.mult < 1e-12 && r.multadd < 1e-12 && r.multt < 1e-12 && r.multtadd < 1e-12 && r.diag < 1e-12, "%s P%d, %s applications: auto (%s) differs from the assembled operator by %g %g %g %g %g", DMPolytopeTypes[ct], (int)order, applies[k], so.type,
                  (double)r.mult, (double)r.multadd, (double)r.multt, (double)r.multtadd, (double)r.diag);
    TCHK(PetscSNPrintf(expect, sizeof(expect), "chosen by -feg_op_type auto for %s applications", applies[k]));
    ck_assert_msg(strstr(so.view, expect) && strstr(so.view, "predicted setup + applications"), "%s P%d: the view does not say why auto chose %s:\n%s", DMPolytopeTypes[ct], (int)order, so.type, so.view);
    /* the whole line, however long: it once stopped at 640 characters, mid-word */
    ck_assert_msg(strstr(so.view, "a 2-core VM))\n"), "%s P%d: the view's auto line is cut short:\n%s", DMPolytopeTypes[ct], (int)order, so.view);
  }
  so.precision = "single";
  so.applies   = NULL;
  TCHK(compare_shell(&so, ct, order, PETSC_TRUE, FEGOPAUTO, FORM_POINTWISE, NULL, &r));
  ck_assert_msg(!strcmp(so.type, FEGOPLMA), "%s P%d: auto in single precision became %s", DMPolytopeTypes[ct], (int)order, so.type);
  ck_assert_msg(r.mult < 1e-5 && r.pmat < 1e-5, "%s P%d: single auto differs by %g (pmat %g)", DMPolytopeTypes[ct], (int)order, (double)r.mult, (double)r.pmat);
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("apply");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_lma_equals_assembled, 0, 5 * 4);
  tcase_add_loop_test(tc, test_lma_single, 0, 5 * 3);
  tcase_add_test(tc, test_lma_layout);
  tcase_add_test(tc, test_apply_bytes);
  tcase_add_loop_test(tc, test_matfree_equals_assembled, 0, 5 * 8);
  tcase_add_loop_test(tc, test_matfree_kernels, 0, 4 * 8);
  tcase_add_loop_test(tc, test_quadrature_coefficients, 0, 5 * 2);
  tcase_add_loop_test(tc, test_matfree_gll, 0, 2 * 8 + 4);
  tcase_add_test(tc, test_matfree_gll_order8);
  tcase_add_loop_test(tc, test_matfree_refused, 0, 3);
  tcase_add_loop_test(tc, test_auto, 0, 5 * 3);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "lma", add_tests);
}
