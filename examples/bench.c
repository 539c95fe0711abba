static const char help[] = "fegpu bench: setup, assembly and MatMult times of fegpu's operators on a box mesh.\n"
                           "Options: -feg_cell_type -feg_faces -order -continuous -bench_reps n -bench_strategies addto,lma -dm_vec_type cuda\n"
                           "Prints one line per strategy: times are medians of -bench_reps runs, synchronised with the device.\n";

#include <fegpu.h>
#if defined(FEGPU_HAVE_CUDA)
  #include <cuda_runtime_api.h>
  #include <petscdevice_cuda.h>
#endif

static PetscBool ondevice = PETSC_FALSE;

static PetscErrorCode Sync(void)
{
  PetscFunctionBegin;
#if defined(FEGPU_HAVE_CUDA)
  if (ondevice && cudaDeviceSynchronize() != cudaSuccess) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaDeviceSynchronize failed");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int cmp(const void *a, const void *b)
{
  const PetscLogDouble x = *(const PetscLogDouble *)a, y = *(const PetscLogDouble *)b;
  return x < y ? -1 : (x > y);
}

static PetscLogDouble Median(PetscLogDouble *t, PetscInt n)
{
  qsort(t, n, sizeof(*t), cmp);
  return t[n / 2];
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

int main(int argc, char **argv)
{
  DM             dm;
  FEGForm        form;
  PetscInt       order = 1, reps = 10, nstrat = 4, Ne, Nb, cStart, cEnd, ndofs;
  PetscBool      cont = PETSC_TRUE;
  char          *strat[4] = {NULL, NULL, NULL, NULL};
  PetscScalar    C[16] = {1.0, 0, 0, 0, 0, 1.0, 0.2, 0.1, 0, 0.2, 1.0, 0.1, 0, 0.1, 0.1, 1.0};
  PetscLogDouble tsetup0, tsetup;
  PetscReal      triad = 0.0;
  VecType        vt;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench options", NULL);
  PetscCall(PetscOptionsInt("-order", "Polynomial order", NULL, order, &order, NULL));
  PetscCall(PetscOptionsBool("-continuous", "Continuous Lagrange", NULL, cont, &cont, NULL));
  PetscCall(PetscOptionsInt("-bench_reps", "Repetitions (median reported)", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsStringArray("-bench_strategies", "Strategies to time: addto (atomic), color, coo, lma", NULL, strat, &nstrat, NULL));
  PetscOptionsEnd();
  reps = PetscMax(1, PetscMin(reps, 64));
  if (!strat[0]) {
    const char *def[4] = {"atomic", "color", "coo", "lma"};
    for (PetscInt i = 0; i < 4; i++) PetscCall(PetscStrallocpy(def[i], &strat[i]));
    nstrat = 4;
  }
  PetscCall(PetscTime(&tsetup0));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, NULL, &dm));
  PetscCall(FEGSetUpDiscretization(dm, order, cont, "u"));
  PetscCall(PetscTime(&tsetup));
  tsetup -= tsetup0;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  Ne = cEnd - cStart;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &Ne, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  {
    PetscFE fe;

    PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscFEGetDimension(fe, &Nb));
  }
  PetscCall(DMGetVecType(dm, &vt));
  {
    char *found;

    PetscCall(PetscStrstr(vt, "cuda", &found));
    ondevice = found ? PETSC_TRUE : PETSC_FALSE;
  }
  if (ondevice) {
    PetscReal fma, atom;

    /* this GPU's own ceilings, measured now */
    PetscCall(FEGDeviceRoofline(&triad, &fma, &atom));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench: roofline of this GPU: triad %.0f GB/s, FP64 FMA %.0f GFLOP/s, atomicAdd(double) %.1f G/s\n", (double)triad, (double)fma, (double)atom));
  } else PetscCall(Triad(dm, reps, &triad));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench: %" PetscInt_FMT " elements, %" PetscInt_FMT " dofs per element, vectors %s, mesh %.2f s, triad %.0f GB/s\n", Ne, Nb, vt, tsetup, (double)triad));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10s %10s %12s %12s %10s %10s %12s %9s %8s\n", "strategy", "dofs", "setup s", "assembly ms", "elements/s", "us/element", "MatMult ms", "MatMult GB/s", "% triad", "B/dof"));
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, C, NULL));
  for (PetscInt s = 0; s < nstrat; s++) {
    Mat            A;
    Vec            x, y;
    PetscLogDouble t0, t1, ta[64], tm[64], tset;
    PetscBool      lma;
    PetscReal      gbs = 0, mm;

    PetscCall(PetscStrcmp(strat[s], "lma", &lma));
    PetscCall(FEGFormSetStrategy(form, lma ? FEG_STRATEGY_LMA : FEG_STRATEGY_ADDTO));
    if (!lma) PetscCall(PetscOptionsSetValue(NULL, "-feg_addto_mode", strat[s]));
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    PetscCall(FEGCreateOperator(dm, form, &A));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    tset = t1 - t0;
    if (!lma) PetscCall(PetscOptionsClearValue(NULL, "-feg_addto_mode"));
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
    if (lma) gbs = (double)Ne * (Nb * Nb * 8.0 + Nb * 4.0 + 2.0 * Nb * 8.0) / mm / 1e9; /* element matrices, indices, gathers, scatters */
    else {
      MatInfo info;

      PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
      gbs = (info.nz_used * 12.0 + ndofs * 20.0) / mm / 1e9; /* values, column indices, row pointers, x and y */
    }
    {
      PetscLogDouble am = Median(ta, reps);
      MatInfo        info;
      PetscReal      bpd;

      if (lma) bpd = (double)Ne * (Nb * Nb * 8.0 + Nb * 4.0) / ndofs;
      else {
        PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
        bpd = (info.nz_used * 12.0 + ndofs * 4.0) / ndofs;
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10" PetscInt_FMT " %10.3f %12.3f %12.3e %10.4f %10.4f %12.1f %8.1f%% %8.0f\n", strat[s], ndofs, tset, am * 1e3, Ne / am, am * 1e6 / Ne, mm * 1e3, (double)gbs, 100.0 * gbs / triad, (double)bpd));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&A));
  }
#if defined(FEGPU_HAVE_CUDA)
  if (ondevice) {
    /* PETSc's own device path, the baseline of the addto targets: MatSetPreallocationCOO with the element closures,
       then MatSetValuesCOO fed with element matrices already on the GPU (only MatSetValuesCOO is timed) */
    PetscSection   lsec, gsec;
    PetscInt      *ci, *cj, ncoo;
    Mat            A;
    Vec            v;
    PetscLogDouble t0, t1, tc[64], tpre;
    const PetscScalar *dv;
    PetscInt       lNe = cEnd - cStart;

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
