static const char help[] = "fegpu ex1: steady convection-diffusion-reaction on a box mesh, solved with PETSc KSP.\n"
                           "Manufactured solution u = prod_d sin(k_d x_d + s_d) with its Dirichlet data; prints the L2 error.\n"
                           "Options: -feg_mesh_cell_type tri|quad|tet|hex|prism -feg_mesh_faces n -feg_mesh_perturb r -order p (1 to 8)\n"
                           "         -feg_op_type addto|lma|matfree|auto -dm_refine k -feg_mesh_file f.msh -feg_op_view -timing 0|1,\n"
                           "         and every KSP/PC option.\n";

#include <fegpu.h>

static const PetscReal kk[3] = {1.3, 0.9, 1.1}, ss[3] = {0.3, 0.2, 0.1};

/* reaction 1, diffusion kappa (row k: test derivative), advection beta: C_00 = 1, C_l+1,k+1 = kappa_kl, C_l+1,0 = beta_l */
static const PetscReal kappa[3][3] = {
  {1.0, 0.2, 0.0},
  {0.2, 0.8, 0.1},
  {0.0, 0.1, 1.2}
};
static const PetscReal beta[3] = {1.0, -0.5, 0.25};

static PetscErrorCode exact(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 1.0;
  for (PetscInt d = 0; d < dim; d++) u[0] *= PetscSinReal(kk[d] * x[d] + ss[d]);
  return PETSC_SUCCESS;
}

/* f = u + beta . grad u - div(kappa grad u) */
static PetscErrorCode source(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *f, void *ctx)
{
  PetscReal sn[3], cs[3], u = 1.0;

  for (PetscInt d = 0; d < dim; d++) {
    sn[d] = PetscSinReal(kk[d] * x[d] + ss[d]);
    cs[d] = PetscCosReal(kk[d] * x[d] + ss[d]);
    u *= sn[d];
  }
  f[0] = u;
  for (PetscInt i = 0; i < dim; i++) {
    PetscReal du = kk[i] * cs[i];

    for (PetscInt d = 0; d < dim; d++)
      if (d != i) du *= sn[d];
    f[0] += beta[i] * du;
    for (PetscInt j = 0; j < dim; j++) {
      PetscReal d2u;

      if (i == j) d2u = -kk[i] * kk[i] * u;
      else {
        d2u = kk[i] * kk[j] * cs[i] * cs[j];
        for (PetscInt d = 0; d < dim; d++)
          if (d != i && d != j) d2u *= sn[d];
      }
      f[0] -= kappa[j][i] * d2u;
    }
  }
  return PETSC_SUCCESS;
}

int main(int argc, char **argv)
{
  DM             dm, auxdm;
  Vec            f, u;
  FEGForm        form;
  KSP            ksp;
  DMLabel        label;
  PetscFE        fe;
  PetscInt       dim, order = 1, id = 1, its, cStart, cEnd, ncells, ndofs;
  PetscReal      err;
  PetscBool      timing = PETSC_TRUE;
  PetscLogDouble t0, tmesh, tsetup, tsolve;
  PetscScalar    C[16] = {0}, B[4] = {1.0, 0, 0, 0};
  FEGOpType      type;
  Mat            A;
  DMPolytopeType ct;
  KSPType        ktype;
  PC             pc;
  PCType         ptype;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *)  = {exact};
  PetscErrorCode (*ffuncs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {source};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex1 options", NULL);
  PetscCall(PetscOptionsInt("-order", "Polynomial order of the Lagrange space (1 to 8)", NULL, order, &order, NULL));
  PetscCall(PetscOptionsBool("-timing", "Print the mesh, setup and solve times", NULL, timing, &timing, NULL));
  PetscOptionsEnd();
  PetscCheck(order >= 1 && order <= 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-order %" PetscInt_FMT " is out of range: allowed are 1 to 8", order);

  PetscCall(PetscTime(&t0));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, NULL, &dm));
  PetscCall(PetscTime(&tmesh));
  tmesh -= t0;
  PetscCall(PetscTime(&t0));
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(FEGSetUpDiscretization(dm, order, PETSC_TRUE, "u"));
  PetscCall(DMGetLabel(dm, "marker", &label));
  /* DMAddBoundary() with fegpu's label completion, which only checks the complete labels of fegpu's meshes */
  PetscCall(FEGDMAddBoundary(dm, DM_BC_ESSENTIAL, "wall", label, 1, &id, 0, 0, NULL, (void (*)(void))exact, NULL, NULL, NULL));

  /* the source enters as D_0 = f, f interpolated into the solution's space on a clone of the mesh */
  PetscCall(DMClone(dm, &auxdm));
  PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
  PetscCall(DMSetField(auxdm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(auxdm));
  PetscCall(DMCreateGlobalVector(auxdm, &f));
  PetscCall(DMProjectFunction(auxdm, 0.0, ffuncs, NULL, INSERT_ALL_VALUES, f));

  C[0] = 1.0;
  for (PetscInt l = 0; l < dim; l++) {
    C[(l + 1) * 4] = beta[l];
    for (PetscInt k = 0; k < dim; k++) C[(l + 1) * 4 + k + 1] = kappa[k][l];
  }
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, C, NULL));
  PetscCall(FEGFormSetAuxiliaryField(form, auxdm, f));
  PetscCall(FEGFormSetLinearCoefficient(form, 1, NULL, B));
  PetscCall(FEGFormSetFromOptions(form));
  PetscCall(FEGDMSetForm(dm, form));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 5000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp)); /* the operator, its first assembly and the right-hand side, through the DM */
  PetscCall(PetscTime(&tsetup));
  tsetup -= t0;
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(PetscTime(&tsolve));
  tsolve -= t0;
  PetscCall(KSPGetSolution(ksp, &u));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(DMComputeL2Diff(dm, 0.0, funcs, NULL, u, &err));

  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  ncells = cEnd - cStart;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ncells, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(VecGetSize(u, &ndofs));
  ct = DM_POLYTOPE_UNKNOWN;
  if (cEnd > cStart) PetscCall(DMPlexGetCellType(dm, cStart, &ct));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ct, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(FEGOperatorGetType(A, &type));
  PetscCall(KSPGetType(ksp, &ktype));
  PetscCall(PCGetType(pc, &ptype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fegpu ex1: steady convection-diffusion-reaction\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  mesh: %" PetscInt_FMT " %s cells, P%" PetscInt_FMT " Lagrange, %" PetscInt_FMT " unknowns\n", ncells, DMPolytopeTypes[ct], order, ndofs));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  strategy: %s, solver: %s + %s\n", type, ktype, ptype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  iterations: %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  L2 error: %.3e\n", (double)err));
  if (timing) {
    VecType vt;

    PetscCall(DMGetVecType(dm, &vt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  vectors: %s\n", vt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  times (s): mesh %.3f, setup (discretization, operator, first assembly, right-hand side) %.3f, solve %.3f\n", tmesh, tsetup, tsolve));
  }

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&f));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: tri_addto
    args: -timing 0 -feg_mesh_cell_type tri -feg_mesh_faces 8 -feg_mesh_perturb 0.2 -order 2 -feg_op_type addto
    output_file: output/ex1_tri.out

  test:
    suffix: tri_lma
    args: -timing 0 -feg_mesh_cell_type tri -feg_mesh_faces 8 -feg_mesh_perturb 0.2 -order 2 -feg_op_type lma
    output_file: output/ex1_tri_lma.out

  test:
    suffix: tri_lma_np2
    nsize: 2
    args: -timing 0 -feg_mesh_cell_type tri -feg_mesh_faces 8 -feg_mesh_perturb 0.2 -order 2 -feg_op_type lma
    output_file: output/ex1_tri_lma.out

  test:
    suffix: tet_addto_np3
    nsize: 3
    args: -timing 0 -feg_mesh_cell_type tet -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 2 -feg_op_type addto
    output_file: output/ex1_tet.out

  test:
    suffix: tet_addto
    args: -timing 0 -feg_mesh_cell_type tet -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 2 -feg_op_type addto
    output_file: output/ex1_tet.out

  test:
    suffix: hex_lma_np3
    nsize: 3
    args: -timing 0 -feg_mesh_cell_type hex -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 3 -feg_op_type lma -ksp_type bcgs
    output_file: output/ex1_hex_lma.out

  test:
    suffix: hex_lma
    args: -timing 0 -feg_mesh_cell_type hex -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 3 -feg_op_type lma -ksp_type bcgs
    output_file: output/ex1_hex_lma.out

  test:
    suffix: hex_addto_np3
    nsize: 3
    args: -timing 0 -feg_mesh_cell_type hex -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 3 -feg_op_type addto -ksp_type bcgs
    output_file: output/ex1_hex_addto.out

  test:
    suffix: hex_pmg_matfree_np2
    nsize: 2
    args: -timing 0 -feg_mesh_cell_type hex -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 4 -feg_op_type matfree -options_file ../share/fegpu/pmg.opts
    filter: grep -v iterations
    output_file: output/ex1_hex_pmg.out

  test:
    suffix: tet_pmg_lma
    args: -timing 0 -feg_mesh_cell_type tet -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 3 -feg_op_type lma -options_file ../share/fegpu/pmg.opts -feg_coarsen_order decrement
    filter: grep -v iterations
    output_file: output/ex1_tet_pmg.out

  test:
    suffix: prism_lma_view
    requires: host
    args: -timing 0 -feg_mesh_cell_type prism -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 1 -feg_op_type lma -feg_op_view
    output_file: output/ex1_prism_view.out

  test:
    suffix: quad_refine_addto_np2
    nsize: 2
    args: -timing 0 -feg_mesh_cell_type quad -feg_mesh_faces 4 -dm_refine 1 -order 3 -feg_op_type addto
    output_file: output/ex1_quad.out

  test:
    suffix: gmsh_lma_np2
    nsize: 2
    args: -timing 0 -feg_mesh_file ../share/meshes/square.msh -order 2 -feg_op_type lma
    output_file: output/ex1_gmsh.out

  test:
    suffix: gmsh_curved_lma_np2
    nsize: 2
    args: -timing 0 -feg_mesh_file ../share/meshes/shell_tet2.msh -order 2 -feg_op_type lma
    output_file: output/ex1_gmsh_curved.out

  test:
    suffix: gmsh_curved_refine_lma
    args: -timing 0 -feg_mesh_file ../share/meshes/shell_tet2.msh -order 2 -dm_refine 1 -feg_op_type lma
    output_file: output/ex1_gmsh_curved_refine.out

  test:
    suffix: gmsh_curved_refine_lma_np3
    nsize: 3
    args: -timing 0 -feg_mesh_file ../share/meshes/shell_tet2.msh -order 2 -dm_refine 1 -feg_op_type lma
    output_file: output/ex1_gmsh_curved_refine.out

  test:
    suffix: tet_matfree
    args: -timing 0 -feg_mesh_cell_type tet -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 2 -feg_op_type matfree
    output_file: output/ex1_tet_matfree.out

  test:
    suffix: prism_matfree_np2
    nsize: 2
    args: -timing 0 -feg_mesh_cell_type prism -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 1 -feg_op_type matfree -ksp_type bcgs
    output_file: output/ex1_prism_matfree.out

  test:
    suffix: prism_p3_lma
    args: -timing 0 -feg_mesh_cell_type prism -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 3 -feg_op_type lma
    output_file: output/ex1_prism_p3_lma.out

  test:
    suffix: prism_p3_lma_np2
    nsize: 2
    args: -timing 0 -feg_mesh_cell_type prism -feg_mesh_faces 3 -feg_mesh_perturb 0.2 -order 3 -feg_op_type lma
    output_file: output/ex1_prism_p3_lma.out

TEST*/
