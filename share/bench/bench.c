static const char help[] = "fegpu bench: setup, assembly and MatMult times of fegpu's operators on a box mesh.\n"
                           "Options: -feg_mesh_cell_type -feg_mesh_faces -order -continuous -bench_reps n -bench_strategies addto,atomic,color,gather,coo,lma,lma_single,matfree,auto -bench_petsc_coo 0|1\n"
                           "         -dm_vec_type cuda -bench_csv file.csv (append rows) -bench_petsc_host (time PETSc's own FEM assembly)\n"
                           "         -bench_mesh_reference: also build the box from the same cell list as PETSc does (DMPlexCreateFromCellListPetsc,\n"
                           "         interpolated, with the boundary label) and print both times (one process, no prisms)\n"
                           "         -bench_coeff constant|host|points: C constant, or a diffusivity 1 + |x|^2 added by a host pointwise function\n"
                           "         or given as values at the quadrature points computed where the vectors live (setup includes them)\n"
                           "Prints one line per strategy: times are medians of -bench_reps runs, synchronised with the device.\n";

#include "benchutil.h"
#include <petscds.h>
#include <petscsnes.h>
#if defined(FEGPU_HAVE_CUDA)
  #include <cuda_runtime_api.h>
  #include <petscdevice_cuda.h>
#endif

/* PETSc's own FEM assembly of the same constant-C form: pointwise Jacobians reading C from the DS constants */
static void g0(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt nc, const PetscScalar C[], PetscScalar g[])
{
  g[0] = C[0];
}
static void g1(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt nc, const PetscScalar C[], PetscScalar g[])
{
  for (PetscInt d = 0; d < dim; d++) g[d] = C[(d + 1) * 4];
}
static void g2(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt nc, const PetscScalar C[], PetscScalar g[])
{
  for (PetscInt d = 0; d < dim; d++) g[d] = C[d + 1];
}
static void g3(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt nc, const PetscScalar C[], PetscScalar g[])
{
  for (PetscInt df = 0; df < dim; df++)
    for (PetscInt dg = 0; dg < dim; dg++) g[df * dim + dg] = C[(dg + 1) * 4 + df + 1];
}

/* the x-dependent diffusivity of -bench_coeff: |x|^2 added to the diagonal of the gradient block */
static PetscErrorCode KappaPointwise(PetscInt dim, PetscInt Nw, const PetscReal x[], const PetscScalar w[], const PetscScalar gradw[], PetscScalar C[], PetscScalar D[], void *ctx)
{
  PetscReal r2 = 0.0;

  for (PetscInt d = 0; d < dim; d++) r2 += x[d] * x[d];
  for (PetscInt d = 1; d <= dim; d++) C[d * 4 + d] += r2;
  return PETSC_SUCCESS;
}

/* the same as values at the quadrature points: W = x .* x (dim per point, computed by Vec operations where the DM's
   vectors live), each mapped onto every diagonal entry of the gradient block */
static PetscErrorCode KappaPoints(DM dm, FEGForm form)
{
  Vec         X, W;
  PetscInt    dim;
  PetscScalar A[16 * 3] = {0};

  PetscFunctionBegin;
  PetscCall(DMGetCoordinateDim(dm, &dim));
  PetscCall(FEGDMCreateQuadratureCoordinates(dm, &X));
  PetscCall(FEGDMCreateQuadratureVec(dm, dim, &W));
  PetscCall(VecPointwiseMult(W, X, X));
  for (PetscInt d = 1; d <= dim; d++)
    for (PetscInt k = 0; k < dim; k++) A[(d * 4 + d) * dim + k] = 1.0;
  PetscCall(FEGFormSetQuadratureCoefficient(form, W, dim, A, NULL));
  PetscCall(VecDestroy(&W));
  PetscCall(VecDestroy(&X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* stream triad w = a x + y on the DM's vector type: the bandwidth the roofline uses */
static PetscErrorCode Triad(DM dm, PetscInt reps, PetscReal *gbs)
{
  Vec            x, y, w;
  PetscInt       n;
  PetscLogDouble t[64], t0;

  PetscFunctionBegin;
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecGetSize(x, &n));
  PetscCall(VecDestroy(&x));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, PetscMax(n, 1 << 25)));
  {
    VecType vt;

    PetscCall(DMGetVecType(dm, &vt));
    PetscCall(VecSetType(x, vt));
  }
  PetscCall(VecGetSize(x, &n));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecSet(y, 2.0));
  PetscCall(VecWAXPY(w, 3.0, x, y));
  reps = PetscMin(reps, 64);
  for (PetscInt r = 0; r < reps; r++) {
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    PetscCall(VecWAXPY(w, 3.0, x, y));
    PetscCall(Sync());
    PetscCall(PetscTime(&t[r]));
    t[r] -= t0;
  }
  *gbs = 3.0 * 8.0 * n / Median(t, reps) / 1e9;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference for fegpu's box builder: PETSc's DMPlexCreateFromCellListPetsc() with interpolation and the boundary
   label of DMPlexMarkBoundaryFaces() + DMPlexLabelComplete(), from the cell list of dm, timed */
static PetscErrorCode MeshReference(DM dm, PetscLogDouble tfeg)
{
  DM                 udm, ref;
  DMLabel            label;
  DMPolytopeType     ct;
  PetscInt           cStart, cEnd, vStart, vEnd, dim, nper, nc, nv, *cells;
  PetscReal         *coords;
  Vec                X;
  const PetscScalar *x;
  PetscMPIInt        size;
  PetscLogDouble     t0, t1;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetCellType(dm, cStart, &ct));
  if (size > 1 || ct == DM_POLYTOPE_TRI_PRISM_TENSOR) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mesh reference: skipped (one process, no prisms)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexUninterpolate(dm, &udm));
  PetscCall(DMPlexGetDepthStratum(udm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetConeSize(udm, cStart, &nper));
  nc = cEnd - cStart;
  nv = vEnd - vStart;
  PetscCall(PetscMalloc2(nc * nper, &cells, nv * dim, &coords));
  for (PetscInt c = cStart; c < cEnd; c++) {
    const PetscInt *cone;

    PetscCall(DMPlexGetCone(udm, c, &cone));
    for (PetscInt k = 0; k < nper; k++) cells[(c - cStart) * nper + k] = cone[k] - vStart;
  }
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt k = 0; k < nv * dim; k++) coords[k] = PetscRealPart(x[k]);
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(DMDestroy(&udm));
  PetscCall(PetscTime(&t0));
  PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_WORLD, dim, nc, nv, nper, PETSC_TRUE, cells, dim, coords, &ref));
  PetscCall(DMCreateLabel(ref, "marker"));
  PetscCall(DMGetLabel(ref, "marker", &label));
  PetscCall(DMPlexMarkBoundaryFaces(ref, 1, label));
  PetscCall(DMPlexLabelComplete(ref, label));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mesh reference: %" PetscInt_FMT " cells, fegpu's box %.3f s, PETSc's DMPlexCreateFromCellListPetsc + boundary label of the same cells %.3f s: %.1fx\n", nc, tfeg, t1 - t0, (t1 - t0) / tfeg));
  PetscCall(DMDestroy(&ref));
  PetscCall(PetscFree2(cells, coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What every row of a run's CSV (-bench_csv) shares: the file, and the columns that say which case and machine */
typedef struct {
  char      file[PETSC_MAX_PATH_LEN];
  char      head[160]; /* device,cell,order,continuous */
  char      tail[160]; /* triad_gbs,fma_gflops,atomic_gups,affine */
  PetscReal triad;
} BenchCSV;

/* the case's columns, read once */
static PetscErrorCode CSVSetUp(const char *file, PetscBool ondevice, PetscInt order, PetscBool cont, PetscReal triad, PetscReal fmaPeak, PetscReal atomRate, BenchCSV *c)
{
  char      cell[64] = "", mesh[PETSC_MAX_PATH_LEN] = "";
  PetscReal perturb = 0.0;
  PetscBool affine;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(c->file, file, sizeof(c->file)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-feg_mesh_cell_type", cell, sizeof(cell), NULL));
  /* the box's cells are affine unless perturbed, simplices always (mesh files: only simplices counted as affine) */
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-feg_mesh_perturb", &perturb, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-feg_mesh_file", mesh, sizeof(mesh), NULL));
  affine = (PetscBool)(!cell[0] || !strcmp(cell, "tri") || !strcmp(cell, "tet") || (perturb == 0.0 && !mesh[0]));
  PetscCall(PetscSNPrintf(c->head, sizeof(c->head), "%s,%s,%d,%d", ondevice ? "gpu" : "cpu", cell[0] ? cell : "tri", (int)order, (int)cont));
  PetscCall(PetscSNPrintf(c->tail, sizeof(c->tail), "%.0f,%.0f,%.1f,%d", (double)triad, (double)fmaPeak, (double)atomRate, (int)affine));
  c->triad = triad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Appends one row (rank 0), with the header when the file is new; mult < 0: no MatMult columns */
static PetscErrorCode CSVRow(const BenchCSV *c, const char *label, PetscInt Ne, PetscInt Nb, PetscReal setup, PetscReal assembly, PetscReal mult, PetscReal gbs, PetscReal gflops, PetscReal bpd)
{
  PetscMPIInt rank;
  char        mm[128] = ",,,,";
  PetscBool   exists;
  FILE       *fp;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  if (mult >= 0) PetscCall(PetscSNPrintf(mm, sizeof(mm), "%.5f,%.1f,%.2f,%.1f,%.1f", mult * 1e3, (double)gbs, (double)gflops, (double)(100.0 * gbs / c->triad), (double)bpd));
  PetscCall(PetscTestFile(c->file, 'r', &exists));
  fp = fopen(c->file, "a");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open the -bench_csv file %s for appending", c->file);
  if (!exists) fprintf(fp, "device,cell,order,continuous,strategy,elements,dofs_per_element,setup_s,assembly_ms,elements_per_s,matmult_ms,matmult_gbs,matmult_gflops,pct_triad,bytes_per_dof,triad_gbs,fma_gflops,atomic_gups,affine\n");
  fprintf(fp, "%s,%s,%d,%d,%.4f,%.5f,%.4e,%s,%s\n", c->head, label, (int)Ne, (int)Nb, (double)setup, assembly * 1e3, Ne / assembly, mm, c->tail);
  fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             dm;
  FEGForm        form;
  PetscInt       order = 1, reps = 10, nstrat = 8, Ne, Nb, cStart, cEnd, ndofs;
  PetscBool      cont     = PETSC_TRUE;
  char          *strat[8] = {NULL};
  PetscScalar    C[16]    = {1.0, 0, 0, 0, 0, 1.0, 0.2, 0.1, 0, 0.2, 1.0, 0.1, 0, 0.1, 0.1, 1.0};
  PetscLogDouble tsetup0, tsetup, tmesh, tdisc0, rAsm[8], rMult[8], rSet[8];
  char           csv[PETSC_MAX_PATH_LEN] = "";
  BenchCSV       bcsv;
  PetscReal      rGbs[8], rBpd[8], rGfl[8], fmaPeak = 0.0, atomRate = 0.0;
  char           rLabel[8][64];
  PetscReal      triad = 0.0;
  VecType        vt;
  const char    *coeffs[] = {"constant", "host", "points"};
  PetscInt       coeff    = 0;
  PetscBool      meshref  = PETSC_FALSE;
  PetscBool      coo      = PETSC_TRUE;
  PetscReal      beta     = 0.0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench options", NULL);
  PetscCall(PetscOptionsInt("-order", "Polynomial order", NULL, order, &order, NULL));
  PetscCall(PetscOptionsBool("-continuous", "Continuous Lagrange", NULL, cont, &cont, NULL));
  PetscCall(PetscOptionsInt("-bench_reps", "Repetitions (median reported)", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsStringArray("-bench_strategies", "Strategies to time: addto (its mode chosen) or an addto mode (atomic, color, gather, coo), lma, lma_single, matfree, auto", NULL, strat, &nstrat, NULL));
  PetscCall(PetscOptionsBool("-bench_mesh_reference", "Also time PETSc's DMPlexCreateFromCellListPetsc() of the same cells", NULL, meshref, &meshref, NULL));
  PetscCall(PetscOptionsBool("-bench_petsc_coo", "Also time PETSc's MatSetPreallocationCOO/MatSetValuesCOO on the GPU (the addto baseline)", NULL, coo, &coo, NULL));
  PetscCall(PetscOptionsEList("-bench_coeff", "Coefficient: constant, x-dependent by a host function, or given at the quadrature points", NULL, coeffs, 3, coeffs[coeff], &coeff, NULL));
  PetscCall(PetscOptionsReal("-bench_advection", "Velocity component beta of an advection term beta . grad(u) v (C_i0 = beta, i > 0): a non-symmetric form", NULL, beta, &beta, NULL));
  PetscOptionsEnd();
  PetscCall(BenchCheckInt("-order", order, 1, 8));
  PetscCall(BenchCheckInt("-bench_reps", reps, 1, 64));
  PetscCheck(PetscIsNormalReal(beta) || beta == 0.0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_advection %g must be a finite number", (double)beta);
  for (PetscInt s = 0; s < nstrat; s++) PetscCall(BenchCheckName("-bench_strategies", strat[s], "addto,atomic,color,gather,coo,lma,lma_single,matfree,auto"));
  for (PetscInt i = 1; i < 4; i++) C[i * 4] = beta;
  if (!strat[0]) {
    const char *def[5] = {"atomic", "color", "gather", "coo", "lma"};
    for (PetscInt i = 0; i < 5; i++) PetscCall(PetscStrallocpy(def[i], &strat[i]));
    nstrat = 5;
  }
  PetscCall(PetscTime(&tsetup0));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, NULL, &dm));
  PetscCall(PetscTime(&tmesh));
  tmesh -= tsetup0;
  if (meshref) PetscCall(MeshReference(dm, tmesh));
  /* mesh and discretization, without the reference's time */
  PetscCall(PetscTime(&tdisc0));
  PetscCall(FEGSetUpDiscretization(dm, order, cont, "u"));
  PetscCall(PetscTime(&tsetup));
  tsetup = tmesh + (tsetup - tdisc0);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  Ne = cEnd - cStart;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &Ne, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  {
    PetscFE fe;

    PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscFEGetDimension(fe, &Nb));
  }
  PetscCall(DMGetVecType(dm, &vt));
  PetscCall(BenchSetOnDevice(vt));
  PetscCall(HaloTime(dm, reps, "of the operator's vectors"));
  if (ondevice) {
    PetscReal   fma, atom;
    PetscMPIInt nproc;

    /* this GPU's own ceilings, measured now */
    PetscCall(FEGDeviceRoofline(&triad, &fma, &atom));
    fmaPeak  = fma;
    atomRate = atom;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench: roofline of this GPU: triad %.0f GB/s, FP64 FMA %.0f GFLOP/s, atomicAdd(double) %.1f G/s\n", (double)triad, (double)fma, (double)atom));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &nproc));
    if (nproc > 1) {
      PetscReal peak[3] = {triad, fma, atom};

      /* the GB/s columns count every process's bytes: compare them with the ceilings of all the processes' GPUs (one
         GPU per process, as share/fegpu/gpu-bind gives; processes sharing a GPU would count it more than once) */
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, peak, 3, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
      triad    = peak[0];
      fmaPeak  = peak[1];
      atomRate = peak[2];
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench: roofline of the %d processes' GPUs together (the %% triad column's): triad %.0f GB/s, FP64 FMA %.0f GFLOP/s, atomicAdd(double) %.1f G/s\n", (int)nproc, (double)triad, (double)fmaPeak, (double)atomRate));
    }
  } else PetscCall(Triad(dm, reps, &triad));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench: %" PetscInt_FMT " elements, %" PetscInt_FMT " dofs per element, vectors %s, mesh %.2f s, triad %.0f GB/s\n", Ne, Nb, vt, tsetup, (double)triad));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10s %10s %12s %12s %10s %10s %12s %9s %8s\n", "strategy", "dofs", "setup s", "assembly ms", "elements/s", "us/element", "MatMult ms", "MatMult GB/s", "% triad", "B/dof"));
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, C, NULL));
  if (coeff == 1) PetscCall(FEGFormSetPointwiseCoefficient(form, KappaPointwise, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bench_csv", csv, sizeof(csv), NULL));
  for (PetscInt s = 0; s < nstrat; s++) {
    Mat            A;
    Vec            x, y;
    PetscLogDouble t0, t1, ta[64], tm[64], tset;
    PetscBool      lma, mf, single, isauto;
    char           label[64];
    PetscReal      gbs = 0, gfl = 0, mm;

    PetscLogStage stage;
    char          sname[72];

    /* one -log_view stage per strategy: the first operator on the DM reads its discretization, later ones share it;
       a strategy named again (a DM's later operator of that type) gets its position in the list added */
    PetscCall(PetscStrncpy(sname, strat[s], sizeof(sname)));
    for (PetscInt r = 0; r < s; r++) {
      PetscBool same;

      PetscCall(PetscStrcmp(strat[r], strat[s], &same));
      if (same) PetscCall(PetscSNPrintf(sname, sizeof(sname), "%s-%" PetscInt_FMT, strat[s], s + 1));
    }
    PetscCall(PetscLogStageRegister(sname, &stage));
    PetscCall(PetscLogStagePush(stage));
    PetscCall(PetscStrcmp(strat[s], "lma", &lma));
    PetscCall(PetscStrcmp(strat[s], "lma_single", &single)); /* lma with its element matrices in FP32 */
    PetscCall(PetscStrcmp(strat[s], "matfree", &mf));
    PetscCall(PetscStrcmp(strat[s], "auto", &isauto)); /* -feg_op_type auto: the type its cost model picks */
    lma = (PetscBool)(lma || single);
    PetscCall(PetscOptionsSetValue(NULL, "-feg_op_type", isauto ? FEGOPAUTO : (lma ? FEGOPLMA : (mf ? FEGOPMATFREE : FEGOPADDTO))));
    if (single) PetscCall(PetscOptionsSetValue(NULL, "-feg_op_precision", "single"));
    lma = (PetscBool)(lma || mf); /* element-local shells: no assembled matrix to measure */
    if (!lma && !isauto) {        /* an addto mode; "addto" alone: the library's choice of mode */
      PetscBool plain;

      PetscCall(PetscStrcmp(strat[s], "addto", &plain));
      PetscCall(PetscOptionsSetValue(NULL, "-feg_op_addto_mode", plain ? "auto" : strat[s]));
    }
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    if (coeff == 2) PetscCall(KappaPoints(dm, form)); /* every strategy pays for its values */
    PetscCall(FEGCreateOperator(dm, form, &A));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    tset = t1 - t0;
    PetscCall(PetscStrncpy(label, strat[s], sizeof(label)));
    if (isauto) {
      FEGOpType t;

      PetscCall(FEGOperatorGetType(A, &t));
      PetscCall(PetscStrcmp(t, FEGOPMATFREE, &mf));
      PetscCall(PetscStrcmp(t, FEGOPLMA, &lma));
      lma = (PetscBool)(lma || mf);
      PetscCall(PetscSNPrintf(label, sizeof(label), "auto:%s", t));
    }
    if (!lma) PetscCall(PetscOptionsClearValue(NULL, "-feg_op_addto_mode"));
    PetscCall(PetscOptionsClearValue(NULL, "-feg_op_type"));
    PetscCall(PetscOptionsClearValue(NULL, "-feg_op_precision"));
    for (PetscInt r = 0; r < reps; r++) {
      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      PetscCall(FEGOperatorAssemble(A, NULL));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      ta[r] = t1 - t0;
    }
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecGetSize(x, &ndofs));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, y));
    for (PetscInt r = 0; r < reps; r++) {
      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      PetscCall(MatMult(A, x, y));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      tm[r] = t1 - t0;
    }
    mm = Median(tm, reps);
    if (lma) { /* shells: the bytes their kernels must move (stored element data, indices, x and y once) */
      FEGOp          op;
      PetscLogDouble ab;

      PetscCall(FEGOperatorGetOp(A, &op));
      PetscCall(FEGOpGetApplyBytes(op, &ab));
      gbs = ab / mm / 1e9;
    }
    if (mf) {
      PetscInt        Nq, dim;
      PetscFE         fe;
      PetscQuadrature q;

      PetscCall(DMGetDimension(dm, &dim));
      PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
      PetscCall(PetscFEGetQuadrature(fe, &q));
      PetscCall(PetscQuadratureGetData(q, NULL, NULL, &Nq, NULL, NULL));
      gfl = (double)Ne * Nq * (4.0 * Nb * (dim + 1) + 2.0 * (dim + 1) * (dim + 1)) / mm / 1e9;
    } else if (lma) {
      gfl = 2.0 * Ne * Nb * Nb / mm / 1e9;
    } else {
      MatInfo info;

      PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
      gbs = (info.nz_used * 12.0 + ndofs * 20.0) / mm / 1e9; /* values, column indices, row pointers, x and y */
      gfl = 2.0 * info.nz_used / mm / 1e9;
    }
    {
      PetscLogDouble am = Median(ta, reps);
      MatInfo        info;
      PetscReal      bpd;

      if (mf) bpd = gbs * mm * 1e9 / ndofs - 16.0; /* stored: tensors and indices */
      else if (lma) bpd = gbs * mm * 1e9 / ndofs;  /* stored: element matrices (a symmetric form's packed on the GPU) and indices */
      else {
        PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
        bpd = (info.nz_used * 12.0 + ndofs * 4.0) / ndofs;
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10" PetscInt_FMT " %10.3f %12.3f %12.3e %10.4f %10.4f %12.1f %8.1f%% %8.0f\n", label, ndofs, tset, am * 1e3, Ne / am, am * 1e6 / Ne, mm * 1e3, (double)gbs, 100.0 * gbs / triad, (double)bpd));
      if (s < 8) {
        rSet[s] = tset;
        PetscCall(PetscStrncpy(rLabel[s], label, sizeof(rLabel[s])));
        rAsm[s]  = am;
        rMult[s] = mm;
        rGbs[s]  = gbs;
        rBpd[s]  = bpd;
        rGfl[s]  = gfl;
      }
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscLogStagePop());
  }
  /* the crossover of Markall et al. on this hardware: assembly + k MatMults */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "crossover (assembly + k MatMult, ms):\n%8s", "k"));
  for (PetscInt s = 0; s < PetscMin(nstrat, 8); s++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %12s", strat[s]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "   fastest\n"));
  for (PetscInt k = 1; k <= 100; k *= 10) {
    PetscInt best = 0;

    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%8" PetscInt_FMT, k));
    for (PetscInt s = 0; s < PetscMin(nstrat, 8); s++) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %12.4f", (rAsm[s] + k * rMult[s]) * 1e3));
      if (rAsm[s] + k * rMult[s] < rAsm[best] + k * rMult[best]) best = s;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "   %s\n", strat[best]));
  }
  if (csv[0]) {
    PetscCall(CSVSetUp(csv, ondevice, order, cont, triad, fmaPeak, atomRate, &bcsv));
    for (PetscInt s = 0; s < PetscMin(nstrat, 8); s++) PetscCall(CSVRow(&bcsv, rLabel[s], Ne, Nb, rSet[s], rAsm[s], rMult[s], rGbs[s], rGfl[s], rBpd[s]));
  }
  {
    /* PETSc's own host FEM assembly of the same form (DMPlexSNESComputeJacobianFEM), then conversion to AIJCUSPARSE */
    PetscBool host;

    PetscCall(PetscOptionsHasName(NULL, NULL, "-bench_petsc_host", &host));
    if (host) {
      PetscDS        ds;
      Mat            J, Jc;
      Vec            ul;
      PetscLogDouble t0, t1, t2;

      PetscCall(DMGetDS(dm, &ds));
      PetscCall(PetscDSSetConstants(ds, 16, C));
      PetscCall(PetscDSSetJacobian(ds, 0, 0, g0, g1, g2, g3));
      PetscCall(DMCreateLocalVector(dm, &ul));
      PetscCall(VecZeroEntries(ul));
      PetscCall(DMCreateMatrix(dm, &J));
      PetscCall(PetscTime(&t0));
      PetscCall(DMPlexSNESComputeJacobianFEM(dm, ul, J, J, NULL));
      PetscCall(PetscTime(&t1));
#if defined(FEGPU_HAVE_CUDA)
      PetscCall(MatConvert(J, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Jc));
      {
        Vec x, y;

        PetscCall(MatCreateVecs(Jc, &x, &y));
        PetscCall(VecSet(x, 1.0));
        PetscCall(MatMult(Jc, x, y)); /* the first product moves the values to the GPU */
        PetscCall(Sync());
        PetscCall(VecDestroy(&x));
        PetscCall(VecDestroy(&y));
      }
#else
      PetscCall(MatDuplicate(J, MAT_COPY_VALUES, &Jc));
#endif
      PetscCall(PetscTime(&t2));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s   PETSc host DMPlexSNESComputeJacobianFEM %.3f ms (%.3e elements/s), %s %.3f ms\n", "petschost", (t1 - t0) * 1e3, Ne / (t1 - t0), ondevice ? "conversion to AIJCUSPARSE and upload" : "copy", (t2 - t1) * 1e3));
      PetscCall(MatDestroy(&J));
      PetscCall(MatDestroy(&Jc));
      PetscCall(VecDestroy(&ul));
    }
  }
#if defined(FEGPU_HAVE_CUDA)
  if (ondevice && coo) {
    /* PETSc's own device path, the baseline of the addto targets: MatSetPreallocationCOO with the element closures,
       then MatSetValuesCOO fed with element matrices already on the GPU (only MatSetValuesCOO is timed) */
    PetscSection       lsec, gsec;
    PetscInt          *ci, *cj, ncoo;
    Mat                A;
    Vec                v;
    PetscLogDouble     t0, t1, tc[64], tpre;
    const PetscScalar *dv;
    PetscInt           lNe = cEnd - cStart;

    ncoo = lNe * Nb * Nb;
    PetscCall(DMGetLocalSection(dm, &lsec));
    PetscCall(DMGetGlobalSection(dm, &gsec));
    PetscCall(PetscMalloc2(ncoo, &ci, ncoo, &cj));
    for (PetscInt c = cStart; c < cEnd; c++) {
      PetscInt n, *gi = NULL;

      PetscCall(DMPlexGetClosureIndices(dm, lsec, gsec, c, PETSC_TRUE, &n, &gi, NULL, NULL));
      for (PetscInt a = 0; a < Nb; a++)
        for (PetscInt b = 0; b < Nb; b++) {
          ci[((c - cStart) * Nb + a) * Nb + b] = gi[a];
          cj[((c - cStart) * Nb + a) * Nb + b] = gi[b];
        }
      PetscCall(DMPlexRestoreClosureIndices(dm, lsec, gsec, c, PETSC_TRUE, &n, &gi, NULL, NULL));
    }
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    {
      Vec      g;
      PetscInt nl;

      PetscCall(DMGetGlobalVector(dm, &g));
      PetscCall(VecGetLocalSize(g, &nl));
      PetscCall(DMRestoreGlobalVector(dm, &g));
      PetscCall(MatSetSizes(A, nl, nl, PETSC_DETERMINE, PETSC_DETERMINE));
    }
    PetscCall(MatSetType(A, MATAIJCUSPARSE));
    PetscCall(PetscTime(&t0));
    PetscCall(MatSetPreallocationCOO(A, ncoo, ci, cj));
    PetscCall(PetscTime(&t1));
    tpre = t1 - t0;
    PetscCall(PetscFree2(ci, cj));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, ncoo, &v));
    PetscCall(VecSet(v, 1.0));
    PetscCall(VecCUDAGetArrayRead(v, &dv));
    PetscCall(MatSetValuesCOO(A, dv, INSERT_VALUES));
    for (PetscInt r = 0; r < reps; r++) {
      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      PetscCall(MatSetValuesCOO(A, dv, INSERT_VALUES));
      PetscCall(Sync());
      PetscCall(PetscTime(&tc[r]));
      tc[r] -= t0;
    }
    PetscCall(VecCUDARestoreArrayRead(v, &dv));
    {
      PetscLogDouble am = Median(tc, reps);

      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10" PetscInt_FMT " %10.3f %12.3f %12.3e %10.4f   (PETSc MatSetValuesCOO alone, element matrices already on the GPU)\n", "petsccoo", ndofs, tpre, am * 1e3, Ne / am, am * 1e6 / Ne));
      /* setup: MatSetPreallocationCOO; the element matrices' integration is not counted */
      if (csv[0]) PetscCall(CSVRow(&bcsv, "petsccoo", Ne, Nb, tpre, am, -1, 0, 0, 0));
    }
    PetscCall(VecDestroy(&v));
    PetscCall(MatDestroy(&A));
  }
#endif
  for (PetscInt s = 0; s < nstrat; s++) PetscCall(PetscFree(strat[s]));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
