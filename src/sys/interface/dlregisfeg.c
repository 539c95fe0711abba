/* The package initialiser: the one place outside a layer's own folder that names every layer (classes, types,
   partitioner, device backends, log events) */
#include <fegpu/private/fegopimpl.h>

PetscClassId  FEG_FORM_CLASSID, FEG_OP_CLASSID;
PetscBool     FEGPackageInitialized = PETSC_FALSE;
PetscLogEvent FEG_Setup, FEG_Integrate, FEG_Assemble, FEG_Apply, FEG_RHS;
PetscLogEvent FEG_SetupDofMap, FEG_SetupGeometry, FEG_SetupPattern, FEG_SetupDevice, FEG_RHSBoundary;
PetscLogEvent FEG_BoxMesh, FEG_BoxSF, FEG_PlexFaces, FEG_PlexTopology, FEG_PlexRefine, FEG_MeshFileCheck;

/*@C
  FEGFinalizePackage - called from PetscFinalize() to forget the package's registrations

  Level: developer
@*/
PetscErrorCode FEGFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&FEGOpList));
  PetscCall(PetscFunctionListDestroy(&FEGOpDeviceList));
  FEGOpRegisterAllCalled = PETSC_FALSE;
  FEGPackageInitialized  = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGInitializePackage - registers fegpu's classes, operator types, log events and finalizer; runs once, lazily, from
  the first FEGFormCreate() or FEGOpCreate(), or when PETSc loads libfegpu through -dll_append

  Level: developer
@*/
PetscErrorCode FEGInitializePackage(void)
{
  PetscFunctionBegin;
  if (FEGPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  FEGPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("FEG Form", &FEG_FORM_CLASSID));
  PetscCall(PetscClassIdRegister("FEG Operator", &FEG_OP_CLASSID));
  PetscCall(FEGOpRegisterAll());
  PetscCall(PetscPartitionerRegister(FEGPARTITIONERMETIS, PetscPartitionerCreate_FEGMetis));
  PetscCall(FEGDeviceBackendRegister());
  PetscCall(FEGSpaceRegisterDevice());
  PetscCall(FEGOpRegisterDevice_Private());
  PetscCall(PetscLogEventRegister("FEGSetUp", FEG_OP_CLASSID, &FEG_Setup));
  PetscCall(PetscLogEventRegister("FEGIntegrate", FEG_OP_CLASSID, &FEG_Integrate));
  PetscCall(PetscLogEventRegister("FEGAssemble", FEG_OP_CLASSID, &FEG_Assemble));
  PetscCall(PetscLogEventRegister("FEGApply", FEG_OP_CLASSID, &FEG_Apply));
  PetscCall(PetscLogEventRegister("FEGRHS", FEG_OP_CLASSID, &FEG_RHS));
  /* the phases of FEGSetUp, nested in it */
  PetscCall(PetscLogEventRegister("FEGSetUpDofMap", FEG_OP_CLASSID, &FEG_SetupDofMap));
  PetscCall(PetscLogEventRegister("FEGSetUpGeometry", FEG_OP_CLASSID, &FEG_SetupGeometry));
  PetscCall(PetscLogEventRegister("FEGSetUpPattern", FEG_OP_CLASSID, &FEG_SetupPattern));
  PetscCall(PetscLogEventRegister("FEGSetUpDevice", FEG_OP_CLASSID, &FEG_SetupDevice));
  PetscCall(PetscLogEventRegister("FEGRHSBoundary", FEG_OP_CLASSID, &FEG_RHSBoundary)); /* in FEGRHS */
  /* the box mesh, and the two phases of its direct interpolation nested in it */
  PetscCall(PetscLogEventRegister("FEGBoxMesh", DM_CLASSID, &FEG_BoxMesh));
  PetscCall(PetscLogEventRegister("FEGBoxSF", DM_CLASSID, &FEG_BoxSF));
  PetscCall(PetscLogEventRegister("FEGPlexFaces", DM_CLASSID, &FEG_PlexFaces));
  PetscCall(PetscLogEventRegister("FEGPlexTopology", DM_CLASSID, &FEG_PlexTopology));
  PetscCall(PetscLogEventRegister("FEGPlexRefine", DM_CLASSID, &FEG_PlexRefine));
  PetscCall(PetscLogEventRegister("FEGMeshFileCheck", DM_CLASSID, &FEG_MeshFileCheck));
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
