/* fegpu's device primitives: which GPU its CUDA work goes to, device memory, how a kernel fits, the cuBLAS handle */
#include <fegpu/private/fegdevice.h>
#include <petscdevice_cuda.h>

/* PETSc's start of its CUDA device (lazy: at the first device call) sets the context's flags on the calling thread's
   current device before it selects its own, and with CUDA 12 and later that makes a context there: every process not
   bound to one GPU also gets a context on device 0, which costs start-up time and GPU 0's memory
   (share/doc/performance.md, "Several GPUs"). So fegpu puts the thread on PETSc's device first, making its context
   with the flags PETSc gives it. */
static int FEGDevStartedId = -1; /* the device fegpu started, -1: none */

/* the device PETSc's start will take: -device_select_cuda n, else the rank in PETSC_COMM_WORLD modulo the visible GPUs;
   *disabled when PETSc will not start CUDA (-device_enable_cuda or -device_enable none) */
static PetscErrorCode FEGDevRequested(int *id, PetscMPIInt *rank, PetscBool *disabled)
{
  PetscInt  sel    = PETSC_DECIDE;
  char      en[16] = "";
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-device_select_cuda", &sel, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-device_enable_cuda", en, sizeof(en), &set));
  if (!set) PetscCall(PetscOptionsGetString(NULL, NULL, "-device_enable", en, sizeof(en), &set));
  PetscCall(PetscStrcmp(en, "none", disabled));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, rank));
  *id = sel >= 0 ? (int)sel : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the calling thread on device id (or rank % count), its context made with PETSc's flags; a failure is left to PETSc's
   start to report */
static cudaError_t FEGDevMakeContext(int *id, PetscMPIInt rank)
{
  cudaError_t err;
  int         n = 0;

  err = cudaGetDeviceCount(&n);
  if (err == cudaSuccess && n < 1) err = cudaErrorNoDevice;
  if (err != cudaSuccess) return err;
  if (*id < 0) *id = rank % n;
#if CUDART_VERSION >= 12000
  err = cudaInitDevice(*id, cudaDeviceMapHost, 0);
  if (err == cudaSuccess || err == cudaErrorSetOnActiveProcess) err = cudaSetDevice(*id);
#else
  err = cudaSetDevice(*id);
  if (err == cudaSuccess) err = cudaFree(NULL);
#endif
  return err;
}

/* PETSc's device for this process, initialised before fegpu's first allocation (fegpu's arrays and PETSc's vectors
   must sit on one GPU when a process sees several), the thread put on it first (above) */
PetscErrorCode FEGDevInitialize(void)
{
  PetscFunctionBegin;
  if (!PetscDeviceInitialized(PETSC_DEVICE_CUDA)) {
    int         id;
    PetscMPIInt rank;
    PetscBool   disabled;

    PetscCall(FEGDevRequested(&id, &rank, &disabled));
    if (!disabled) {
      cudaError_t err = FEGDevMakeContext(&id, rank);

      if (err == cudaSuccess) FEGDevStartedId = id;
      else {
        (void)cudaGetLastError();
        PetscCall(PetscInfo(NULL, "fegpu could not start device %d (%s); PETSc's start follows\n", id, cudaGetErrorString(err)));
      }
    }
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
    if (FEGDevStartedId >= 0) {
      int cur;

      PetscCallCUDA(cudaGetDevice(&cur));
      if (cur != FEGDevStartedId) PetscCall(PetscInfo(NULL, "fegpu started device %d but PETSc chose device %d\n", FEGDevStartedId, cur));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device fegpu started before PETSc's start, -1 if none */
PetscErrorCode FEGDevStarted(int *id)
{
  PetscFunctionBegin;
  *id = FEGDevStartedId;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the free and total memory of this process's GPU (-feg_op_type auto leaves out types that would not fit) */
PetscErrorCode FEGDevMemInfo(size_t *fr, size_t *tot)
{
  PetscFunctionBegin;
  PetscCall(FEGDevInitialize());
  PetscCallCUDA(cudaMemGetInfo(fr, tot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether kernel kern fits on this process's GPU with nth threads and shm bytes of dynamic shared memory: *nact blocks
   resident per multiprocessor (0: it does not fit, nor when shm is over the device's limit), *nsm multiprocessors.
   The kernel's shared-memory limit is raised on first use; the answer is kept per device, kernel and shape, so that
   the apply path of a solve asks the CUDA runtime once, not at every launch */
PetscErrorCode FEGDevKernelFit(const void *kern, int nth, size_t shm, int *nact, int *nsm)
{
  typedef struct {
    const void *kern;
    int         dev, nth, nact, nsm;
    size_t      shm;
  } FEGKernelFitEntry;
  static FEGKernelFitEntry fit[64];
  static int               nfit, next;
  int                      dev;
  cudaError_t              err = cudaSuccess;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  for (int i = 0; i < nfit; i++)
    if (fit[i].kern == kern && fit[i].dev == dev && fit[i].nth == nth && fit[i].shm == shm) {
      *nact = fit[i].nact;
      if (nsm) *nsm = fit[i].nsm;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  *nact = 0;
  if (shm > 48 * 1024) err = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm);
  if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(nact, kern, nth, shm);
  if (err == cudaErrorInvalidValue) { /* more shared memory or threads than the device allows: does not fit */
    (void)cudaGetLastError();
    *nact = 0;
  } else PetscCallCUDA(err);
  fit[next].kern = kern;
  fit[next].dev  = dev;
  fit[next].nth  = nth;
  fit[next].shm  = shm;
  fit[next].nact = *nact;
  PetscCallCUDA(cudaDeviceGetAttribute(&fit[next].nsm, cudaDevAttrMultiProcessorCount, dev));
  if (nsm) *nsm = fit[next].nsm;
  next = (next + 1) % 64;
  nfit = PetscMin(nfit + 1, 64);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cudaMalloc (and a copy of h when given) that reports an out-of-memory with the bytes asked and free; *total += bytes */
PetscErrorCode FEGDevMallocCopy(void **d, const void *h, size_t bytes, size_t *total)
{
  cudaError_t err;

  PetscFunctionBegin;
  err = cudaMalloc(d, bytes ? bytes : 1);
  if (err == cudaErrorMemoryAllocation) {
    size_t fr = 0, tot = 0;

    *d = NULL; /* the owner can be destroyed: nothing to free here */
    (void)cudaGetLastError();
    (void)cudaMemGetInfo(&fr, &tot);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "GPU out of memory: fegpu asked for %zu bytes with %zu of %zu free", bytes, fr, tot);
  }
  PetscCallCUDA(err);
  if (h && bytes) PetscCallCUDA(cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice));
  if (total) *total += bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one cuBLAS handle for fegpu's GEMMs, made on first use and destroyed at PetscFinalize() */
static cublasHandle_t FEGCublas = NULL;

static PetscErrorCode FEGCublasDestroy(void)
{
  PetscFunctionBegin;
  if (FEGCublas) PetscCallCUBLAS(cublasDestroy(FEGCublas));
  FEGCublas = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevGetCublas(void **h)
{
  PetscFunctionBegin;
  if (!FEGCublas) {
    PetscCallCUBLAS(cublasCreate(&FEGCublas));
    PetscCall(PetscRegisterFinalize(FEGCublasDestroy));
  }
  *h = (void *)FEGCublas;
  PetscFunctionReturn(PETSC_SUCCESS);
}
