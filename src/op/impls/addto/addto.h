/* addto: element matrices added into an assembled AIJ matrix with the element-connectivity pattern */
#pragma once

#include <fegpu/private/fegopimpl.h>

/* how the GPU adds element matrices into the CSR values */
typedef enum {
  FEG_ADDTO_AUTO,
  FEG_ADDTO_ATOMIC,
  FEG_ADDTO_COLOR,
  FEG_ADDTO_COO,
  FEG_ADDTO_GATHER
} FEGAddtoMode;
PETSC_INTERN const char *const FEGAddtoModes[];

typedef struct {
  FEGAddtoMode mode;   /* -feg_addto_mode (GPU) */
  FEGTuning    tuning; /* -feg_cuda_* (GPU) */
  void        *dev;    /* the GPU's data (addtocuda.c) */
} FEGOp_AddTo;

PETSC_INTERN PetscErrorCode FEGOpDestroy_AddTo(FEGOp);
