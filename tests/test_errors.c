/* Bad input gets a clear PETSc error naming the bad value and what is allowed */
#include "fegtest.h"

START_TEST(test_bad_order)
{
  PetscFE fe;

  EXPECT_ERROR(FEGCreateFE(PETSC_COMM_SELF, 2, DM_POLYTOPE_TRIANGLE, 0, PETSC_TRUE, &fe), PETSC_ERR_ARG_OUTOFRANGE, "order 0 is not supported: fegpu supports orders 1 to 8");
  EXPECT_ERROR(FEGCreateFE(PETSC_COMM_SELF, 3, DM_POLYTOPE_HEXAHEDRON, 9, PETSC_FALSE, &fe), PETSC_ERR_ARG_OUTOFRANGE, "order 9 is not supported: fegpu supports orders 1 to 8");
  EXPECT_ERROR(FEGCreateFE(PETSC_COMM_SELF, 2, DM_POLYTOPE_TETRAHEDRON, 1, PETSC_TRUE, &fe), PETSC_ERR_ARG_WRONG, "needs dimension 3");
  EXPECT_ERROR(FEGCreateFEWithNodes(PETSC_COMM_SELF, 3, DM_POLYTOPE_TETRAHEDRON, 2, PETSC_TRUE, FEG_NODES_GLL, &fe), PETSC_ERR_SUP, "Node type gll needs quadrilaterals or hexahedra, not tetrahedra; use equispaced");
  EXPECT_ERROR(FEGCreateFEWithNodes(PETSC_COMM_SELF, 2, DM_POLYTOPE_QUADRILATERAL, 2, PETSC_TRUE, (FEGNodeType)7, &fe), PETSC_ERR_ARG_OUTOFRANGE, "Node type 7 is not one of FEG_NODES_EQUISPACED, FEG_NODES_GLL, FEG_NODES_GLL_COLLOCATED");
}
END_TEST

static PetscErrorCode strategy_from_options(const char *value)
{
  DM      dm;
  FEGForm form;
  Mat     A = NULL;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_QUADRILATERAL, 1, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  PetscCall(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  PetscCall(FEGFormSetOptionsPrefix(form, "bad_"));
  PetscCall(PetscOptionsSetValue(NULL, "-bad_feg_op_type", value));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(PetscOptionsClearValue(NULL, "-bad_feg_op_type"));
  PetscCall(MatDestroy(&A));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_bad_strategy)
{
  EXPECT_ERROR(strategy_from_options("fastest"), PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown fegpu operator type fastest (-feg_op_type); registered types: addto auto lma matfree");
  TCHK(PetscOptionsClearValue(NULL, "-bad_feg_op_type"));
  /* a good value through the same prefix works */
  TCHK(strategy_from_options("lma"));
}
END_TEST

static PetscErrorCode aux_on_wrong_dm(void)
{
  DM      dm, other, auxdm;
  Vec     aux;
  FEGForm form;
  Mat     A = NULL;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 4, &dm));
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 2, &other));
  PetscCall(fegtest_aux(other, &auxdm, &aux));
  PetscCall(fegtest_form(PETSC_COMM_SELF, auxdm, aux, PETSC_FALSE, &form));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&other));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode vec_of_wrong_size(PetscBool rhs)
{
  DM      dm, auxdm, other, oauxdm;
  Vec     aux, oaux, b;
  FEGForm form;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 2, PETSC_TRUE, PETSC_FALSE, 3, &dm));
  PetscCall(fegtest_aux(dm, &auxdm, &aux));
  PetscCall(fegtest_form(PETSC_COMM_SELF, auxdm, aux, PETSC_FALSE, &form));
  if (rhs) {
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, 7, &b));
    PetscCall(FEGComputeRHS(dm, form, b));
    PetscCall(VecDestroy(&b));
  } else {
    PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 2, &other));
    PetscCall(fegtest_aux(other, &oauxdm, &oaux));
    /* auxdm with a Vec of another DM */
    PetscCall(FEGFormSetAuxiliaryField(form, auxdm, oaux));
  }
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode mesh_with_vec_type(const char *vtype)
{
  DM dm = NULL;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-vt_dm_vec_type", vtype));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_SELF, "vt_", &dm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_cuda_vectors_without_cuda)
{
#if !defined(FEGPU_HAVE_CUDA)
  /* without CUDA, fegpu says so where the mesh is made, not PETSc's "Unknown vector type" at the first Vec */
  EXPECT_ERROR(mesh_with_vec_type("cuda"), PETSC_ERR_SUP, "The DM has vector type cuda but fegpu was built without CUDA: configure fegpu against a CUDA-enabled PETSc");
  TCHK(PetscOptionsClearValue(NULL, "-vt_dm_vec_type"));
  EXPECT_ERROR(FEGDeviceInitialize(), PETSC_ERR_SUP, "FEGDeviceInitialize() needs fegpu built against a CUDA-enabled PETSc");
#endif
  TCHK(mesh_with_vec_type("standard"));
  TCHK(PetscOptionsClearValue(NULL, "-vt_dm_vec_type"));
}
END_TEST

START_TEST(test_wrong_dm_and_size)
{
  EXPECT_ERROR(aux_on_wrong_dm(), PETSC_ERR_ARG_INCOMP, "coefficient field lives on the wrong DM");
  EXPECT_ERROR(vec_of_wrong_size(PETSC_TRUE), PETSC_ERR_ARG_SIZ, "Right-hand side Vec has local size 7");
  EXPECT_ERROR(vec_of_wrong_size(PETSC_FALSE), PETSC_ERR_ARG_WRONG, "belongs to another DM");
}
END_TEST

static PetscErrorCode linear_without_field(void)
{
  DM          dm;
  FEGForm     form;
  Mat         A         = NULL;
  PetscScalar Acoef[16] = {1.0};

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_HEXAHEDRON, 1, PETSC_TRUE, PETSC_FALSE, 1, &dm));
  PetscCall(FEGFormCreate(PETSC_COMM_SELF, &form));
  PetscCall(FEGFormSetLinearCoefficient(form, 1, Acoef, NULL));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(MatDestroy(&A));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_form_misuse)
{
  FEGForm form;

  EXPECT_ERROR(linear_without_field(), PETSC_ERR_ARG_WRONGSTATE, "no auxiliary field");
  TCHK(FEGFormCreate(PETSC_COMM_SELF, &form));
  EXPECT_ERROR(FEGFormSetLinearCoefficient(form, 0, NULL, NULL), PETSC_ERR_ARG_OUTOFRANGE, "components 0 must be positive");
  TCHK(FEGFormDestroy(&form));
  {
    DM dm;

    EXPECT_ERROR(FEGCreateBoxMesh(PETSC_COMM_SELF, DM_POLYTOPE_PYRAMID, NULL, NULL, NULL, 0.0, &dm), PETSC_ERR_ARG_WRONG, "Cell type pyramid is not supported");
    EXPECT_ERROR(FEGCreateBoxMesh(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, NULL, NULL, NULL, 0.7, &dm), PETSC_ERR_ARG_OUTOFRANGE, "Perturbation 0.7 must be in [0, 0.5)");
  }
  {
    DM dm, rdm;

    /* second-order tetrahedra: coordinates on the edges too */
    TCHK(DMPlexCreateGmshFromFile(PETSC_COMM_SELF, "../share/meshes/box_tet2.msh", PETSC_TRUE, &dm));
    EXPECT_ERROR(FEGMeshRefine(dm, &rdm), PETSC_ERR_SUP, "FEGMeshRefine() cannot refine this mesh: its coordinates are not one point per vertex");
    TCHK(DMDestroy(&dm));
  }
}
END_TEST

/* the operator object used in the wrong order or with bad values */
static PetscErrorCode op_misuse(int what)
{
  DM      dm;
  FEGForm form;
  FEGOp   op;
  Mat     A = NULL, P;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  PetscCall(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  PetscCall(FEGOpCreate(PETSC_COMM_SELF, &op));
  switch (what) {
  case 0: /* no DM */
    PetscCall(FEGOpSetForm(op, form));
    PetscCall(FEGOpSetUp(op));
    break;
  case 1: /* no form */
    PetscCall(FEGOpSetDM(op, dm));
    PetscCall(FEGOpSetUp(op));
    break;
  case 2:
    PetscCall(FEGOpSetType(op, "fastest"));
    break;
  case 3: /* a type change after setup */
    PetscCall(FEGOpSetDM(op, dm));
    PetscCall(FEGOpSetForm(op, form));
    PetscCall(FEGOpSetType(op, FEGOPLMA));
    PetscCall(FEGOpSetUp(op));
    PetscCall(FEGOpSetType(op, FEGOPMATFREE));
    break;
  case 4:
    PetscCall(FEGOpSetPmatType(op, (FEGPmatType)9));
    break;
  case 5: /* a matfree operator stores no element matrices to assemble */
    PetscCall(FEGOpSetDM(op, dm));
    PetscCall(FEGOpSetForm(op, form));
    PetscCall(FEGOpSetType(op, FEGOPMATFREE));
    PetscCall(FEGOpSetPmatType(op, FEG_PMAT_LMA));
    PetscCall(FEGOpCreateMat(op, &A));
    PetscCall(FEGOperatorGetPmat(A, &P));
    break;
  case 6: /* an assembled operator fills one matrix */
    PetscCall(FEGOpSetDM(op, dm));
    PetscCall(FEGOpSetForm(op, form));
    PetscCall(FEGOpCreateMat(op, &A));
    PetscCall(FEGOpCreateMat(op, &P));
    break;
  case 8:
    PetscCall(FEGOpSetPrecision(op, (FEGPrecision)3));
    break;
  case 9: /* lma set up in single, then asked for double */
    PetscCall(FEGOpSetDM(op, dm));
    PetscCall(FEGOpSetForm(op, form));
    PetscCall(FEGOpSetType(op, FEGOPLMA));
    PetscCall(FEGOpSetPrecision(op, FEG_PRECISION_SINGLE));
    PetscCall(FEGOpSetUp(op));
    PetscCall(FEGOpSetPrecision(op, FEG_PRECISION_DOUBLE));
    break;
  case 7: /* a Mat fegpu did not make */
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 2, 2, 1, NULL, &A));
    PetscCall(FEGOperatorAssemble(A, form));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(FEGOpDestroy(&op));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_op_misuse)
{
  EXPECT_ERROR(op_misuse(0), PETSC_ERR_ORDER, "Call FEGOpSetDM() before FEGOpSetUp()");
  EXPECT_ERROR(op_misuse(1), PETSC_ERR_ORDER, "Call FEGOpSetForm() before FEGOpSetUp()");
  EXPECT_ERROR(op_misuse(2), PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown fegpu operator type fastest");
  EXPECT_ERROR(op_misuse(3), PETSC_ERR_ORDER, "The operator is set up as lma; its type cannot change to matfree");
  EXPECT_ERROR(op_misuse(4), PETSC_ERR_ARG_OUTOFRANGE, "Unknown preconditioning matrix type 9; allowed: auto, none, addto, lma");
  EXPECT_ERROR(op_misuse(5), PETSC_ERR_SUP, "-feg_op_pmat lma assembles the element matrices the operator keeps, and a matfree operator keeps none");
  EXPECT_ERROR(op_misuse(6), PETSC_ERR_ORDER, "An operator of type addto assembles into the one matrix it made");
  EXPECT_ERROR(op_misuse(7), PETSC_ERR_ARG_WRONG, "Mat was not created by FEGCreateOperator() or FEGOpCreateMat()");
  EXPECT_ERROR(op_misuse(8), PETSC_ERR_ARG_OUTOFRANGE, "Unknown precision 3; allowed: double, single");
  EXPECT_ERROR(op_misuse(9), PETSC_ERR_ORDER, "The operator is set up in single precision; it cannot change to double");
}
END_TEST

/* FEGCreateMeshFromOptions() (and, with op, an operator on the mesh) under the given options only; the options live
   in an options object of their own, pushed for the call, so nothing is left behind when the call fails */
static PetscErrorCode mesh_with(const char *options, PetscBool op)
{
  PetscOptions   o;
  DM             dm   = NULL;
  FEGForm        form = NULL;
  Mat            A    = NULL;
  PetscErrorCode e;

  PetscFunctionBegin;
  PetscCall(PetscOptionsCreate(&o));
  PetscCall(PetscOptionsInsertString(o, options));
  PetscCall(PetscOptionsPush(o));
  e = FEGCreateMeshFromOptions(PETSC_COMM_SELF, NULL, &dm);
  if (!e && op) e = FEGSetUpDiscretization(dm, 1, PETSC_FALSE, "u");
  if (!e && op) e = fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form);
  if (!e && op) e = FEGCreateOperator(dm, form, &A);
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&o));
  if (e) return e; /* the error is the result; objects made before it are the test's to lose */
  PetscCall(MatDestroy(&A));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_bad_mesh_options)
{
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type cube", PETSC_FALSE), PETSC_ERR_USER, "Unknown option cube for -feg_mesh_cell_type. Available options: tri quad tet hex prism");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tet -feg_mesh_faces 0", PETSC_FALSE), PETSC_ERR_ARG_OUTOFRANGE, "Number of faces 0 in direction 0 must be at least 1");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type quad -feg_mesh_faces 3,-2", PETSC_FALSE), PETSC_ERR_ARG_OUTOFRANGE, "Number of faces -2 in direction 1 must be at least 1");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tet -feg_mesh_faces 2,2,2,2", PETSC_FALSE), PETSC_ERR_ARG_SIZ, "-feg_mesh_faces needs 1 or 3 values for a tet box, got 4");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type hex -feg_mesh_faces 2,2", PETSC_FALSE), PETSC_ERR_ARG_SIZ, "-feg_mesh_faces needs 1 or 3 values for a hex box, got 2");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tri -feg_mesh_lower 0,0,0", PETSC_FALSE), PETSC_ERR_ARG_SIZ, "-feg_mesh_lower needs 2 values for a tri box, got 3");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tri -feg_mesh_upper 1", PETSC_FALSE), PETSC_ERR_ARG_SIZ, "-feg_mesh_upper needs 2 values for a tri box, got 1");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tri -feg_mesh_lower 1,0 -feg_mesh_upper 0,1", PETSC_FALSE), PETSC_ERR_ARG_OUTOFRANGE, "Upper bound 0. must exceed lower bound 1. in direction 0");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tri -feg_mesh_perturb -0.1", PETSC_FALSE), PETSC_ERR_ARG_OUTOFRANGE, "Perturbation -0.1 must be in [0, 0.5)");
#if !defined(PETSC_USE_64BIT_INDICES)
  /* the cell count overflows a 32-bit PetscInt: named with the numbers, not a bare failure of the builder */
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tet -feg_mesh_faces 100000", PETSC_FALSE), PETSC_ERR_ARG_OUTOFRANGE, "A box of 100000 x 100000 x 100000 has 6000000000000000 tetrahedra, whose 24000000000000000 vertex numbers exceed the 2147483647 a 32-bit PetscInt can index");
#endif
  /* curved cells keep their geometry only through the regular refinement */
  EXPECT_ERROR(mesh_with("-feg_mesh_file ../share/meshes/shell_tet2.msh -dm_refine 1 -dm_plex_transform_type refine_alfeld", PETSC_FALSE), PETSC_ERR_SUP, "Only the uniform regular refinement keeps the geometry of curved cells (coordinates of order 2)");
  TCHK(mesh_with("-feg_mesh_cell_type tri -feg_mesh_faces 2 -feg_mesh_lower 0,0 -feg_mesh_upper 2,1", PETSC_FALSE));
}
END_TEST

/* Mesh files: missing, empty, truncated, garbled, mixed cells, an inverted and a flat tetrahedron (tests/meshes) */
/* types that store no element data refuse single, by name; an unknown precision is named */
START_TEST(test_bad_precision)
{
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tri -feg_op_type addto -feg_op_precision single", PETSC_TRUE), PETSC_ERR_SUP, "Operator type addto cannot store its data in single precision (-feg_op_precision single, or -feg_mg_precision single for p-multigrid's levels)");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tri -feg_op_type matfree -feg_op_precision single", PETSC_TRUE), PETSC_ERR_SUP, "Operator type matfree cannot store its data in single precision (-feg_op_precision single, or -feg_mg_precision single for p-multigrid's levels)");
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tri -feg_op_type lma -feg_op_precision half", PETSC_TRUE), PETSC_ERR_USER, "Unknown option half for -feg_op_precision");
  TCHK(mesh_with("-feg_mesh_cell_type tri -feg_op_type lma -feg_op_precision single", PETSC_TRUE));
  EXPECT_ERROR(mesh_with("-feg_mesh_cell_type tri -feg_op_type auto -feg_op_auto_applies -1", PETSC_TRUE), PETSC_ERR_ARG_OUTOFRANGE, "Applications per assembly (-feg_op_auto_applies) -1 must be at least 0");
}
END_TEST

START_TEST(test_bad_mesh_files)
{
  /* every error names the file and says what is wrong with it */
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/nonexistent.msh", PETSC_FALSE), PETSC_ERR_FILE_OPEN, "Cannot open the mesh file meshes/nonexistent.msh");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/empty.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/empty.msh: the file is empty");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/notgmsh.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/notgmsh.msh: it is not a Gmsh file: its first line is not $MeshFormat");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/version3.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/version3.msh: Gmsh format version 3.0 is not supported: PETSc reads versions 2.2 and 4.1");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/truncated.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/truncated.msh: the file is cut short: its last line is not the $End line of a section");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/garbled.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/garbled.msh: line 8 of its $Nodes section is not a node number and three coordinates");
  /* what PETSc's reader (3.18 to 3.22) would crash on: an element naming a missing node, wrong counts */
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/missing_node.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/missing_node.msh: element 1 (line 13) names node 7, which the $Nodes section does not hold");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/missing_node41.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/missing_node41.msh: element 6 (line 38) names node 17, which the $Nodes section does not hold");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/count41.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/count41.msh: its $Nodes section promises 5 entries in its blocks but holds 9 (line 29)");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/short_element.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/short_element.msh: element 1 (line 13) of Gmsh type 4 names 3 nodes, but that type has 4");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/repeated_node.msh", PETSC_FALSE), PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file meshes/repeated_node.msh: element 1 (line 13) names a node more than once");
  TCHK(mesh_with("-feg_mesh_file meshes/square41.msh", PETSC_TRUE)); /* Gmsh 4.1 */
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/mixed.msh", PETSC_TRUE), PETSC_ERR_SUP, "Mixed cell types (triangle and quadrilateral) are not supported");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/inverted.msh", PETSC_TRUE), PETSC_ERR_ARG_WRONG, "Cell 0 has Jacobian determinant -0.125 <= 0 at a quadrature point: the mesh has an inverted or degenerate cell");
  EXPECT_ERROR(mesh_with("-feg_mesh_file meshes/degenerate.msh", PETSC_TRUE), PETSC_ERR_ARG_WRONG, "Cell 0 has Jacobian determinant 0. <= 0");
  TCHK(mesh_with("-feg_mesh_file meshes/good.msh", PETSC_TRUE));
}
END_TEST

static PetscErrorCode nan_pointwise(PetscInt dim, PetscInt Nw, const PetscReal x[], const PetscScalar w[], const PetscScalar gradw[], PetscScalar C[], PetscScalar D[], void *ctx)
{
  if (x[0] > 0.5 && x[1] > 0.5) C[2 * 4 + 1] = (PetscScalar)NAN;
  return PETSC_SUCCESS;
}

/* which: 0 aux field with a NaN, 1 pointwise function returning NaN */
static PetscErrorCode nonfinite_coefficient(int which)
{
  DM      dm, auxdm = NULL;
  Vec     aux = NULL;
  FEGForm form;
  Mat     A;

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  if (which == 0) {
    PetscCall(fegtest_aux(dm, &auxdm, &aux));
    PetscCall(VecSetValue(aux, 3, (PetscScalar)NAN, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(aux));
    PetscCall(VecAssemblyEnd(aux));
  }
  PetscCall(fegtest_form(PETSC_COMM_SELF, auxdm, aux, PETSC_FALSE, &form));
  if (which == 1) PetscCall(FEGFormSetPointwiseCoefficient(form, nan_pointwise, NULL));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* which: 0 values made for another mesh, 1 values holding a NaN, 2 no values per point, 3 a map entry inf, 4 a map of
   more values than the vector was made for */
static PetscErrorCode bad_quadrature_vec(int which)
{
  DM          dm, other;
  Vec         W;
  FEGForm     form;
  Mat         A;
  PetscScalar map[16 * 2] = {0};

  PetscFunctionBegin;
  PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  PetscCall(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  if (which == 0) {
    PetscCall(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 3, &other));
    PetscCall(FEGDMCreateQuadratureVec(other, 1, &W));
    PetscCall(DMDestroy(&other));
  } else PetscCall(FEGDMCreateQuadratureVec(dm, which == 2 ? 0 : 1, &W));
  PetscCall(VecSet(W, 1.0));
  if (which == 1) {
    PetscCall(VecSetValue(W, 5, (PetscScalar)NAN, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(W));
    PetscCall(VecAssemblyEnd(W));
  }
  if (which == 3) map[5] = (PetscScalar)INFINITY;
  PetscCall(FEGFormSetQuadratureCoefficient(form, W, which == 4 ? 2 : 1, map, NULL));
  PetscCall(VecDestroy(&W));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(MatDestroy(&A));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_bad_quadrature_vec)
{
  EXPECT_ERROR(bad_quadrature_vec(0), PETSC_ERR_ARG_SIZ, "The form's quadrature-point vector has local size 54, but this DM's 8 local cells x 3 quadrature points x 1 values need 24: create it with FEGDMCreateQuadratureVec(dm, 1, &W) on the operator's DM");
  EXPECT_ERROR(bad_quadrature_vec(1), PETSC_ERR_FP, "The form's quadrature-point vector holds a NaN or Inf");
  EXPECT_ERROR(bad_quadrature_vec(2), PETSC_ERR_ARG_OUTOFRANGE, "Values per quadrature point 0 must be at least 1");
  EXPECT_ERROR(bad_quadrature_vec(3), PETSC_ERR_FP, "A[5] = inf");
  EXPECT_ERROR(bad_quadrature_vec(4), PETSC_ERR_ARG_SIZ, "The form's quadrature-point vector has local size 24, but this DM's 8 local cells x 3 quadrature points x 2 values need 48");
}
END_TEST

START_TEST(test_nonfinite)
{
  FEGForm     form;
  PetscScalar C[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, D[4] = {0}, A[16] = {0};

  TCHK(FEGFormCreate(PETSC_COMM_SELF, &form));
  C[1 * 4 + 2] = (PetscScalar)NAN;
  EXPECT_ERROR(FEGFormSetConstant(form, C, NULL), PETSC_ERR_FP, "C[1][2] = nan");
  C[1 * 4 + 2] = 0;
  D[3]         = (PetscScalar)INFINITY;
  EXPECT_ERROR(FEGFormSetConstant(form, C, D), PETSC_ERR_FP, "D[3] = inf");
  A[5] = -(PetscScalar)INFINITY;
  EXPECT_ERROR(FEGFormSetLinearCoefficient(form, 1, A, NULL), PETSC_ERR_FP, "A[5] = -inf");
  TCHK(FEGFormDestroy(&form));
  EXPECT_ERROR(nonfinite_coefficient(0), PETSC_ERR_FP, "The form's auxiliary field vector holds a NaN or Inf");
  EXPECT_ERROR(nonfinite_coefficient(1), PETSC_ERR_FP, "is not finite from the pointwise coefficient function at x = (");
}
END_TEST

/* The same form with other constants, assembled again into the same operator, gives the new matrix */
START_TEST(test_form_changed_between_assemblies)
{
  const PetscScalar C2[16] = {3.0, 0, 0, 0, 0, 2.0, 0.1, 0, 0, 0.1, 1.0, 0, 0, 0, 0, 1.0};
  DM                dm;
  FEGForm           form, fresh;
  Mat               A, B;
  PetscReal         rel = 1.0;

  TCHK(fegtest_setup(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, 2, PETSC_TRUE, PETSC_TRUE, 3, &dm));
  TCHK(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  TCHK(FEGCreateOperator(dm, form, &A));
  TCHK(FEGFormSetConstant(form, C2, NULL));
  TCHK(FEGOperatorAssemble(A, form));
  TCHK(FEGFormCreate(PETSC_COMM_SELF, &fresh));
  TCHK(FEGFormSetConstant(fresh, C2, fegtest_D0));
  TCHK(FEGCreateOperator(dm, fresh, &B));
  TCHK(fegtest_matdiff(A, B, &rel));
  ck_assert_msg(rel < 1e-14, "re-assembly after FEGFormSetConstant() differs from a fresh operator by %g", (double)rel);
  TCHK(MatDestroy(&A));
  TCHK(MatDestroy(&B));
  TCHK(FEGFormDestroy(&form));
  TCHK(FEGFormDestroy(&fresh));
  TCHK(DMDestroy(&dm));
}
END_TEST

/* fegpu calls on a DM that has no field yet */
static PetscErrorCode rhs_without_field(void)
{
  const PetscInt faces[2] = {2, 2};
  DM             dm;
  FEGForm        form;
  Vec            b;

  PetscFunctionBegin;
  PetscCall(FEGCreateBoxMesh(PETSC_COMM_SELF, DM_POLYTOPE_TRIANGLE, faces, NULL, NULL, 0.0, &dm));
  PetscCall(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 9, &b));
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a continuous P3 prism field set by hand keeps PETSc's section, which gives the quadrilateral faces the triangles'
   dofs (set_up_section: FEGDMSetUpSection() first, which mends it) */
static PetscErrorCode prism_field_by_hand(PetscBool set_up_section)
{
  const PetscInt faces[3] = {1, 1, 1};
  DM             dm;
  PetscFE        fe;
  FEGForm        form;
  Mat            A;

  PetscFunctionBegin;
  PetscCall(FEGCreateBoxMesh(PETSC_COMM_SELF, DM_POLYTOPE_TRI_PRISM, faces, NULL, NULL, 0.0, &dm));
  PetscCall(FEGCreateFE(PETSC_COMM_SELF, 3, DM_POLYTOPE_TRI_PRISM, 3, PETSC_TRUE, &fe));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(PetscFEDestroy(&fe));
  if (set_up_section) PetscCall(FEGDMSetUpSection(dm));
  PetscCall(fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form));
  PetscCall(FEGCreateOperator(dm, form, &A));
  PetscCall(MatDestroy(&A));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(test_wrong_order)
{
  EXPECT_ERROR(rhs_without_field(), PETSC_ERR_ARG_WRONG, "The DM has 0 fields; fegpu needs exactly one scalar PetscFE field (FEGSetUpDiscretization() or DMSetField() and DMCreateDS())");
  EXPECT_ERROR(prism_field_by_hand(PETSC_FALSE), PETSC_ERR_ARG_WRONG, "The DM's local section gives cell 0 31 dofs in its closure, but its element has 40: call FEGDMSetUpSection() after DMCreateDS()");
  TCHK(prism_field_by_hand(PETSC_TRUE));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("input");
  tcase_add_test(tc, test_bad_order);
  tcase_add_test(tc, test_bad_strategy);
  tcase_add_test(tc, test_wrong_dm_and_size);
  tcase_add_test(tc, test_cuda_vectors_without_cuda);
  tcase_add_test(tc, test_form_misuse);
  tcase_add_test(tc, test_op_misuse);
  tcase_add_test(tc, test_bad_mesh_options);
  tcase_add_test(tc, test_bad_mesh_files);
  tcase_add_test(tc, test_bad_precision);
  tcase_add_test(tc, test_nonfinite);
  tcase_add_test(tc, test_bad_quadrature_vec);
  tcase_add_test(tc, test_form_changed_between_assemblies);
  tcase_add_test(tc, test_wrong_order);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "errors", add_tests);
}
