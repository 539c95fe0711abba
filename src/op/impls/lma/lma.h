/* lma (Local Matrix Approach): element matrices kept; MatMult gathers, multiplies and scatters-adds */
#pragma once

#include <fegpu/private/fegopimpl.h>

typedef struct {
  FEGTuning    tuning;    /* first (FEGTuningCompose()): FEGOpSetIntegrationKernel(), FEGOpSetIntegrationTuning() (GPU) */
  FEGScatter   scatter;   /* FEGOpSetScatter() (GPU) */
  PetscBool    symmetric; /* FEGOpLMASetSymmetric() (GPU): a symmetric form's upper triangles alone where they have kernels */
  PetscBool    tiles;     /* FEGOpLMASetTiles() (GPU): x gathered and y summed per tile of elements in shared memory */
  PetscBool    tilesset;  /* tiles given; else the default, FEGLMATilesDefault() */
  PetscScalar *Ke;        /* host: element matrices Ke[(e*Nb+a)*Nb+b], row a the test function */
  float       *Kf;        /* host, -feg_op_precision single: the same in single precision (Ke is then NULL) */
  void        *dev;       /* the GPU's data (lmacuda.c) */
} FEGOp_LMA;

PETSC_INTERN PetscErrorCode FEGOpDestroy_LMA(FEGOp);

/* the tiles' default: on for P1 tetrahedra alone, where they pay (share/doc/performance.md) */
static inline PetscBool FEGLMATilesDefault(const FEGDisc *d)
{
  return (PetscBool)(d->dim == 3 && d->Nb == 4);
}
PETSC_INTERN PetscErrorCode FEGOpAssembleValues_LMA_Private(FEGOp, MatType, PetscBool, const PetscScalar[], Mat *);
