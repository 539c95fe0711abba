/* Which GPU fegpu's own CUDA work goes to */
#include <fegpu/private/fegcuda.h>
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

/* the free and total memory of this process's GPU (-feg_strategy auto leaves out types that would not fit) */
PetscErrorCode FEGDevMemInfo(size_t *fr, size_t *tot)
{
  PetscFunctionBegin;
  PetscCall(FEGDevSelect());
  PetscCallCUDA(cudaMemGetInfo(fr, tot));
  PetscFunctionReturn(PETSC_SUCCESS);
}
