#include <fegpu/private/fegimpl.h>
#if defined(FEGPU_HAVE_CUDA)
  #include <fegpu/private/fegcuda.h>
#endif

PetscClassId  FEG_FORM_CLASSID;
PetscBool     FEGPackageInitialized = PETSC_FALSE;
PetscLogEvent FEG_Setup, FEG_Integrate, FEG_Assemble, FEG_Apply, FEG_RHS;

const char *const FEGStrategies[]   = {"addto", "lma", "matfree", "FEGStrategy", "FEG_STRATEGY_", NULL};
const char *const FEGAddtoModes[]   = {"auto", "atomic", "color", "coo", "FEGAddtoMode", "FEG_ADDTO_", NULL};
const char *const FEGLMAScatters[]  = {"atomic", "gather", "FEGLMAScatter", "FEG_LMA_SCATTER_", NULL};
const char *const FEGMatFreeKernels[] = {"auto", "qp", "refop", "gemm", "sumfact", "FEGMatFreeKernel", "FEG_MF_", NULL};
const char *const FEGCudaKernels[]  = {"auto", "thread", "block", "gemm", "FEGCudaKernel", "FEG_CUDA_KERNEL_", NULL};

/*@C
  FEGFinalizePackage - called from PetscFinalize() to forget the package's registrations

  Level: developer
@*/
PetscErrorCode FEGFinalizePackage(void)
{
  PetscFunctionBegin;
  FEGPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGInitializePackage - registers fegpu's class, log events and finalizer; runs once, lazily, from the first
  FEGFormCreate() or when PETSc loads libfegpu through -dll_append

  Level: developer
@*/
PetscErrorCode FEGInitializePackage(void)
{
  PetscFunctionBegin;
  if (FEGPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  FEGPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("FEG Form", &FEG_FORM_CLASSID));
  PetscCall(PetscLogEventRegister("FEGSetUp", FEG_FORM_CLASSID, &FEG_Setup));
  PetscCall(PetscLogEventRegister("FEGIntegrate", FEG_FORM_CLASSID, &FEG_Integrate));
  PetscCall(PetscLogEventRegister("FEGAssemble", FEG_FORM_CLASSID, &FEG_Assemble));
  PetscCall(PetscLogEventRegister("FEGApply", FEG_FORM_CLASSID, &FEG_Apply));
  PetscCall(PetscLogEventRegister("FEGRHS", FEG_FORM_CLASSID, &FEG_RHS));
  PetscCall(PetscRegisterFinalize(FEGFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_DYNAMIC_LIBRARIES)
/* PETSc calls this when libfegpu is loaded with -dll_append */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_fegpu(void)
{
  PetscFunctionBegin;
  PetscCall(FEGInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/*@
  FEGDeviceRoofline - measures this GPU's ceilings: STREAM triad bandwidth (GB/s), FP64 FMA throughput (GFLOP/s)
  and the rate of double-precision atomicAdd to scattered addresses (G updates/s), for benchmarks' percentages

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGDeviceRoofline(PetscReal *triad, PetscReal *fma, PetscReal *atomics)
{
  PetscFunctionBegin;
#if defined(FEGPU_HAVE_CUDA)
  {
    double t, f, a;

    PetscCall(FEGDevRoofline(&t, &f, &a));
    *triad   = t;
    *fma     = f;
    *atomics = a;
  }
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "FEGDeviceRoofline needs fegpu built against a CUDA-enabled PETSc");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
