/* fegpu's assembled operator and right-hand side equal PETSc's own DMPlex FEM assembly of the same form, on perturbed
   (non-affine where the cell allows) meshes, with a non-constant coefficient field and an x-dependent part given by a
   pointwise function or as values at the quadrature points */
#include "fegtest.h"
#include <fegpu/private/fegimpl.h>

typedef struct {
  PetscReal mat, rhs;
  PetscBool affine; /* what fegpu's setup found */
} oracle_result;

/* the box: perturbed by default (NULL); affine tests place it off the origin (lo), unperturbed or nearly so */
typedef struct {
  PetscReal perturb, lo[3];
} oracle_box;

static const oracle_box oracle_default = {
  0.2, {0.0, 0.0, 0.0}
};

static PetscErrorCode compare_with_oracle(const oracle_box *box, DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool bc, PetscInt n, oracle_result *r)
{
  DM             dm, auxdm;
  Vec            aux, F, b;
  FEGForm        form;
  Mat            A, J;
  PetscContainer c;
  FEGDisc       *disc;
  PetscInt       faces[3] = {n, n, n};
  PetscReal      hi[3];

  PetscFunctionBegin;
  if (!box) box = &oracle_default;
  for (PetscInt d = 0; d < 3; d++) hi[d] = box->lo[d] + 1.0 + 0.5 * d;
  PetscCall(FEGCreateBoxMesh(PETSC_COMM_SELF, ct, faces, box->lo, hi, box->perturb, &dm));
  PetscCall(FEGSetUpDiscretization(dm, order, cont, "u"));
  if (bc) PetscCall(fegtest_wall(dm, fegtest_bcfunc));
  PetscCall(fegtest_aux(dm, &auxdm, &aux));
  PetscCall(fegtest_form(PETSC_COMM_SELF, auxdm, aux, PETSC_TRUE, &form));
  PetscCall(fegtest_operator(dm, form, FEGOPADDTO, &A));
  PetscCall(FEGDMGetDisc(dm, &disc, &c));
  r->affine = disc->affine;
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscCall(fegtest_oracle(dm, auxdm, aux, PETSC_TRUE, &J, &F));
  PetscCall(fegtest_matdiff(A, J, &r->mat));
  PetscCall(VecScale(F, -1.0));
  PetscCall(fegtest_vecdiff(b, F, &r->rhs));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void check_case(const oracle_box *box, DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool bc, PetscInt n)
{
  const PetscReal perturb = box ? box->perturb : oracle_default.perturb;
  oracle_result   r;

  n = fegtest_faces(order, bc, n); /* walls leave enough unknowns to compare */
  TCHK(compare_with_oracle(box, ct, order, cont, bc, n, &r));
  /* the box builder moves interior vertices only: one cell a side stays a parallelepiped */
  ck_assert_msg(r.affine == (PetscBool)(perturb == 0.0 || n == 1 || ct == DM_POLYTOPE_TRIANGLE || ct == DM_POLYTOPE_TETRAHEDRON), "%s order %d, %d cells a side perturbed by %g: the setup took the cells for %saffine", DMPolytopeTypes[ct], (int)order, (int)n, (double)perturb, r.affine ? "" : "non-");
  ck_assert_msg(r.mat < 1e-12, "%s order %d %s%s: matrix differs from PETSc's by %g (relative, Frobenius)", DMPolytopeTypes[ct], (int)order, cont ? "continuous" : "discontinuous", bc ? " with Dirichlet" : "", (double)r.mat);
  ck_assert_msg(r.rhs < 1e-12, "%s order %d %s%s: right-hand side differs from PETSc's by %g (relative)", DMPolytopeTypes[ct], (int)order, cont ? "continuous" : "discontinuous", bc ? " with Dirichlet" : "", (double)r.rhs);
}

/* _i is the loop index of a Check loop test: cell type, then orders 1..4, continuous or not */
START_TEST(test_orders_1_to_4)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 8];
  const PetscInt       order = 1 + (_i % 8) / 2;
  const PetscBool      cont  = (PetscBool)(_i % 2 == 0);
  const PetscInt       dim   = fegtest_dim(ct);
  /* keep the 3D order-4 cases small; prisms keep two cells a side so that their faces meet at several orientations */
  const PetscInt n = dim == 2 ? 3 : (order <= 2 || ct == DM_POLYTOPE_TRI_PRISM ? 2 : 1);

  check_case(NULL, ct, order, cont, cont, n);
}
END_TEST

/* Unperturbed boxes away from the origin: every cell type is affine (parallelograms, parallelepipeds, right prisms),
   so one Jacobian per cell, and the operator still equals PETSc's (which evaluates the Jacobian at every point); a box
   perturbed by 1e-6 of a cell is not affine for quadrilaterals, hexahedra and prisms. Orders 2 and 3 */
START_TEST(test_affine_cells)
{
  const DMPolytopeType ct      = fegtest_cells[_i / 3];
  const PetscInt       variant = _i % 3, n = fegtest_dim(ct) == 2 ? 3 : 2;

  const oracle_box box = {
    variant == 2 ? 1e-6 : 0.0, {variant == 1 ? 40.0 : 0.0, variant == 1 ? -7.0 : 0.0, variant == 1 ? 3.0 : 0.0}
  };

  check_case(&box, ct, variant == 1 ? 3 : 2, PETSC_TRUE, PETSC_TRUE, n);
}
END_TEST

/* GLL nodes (with fegpu's Gauss rule, and collocated with the GLL rule): matrix and right-hand side, boundary values at
   the GLL nodes included, equal PETSc's assembly with the same element */
START_TEST(test_gll_nodes)
{
  const DMPolytopeType ct    = _i / 4 ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_QUADRILATERAL;
  const PetscInt       order = 2 + _i % 2;
  const char          *nodes = (_i / 2) % 2 ? "gll_collocated" : "gll";

  TCHK(PetscOptionsSetValue(NULL, "-feg_fe_nodes", nodes));
  check_case(NULL, ct, order, PETSC_TRUE, PETSC_TRUE, _i / 4 ? 2 : 3);
  TCHK(PetscOptionsClearValue(NULL, "-feg_fe_nodes"));
}
END_TEST

/* orders 5 to 8 of every cell type, continuous (with walls) and discontinuous in turn: the oracle up to fegpu's highest
   order, not only kernel against kernel */
#define NHIGH 20
START_TEST(test_high_order)
{
  const DMPolytopeType ct    = fegtest_cells[_i / 4];
  const PetscInt       order = 5 + _i % 4;
  const PetscBool      cont  = (PetscBool)((_i + _i / 4) % 2 == 0);

  check_case(NULL, ct, order, cont, cont, fegtest_dim(ct) == 2 ? 2 : 1);
}
END_TEST

START_TEST(test_no_aux_constant)
{
  /* constant coefficients only, no boundary conditions: the simplest path */
  DM        dm;
  FEGForm   form;
  Mat       A, J;
  PetscReal rel;

  TCHK(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  TCHK(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  TCHK(FEGCreateOperator(dm, form, &A));
  TCHK(fegtest_oracle(dm, NULL, NULL, PETSC_FALSE, &J, NULL));
  TCHK(fegtest_matdiff(A, J, &rel));
  ck_assert_msg(rel < 1e-12, "constant-coefficient P2 tetrahedra differ by %g", (double)rel);
  TCHK(MatDestroy(&A));
  TCHK(MatDestroy(&J));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

START_TEST(test_oracle_can_fail)
{
  /* the comparison must notice a wrong coefficient: perturb one entry of C and expect a difference */
  DM          dm;
  FEGForm     form;
  Mat         A, J;
  PetscReal   rel;
  PetscScalar C[16];

  TCHK(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_QUADRILATERAL, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  TCHK(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  TCHK(FEGFormGetConstant(form, C, NULL));
  C[1 * 4 + 2] += 1e-6;
  TCHK(FEGFormSetConstant(form, C, NULL));
  TCHK(FEGCreateOperator(dm, form, &A));
  TCHK(fegtest_oracle(dm, NULL, NULL, PETSC_FALSE, &J, NULL));
  TCHK(fegtest_matdiff(A, J, &rel));
  ck_assert_msg(rel > 1e-9, "a changed coefficient went unnoticed (difference %g)", (double)rel);
  TCHK(MatDestroy(&A));
  TCHK(MatDestroy(&J));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* Coefficients given at the quadrature points (FEGFormSetQuadratureCoefficient) on top of the constant and linear
   parts: matrix and right-hand side equal PETSc's assembly with the same x-dependent terms as pointwise functions, and
   the same form without the values does not */
static PetscErrorCode qpoints_case(DMPolytopeType ct, PetscInt order, PetscBool cont, oracle_result *r, oracle_result *without)
{
  DM      dm, auxdm;
  Vec     aux, F, b;
  FEGForm form;
  Mat     A, J;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, ct, order, cont, cont, fegtest_dim(ct) == 2 ? 3 : 2, &dm));
  PetscCall(fegtest_make_form(dm, FORM_QPOINTS, &auxdm, &aux, &form));
  PetscCall(fegtest_oracle(dm, auxdm, aux, FEGTEST_XTERMS, &J, &F));
  PetscCall(VecScale(F, -1.0));
  PetscCall(DMCreateGlobalVector(dm, &b));
  for (PetscInt pass = 0; pass < 2; pass++) {
    oracle_result *res = pass ? without : r;

    if (pass) PetscCall(FEGFormSetQuadratureCoefficient(form, NULL, 0, NULL, NULL));
    PetscCall(fegtest_operator(dm, form, FEGOPADDTO, &A));
    PetscCall(FEGComputeRHS(dm, form, b));
    PetscCall(fegtest_matdiff(A, J, &res->mat));
    PetscCall(fegtest_vecdiff(b, F, &res->rhs));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&F));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* _i: cell type, then P2 continuous with Dirichlet data or P1 discontinuous */
START_TEST(test_quadrature_coefficients)
{
  const DMPolytopeType ct   = fegtest_cells[_i / 2];
  const PetscBool      cont = (PetscBool)(_i % 2 == 0);
  oracle_result        r, w;

  TCHK(qpoints_case(ct, cont ? 2 : 1, cont, &r, &w));
  ck_assert_msg(r.mat < 1e-12 && r.rhs < 1e-12, "%s: with quadrature-point coefficients the matrix differs from PETSc's by %g, the right-hand side by %g", DMPolytopeTypes[ct], (double)r.mat, (double)r.rhs);
  ck_assert_msg(w.mat > 1e-3 && w.rhs > 1e-3, "%s: the quadrature-point coefficients had no effect (%g, %g)", DMPolytopeTypes[ct], (double)w.mat, (double)w.rhs);
}
END_TEST

/* Per-cell coefficients: a DG0 auxiliary field with 16 components holding C per cell, mapped by the identity */
static void percell_g0(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = a[0];
}
static void percell_g1(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g1[])
{
  for (PetscInt d = 0; d < dim; d++) g1[d] = a[(d + 1) * 4];
}
static void percell_g2(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g2[])
{
  for (PetscInt d = 0; d < dim; d++) g2[d] = a[d + 1];
}
static void percell_g3(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt df = 0; df < dim; df++)
    for (PetscInt dg = 0; dg < dim; dg++) g3[df * dim + dg] = a[(dg + 1) * 4 + df + 1];
}

/* rel: fegpu against PETSc; rconst: the constant-C0 matrix against PETSc (the coefficients really vary) */
static PetscErrorCode percell(DMPolytopeType ct, PetscInt order, PetscReal *rel, PetscReal *rconst)
{
  DM              dm, auxdm;
  PetscFE         fe, auxfe;
  Vec             aux, auxl;
  FEGForm         form;
  Mat             A, J, Z;
  PetscDS         ds;
  PetscInt        cStart, cEnd, dim = fegtest_dim(ct);
  PetscScalar    *a, Aid[16 * 16] = {0};
  PetscQuadrature q;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, ct, order, PETSC_FALSE, PETSC_FALSE, 2, &dm));
  PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
  PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, dim, 16, ct, 0, PETSC_DETERMINE, &auxfe));
  PetscCall(PetscFEGetQuadrature(fe, &q));
  PetscCall(PetscFESetQuadrature(auxfe, q));
  PetscCall(DMClone(dm, &auxdm));
  PetscCall(DMSetField(auxdm, 0, NULL, (PetscObject)auxfe));
  PetscCall(DMCreateDS(auxdm));
  PetscCall(PetscFEDestroy(&auxfe));
  PetscCall(DMCreateGlobalVector(auxdm, &aux));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(VecGetArray(aux, &a));
  for (PetscInt c = cStart; c < cEnd; c++)
    for (PetscInt k = 0; k < 16; k++) a[(c - cStart) * 16 + k] = fegtest_C0[k] * (1.0 + 0.1 * ((c * 7 + k) % 5));
  PetscCall(VecRestoreArray(aux, &a));
  for (PetscInt k = 0; k < 16; k++) Aid[k * 16 + k] = 1.0;
  PetscCall(FEGFormCreate(PETSC_COMM_SELF, &form));
  PetscCall(FEGFormSetAuxiliaryField(form, auxdm, aux));
  PetscCall(FEGFormSetLinearCoefficient(form, 16, Aid, NULL));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(DMCreateLocalVector(auxdm, &auxl));
  PetscCall(DMGlobalToLocal(auxdm, aux, INSERT_VALUES, auxl));
  PetscCall(DMSetAuxiliaryVec(dm, NULL, 0, 0, auxl));
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, percell_g0, percell_g1, percell_g2, percell_g3));
  PetscCall(fegtest_oracle_jacobian(dm, &J));
  PetscCall(fegtest_matdiff(A, J, rel));
  /* and the coefficients really vary: the constant-C0 matrix differs */
  PetscCall(FEGFormSetLinearCoefficient(form, 16, NULL, NULL));
  PetscCall(FEGFormSetConstant(form, fegtest_C0, NULL));
  PetscCall(FEGCreateOperator(dm, form, &Z));
  PetscCall(fegtest_matdiff(Z, J, rconst));
  PetscCall(MatDestroy(&Z));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&auxl));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_per_cell_coefficients)
{
  const DMPolytopeType ct = fegtest_cells[_i];
  PetscReal            percell_rel, r_const;

  TCHK(percell(ct, 2, &percell_rel, &r_const));
  ck_assert_msg(percell_rel < 1e-12, "%s: per-cell C differs from PETSc's by %g", DMPolytopeTypes[ct], (double)percell_rel);
  ck_assert_msg(r_const > 1e-3, "%s: per-cell coefficients had no effect", DMPolytopeTypes[ct]);
}
END_TEST

/* FEGFormCreateAdvectionDiffusion: m u v + ds grad v . kappa grad u + as v vel . grad u, vel a P1 field */
static const PetscScalar ad_m = 1.5, ad_ds = 0.25, ad_as = 0.7;
static const PetscScalar ad_kappa[9] = {1.0, 0.3, 0.1, 0.2, 2.0, -0.1, 0.0, 0.4, 1.5};

static void ad_g0(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  g0[0] = ad_m;
}
static void ad_g1(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g1[])
{
  for (PetscInt l = 0; l < dim; l++) g1[l] = ad_as * a[l];
}
static void ad_g3(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt k = 0; k < dim; k++)
    for (PetscInt l = 0; l < dim; l++) g3[k * dim + l] = ad_ds * ad_kappa[k * dim + l];
}

static PetscErrorCode advdiff(DMPolytopeType ct, PetscReal *rel)
{
  DM              dm, veldm;
  PetscFE         fe, velfe;
  Vec             vel, vell;
  FEGForm         form;
  Mat             A, J;
  PetscDS         ds;
  PetscInt        dim = fegtest_dim(ct);
  PetscScalar     kappa[9];
  PetscQuadrature q;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fegtest_velocity};

  PetscFunctionBegin;
  for (PetscInt k = 0; k < dim; k++)
    for (PetscInt l = 0; l < dim; l++) kappa[k * dim + l] = ad_kappa[k * dim + l];
  PetscCall(fegtest_setup(PETSC_COMM_SELF, ct, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
  PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, dim, dim, ct, 1, PETSC_DETERMINE, &velfe));
  PetscCall(PetscFEGetQuadrature(fe, &q));
  PetscCall(PetscFESetQuadrature(velfe, q));
  PetscCall(DMClone(dm, &veldm));
  PetscCall(DMSetField(veldm, 0, NULL, (PetscObject)velfe));
  PetscCall(DMCreateDS(veldm));
  PetscCall(PetscFEDestroy(&velfe));
  PetscCall(DMCreateGlobalVector(veldm, &vel));
  PetscCall(DMProjectFunction(veldm, 0.0, funcs, NULL, INSERT_ALL_VALUES, vel));
  PetscCall(FEGFormCreateAdvectionDiffusion(PETSC_COMM_SELF, dim, ad_m, ad_ds, kappa, ad_as, veldm, vel, &form));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(DMCreateLocalVector(veldm, &vell));
  PetscCall(DMGlobalToLocal(veldm, vel, INSERT_VALUES, vell));
  PetscCall(DMSetAuxiliaryVec(dm, NULL, 0, 0, vell));
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, ad_g0, ad_g1, NULL, ad_g3));
  PetscCall(fegtest_oracle_jacobian(dm, &J));
  PetscCall(fegtest_matdiff(A, J, rel));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&vell));
  PetscCall(VecDestroy(&vel));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&veldm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_advection_diffusion_constructor)
{
  PetscReal rel;

  TCHK(advdiff(fegtest_cells[_i], &rel));
  ck_assert_msg(rel < 1e-12, "%s: advection-diffusion form differs from PETSc's by %g", DMPolytopeTypes[fegtest_cells[_i]], (double)rel);
}
END_TEST

/* x' = 1.5 x + 0.2 y, z' = z + 0.1 x: cells stay valid */
static PetscErrorCode move_mesh(DM dm)
{
  Vec          X0, X;
  PetscScalar *x;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(DMGetCoordinates(dm, &X0));
  PetscCall(VecDuplicate(X0, &X));
  PetscCall(VecCopy(X0, X));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt i = 0; i < n; i += 3) {
    x[i + 2] += 0.1 * x[i];
    x[i] = 1.5 * x[i] + 0.2 * x[i + 1];
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(DMSetCoordinates(dm, X));
  PetscCall(VecDestroy(&X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Operators and right-hand sides on one DM share its discretization, read once; moving the mesh must make the next
   operator and right-hand side read it again. The results on the moved mesh are compared with PETSc's assembly on a
   second DM moved before anything was assembled on it, and must differ from those before the move (else the
   comparison could not see a stale setup). Without Dirichlet conditions: the lifting's boundary values are PETSc's
   (DMPlexInsertBoundaryValues()), and on a DM moved after use they differed here from those of the DM moved first by
   0.38 while the matrices agreed to 1e-16. */
static PetscErrorCode shared_setup_case(PetscReal *rel)
{
  DM      dm, auxdm, dm2, auxdm2;
  Vec     aux, aux2, F, b, b2;
  FEGForm form, form2;
  Mat     A, A2, J;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  PetscCall(fegtest_aux(dm, &auxdm, &aux));
  PetscCall(fegtest_form(PETSC_COMM_SELF, auxdm, aux, PETSC_TRUE, &form));
  PetscCall(DMCreateGlobalVector(dm, &b));
  PetscCall(VecDuplicate(b, &b2));
  PetscCall(fegtest_operator(dm, form, FEGOPADDTO, &A));
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscCall(FEGComputeRHS(dm, form, b2)); /* from the shared setup: the same vector */
  PetscCall(fegtest_vecdiff(b, b2, &rel[0]));
  PetscCall(fegtest_oracle(dm, auxdm, aux, PETSC_TRUE, &J, &F));
  PetscCall(VecScale(F, -1.0));
  PetscCall(fegtest_matdiff(A, J, &rel[1]));
  PetscCall(fegtest_vecdiff(b, F, &rel[2]));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&F));
  PetscCall(move_mesh(dm));
  PetscCall(fegtest_operator(dm, form, FEGOPADDTO, &A2));
  PetscCall(FEGComputeRHS(dm, form, b2));
  /* the oracle: the same mesh, field and form, moved first */
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, PETSC_FALSE, 2, &dm2));
  PetscCall(fegtest_aux(dm2, &auxdm2, &aux2));
  PetscCall(fegtest_form(PETSC_COMM_SELF, auxdm2, aux2, PETSC_TRUE, &form2));
  PetscCall(move_mesh(dm2));
  PetscCall(fegtest_oracle(dm2, auxdm2, aux2, PETSC_TRUE, &J, &F));
  PetscCall(VecScale(F, -1.0));
  PetscCall(fegtest_matdiff(A2, J, &rel[3]));
  PetscCall(fegtest_vecdiff(b2, F, &rel[4]));
  PetscCall(fegtest_matdiff(A2, A, &rel[5]));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&F));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&A2));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&b2));
  PetscCall(VecDestroy(&aux));
  PetscCall(VecDestroy(&aux2));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(FEGFormDestroy(&form2));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&auxdm2));
  PetscCall(DMDestroy(&dm));
  PetscCall(DMDestroy(&dm2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_shared_setup_follows_mesh)
{
  PetscReal rel[6];

  TCHK(shared_setup_case(rel));
  ck_assert_msg(rel[0] == 0.0, "a second right-hand side on the same DM differs from the first by %g", (double)rel[0]);
  ck_assert_msg(rel[1] < 1e-12 && rel[2] < 1e-12, "before the move: matrix %g, right-hand side %g from PETSc's", (double)rel[1], (double)rel[2]);
  ck_assert_msg(rel[3] < 1e-12 && rel[4] < 1e-12, "after the move: matrix %g, right-hand side %g from PETSc's (a stale shared setup?)", (double)rel[3], (double)rel[4]);
  ck_assert_msg(rel[5] > 1e-3, "moving the mesh changed the operator by only %g", (double)rel[5]);
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("assembly");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_orders_1_to_4, 0, 5 * 8);
  tcase_add_loop_test(tc, test_high_order, 0, NHIGH);
  tcase_add_loop_test(tc, test_affine_cells, 0, 5 * 3);
  tcase_add_loop_test(tc, test_gll_nodes, 0, 8);
  tcase_add_test(tc, test_no_aux_constant);
  tcase_add_test(tc, test_oracle_can_fail);
  tcase_add_loop_test(tc, test_per_cell_coefficients, 0, 5);
  tcase_add_loop_test(tc, test_quadrature_coefficients, 0, 10);
  tcase_add_loop_test(tc, test_advection_diffusion_constructor, 0, 5);
  tcase_add_test(tc, test_shared_setup_follows_mesh);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "oracle", add_tests);
}
