/* fegpu's device primitives (src/sys/impls/cuda): the process's GPU, device memory, how a kernel fits, the cuBLAS
   handle and index-array kernels, and the launch check every .cu file uses. C-compatible, so both compilers include it;
   every other device header of fegpu includes this one. */
#pragma once

#include <petscsys.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* cudaMalloc (and a copy of h when given) that reports an out-of-memory with the bytes asked and free; total += bytes */
PETSC_INTERN PetscErrorCode FEGDevMallocCopy(void **, const void *, size_t, size_t *);
/* PETSc's device for this process, initialised before fegpu's first device allocation, the process put on it first;
   the device fegpu started (-1: none) */
PETSC_INTERN PetscErrorCode FEGDevInitialize(void);
PETSC_INTERN PetscErrorCode FEGDevStarted(int *);
/* free and total bytes of this process's GPU */
PETSC_INTERN PetscErrorCode FEGDevMemInfo(size_t *, size_t *);
/* the blocks of a kernel resident per multiprocessor at a block size and dynamic shared memory (0: it does not fit),
   and the multiprocessors; kept per device, kernel and shape */
PETSC_INTERN PetscErrorCode FEGDevKernelFit(const void *, int, size_t, int *, int *);
/* the STREAM triad (GB/s), FP64 FMA rate (GFLOP/s) and scattered atomicAdd rate (G/s) of this GPU */
PETSC_INTERN PetscErrorCode FEGDevRoofline(double *, double *, double *);
/* fegpu's cuBLAS handle (a cublasHandle_t) */
PETSC_INTERN PetscErrorCode FEGDevGetCublas(void **);
/* dst[l*Ne+e] = src[e*Nb+l]: an element-major index array made element-interleaved */
PETSC_INTERN PetscErrorCode FEGDevInterleave(int, int, const int *, int *);
/* out[k] = map[idx[k]], k < n */
PETSC_INTERN PetscErrorCode FEGDevMapIndices(size_t, const int *, const int *, int *);
/* dst[i*len+k] = src[rows[i]*len+k], i < nrows, k < len */
PETSC_INTERN PetscErrorCode FEGDevGatherRows(int, int, const int *, const double *, double *);

#if defined(__cplusplus)
}
#endif

/* frees a device array allocated by FEGDevMallocCopy() and clears the pointer (host code that includes
   petscdevice_cuda.h) */
#define FEGDevFree(p) \
  do { \
    if (p) PetscCallCUDA(cudaFree(p)); \
    (p) = NULL; \
  } while (0)

#if defined(__CUDACC__)
/* After a kernel launch: a failure names the kernel (a bad launch configuration, or a fault of an earlier kernel
   that the launch reports) instead of PETSc's generic CUDA error */
  #define FEGCheckLaunch(name) \
    do { \
      cudaError_t _feg_err = cudaPeekAtLastError(); \
      if (PetscUnlikely(_feg_err != cudaSuccess)) { \
        (void)cudaGetLastError(); \
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA kernel %s: %s (%s); the launch failed or an earlier kernel faulted", name, cudaGetErrorName(_feg_err), cudaGetErrorString(_feg_err)); \
      } \
    } while (0)
#endif
