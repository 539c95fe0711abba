/* Options more than one operator type reads: the GPU scatter of lma and matfree, the GPU integration kernel of addto
   and lma */
#include <fegpu/private/fegopimpl.h>

/* -feg_op_scatter (FEGOpSetScatter()) */
PetscErrorCode FEGScatterSetFromOptions(PetscOptionItems *PetscOptionsObject, FEGScatter *scatter)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsDeprecated("-feg_lma_scatter", "-feg_op_scatter", "0.3", NULL));
  PetscCall(PetscOptionsEnum("-feg_op_scatter", "GPU lma and matfree: scatter-add by atomics or by a deterministic transpose gather", "FEGOpSetScatter", FEGScatters, (PetscEnum)*scatter, (PetscEnum *)scatter, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the values FEGOpSetIntegrationTuning() accepts */
PetscErrorCode FEGTuningCheck(MPI_Comm comm, PetscInt blocksize, PetscInt nentpt, PetscInt qchunk)
{
  PetscFunctionBegin;
  PetscCheck(nentpt >= 0 && nentpt <= 16 && (nentpt & (nentpt - 1)) == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Entries per thread (-feg_op_integration_nentpt) %" PetscInt_FMT " is not supported: allowed are 0 (automatic), 1, 2, 4, 8, 16", nentpt);
  PetscCheck(blocksize == 0 || (blocksize >= 32 && blocksize <= 1024 && blocksize % 32 == 0), comm, PETSC_ERR_ARG_OUTOFRANGE, "Threads per block (-feg_op_integration_block_size) %" PetscInt_FMT " must be 0 or a multiple of 32 from 32 to 1024", blocksize);
  PetscCheck(qchunk >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Quadrature points per chunk (-feg_op_integration_qchunk) %" PetscInt_FMT " must be non-negative", qchunk);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -feg_op_integration_* (FEGOpSetIntegrationKernel(), FEGOpSetIntegrationTuning()) */
PetscErrorCode FEGTuningSetFromOptions(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, FEGTuning *t)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsDeprecated("-feg_cuda_kernel", "-feg_op_integration_kernel", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_cuda_block_size", "-feg_op_integration_block_size", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_cuda_nentpt", "-feg_op_integration_nentpt", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_cuda_qchunk", "-feg_op_integration_qchunk", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_cuda_jacobian_shared", "-feg_op_integration_jacobian_shared", "0.3", NULL));
  PetscCall(PetscOptionsEnum("-feg_op_integration_kernel", "GPU integration: one element per thread, one per thread block (Kruzel et al.), GEMM over reference tables, or one element entry per thread from reference tensors (affine cells, constant C)", "FEGOpSetIntegrationKernel", FEGIntegrationKernels,
                             (PetscEnum)t->kernel, (PetscEnum *)&t->kernel, NULL));
  PetscCall(PetscOptionsInt("-feg_op_integration_block_size", "Threads per block of the block kernel (0: by element size)", "FEGOpSetIntegrationTuning", t->blockSize, &t->blockSize, NULL));
  PetscCall(PetscOptionsInt("-feg_op_integration_nentpt", "Element matrix entries per thread and part, NENTPT (1, 2, 4, 8, 16; 0: by element size)", "FEGOpSetIntegrationTuning", t->nentpt, &t->nentpt, NULL));
  PetscCall(PetscOptionsInt("-feg_op_integration_qchunk", "Quadrature points staged in shared memory at a time (0: 16, fewer if shared memory is short)", "FEGOpSetIntegrationTuning", t->qchunk, &t->qchunk, NULL));
  PetscCall(PetscOptionsBool("-feg_op_integration_jacobian_shared", "Stage the element's Jacobian data in shared memory", "FEGOpSetIntegrationTuning", t->jacShared, &t->jacShared, NULL));
  PetscCall(FEGTuningCheck(comm, t->blockSize, t->nentpt, t->qchunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the composed setters and getters of the integration tuning, for the types that hold an FEGTuning at the start of
   their data (addto, lma) */
static PetscErrorCode FEGOpSetIntegrationKernel_Tuning(FEGOp op, FEGIntegrationKernel kernel)
{
  PetscFunctionBegin;
  ((FEGTuning *)op->data)->kernel = kernel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpGetIntegrationKernel_Tuning(FEGOp op, FEGIntegrationKernel *kernel)
{
  PetscFunctionBegin;
  *kernel = ((FEGTuning *)op->data)->kernel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpSetIntegrationTuning_Tuning(FEGOp op, PetscInt blocksize, PetscInt nentpt, PetscInt qchunk, PetscBool jacshared)
{
  FEGTuning *t = (FEGTuning *)op->data;

  PetscFunctionBegin;
  t->blockSize = blocksize;
  t->nentpt    = nentpt;
  t->qchunk    = qchunk;
  t->jacShared = jacshared;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpGetIntegrationTuning_Tuning(FEGOp op, PetscInt *blocksize, PetscInt *nentpt, PetscInt *qchunk, PetscBool *jacshared)
{
  const FEGTuning *t = (const FEGTuning *)op->data;

  PetscFunctionBegin;
  if (blocksize) *blocksize = t->blockSize;
  if (nentpt) *nentpt = t->nentpt;
  if (qchunk) *qchunk = t->qchunk;
  if (jacshared) *jacshared = t->jacShared;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compose (compose true) or remove the integration setters on op, whose data starts with an FEGTuning */
PetscErrorCode FEGTuningCompose(FEGOp op, PetscBool compose)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpSetIntegrationKernel_C", compose ? FEGOpSetIntegrationKernel_Tuning : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpGetIntegrationKernel_C", compose ? FEGOpGetIntegrationKernel_Tuning : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpSetIntegrationTuning_C", compose ? FEGOpSetIntegrationTuning_Tuning : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpGetIntegrationTuning_C", compose ? FEGOpGetIntegrationTuning_Tuning : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
