/* Whether fegpu runs on the GPU, and what the CUDA backend provides to every layer. The only file of src/sys that knows
   whether fegpu was built with CUDA. */
#include <fegpu/private/fegsysimpl.h>

#if defined(FEGPU_HAVE_CUDA)
PETSC_INTERN PetscErrorCode FEGDevRoofline(double *, double *, double *);
PETSC_INTERN PetscErrorCode FEGDevInitialize(void);
PETSC_INTERN PetscErrorCode FEGDevStarted(int *);
PETSC_INTERN PetscErrorCode FEGDevMemInfo(size_t *, size_t *);
#endif

FEGDeviceBackend FEGDevice = {PETSC_FALSE, NULL, NULL, NULL, NULL};

/* fills FEGDevice in a CUDA build (the package initialiser calls it) */
PetscErrorCode FEGDeviceBackendRegister(void)
{
  PetscFunctionBegin;
#if defined(FEGPU_HAVE_CUDA)
  FEGDevice.available  = PETSC_TRUE;
  FEGDevice.roofline   = FEGDevRoofline;
  FEGDevice.initialize = FEGDevInitialize;
  FEGDevice.started    = FEGDevStarted;
  FEGDevice.meminfo    = FEGDevMemInfo;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDeviceInitialize - makes this process's GPU ready for PETSc and fegpu: the process is put on the device PETSc's
  start takes (-device_select_cuda n, else the rank in `PETSC_COMM_WORLD` modulo the visible GPUs), then PETSc's CUDA
  device is initialised there. fegpu calls it before its first work on the GPU; a program calls it instead of
  `PetscDeviceInitialize()` before its own first CUDA call

  Not Collective

  Notes:
  PETSc's own start sets the context's flags on the calling thread's current device before it selects its device,
  which with CUDA 12 and later makes a context on device 0 as well in every process that sees several GPUs and is not
  device 0's, at a cost in start-up time and in GPU 0's memory. Processes under share/fegpu/gpu-bind see one GPU each
  and do not meet this. Nothing is done when PETSc's CUDA device is up already; a device fegpu cannot start is left to PETSc's
  start to report.

  Level: intermediate

.seealso: FEGDeviceRoofline()
@*/
PetscErrorCode FEGDeviceInitialize(void)
{
  PetscFunctionBegin;
  PetscCall(FEGInitializePackage());
  PetscCheck(FEGDevice.available, PETSC_COMM_SELF, PETSC_ERR_SUP, "FEGDeviceInitialize() needs fegpu built against a CUDA-enabled PETSc (./configure with PETSC_DIR of one, e.g. source ../shared/gpu/env.sh)");
  PetscCall((*FEGDevice.initialize)());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device fegpu started before PETSc's start, -1 if none */
PetscErrorCode FEGDeviceGetStarted(PetscInt *id)
{
  int d = -1;

  PetscFunctionBegin;
  if (FEGDevice.started) PetscCall((*FEGDevice.started)(&d));
  *id = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegpu runs on the GPU when the DM's vectors are CUDA vectors (-dm_vec_type cuda); then the process's GPU is selected
   here, before fegpu's first device allocation */
PetscErrorCode FEGDMIsOnDevice(DM dm, PetscBool *ondevice)
{
  VecType   vtype;
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(DMGetVecType(dm, &vtype));
  PetscCall(PetscStrbeginswith(vtype ? vtype : "", "cuda", ondevice));
  PetscCall(PetscStrbeginswith(vtype ? vtype : "", "seqcuda", &seq));
  PetscCall(PetscStrbeginswith(vtype ? vtype : "", "mpicuda", &mpi));
  *ondevice = (PetscBool)(*ondevice || seq || mpi);
  PetscCall(FEGInitializePackage());
  PetscCheck(!*ondevice || FEGDevice.available, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "The DM has vector type %s but fegpu was built without CUDA: configure fegpu against a CUDA-enabled PETSc (for example source ../shared/gpu/env.sh && ./configure)", vtype);
  if (*ondevice) PetscCall((*FEGDevice.initialize)());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether vectors of type vtype on comm are made by FEGDeviceCreateVec(): CUDA vectors (cuda, mpicuda) on several
   processes of a CUDA build, where VecSetType() would allocate and zero a pinned host copy at once */
PetscErrorCode FEGDeviceVecIsLazy(MPI_Comm comm, VecType vtype, PetscBool *lazy)
{
  PetscMPIInt size;
  PetscBool   cuda = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (vtype) PetscCall(PetscStrcmp(vtype, VECCUDA, &cuda));
  if (vtype && !cuda) PetscCall(PetscStrcmp(vtype, VECMPICUDA, &cuda));
  *lazy = (PetscBool)(cuda && size > 1 && FEGDevice.available);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A CUDA vector of layout map, zeroed on the device, its host copy made only when a host array is asked for. On
   several processes VecSetType(VECMPICUDA) allocates and zeroes a pinned host copy at once (VECSEQCUDA on one process
   is as lazy as this already; share/doc/performance.md, "Several GPUs", has the cost). The process's GPU is started
   by fegpu first (FEGDeviceInitialize()), as this may be a program's first device call. Collective. */
PetscErrorCode FEGDeviceCreateVec(PetscLayout map, Vec *v)
{
  PetscFunctionBegin;
  PetscCheck(FEGDevice.available, map->comm, PETSC_ERR_SUP, "A CUDA vector needs fegpu built against a CUDA-enabled PETSc");
#if defined(FEGPU_HAVE_CUDA)
  PetscCall((*FEGDevice.initialize)());
  PetscCall(VecCreateMPICUDAWithArrays(map->comm, PetscAbs(map->bs), map->n, map->N, NULL, NULL, v));
  PetscCall(VecSet(*v, 0.0));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDeviceRoofline - measures this GPU's ceilings: STREAM triad bandwidth (GB/s), FP64 FMA throughput (GFLOP/s)
  and the rate of double-precision atomicAdd to scattered addresses (G updates/s), for benchmarks' percentages

  Not Collective

  Output Parameters:
+ triad   - the STREAM triad bandwidth, GB/s
. fma     - the FP64 fused multiply-add rate, GFLOP/s
- atomics - scattered double-precision atomicAdd, G updates/s

  Level: developer
@*/
PetscErrorCode FEGDeviceRoofline(PetscReal *triad, PetscReal *fma, PetscReal *atomics)
{
  double t, f, a;

  PetscFunctionBegin;
  PetscCall(FEGInitializePackage());
  PetscCheck(FEGDevice.roofline, PETSC_COMM_SELF, PETSC_ERR_SUP, "FEGDeviceRoofline needs fegpu built against a CUDA-enabled PETSc (./configure with PETSC_DIR of one, e.g. source ../shared/gpu/env.sh)");
  PetscCall((*FEGDevice.initialize)());
  PetscCall((*FEGDevice.roofline)(&t, &f, &a));
  *triad   = t;
  *fma     = f;
  *atomics = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}
