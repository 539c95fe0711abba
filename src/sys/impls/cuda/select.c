/* Which GPU fegpu's own CUDA work goes to */
#include <fegpu/private/fegcuda.h>
#include <petscdevice.h>

/* PETSc picks each process's GPU when its device is initialised (rank modulo the visible GPUs, or -device_select_cuda);
   PETSc initialises it lazily, so fegpu does it before its first allocation, or its arrays and PETSc's vectors would
   sit on different GPUs whenever a process sees several */
PetscErrorCode FEGDevSelect(void)
{
  PetscFunctionBegin;
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscFunctionReturn(PETSC_SUCCESS);
}
