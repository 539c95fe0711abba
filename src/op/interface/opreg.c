/* The registration of fegpu's operator types and of their GPU implementations: adding a type or a device path adds a
   line here. The only place in the host code that knows whether fegpu was built with CUDA. */
#include <fegpu/private/fegopimpl.h>

PETSC_INTERN PetscErrorCode FEGOpCreate_AddTo(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpCreate_LMA(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpCreate_MatFree(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpCreate_Auto(FEGOp);
#if defined(FEGPU_HAVE_CUDA)
PETSC_INTERN PetscErrorCode FEGOpUseDevice_AddTo(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpUseDevice_LMA(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpUseDevice_MatFree(FEGOp);
PETSC_INTERN PetscErrorCode FEGComputeRHS_CUDA(FEGDisc *, FEGForm, Vec);
PETSC_INTERN PetscErrorCode FEGInterpApply_CUDA(FEGInterp *, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode FEGChebyApply_CUDA(FEGCheby *, Vec, Vec);
#endif

PetscBool FEGOpRegisterAllCalled                               = PETSC_FALSE;
PetscErrorCode (*FEGComputeRHSDevice)(FEGDisc *, FEGForm, Vec) = NULL;

/*@C
  FEGOpRegisterAll - registers fegpu's operator types (addto, lma, matfree, auto) and, in a CUDA build, their GPU
  implementations

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGOpRegisterAll(void)
{
  PetscFunctionBegin;
  if (FEGOpRegisterAllCalled) PetscFunctionReturn(PETSC_SUCCESS);
  FEGOpRegisterAllCalled = PETSC_TRUE;
  PetscCall(FEGOpRegister(FEGOPADDTO, FEGOpCreate_AddTo));
  PetscCall(FEGOpRegister(FEGOPLMA, FEGOpCreate_LMA));
  PetscCall(FEGOpRegister(FEGOPMATFREE, FEGOpCreate_MatFree));
  PetscCall(FEGOpRegister(FEGOPAUTO, FEGOpCreate_Auto));
#if defined(FEGPU_HAVE_CUDA)
  PetscCall(FEGOpRegisterDevice(FEGOPADDTO, FEGOpUseDevice_AddTo));
  PetscCall(FEGOpRegisterDevice(FEGOPLMA, FEGOpUseDevice_LMA));
  PetscCall(FEGOpRegisterDevice(FEGOPMATFREE, FEGOpUseDevice_MatFree));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what the CUDA backend does for operators outside their types (the package initialiser calls it) */
PetscErrorCode FEGOpRegisterDevice_Private(void)
{
  PetscFunctionBegin;
#if defined(FEGPU_HAVE_CUDA)
  FEGComputeRHSDevice  = FEGComputeRHS_CUDA;
  FEGInterpApplyDevice = FEGInterpApply_CUDA;
  FEGChebyApplyDevice  = FEGChebyApply_CUDA;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
