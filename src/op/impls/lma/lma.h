/* lma (Local Matrix Approach): element matrices kept; MatMult gathers, multiplies and scatters-adds */
#pragma once

#include <fegpu/private/fegopimpl.h>

typedef struct {
  FEGScatter   scatter;   /* -feg_lma_scatter (GPU) */
  PetscBool    symmetric; /* -feg_lma_symmetric (GPU): a symmetric form's upper triangles alone where they have kernels */
  PetscBool    tiles;     /* -feg_lma_tiles (GPU): x gathered and y summed per tile of elements in shared memory */
  PetscBool    tilesset;  /* tiles given; else the default (lmacuda.c's FEGLMATilesSetUp()) */
  FEGTuning    tuning;    /* -feg_cuda_* (GPU) */
  PetscScalar *Ke;        /* host: element matrices Ke[(e*Nb+a)*Nb+b], row a the test function */
  float       *Kf;        /* host, -feg_precision single: the same in single precision (Ke is then NULL) */
  void        *dev;       /* the GPU's data (lmacuda.c) */
} FEGOp_LMA;

PETSC_INTERN PetscErrorCode FEGOpDestroy_LMA(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpAssembleValues_LMA_Private(FEGOp, MatType, PetscBool, const PetscScalar[], Mat *);
