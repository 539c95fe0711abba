/* What fegpu's benchmark programs share: device synchronisation (and a barrier, so that a time on several processes is
   the slowest one's), medians, device memory in use, and the cost of the halo exchange on the DM's vectors */
#pragma once

#include <fegpu.h>
#if defined(FEGPU_HAVE_CUDA)
  #include <cuda_runtime_api.h>
#endif

static PetscBool ondevice = PETSC_FALSE;

/* The programs' option checks: an error that names the option, the value given and what is allowed */
static inline PetscErrorCode BenchCheckInt(const char *opt, PetscInt v, PetscInt lo, PetscInt hi)
{
  PetscFunctionBegin;
  PetscCheck(v >= lo && v <= hi, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: allowed are %" PetscInt_FMT " to %" PetscInt_FMT, opt, v, lo, hi);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v must be one of the comma-separated names in allowed */
static inline PetscErrorCode BenchCheckName(const char *opt, const char *v, const char *allowed)
{
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(PetscStrInList(v, allowed, ',', &found));
  PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s %s is not known: allowed are %s", opt, v, allowed);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the programs run on the GPU when the vector type (the DM's, or -dm_vec_type) is a CUDA one */
static inline PetscErrorCode BenchSetOnDevice(const char vt[])
{
  char *found = NULL;

  PetscFunctionBegin;
  if (vt) PetscCall(PetscStrstr(vt, "cuda", &found));
  ondevice = found ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cells a side of a hexahedral box of about dofs unknowns at order N, as libCEED's scripts: round((dofs^(1/3) - 1) / N) */
static inline PetscInt BenchCellsPerSide(PetscInt dofs, PetscInt N)
{
  return PetscMax(1, (PetscInt)PetscFloorReal((PetscPowReal((PetscReal)dofs, 1.0 / 3.0) - 1.0) / N + 0.5));
}

static inline PetscErrorCode Sync(void)
{
  PetscFunctionBegin;
#if defined(FEGPU_HAVE_CUDA)
  if (ondevice) PetscCall(FEGDeviceInitialize()); /* PETSc's device first: a bare CUDA call would start device 0 */
  if (ondevice && cudaDeviceSynchronize() != cudaSuccess) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "cudaDeviceSynchronize failed");
#endif
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline double DeviceUsed(void)
{
#if defined(FEGPU_HAVE_CUDA)
  size_t fr, tot;

  if (ondevice && cudaMemGetInfo(&fr, &tot) == cudaSuccess) return (double)(tot - fr);
#endif
  return 0.0;
}

static inline int cmp(const void *a, const void *b)
{
  const PetscLogDouble x = *(const PetscLogDouble *)a, y = *(const PetscLogDouble *)b;
  return x < y ? -1 : (x > y);
}

static inline PetscLogDouble Median(PetscLogDouble *t, PetscInt n)
{
  qsort(t, (size_t)n, sizeof(*t), cmp);
  return t[n / 2];
}

/* On several processes: the ghost dofs (most on one process) and the median time of one halo exchange as an operator
   apply does it (DMGlobalToLocal, then DMLocalToGlobal with ADD_VALUES), on the DM's vectors and, for comparison with
   a CPU run, on host vectors of the same layout (which includes copying every local value on the host). With an MPI
   that is not CUDA-aware, the staging of messages through the host is inside the device-vector time. */
static inline PetscErrorCode HaloTime(DM dm, PetscInt reps, const char *label)
{
  PetscMPIInt    size;
  PetscInt       nl, ng, ghosts;
  PetscLogDouble th[2], ts[64];
  DM             hdm;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMClone(dm, &hdm));
  PetscCall(DMSetVecType(hdm, VECSTANDARD));
  {
    /* the DM's sections and section SF, not built again */
    PetscSection s, gs;
    PetscSF      ssf;

    PetscCall(DMGetLocalSection(dm, &s));
    PetscCall(DMGetGlobalSection(dm, &gs));
    PetscCall(DMGetSectionSF(dm, &ssf));
    PetscCall(DMSetLocalSection(hdm, s));
    PetscCall(DMSetGlobalSection(hdm, gs));
    PetscCall(DMSetSectionSF(hdm, ssf));
  }
  for (int k = 0; k < 2; k++) {
    DM  d = k ? hdm : dm;
    Vec g, l;

    PetscCall(DMCreateGlobalVector(d, &g));
    PetscCall(DMCreateLocalVector(d, &l));
    PetscCall(VecSet(g, 1.0));
    if (!k) {
      PetscCall(VecGetLocalSize(g, &ng));
      PetscCall(VecGetLocalSize(l, &nl));
    }
    for (PetscInt r = 0; r <= PetscMin(reps, 63); r++) {
      PetscLogDouble t0, t1;

      PetscCall(Sync());
      PetscCall(PetscTime(&t0));
      PetscCall(DMGlobalToLocal(d, g, INSERT_VALUES, l));
      PetscCall(DMLocalToGlobal(d, l, ADD_VALUES, g));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      ts[r] = t1 - t0;
    }
    th[k] = Median(ts + 1, PetscMin(reps, 63)); /* the first one sets the scatter up */
    PetscCall(VecDestroy(&g));
    PetscCall(VecDestroy(&l));
  }
  ghosts = nl - ng;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ghosts, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "halo %s: %d processes, %" PetscInt_FMT " local-only dofs (ghosts and constrained) on the largest, DMGlobalToLocal + DMLocalToGlobal %.4f ms on %s vectors, %.4f ms on host vectors\n", label, (int)size, ghosts, 1e3 * th[0], ondevice ? "device" : "host", 1e3 * th[1]));
  PetscCall(DMDestroy(&hdm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
