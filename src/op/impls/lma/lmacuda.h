/* lma's device launchers (lma.cu) */
#pragma once

#include <fegpu/private/fegcuda.h>

/* Tiles of up to FEG_LMA_TILE consecutive elements (-feg_op_lma_tiles): each tile's distinct dofs are gathered once into
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

/* lma's device data, what its launchers take */
typedef struct {
  int         Ne, Nb;
  const int  *idx;    /* idx[b*Ne+e]: local dofs, or global ones (-1 constrained; below -1 the halo's buffers, FEGCodedLoad()) */
  void       *Ke;     /* the element matrices, element-interleaved: double Ke[FEGLMADoubleIndex()], single
                         Ke[FEGLMASingleIndex()], symmetric Ke[FEGLMASymEntry()*Ne+e] */
  int         single; /* Ke holds floats (FEGOpSetPrecision()) */
  int         sym;    /* Ke holds the entries a <= b of a symmetric form's matrices (FEGOpLMASetSymmetric()) */
  FEGLMATiles tiles;  /* FEGOpLMASetTiles(): ntiles 0 where not used */
} FEGDevLMA;

/* the tiles starting at elements start[0..ntiles-1] (start[ntiles] = Ne) of k's elements, into k->tiles */
PETSC_INTERN PetscErrorCode FEGDevLMATilesCreate(FEGDevLMA *, int, int *);
/* y += A x, A^T x or (L->diag) the diagonal over the launch's elements */
PETSC_INTERN PetscErrorCode FEGDevLMAApply(const FEGDevLMA *, const FEGDevLaunch *);
/* out[k*Ne+e] = entry k of element e, in double, one by one: the element matrices for MatSetValuesCOO() */
PETSC_INTERN PetscErrorCode FEGDevLMAWiden(const FEGDevLMA *, double *);
