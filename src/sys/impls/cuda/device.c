/* fegpu's device primitives: which GPU its CUDA work goes to, device memory, how a kernel fits, the cuBLAS handle */
#include <fegpu/private/fegdevice.h>
#include <petscdevice_cuda.h>

/* PETSc picks each process's GPU when its device is initialised (rank modulo the visible GPUs, or -device_select_cuda);
   PETSc initialises it lazily, so fegpu does it before its first allocation, or its arrays and PETSc's vectors would
   sit on different GPUs whenever a process sees several */
PetscErrorCode FEGDevSelect(void)
{
  PetscFunctionBegin;
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the free and total memory of this process's GPU (-feg_op_type auto leaves out types that would not fit) */
PetscErrorCode FEGDevMemInfo(size_t *fr, size_t *tot)
{
  PetscFunctionBegin;
  PetscCall(FEGDevSelect());
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
