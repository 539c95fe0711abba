/* lma's device launchers (lma.cu) */
#pragma once

#include <fegpu/private/fegcuda.h>

PETSC_INTERN PetscErrorCode FEGDevLMAApply(const FEGDevDisc *, const int *, const double *, double *, int, int, const void *, int, int, const double *, double *, int, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevLMADiagonal(const FEGDevDisc *, const int *, double *, const void *, int, int, double *, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevLMAWiden(int, int, int, int, const void *, double *);
