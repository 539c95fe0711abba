/* fegpu's private base layer (src/sys): the package, its log events, the host setup threads, the papers the types
   follow, and whether a DM runs on the GPU. Every other layer's private header includes this one. Layers only look
   down: sys -> mesh -> space -> form -> op (fegmeshimpl.h, fegspaceimpl.h, fegformimpl.h, fegopimpl.h). Functions
   marked PETSC_EXTERN are private API an application's operator type may use (fegopimpl.h). */
#pragma once

#include <fegpu.h>
#include <petsc/private/petscimpl.h>
#include <fegpu/private/compat.h>

PETSC_INTERN PetscBool     FEGPackageInitialized;
PETSC_INTERN PetscLogEvent FEG_Setup, FEG_Integrate, FEG_Assemble, FEG_Apply, FEG_RHS;
PETSC_INTERN PetscLogEvent FEG_SetupDofMap, FEG_SetupGeometry, FEG_SetupPattern, FEG_SetupDevice, FEG_RHSBoundary;
PETSC_INTERN PetscLogEvent FEG_BoxMesh, FEG_BoxSF, FEG_PlexFaces, FEG_PlexTopology, FEG_PlexRefine, FEG_MeshFileCheck;

/* A setup phase: its log event (-log_view) and its wall time added to *acc (-feg_op_view) */
static inline PetscErrorCode FEGPhaseBegin(PetscLogEvent ev, PetscObject o, PetscLogDouble *t0)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(ev, o, 0, 0, 0));
  PetscCall(PetscTime(t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode FEGPhaseEnd(PetscLogEvent ev, PetscObject o, PetscLogDouble t0, PetscLogDouble *acc)
{
  PetscLogDouble t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t1));
  *acc += t1 - t0;
  PetscCall(PetscLogEventEnd(ev, o, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ setup threads */
PETSC_EXTERN PetscErrorCode FEGSetupThreads(MPI_Comm, PetscInt *);
/* the threads of a setup loop over n items: all nthreads from 64k items on, else one (fewer items are not worth waking
   the threads for, and the tests' small meshes then keep the serial paths) */
static inline int FEGLoopThreads(PetscInt64 n, PetscInt nthreads)
{
  return (int)(n >= 65536 ? PetscMax(1, nthreads) : 1);
}
/* the first of n items in block b of nt equal blocks (block b is [FEGBlockStart(n, b, nt), FEGBlockStart(n, b + 1, nt))),
   in 64-bit arithmetic: n * b overflows 32 bits past 134M items on 16 threads */
static inline PetscInt FEGBlockStart(PetscInt n, PetscInt b, PetscInt nt)
{
  return (PetscInt)((PetscInt64)n * b / nt);
}

/* the papers the strategies follow (src/sys/interface/cite.c), listed by -citations */
typedef enum {
  FEG_CITE_MARKALL, /* Addto with atomics or colouring, the Local Matrix Approach */
  FEG_CITE_MACIOL,  /* one element per thread block GPU integration */
  FEG_CITE_KRUZEL,  /* high-order integration kernels, NENTPT and parts */
  FEG_CITE_MODAVE,  /* reference operators and batched GEMM for the matrix-free action */
  FEG_NUM_CITATIONS
} FEGCitation;
PETSC_INTERN PetscErrorCode FEGCitationsRegister(FEGCitation);

/* text of any length (src/sys/interface/str.c) */
PETSC_INTERN PetscErrorCode FEGStrAppendf(char **, const char[], ...) PETSC_ATTRIBUTE_FORMAT(2, 3);

/* a setting kept on an object, else its option (src/sys/interface/setting.c) */
PETSC_INTERN PetscErrorCode FEGObjectSetSetting_Private(PetscObject, PetscInt *, PetscEnum);
PETSC_INTERN PetscErrorCode FEGObjectGetSetting_Private(PetscObject, PetscInt, const char[], const char *const[], PetscEnum *);

/* ------------------------------------------------------------------------------------------------------ devices */
/* fegpu runs on the GPU when the DM's vectors are CUDA vectors */
PETSC_EXTERN PetscErrorCode FEGDMIsOnDevice(DM, PetscBool *);
/* a CUDA vector of a layout whose arrays are made when first used, and whether a vector type on a communicator is made
   so (src/sys/interface/device.c) */
PETSC_INTERN PetscErrorCode FEGDeviceCreateVec(PetscLayout, Vec *);
PETSC_INTERN PetscErrorCode FEGDeviceVecIsLazy(MPI_Comm, VecType, PetscBool *);

/* What the CUDA backend provides to every layer: filled by FEGDeviceBackendRegister() when fegpu is built with CUDA
   (src/sys/interface/device.c), empty otherwise */
typedef struct {
  PetscBool available;
  PetscErrorCode (*roofline)(double *, double *, double *);
  PetscErrorCode (*initialize)(void);            /* the GPU PETSc chooses for this process, before fegpu's first device allocation */
  PetscErrorCode (*started)(int *);              /* the device fegpu started, -1 if none */
  PetscErrorCode (*meminfo)(size_t *, size_t *); /* free and total bytes of this process's GPU */
} FEGDeviceBackend;
PETSC_INTERN FEGDeviceBackend FEGDevice;
PETSC_INTERN PetscErrorCode   FEGDeviceBackendRegister(void);
/* the device fegpu started for PETSc, -1 if none (tests) */
PETSC_EXTERN PetscErrorCode FEGDeviceGetStarted(PetscInt *);
