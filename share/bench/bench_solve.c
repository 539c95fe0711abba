static const char help[] = "fegpu bench_solve: time to a converged solution of the BP3 problem, -div grad u = f with u = g(x) g(y) g(z), g(t) = t(1-t)e^t\n"
                           "on the unit cube (u = 0 on its boundary), from a zero guess to -rtol (default 1e-8) in the unpreconditioned residual norm.\n"
                           "  -cell hex|tet: hexahedra with GLL nodes and N+2 Gauss points per direction (libCEED's BP3), or tetrahedra\n"
                           "  -orders 2,4,6,8, -dofs N (about N unknowns), -kershaw eps (Kershaw's deformation, libCEED's -eps)\n"
                           "  -solvers pmg,jacobi,gamg: CG with fegpu's p-multigrid (PCMG over the orders, Chebyshev-Jacobi smoothing, GAMG on\n"
                           "     the order-1 level: share/fegpu/pmg.opts), CG with Jacobi (matfree), CG with PETSc's GAMG on the matrix fegpu's\n"
                           "     addto assembles (AIJCUSPARSE on the GPU)\n"
                           "  -op_type matfree|lma|addto: pmg's level operators (default matfree); -mg_precision double|single: the precision of\n"
                           "     their element data (FEGDMSetMGPrecision(): single needs lma) under CG in double\n"
                           "Prints iterations, mesh, setup (discretization, operators, preconditioner, right-hand side: KSPSetUp()) and solve\n"
                           "seconds and the L2 error (-error 0: none), after an untimed solve of a small problem with each solver (the libraries' first use;\n"
                           "-warmup 0: none); -csv F appends one line per order and solver. Use -dm_vec_type cuda for the GPU.\n";

#include "benchutil.h"
#include <petscksp.h>

/* u = g(x) g(y) g(z), g(t) = t (1 - t) e^t: zero on the cube's boundary, and not an eigenfunction of the Laplacian
   (sin(pi x) sin(pi y) sin(pi z) is one, and CG then converges in a few iterations whatever the preconditioner) */
static void G(PetscReal t, PetscReal g[3])
{
  const PetscReal e = PetscExpReal(t);

  g[0] = t * (1.0 - t) * e;
  g[1] = (1.0 - t - t * t) * e;
  g[2] = -t * (3.0 + t) * e;
}

static PetscErrorCode Exact(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 1.0;
  for (PetscInt d = 0; d < dim; d++) {
    PetscReal g[3];

    G(x[d], g);
    u[0] *= g[0];
  }
  return PETSC_SUCCESS;
}

/* f = -div grad u */
static PetscErrorCode Source(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *f, void *ctx)
{
  PetscReal g[3][3];

  for (PetscInt d = 0; d < dim; d++) G(x[d], g[d]);
  f[0] = 0.0;
  for (PetscInt d = 0; d < dim; d++) {
    PetscReal p = g[d][2];

    for (PetscInt e = 0; e < dim; e++)
      if (e != d) p *= g[e][0];
    f[0] -= p;
  }
  return PETSC_SUCCESS;
}

/* the right-hand side from its own form (the source through an auxiliary field), so that the operators' form keeps a
   constant coefficient */
static PetscErrorCode RHS(KSP ksp, Vec b, void *ctx)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &dm));
  PetscCall(FEGComputeRHS(dm, (FEGForm)ctx, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Zero(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 0.0;
  return PETSC_SUCCESS;
}

/* the solver's options, under the KSP's prefix; pmg's are those of share/fegpu/pmg.opts */
static PetscErrorCode SolverOptions(const char *solver, const char *optype)
{
  PetscFunctionBegin;
  if (!strcmp(solver, "pmg")) {
    PetscCall(PetscOptionsSetValue(NULL, "-s_feg_op_type", optype));
    PetscCall(PetscOptionsInsertString(NULL, "-s_pc_type mg -s_mg_levels_ksp_type chebyshev -s_mg_levels_ksp_max_it 3 -s_mg_levels_pc_type jacobi -s_mg_coarse_ksp_type preonly -s_mg_coarse_pc_type gamg"));
  } else if (!strcmp(solver, "jacobi")) {
    PetscCall(PetscOptionsInsertString(NULL, "-s_feg_op_type matfree -s_pc_type jacobi"));
  } else {
    /* GAMG's squared graph of an order-2 or higher matrix overflows cuSPARSE's SpGEMM at a million unknowns
       (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES): what a user then sets */
    PetscCall(PetscOptionsInsertString(NULL, "-s_feg_op_type addto -s_pc_type gamg"));
#if PETSC_VERSION_LT(3, 19, 0)
    PetscCall(PetscOptionsInsertString(NULL, "-s_pc_gamg_square_graph 0"));
#else
    PetscCall(PetscOptionsInsertString(NULL, "-s_pc_gamg_aggressive_coarsening 0"));
#endif
    /* and its Galerkin products (MatPtAP) of order-4 and higher matrices overflow it too: on the host */
    if (ondevice) PetscCall(PetscOptionsInsertString(NULL, "-matptap_backend_cpu -mat_product_algorithm_backend_cpu"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ClearSolverOptions(void)
{
  const char *names[] = {"-matptap_backend_cpu",    "-mat_product_algorithm_backend_cpu",
                         "-s_pc_gamg_square_graph", "-s_pc_gamg_aggressive_coarsening",
                         "-s_feg_op_type",          "-s_pc_type",
                         "-s_mg_levels_ksp_type",   "-s_mg_levels_ksp_max_it",
                         "-s_mg_levels_pc_type",    "-s_mg_coarse_ksp_type",
                         "-s_mg_coarse_pc_type"};

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) PetscCall(PetscOptionsClearValue(NULL, names[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt       its, cells, ndofs;
  PetscLogDouble tmesh, tsetup, tsolve;
  PetscReal      err;
} SolveResult;

/* one solve from nothing: mesh, discretization, form, KSPSetUp(), KSPSolve() */
static PetscErrorCode SolveOnce(PetscBool hex, PetscInt N, PetscInt n, PetscReal kershaw, const char *solver, const char *optype, FEGPrecision mgprec, PetscReal rtol, PetscBool error, SolveResult *r)
{
  const PetscScalar C[16] = {0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0}, B[4] = {1.0, 0, 0, 0};
  PetscErrorCode (*exact[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {Exact};
  PetscInt           faces[3] = {n, n, n}, id = 1, cs, ce;
  DM                 dm, auxdm;
  Vec                f, u;
  PetscFE            fe;
  DMLabel            label;
  FEGForm            form, rhs;
  KSP                ksp;
  KSPConvergedReason reason;
  PetscLogDouble     t0, t1;

  PetscFunctionBegin;
  PetscCall(Sync());
  PetscCall(PetscTime(&t0));
  PetscCall(FEGCreateBoxMesh(PETSC_COMM_WORLD, hex ? DM_POLYTOPE_HEXAHEDRON : DM_POLYTOPE_TETRAHEDRON, faces, NULL, NULL, 0.0, &dm));
  if (kershaw < 1) PetscCall(FEGMeshKershaw(dm, kershaw));
  if (ondevice) PetscCall(DMSetVecType(dm, VECCUDA));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  r->tmesh = t1 - t0;

  PetscCall(PetscTime(&t0));
  if (hex) {
    PetscQuadrature q;

    PetscCall(FEGCreateFEWithNodes(PETSC_COMM_WORLD, 3, DM_POLYTOPE_HEXAHEDRON, N, PETSC_TRUE, FEG_NODES_GLL, &fe));
    PetscCall(PetscDTGaussTensorQuadrature(3, 1, N + 2, -1.0, 1.0, &q));
    PetscCall(PetscFESetQuadrature(fe, q));
    PetscCall(PetscQuadratureDestroy(&q));
    PetscCall(PetscObjectSetName((PetscObject)fe, "u"));
    PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
    PetscCall(DMCreateDS(dm));
    PetscCall(FEGDMSetUpSection(dm));
  } else {
    PetscCall(FEGSetUpDiscretization(dm, N, PETSC_TRUE, "u"));
    PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscObjectReference((PetscObject)fe));
  }
  PetscCall(DMGetLabel(dm, "marker", &label));
  PetscCall(FEGDMAddBoundary(dm, DM_BC_ESSENTIAL, "wall", label, 1, &id, 0, 0, NULL, (void (*)(void))Zero, NULL, NULL, NULL));
  /* the source interpolated into the solution's space on a clone of the mesh, entering as D_0 = f */
  PetscCall(DMClone(dm, &auxdm));
  PetscCall(DMSetField(auxdm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(auxdm));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMCreateGlobalVector(auxdm, &f));
  PetscCall(FEGDMProjectFunction(auxdm, 0.0, Source, NULL, f));
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, C, NULL));
  PetscCall(FEGFormSetOptionsPrefix(form, "s_"));
  PetscCall(FEGDMSetForm(dm, form));
  if (!strcmp(solver, "pmg")) PetscCall(FEGDMSetMGPrecision(dm, mgprec));
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &rhs));
  PetscCall(FEGFormSetConstant(rhs, C, NULL));
  PetscCall(FEGFormSetAuxiliaryField(rhs, auxdm, f));
  PetscCall(FEGFormSetLinearCoefficient(rhs, 1, NULL, B));
  PetscCall(FEGFormSetOptionsPrefix(rhs, "s_"));
  PetscCall(DMKSPSetComputeRHS(dm, RHS, rhs));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "s_"));
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, rtol, 1e-50, PETSC_DEFAULT, 100000));
  PetscCall(SolverOptions(solver, optype));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  r->tsetup = t1 - t0;

  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, NULL, NULL));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  r->tsolve = t1 - t0;
  PetscCall(ClearSolverOptions());
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s did not converge at order %" PetscInt_FMT ": %s", solver, N, KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, &r->its));
  PetscCall(KSPGetSolution(ksp, &u));
  r->err = -1.0;
  if (error) PetscCall(DMComputeL2Diff(dm, 0.0, exact, NULL, u, &r->err));
  PetscCall(VecGetSize(u, &r->ndofs));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cs, &ce));
  r->cells = ce - cs;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &r->cells, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(FEGFormDestroy(&rhs));
  PetscCall(VecDestroy(&f));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt     orders[8] = {2, 4, 6, 8}, norders = 8, dofs = 1000000, ns = 3;
  char         cell[8] = "hex", *solvers[3] = {NULL}, optype[16] = "matfree", csv[PETSC_MAX_PATH_LEN] = "", vt[64] = "", name[3][32];
  FEGPrecision mgprec  = FEG_PRECISION_DOUBLE;
  PetscReal    kershaw = 1.0, rtol = 1e-8;
  PetscBool    set, dset, hex, warmup = PETSC_TRUE, error = PETSC_TRUE;
  FILE        *fp = NULL;
  PetscMPIInt  rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_solve options", NULL);
  PetscCall(PetscOptionsString("-cell", "hex or tet", NULL, cell, cell, sizeof(cell), NULL));
  PetscCall(PetscOptionsIntArray("-orders", "Polynomial orders (default 2,4,6,8)", NULL, orders, &norders, &set));
  PetscCall(PetscOptionsInt("-dofs", "About this many unknowns (default 1000000 on the GPU, 20000 on the host)", NULL, dofs, &dofs, &dset));
  PetscCall(PetscOptionsReal("-kershaw", "Kershaw's deformation of the box, eps in (0, 1] (1: none)", NULL, kershaw, &kershaw, NULL));
  PetscCall(PetscOptionsReal("-rtol", "Relative tolerance of the unpreconditioned residual", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsStringArray("-solvers", "pmg, jacobi, gamg", NULL, solvers, &ns, NULL));
  PetscCall(PetscOptionsString("-op_type", "pmg's level operators: matfree, lma, addto", NULL, optype, optype, sizeof(optype), NULL));
  PetscCall(PetscOptionsEnum("-mg_precision", "Precision of the element data of pmg's level operators", "FEGDMSetMGPrecision", FEGPrecisions, (PetscEnum)mgprec, (PetscEnum *)&mgprec, NULL));
  PetscCall(PetscOptionsString("-csv", "Append one CSV line per order and solver to this file", NULL, csv, csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsBool("-error", "Compute the L2 error (PETSc's DMComputeL2Diff(), on the host: most of a process at 8M unknowns); 0: report -1", NULL, error, &error, NULL));
  PetscCall(PetscOptionsBool("-warmup", "First solve a small problem with each solver, untimed (0 when the process itself is timed)", NULL, warmup, &warmup, NULL));
  PetscOptionsEnd();
  if (!set) norders = 4;
  PetscCall(BenchCheckName("-cell", cell, "hex,tet"));
  hex = (PetscBool)!strcmp(cell, "hex");
  for (PetscInt i = 0; i < norders; i++) PetscCall(BenchCheckInt("-orders", orders[i], 1, 8));
  PetscCall(BenchCheckInt("-dofs", dofs, 1, PETSC_MAX_INT));
  PetscCheck(kershaw > 0.0 && kershaw <= 1.0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-kershaw %g is out of range: allowed is (0, 1] (1: no deformation)", (double)kershaw);
  PetscCheck(rtol > 0.0 && rtol < 1.0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rtol %g is out of range: allowed is (0, 1)", (double)rtol);
  PetscCall(BenchCheckName("-op_type", optype, "matfree,lma,addto"));
  if (!solvers[0]) {
    PetscCall(PetscStrallocpy("pmg", &solvers[0]));
    PetscCall(PetscStrallocpy("jacobi", &solvers[1]));
    PetscCall(PetscStrallocpy("gamg", &solvers[2]));
    ns = 3;
  }
  for (PetscInt i = 0; i < ns; i++) PetscCall(BenchCheckName("-solvers", solvers[i], "pmg,jacobi,gamg"));
  /* the CSV's solver: pmg with its level operators' type and precision where they are not the default */
  for (PetscInt i = 0; i < ns; i++) {
    const PetscBool pmg = (PetscBool)!strcmp(solvers[i], "pmg");

    PetscCall(PetscSNPrintf(name[i], sizeof(name[i]), "%s%s%s%s%s", solvers[i], pmg && strcmp(optype, "matfree") ? "-" : "", pmg && strcmp(optype, "matfree") ? optype : "", pmg && mgprec != FEG_PRECISION_DOUBLE ? "-" : "", pmg && mgprec != FEG_PRECISION_DOUBLE ? FEGPrecisions[mgprec] : ""));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dm_vec_type", vt, sizeof(vt), NULL));
  PetscCall(BenchSetOnDevice(vt));
  if (!ondevice && !dset) dofs = 20000;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (csv[0] && rank == 0) {
    PetscBool exists;

    PetscCall(PetscTestFile(csv, 'r', &exists));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, csv, "a", &fp));
    if (!exists) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "peer,problem,degree,cells,global_nodes,its,solve_seconds,l2_error,eps,rtol,setup_seconds,mesh_seconds,solver,backend,cell\n"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bp3 solve: %s, -div grad u = f to rtol %g, Kershaw eps %g, %s\n", hex ? "hexahedra, GLL nodes, N+2 Gauss points" : "tetrahedra", (double)rtol, (double)kershaw, ondevice ? "GPU" : "host"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2s %-7s %10s %10s %6s %9s %9s %9s %9s %10s\n", "N", "solver", "cells", "dofs", "its", "mesh s", "setup s", "solve s", "total s", "L2 error"));
  /* the libraries' first use (CUDA context, cuBLAS, cuSPARSE handles, each solver's code) on a small problem, untimed:
     the times below are a solve's in a running program (the benchmark script times whole processes too) */
  for (PetscInt is = 0; warmup && is < ns; is++) {
    SolveResult r;

    PetscCall(SolveOnce(hex, PetscMin(orders[0], 2), 4, kershaw, solvers[is], optype, mgprec, rtol, error, &r));
  }
  for (PetscInt io = 0; io < norders; io++) {
    const PetscInt N = orders[io];
    /* hexahedra: round((dofs^(1/3) - 1) / N) cells a side (libCEED's scripts); tetrahedra: 6 per cube */
    const PetscInt n = BenchCellsPerSide(dofs, N);

    for (PetscInt is = 0; is < ns; is++) {
      SolveResult r;

      PetscCall(SolveOnce(hex, N, n, kershaw, solvers[is], optype, mgprec, rtol, error, &r));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2d %-7s %10d %10d %6d %9.3f %9.3f %9.3f %9.3f %10.3e\n", (int)N, name[is], (int)r.cells, (int)r.ndofs, (int)r.its, r.tmesh, r.tsetup, r.tsolve, r.tmesh + r.tsetup + r.tsolve, (double)r.err));
      if (fp)
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "fegpu,bp3,%d,%d,%d,%d,%g,%g,%g,%g,%g,%g,%s,%s,%s\n", (int)N, (int)n, (int)r.ndofs, (int)r.its, r.tsolve, (double)r.err, (double)kershaw, (double)rtol, r.tsetup, r.tmesh, name[is], ondevice ? "cuda" : "host", cell));
    }
  }
  if (fp) PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  for (PetscInt i = 0; i < 3; i++) PetscCall(PetscFree(solvers[i]));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: host
    nsize: 2
    requires: host
    args: -orders 2,3 -dofs 3000
    filter: awk '{ if (NR <= 2 || $2 == "jacobi") print $1, $2, $5; else print $1, $2, ($5 + 0 <= 15 ? "at most 15" : $5) }'
    output_file: output/bench_solve_host.out

TEST*/
