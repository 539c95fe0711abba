/* lma's device launchers (lma.cu) */
#pragma once

#include <fegpu/private/fegcuda.h>

/* Tiles of up to FEG_LMA_TILE consecutive elements (-feg_lma_tiles): each tile's distinct dofs are gathered once into
   shared memory and their sums added once, so an element's gathers and atomic adds through L2 become shared-memory
   reads and writes. On the device: the tiles' first elements (start, ntiles+1), their distinct dofs (dof, ascending,
   tile t's from off[t]), each distinct dof's end in the tile's sorted entries (end), each element entry's distinct dof
   in its tile (lidx[b*Ne+e]) and the tile's entries sorted by dof (perm[start*Nb+j]: entry b of the tile's element el
   as b*FEG_LMA_TILE+el) */
#define FEG_LMA_TILE 128
typedef struct {
  int             ntiles;
  int            *hstart; /* host copy of start */
  int            *start, *off, *dof;
  unsigned short *end, *lidx, *perm;
  size_t          bytes;
} FEGLMATiles;

PETSC_INTERN PetscErrorCode FEGDevLMATilesCreate(const FEGDevDisc *, const int *, int, const int *, FEGLMATiles *);
PETSC_INTERN PetscErrorCode FEGDevLMAApply(const FEGDevDisc *, const int *, const FEGLMATiles *, const double *, double *, int, int, const void *, int, int, const double *, double *, int, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevLMADiagonal(const FEGDevDisc *, const int *, double *, const void *, int, int, double *, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevLMAWiden(int, int, int, int, const void *, double *);
