/* addto: element matrices added into an assembled AIJ matrix with the element-connectivity pattern */
#pragma once

#include <fegpu/private/fegopimpl.h>

typedef struct {
  FEGTuning    tuning; /* first (FEGTuningCompose()): FEGOpSetIntegrationKernel(), FEGOpSetIntegrationTuning() (GPU) */
  FEGAddToMode mode;   /* FEGOpAddToSetMode() (GPU) */
  void        *dev;    /* the GPU's data (addtocuda.c) */
} FEGOp_AddTo;

PETSC_INTERN PetscErrorCode FEGOpDestroy_AddTo(FEGOp);
