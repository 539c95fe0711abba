/* addto's device launchers (addto.cu) */
#pragma once

#include <fegpu/private/fegcuda.h>

PETSC_INTERN PetscErrorCode FEGDevCSRPattern(int, int, int, const int *, int *, int **, int **, int *);
PETSC_INTERN PetscErrorCode FEGDevAddAt(int, const int *, const double *, const FEGDevOutput *);
PETSC_INTERN PetscErrorCode FEGDevSumCSR(int, const int *, const int *, const int *, const double *, int, const FEGDevOutput *);
PETSC_INTERN PetscErrorCode FEGDevPermutePositions(int, int, const int *, const int *, int *);
