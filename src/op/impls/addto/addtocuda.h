/* addto's device launchers (addto.cu) */
#pragma once

#include <fegpu/private/fegcuda.h>

PETSC_INTERN PetscErrorCode FEGDevCSRPositions(const FEGDevDisc *, const int *, const PetscInt *, const PetscInt *, int *);
