static const char help[] = "fegpu bench_matfree: the matrix-free kernels against the roofline, and a BP3-style CG solve.\n"
                           "  -mode action: affine tetrahedra, stiffness plus mass action (Swirydowicz et al.'s kernel) for each order of\n"
                           "     -orders 1,...,8 on about -elements E cells (discontinuous, as in that study; -continuous for CG), kernels\n"
                           "     -kernels refop,gemm,mma; -sweep tries every refop Ne x Nb and mma tile shape. Prints N, GFLOP/s, GB/s and %% of the measured roofline.\n"
                           "  -mode bp1|bp3|bp5: the CEED benchmark problems on hexahedra with GLL nodes (bp1 mass and bp3 Poisson with Q = P+1\n"
                           "     Gauss points, bp5 Poisson with Q = P GLL points), CG for -its iterations with the settings of libCEED's bps on\n"
                           "     about -dofs unknowns (on each process with -dofs_per_process), strategies -strategies matfree,lma,addto; prints\n"
                           "     DOFs x iterations per second and memory, and with -csv F one line per order in the peer's columns. setup s is\n"
                           "     FEGCreateOperator() (fegpu's setup and first assembly); the DM's sections, which any vector on the DM needs\n"
                           "     (fegpu's, FEGDMSetUpSection()), are built before it by a global vector and timed apart (sections s).\n"
                           "Use -dm_vec_type cuda for the GPU. Action times are medians of -reps batches of -reps back-to-back MatMults\n"
                           "(ms; ms sync: single MatMults, each synchronised), bp times medians of -reps synchronised solves.\n";

#include "benchutil.h"
#include <petscksp.h>
#if defined(FEGPU_HAVE_CUDA)
  #include <cuda_runtime_api.h>
#endif

/* time of one MatMult: the median of reps back-to-back batches of reps MatMults, synchronised once per batch (the
   kernel's throughput, as in a solver loop: the launches overlap the previous kernel), and the median of reps single
   synchronised MatMults (launch latency included) */
static PetscErrorCode TimeMult(Mat A, Vec x, Vec y, PetscInt reps, PetscLogDouble *t, PetscLogDouble *tsync)
{
  PetscLogDouble ts[64], tb[64];

  PetscFunctionBegin;
  PetscCall(MatMult(A, x, y)); /* warm up */
  PetscCall(Sync());
  for (PetscInt r = 0; r < reps; r++) {
    PetscLogDouble t0, t1, t2;

    PetscCall(PetscTime(&t0));
    PetscCall(MatMult(A, x, y));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    for (PetscInt b = 0; b < reps; b++) PetscCall(MatMult(A, x, y));
    PetscCall(Sync());
    PetscCall(PetscTime(&t2));
    ts[r] = t1 - t0;
    tb[r] = (t2 - t1) / reps;
  }
  *t     = Median(tb, reps);
  *tsync = Median(ts, reps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernel, and in a sweep its shape (otherwise the shape options of the command line stay) */
static PetscErrorCode SetKernel(const char *k, PetscBool sweep, PetscInt ne, PetscInt nb, PetscInt nr)
{
  char buf[16];

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_kernel", k));
  if (!sweep) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d", (int)ne));
  PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_ne", buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d", (int)nb));
  PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_nb", buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d", (int)nr));
  PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_nr", buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the flops the operator logged for one MatMult, summed over the processes: the work its kernel does */
static PetscErrorCode MultFlops(Mat A, Vec x, Vec y, PetscLogDouble *flops)
{
  PetscLogDouble f0, f1, f;

  PetscFunctionBegin;
  PetscCall(PetscGetFlops(&f0));
  PetscCall(MatMult(A, x, y));
  PetscCall(PetscGetFlops(&f1));
  f = f1 - f0;
  PetscCall(MPIU_Allreduce(&f, flops, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stiffness plus mass action on affine tetrahedra. The GFLOP/s and % roof columns count the work the kernel does (the
   flops it logs: with the gradient operators factored, fewer than the 2 nops Nb (Nb+1) per element of the operators
   as they are, 14 Np^2 + 14 Np for the 7 operators, the count of the 004 study); the compulsory bytes are x and y
   (8 Nb each) and the factors (8 nops). Where the kernel factors, "x fact" is the time of the same kernel with
   -feg_op_matfree_factored 0 over its own: the gain from factoring. */
static PetscErrorCode BenchAction(PetscInt norders, const PetscInt orders[], PetscInt target, PetscBool cont, char *kernels[], PetscInt nk, PetscBool sweep, PetscBool view, PetscInt reps, PetscReal triad, PetscReal fma)
{
  const PetscScalar C[16] = {0.5, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0};
  FEGForm           form;
  PetscInt          faces[3];

  PetscFunctionBegin;
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, C, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-feg_op_type", FEGOPMATFREE));
  faces[0] = faces[1] = faces[2] = (PetscInt)PetscCeilReal(PetscPowReal(target / 6.0, 1.0 / 3.0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "action: %" PetscInt_FMT " tetrahedra (Kuhn, %" PetscInt_FMT "^3 cubes, perturbed), %s, stiffness + mass (7 operators)\n", 6 * faces[0] * faces[0] * faces[0], faces[0], cont ? "continuous" : "discontinuous"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2s %4s %-6s %3s %3s %10s %10s %9s %8s %10s %9s %7s %10s\n", "N", "Np", "kernel", "Ne", "Nb", "ms", "GFLOP/s", "GB/s", "AI", "roof GF/s", "% roof", "x fact", "ms sync"));
  for (PetscInt io = 0; io < norders; io++) {
    const PetscInt N = orders[io];
    DM             dm;
    Mat            A;
    Vec            x, y;

    PetscCall(FEGCreateBoxMesh(PETSC_COMM_WORLD, DM_POLYTOPE_TETRAHEDRON, faces, NULL, NULL, 0.1, &dm));
    if (ondevice) PetscCall(DMSetVecType(dm, VECCUDA));
    PetscCall(FEGSetUpDiscretization(dm, N, cont, "u"));
    for (PetscInt ik = 0; ik < nk; ik++) {
      /* refop: elements per thread x groups per block; mma: element tiles x row tiles per warp (-feg_op_matfree_ne, _nr) */
      const PetscBool refop = (PetscBool)!strcmp(kernels[ik], "refop"), mma = (PetscBool)!strcmp(kernels[ik], "mma");
      const PetscInt  nes[4] = {1, 2, 4, 8}, nbs[7] = {1, 2, 4, 8, 16, 32, 64}, nts[3] = {2, 4, 8}, mts[3] = {1, 2, 4};
      const PetscInt  nne = sweep && refop ? 4 : (sweep && mma ? 3 : 1), nnb = sweep && refop ? 7 : (sweep && mma ? 3 : 1);
      PetscLogDouble  best = 0;

      for (PetscInt a = 0; a < nne; a++)
        for (PetscInt b = 0; b < nnb; b++) {
          PetscInt       Nb, Ne, cs, ce;
          PetscLogDouble t = 0, tsync = 0, flops;
          PetscFE        fe;
          double         full, bytes, ai, roof;
          char           xfact[16];
          const PetscInt nops = 7;

          PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
          PetscCall(PetscFEGetDimension(fe, &Nb));
          if (sweep && refop && nbs[b] * Nb > 1024) continue;
          if (sweep && mma && (mts[b] * nts[a] > 16 || mts[b] > (Nb + 7) / 8)) continue; /* not compiled, or empty row tiles */
          if (mma) PetscCall(SetKernel(kernels[ik], sweep, nts[a], 0, mts[b]));
          else PetscCall(SetKernel(kernels[ik], (PetscBool)(sweep && refop), nes[a], nbs[b], 0));
          PetscCall(FEGCreateOperator(dm, form, &A));
          PetscCall(MatCreateVecs(A, &x, &y));
          PetscCall(VecSet(x, 1.0));
          PetscCall(VecSetRandom(x, NULL));
          if (nne > 1) {
            /* a combination the GPU cannot launch is reported and skipped */
            PetscErrorCode ierr;

            PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
            ierr = TimeMult(A, x, y, reps, &t, &tsync);
            PetscCall(PetscPopErrorHandler());
            if (ierr) {
              PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2d %4d %-6s %3d %3d   (does not fit)\n", (int)N, (int)Nb, kernels[ik], (int)(mma ? nts[a] : nes[a]), (int)(mma ? mts[b] : nbs[b])));
              PetscCall(VecDestroy(&x));
              PetscCall(VecDestroy(&y));
              PetscCall(MatDestroy(&A));
              continue;
            }
          } else PetscCall(TimeMult(A, x, y, reps, &t, &tsync));
          PetscCall(DMPlexGetHeightStratum(dm, 0, &cs, &ce));
          Ne = ce - cs;
          PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &Ne, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
          PetscCall(MultFlops(A, x, y, &flops));
          full  = 2.0 * Ne * nops * Nb * (Nb + 1.0);
          bytes = (double)Ne * (16.0 * Nb + 8.0 * nops);
          ai    = flops / bytes;
          roof  = PetscMin(fma, triad * ai);
          if (!best || t < best) best = t;
          xfact[0] = 0;
          if (flops < 0.99 * full) { /* factored: the same kernel with the operators as they are */
            Mat            U;
            PetscLogDouble tu = 0, tus = 0;

            PetscCall(PetscOptionsSetValue(NULL, "-feg_op_matfree_factored", "0"));
            PetscCall(FEGCreateOperator(dm, form, &U));
            PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_factored"));
            PetscCall(TimeMult(U, x, y, reps, &tu, &tus));
            PetscCall(MatDestroy(&U));
            PetscCall(PetscSNPrintf(xfact, sizeof(xfact), "%.2f", tu / t));
          } else PetscCall(PetscStrncpy(xfact, "-", sizeof(xfact)));
          if (nne > 1)
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2d %4d %-6s %3d %3d %10.4f %10.1f %9.1f %8.2f %10.0f %8.1f%% %7s %10.4f\n", (int)N, (int)Nb, kernels[ik], (int)(mma ? nts[a] : nes[a]), (int)(mma ? mts[b] : nbs[b]), 1e3 * t, 1e-9 * flops / t, 1e-9 * bytes / t, ai, roof, 100.0 * (1e-9 * flops / t) / roof, xfact, 1e3 * tsync));
          else
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2d %4d %-6s %3s %3s %10.4f %10.1f %9.1f %8.2f %10.0f %8.1f%% %7s %10.4f\n", (int)N, (int)Nb, kernels[ik], "-", "-", 1e3 * t, 1e-9 * flops / t, 1e-9 * bytes / t, ai, roof, 100.0 * (1e-9 * flops / t) / roof, xfact, 1e3 * tsync));
          if (nne == 1 && view) {
            PetscViewer v;

            PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_WORLD, &v));
            PetscCall(PetscViewerASCIIPushTab(v));
            PetscCall(MatView(A, v));
            PetscCall(PetscViewerASCIIPopTab(v));
          }
          PetscCall(VecDestroy(&x));
          PetscCall(VecDestroy(&y));
          PetscCall(MatDestroy(&A));
        }
      if (sweep) {
        PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_ne"));
        PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_nb"));
        PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_nr"));
      }
    }
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_kernel"));
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_ne"));
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_nb"));
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_matfree_nr"));
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_type"));
  PetscCall(FEGFormDestroy(&form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Zero(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 0.0;
  return PETSC_SUCCESS;
}

/* The CEED benchmark problems on a box of hexahedra of order N with GLL nodes (as libCEED's bps, the peer), CG for a fixed
   number of iterations with the peer's settings (natural norm, no convergence test; Jacobi for BP1, no preconditioner
   for BP3 and BP5), DOFs x iterations per second:
     bp1: mass, u = 1 right-hand side, N+2 Gauss points per direction, no boundary condition
     bp3: -div grad u = 1, N+2 Gauss points, u = 0 on the boundary
     bp5: as bp3 with N+1 GLL points per direction, collocated with the nodes
   Cells per direction as the peer's script: round((dofs^(1/3) - 1) / N); perrank: that on each process, the box
   stretched along z by the number of processes (weak scaling). csv: one line per order and strategy, the peer's
   columns first. halo: time the halo exchange (a diagnostic, not part of a user's run). phases: the whole run's time by
   phase, each measured between barriers, so that they add up to the process's time less start-up and exit (the GPU's
   start-up is its own phase, before the mesh) */
static PetscErrorCode BenchBP(const char *problem, PetscInt norders, const PetscInt orders[], PetscInt mindofs, PetscBool perrank, char *strategies[], PetscInt ns, PetscInt its, PetscInt reps, PetscReal perturb, PetscReal kershaw, PetscInt corder, FEGNodeType nodes, const char *pctype, const char *csv, PetscBool halo, PetscBool phases)
{
  const PetscBool   mass = (PetscBool)!strcmp(problem, "bp1"), colloc = (PetscBool)!strcmp(problem, "bp5");
  const PetscScalar Cs[16] = {0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0}, Cm[16] = {1.0}, D[4] = {1.0, 0, 0, 0};
  const char       *pc = pctype[0] ? pctype : (mass ? PCJACOBI : PCNONE);
  FEGForm           form;
  PetscMPIInt       size, rank;
  FILE             *fp       = NULL;
  char              mesh[64] = "";

  PetscFunctionBegin;
  if (perturb > 0) PetscCall(PetscSNPrintf(mesh, sizeof(mesh), "perturbed %g", (double)perturb));
  if (corder > 1) PetscCall(PetscSNPrintf(mesh + strlen(mesh), sizeof(mesh) - strlen(mesh), "Q%d coordinates ", (int)corder));
  if (kershaw < 1) PetscCall(PetscSNPrintf(mesh + strlen(mesh), sizeof(mesh) - strlen(mesh), "%skershaw %g", perturb > 0 ? " + " : "", (double)kershaw));
  if (!mesh[0]) PetscCall(PetscStrncpy(mesh, "uniform", sizeof(mesh)));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, mass ? Cm : Cs, D));
  if (colloc) nodes = FEG_NODES_GLL_COLLOCATED;
  if (csv[0] && rank == 0) {
    PetscBool exists;

    PetscCall(PetscTestFile(csv, 'r', &exists));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, csv, "a", &fp));
    if (!exists) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "peer,problem,degree,cells,global_nodes,its,cg_seconds,mdofs_per_s,backend,mesh_seconds,setup_seconds,processes,sections_seconds,mesh,geometry\n"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: hexahedra, %s, %s nodes, %s, CG + %s, %" PetscInt_FMT " iterations, %s mesh\n", problem, mass ? "mass" : "Poisson", FEGNodeTypes[nodes], colloc ? "N+1 GLL points per direction" : "N+2 Gauss points per direction", pc, its, mesh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2s %-8s %10s %10s %8s %12s %12s %14s %10s %10s\n", "N", "strategy", "cells/proc", "dofs", "mesh s", "setup s", "solve s", "DOFs*its/s", "B/dof", "sections s"));
  if (ondevice) {
    /* the GPU's start-up (context, PETSc's handles) apart: fegpu makes it at its first device call, which would fall
       into whichever phase makes one */
    PetscLogDouble td0, td1;

    PetscCall(PetscTime(&td0));
    PetscCall(FEGDeviceInitialize());
    PetscCall(Sync());
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    PetscCall(PetscTime(&td1));
    if (phases) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "phases s: device start-up %.3f\n", td1 - td0));
  }
  for (PetscInt io = 0; io < norders; io++) {
    const PetscInt N        = orders[io];
    const PetscInt n        = BenchCellsPerSide(mindofs, N);
    PetscInt       faces[3] = {n, n, perrank ? n * size : n};
    DM             dm;
    PetscFE        fe;
    DMLabel        label;
    PetscInt       id = 1;
    PetscLogDouble tm0, tmesh, tsec, thalo, tdm;

    /* the mesh, its distribution and the discretization: what the process spends before fegpu starts */
    PetscCall(PetscTime(&tm0));
    PetscCall(FEGCreateBoxMesh(PETSC_COMM_WORLD, DM_POLYTOPE_HEXAHEDRON, faces, NULL, NULL, perturb, &dm));
    PetscCall(FEGMeshSetCoordinateOrder(dm, corder));
    if (kershaw < 1) PetscCall(FEGMeshKershaw(dm, kershaw));
    if (ondevice) PetscCall(DMSetVecType(dm, VECCUDA));
    PetscCall(FEGCreateFEWithNodes(PETSC_COMM_WORLD, 3, DM_POLYTOPE_HEXAHEDRON, N, PETSC_TRUE, nodes, &fe));
    if (!colloc) {
      PetscQuadrature q;

      PetscCall(PetscDTGaussTensorQuadrature(3, 1, N + 2, -1.0, 1.0, &q));
      PetscCall(PetscFESetQuadrature(fe, q));
      PetscCall(PetscQuadratureDestroy(&q));
    }
    PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
    PetscCall(DMCreateDS(dm));
    /* fegpu's local section (what FEGSetUpDiscretization() gives; PETSc's took 1.5 s at 8M Q2 unknowns on the H100) */
    PetscCall(FEGDMSetUpSection(dm));
    PetscCall(PetscFEDestroy(&fe));
    if (!mass) {
      PetscCall(DMGetLabel(dm, "marker", &label));
      PetscCall(FEGDMAddBoundary(dm, DM_BC_ESSENTIAL, "wall", label, 1, &id, 0, 0, NULL, (void (*)(void))Zero, NULL, NULL, NULL));
    }
    PetscCall(DMSetUp(dm));
    PetscCall(Sync());
    PetscCall(PetscTime(&tmesh));
    tmesh -= tm0;
    /* the DM's local and global sections, timed apart from fegpu's setup as a program's first global vector meets
       them whatever the operator (fegpu's, FEGDMSetUpSection(); on several processes the global one is PETSc's) */
    {
      Vec            g;
      PetscLogDouble ts0, ts1;

      PetscCall(PetscTime(&ts0));
      PetscCall(DMCreateGlobalVector(dm, &g));
      PetscCall(PetscTime(&ts1));
      PetscCall(VecDestroy(&g));
      tsec = ts1 - ts0;
    }
    if (halo) {
      PetscLogDouble th0, th1;

      PetscCall(Sync());
      PetscCall(PetscTime(&th0));
      PetscCall(HaloTime(dm, reps, "of the BP vectors"));
      PetscCall(Sync());
      PetscCall(PetscTime(&th1));
      thalo = th1 - th0;
    } else thalo = 0.0;
    for (PetscInt is = 0; is < ns; is++) {
      Mat            A;
      Vec            b, u;
      KSP            ksp;
      PC             kpc;
      PetscInt       ndof, kits, cs, ce;
      PetscLogDouble t0, t1, tset, ts[16], tsolve, tp[6];
      double         m0 = DeviceUsed(), m1;

      if (!strcmp(strategies[is], "addto") && N > 4) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2d %-8s   (skipped: addto is timed up to Q4; assembled Q5-Q8 matrices of the GPU runs' sizes exceed its memory)\n", (int)N, strategies[is]));
        continue;
      }
      PetscCall(PetscOptionsSetValue(NULL, "-feg_op_type", strategies[is]));
      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      PetscCall(FEGCreateOperator(dm, form, &A));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      tset  = t1 - t0;
      tp[5] = t1;
      m1    = DeviceUsed();
      PetscCall(MatCreateVecs(A, &u, &b));
      PetscCall(FEGComputeRHS(dm, form, b));
      PetscCall(Sync());
      PetscCall(PetscTime(&tp[0]));
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(KSPSetType(ksp, KSPCG));
      PetscCall(KSPGetPC(ksp, &kpc));
      PetscCall(PCSetType(kpc, pc));
      PetscCall(KSPSetNormType(ksp, KSP_NORM_NATURAL));
      PetscCall(KSPSetTolerances(ksp, 1e-20, PETSC_DEFAULT, PETSC_DEFAULT, its));
      /* exactly its iterations (BP1's smooth solution can otherwise converge early on small meshes); the natural norm is
         computed all the same, as in the peer */
      PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
      PetscCall(KSPSetUp(ksp));
      PetscCall(KSPSolve(ksp, b, u)); /* warm up */
      PetscCall(Sync());
      PetscCall(PetscTime(&tp[1]));
      for (PetscInt r = 0; r < PetscMin(reps, 16); r++) {
        PetscCall(VecSet(u, 0.0));
        PetscCall(Sync());
        PetscCall(PetscTime(&t0));
        PetscCall(KSPSolve(ksp, b, u));
        PetscCall(Sync());
        PetscCall(PetscTime(&t1));
        ts[r] = t1 - t0;
      }
      PetscCall(PetscTime(&tp[2]));
      tsolve = Median(ts, PetscMin(reps, 16));
      PetscCall(KSPGetIterationNumber(ksp, &kits));
      PetscCall(VecGetSize(u, &ndof));
      PetscCall(DMPlexGetHeightStratum(dm, 0, &cs, &ce));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-2d %-8s %10d %10d %8.2f %12.3f %12.4f %14.3e %10.1f %10.3f\n", (int)N, strategies[is], (int)(ce - cs), (int)ndof, tmesh, tset, tsolve, (double)ndof * kits / tsolve, (m1 - m0) / ndof, is ? 0.0 : tsec));
      if (fp) {
        const char *geometry = "-";

        if (!strcmp(strategies[is], "matfree")) {
          FEGOp              op;
          FEGMatFreeGeometry g;

          PetscCall(FEGOperatorGetOp(A, &op));
          PetscCall(FEGOpMatFreeGetGeometry(op, &g));
          geometry = FEGMatFreeGeometries[g];
        }
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "fegpu,%s,%d,%d,%d,%d,%g,%g,%s%s,%g,%g,%d,%g,%s,%s\n", problem, (int)N, (int)n, (int)ndof, (int)kits, tsolve, 1e-6 * ndof * kits / tsolve, strategies[is], ondevice ? "/cuda" : "/host", tmesh, tset, (int)size, is ? 0.0 : tsec, mesh, geometry));
      }
      PetscCall(Sync());
      PetscCall(PetscTime(&tp[3]));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(VecDestroy(&u));
      PetscCall(VecDestroy(&b));
      PetscCall(MatDestroy(&A));
      PetscCall(Sync());
      PetscCall(PetscTime(&tp[4]));
      if (phases)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "phases s: mesh %.3f, sections %.3f, halo %.3f, operator %.3f, right-hand side %.3f, solver set-up and first solve %.3f, %d timed solves %.3f, output %.3f, destroy %.3f\n", is ? 0.0 : tmesh, is ? 0.0 : tsec, is ? 0.0 : thalo, tset, tp[0] - tp[5], tp[1] - tp[0], (int)PetscMin(reps, 16), tp[2] - tp[1], tp[3] - tp[2], tp[4] - tp[3]));
    }
    PetscCall(Sync());
    PetscCall(PetscTime(&tdm));
    PetscCall(DMDestroy(&dm));
    PetscCall(Sync());
    if (phases) {
      PetscLogDouble t;

      PetscCall(PetscTime(&t));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "phases s: mesh destroy %.3f\n", t - tdm));
    }
  }
  if (fp) PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  PetscCall(PetscOptionsClearValue(NULL, "-feg_op_type"));
  PetscCall(FEGFormDestroy(&form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    orders[8] = {1, 2, 3, 4, 5, 6, 7, 8}, norders = 8, target = 320000, mindofs = 1000000, its = 50, reps = 10, nk = 4, ns = 4;
  char        mode[16] = "action", *kernels[4] = {NULL}, *strategies[4] = {NULL}, pctype[32] = "", csv[PETSC_MAX_PATH_LEN] = "";
  PetscBool   cont = PETSC_FALSE, sweep = PETSC_FALSE, view = PETSC_FALSE, perrank = PETSC_FALSE, halo = PETSC_FALSE, phases = PETSC_FALSE, set, eset, rset, dset;
  char        vt[64] = "";
  PetscReal   triad = 0, fma = 0, atom = 0, perturb = 0.0, kershaw = 1.0;
  PetscInt    corder = 1;
  FEGNodeType nodes  = FEG_NODES_GLL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_matfree options", NULL);
  PetscCall(PetscOptionsString("-mode", "action, bp1, bp3 or bp5", NULL, mode, mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsIntArray("-orders", "Polynomial orders (default 1,...,8)", NULL, orders, &norders, &set));
  PetscCall(PetscOptionsInt("-elements", "action: about this many tetrahedra (default 320000 on the GPU, 1000 on the host)", NULL, target, &target, &eset));
  PetscCall(PetscOptionsBool("-continuous", "action: continuous Lagrange", NULL, cont, &cont, NULL));
  PetscCall(PetscOptionsStringArray("-kernels", "action: refop, gemm, mma, qp, auto", NULL, kernels, &nk, NULL));
  PetscCall(PetscOptionsBool("-sweep", "action: time every refop Ne x Nb and mma tile shape", NULL, sweep, &sweep, NULL));
  PetscCall(PetscOptionsBool("-view", "action: view each operator", NULL, view, &view, NULL));
  PetscCall(PetscOptionsInt("-dofs", "bp: about this many unknowns (default 1000000 on the GPU, 20000 on the host)", NULL, mindofs, &mindofs, &dset));
  PetscCall(PetscOptionsBool("-dofs_per_process", "bp: -dofs on each process, the box stretched along z (weak scaling)", NULL, perrank, &perrank, NULL));
  PetscCall(PetscOptionsInt("-its", "bp: CG iterations", NULL, its, &its, NULL));
  PetscCall(PetscOptionsStringArray("-strategies", "bp: matfree, lma, addto", NULL, strategies, &ns, NULL));
  PetscCall(PetscOptionsReal("-perturb", "bp: vertex perturbation of the box (0: the peer's uniform box)", NULL, perturb, &perturb, NULL));
  PetscCall(PetscOptionsInt("-coordinate_order", "bp: order of the box's coordinates (2: second-order cells, curved by -kershaw)", NULL, corder, &corder, NULL));
  PetscCall(PetscOptionsReal("-kershaw", "bp: Kershaw's deformation of the box, eps in (0, 1] (1: none; libCEED's multigrid example's -eps)", NULL, kershaw, &kershaw, NULL));
  PetscCall(PetscOptionsEnum("-nodes", "bp1, bp3: node family (bp5 is always gll_collocated)", NULL, FEGNodeTypes, (PetscEnum)nodes, (PetscEnum *)&nodes, NULL));
  PetscCall(PetscOptionsString("-bp_pc_type", "bp: preconditioner (default as the peer: jacobi for bp1, none for bp3, bp5)", NULL, pctype, pctype, sizeof(pctype), NULL));
  PetscCall(PetscOptionsString("-csv", "bp: append one CSV line per order and strategy to this file", NULL, csv, csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsBool("-halo_view", "bp: on several processes, time the halo exchange on device and host vectors (a diagnostic outside the run)", NULL, halo, &halo, NULL));
  PetscCall(PetscOptionsBool("-phases", "bp: print the run's time by phase (mesh to destroy)", NULL, phases, &phases, NULL));
  PetscCall(PetscOptionsInt("-reps", "Repetitions (median; default 10 on the GPU, 3 on the host)", NULL, reps, &reps, &rset));
  PetscOptionsEnd();
  if (!set) norders = 8; /* PETSc's array options report 0 values when not given */
  PetscCall(BenchCheckName("-mode", mode, "action,bp1,bp3,bp5"));
  for (PetscInt i = 0; i < norders; i++) PetscCall(BenchCheckInt("-orders", orders[i], 1, 8));
  PetscCall(BenchCheckInt("-elements", target, 1, PETSC_MAX_INT));
  PetscCall(BenchCheckInt("-dofs", mindofs, 1, PETSC_MAX_INT));
  PetscCall(BenchCheckInt("-its", its, 1, 100000));
  PetscCall(BenchCheckInt("-reps", reps, 1, 64));
  for (PetscInt i = 0; i < nk; i++) PetscCall(BenchCheckName("-kernels", kernels[i], "refop,gemm,mma,qp,auto"));
  for (PetscInt i = 0; i < ns; i++) PetscCall(BenchCheckName("-strategies", strategies[i], "matfree,lma,addto"));
  PetscCheck(perturb >= 0.0 && perturb < 0.5, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-perturb %g is out of range: allowed is [0, 0.5)", (double)perturb);
  PetscCall(BenchCheckInt("-coordinate_order", corder, 1, 3));
  PetscCheck(kershaw > 0.0 && kershaw <= 1.0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-kershaw %g is out of range: allowed is (0, 1] (1: no deformation)", (double)kershaw);
  if (!kernels[0]) {
    PetscCall(PetscStrallocpy("refop", &kernels[0]));
    PetscCall(PetscStrallocpy("gemm", &kernels[1]));
    PetscCall(PetscStrallocpy("mma", &kernels[2]));
    nk = 3;
  }
  if (!strategies[0]) {
    PetscCall(PetscStrallocpy("matfree", &strategies[0]));
    PetscCall(PetscStrallocpy("lma", &strategies[1]));
    PetscCall(PetscStrallocpy("addto", &strategies[2]));
    ns = 3;
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dm_vec_type", vt, sizeof(vt), NULL));
  PetscCall(BenchSetOnDevice(vt));
  if (!ondevice && nk == 3 && !strcmp(kernels[1], "gemm")) nk = 1; /* gemm and mma are GPU kernels */
  if (ondevice && !strcmp(mode, "action")) {                       /* the roofline the action's table is read against; not part of a BP run */
    PetscCall(FEGDeviceRoofline(&triad, &fma, &atom));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "roofline of this GPU (measured now): triad %.0f GB/s, FP64 FMA %.0f GFLOP/s\n", (double)triad, (double)fma));
  } else if (!ondevice) {
    triad = 1.0;
    fma   = 1.0;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "host run: no roofline (the %% columns are not meaningful)\n"));
    /* the GPU's defaults would keep the host busy for hours at order 8 */
    if (!eset) target = 1000;
    if (!rset) reps = 3;
    if (!dset) mindofs = 20000;
  }
  if (strcmp(mode, "action")) PetscCall(BenchBP(mode, norders, orders, mindofs, perrank, strategies, ns, its, reps, perturb, kershaw, corder, nodes, pctype, csv, halo, phases));
  else PetscCall(BenchAction(norders, orders, target, cont, kernels, nk, sweep, view, reps, triad, fma));
  for (PetscInt i = 0; i < 4; i++) {
    PetscCall(PetscFree(kernels[i]));
    PetscCall(PetscFree(strategies[i]));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: action_default_orders
    requires: host
    args: -elements 50 -reps 1
    filter: awk '{print $1, $2, $3}'
    output_file: output/bench_matfree_action.out

  test:
    suffix: bp3_np2
    nsize: 2
    requires: host
    args: -mode bp3 -dofs 2000 -its 5 -reps 1 -strategies matfree,lma -orders 1,2
    filter: awk '{print $1, $2, $4}'
    output_file: output/bench_matfree_bp3_np2.out

TEST*/
