/* lma's device launchers (lma.cu) */
#pragma once

#include <fegpu/private/fegcuda.h>

/* -feg_lma_scatter block: the elements in blocks of FEG_LMA_BE; slot s = a*FEG_LMA_BE + i stands for row a of the
   block's element i. Block k's distinct dofs are glob[off[k]..off[k+1]), ascending; slot[k*Nb*FEG_LMA_BE + j], j <
   Nb*FEG_LMA_BE, its slots sorted by dof (stable: ascending within a dof), distinct dof u (counted from off[k]) owning
   positions end[u-1]..end[u]-1 (end[-1] read as 0), the positions after the last end the constrained slots and those
   past Ne */
#ifndef FEG_LMA_BE
  #define FEG_LMA_BE 256
#endif
typedef struct {
  int             nblk;
  int            *off, *glob, *end;
  unsigned short *slot;
  size_t          bytes;
} FEGLMABlockMap;

PETSC_INTERN PetscErrorCode FEGDevLMABlockMapCreate(const FEGDevDisc *, const int *, FEGLMABlockMap *);
PETSC_INTERN PetscErrorCode FEGDevLMAApply(const FEGDevDisc *, const int *, const FEGLMABlockMap *, const double *, double *, int, int, const void *, int, const double *, double *, int, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevLMADiagonal(const FEGDevDisc *, const int *, double *, const void *, int, double *, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevLMAWiden(int, int, const float *, double *);
