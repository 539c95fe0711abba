/* Options more than one operator type reads */
#include <fegpu/private/fegopimpl.h>

const char *const        FEGScatters[]    = {"atomic", "gather", "FEGScatter", "FEG_SCATTER_", NULL};
static const char *const FEGCudaKernels[] = {"auto", "thread", "block", "gemm", "entries", "FEGCudaKernel", "FEG_CUDA_KERNEL_", NULL};

/* -feg_lma_scatter: how GPU element-local operators (lma, matfree) add element results into the vector */
PetscErrorCode FEGScatterSetFromOptions(PetscOptionItems *PetscOptionsObject, FEGScatter *scatter)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum("-feg_lma_scatter", "GPU lma and matfree: scatter-add by atomics or by a deterministic transpose gather", "FEGOpSetFromOptions", FEGScatters, (PetscEnum)*scatter, (PetscEnum *)scatter, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The GPU element-integration kernel and its tuning, for the types that compute element matrices (addto, lma) */
PetscErrorCode FEGTuningSetFromOptions(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, FEGTuning *t)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsEList("-feg_cuda_kernel", "Integration kernel: one element per thread, one per thread block (Kruzel et al.), GEMM over reference tables, or one element entry per thread from reference tensors (affine cells, constant C)", "FEGOpSetFromOptions", FEGCudaKernels, 5, FEGCudaKernels[t->kernel], &t->kernel, NULL));
  PetscCall(PetscOptionsInt("-feg_cuda_block_size", "Threads per block of the block kernel (0: by element size)", "FEGOpSetFromOptions", t->blockSize, &t->blockSize, NULL));
  PetscCall(PetscOptionsInt("-feg_cuda_nentpt", "Element matrix entries per thread and part, NENTPT (1, 2, 4, 8, 16; 0: by element size)", "FEGOpSetFromOptions", t->nentpt, &t->nentpt, NULL));
  PetscCall(PetscOptionsInt("-feg_cuda_qchunk", "Quadrature points staged in shared memory at a time (0: 16, fewer if shared memory is short)", "FEGOpSetFromOptions", t->qchunk, &t->qchunk, NULL));
  PetscCall(PetscOptionsBool("-feg_cuda_jacobian_shared", "Stage the element's Jacobian data in shared memory", "FEGOpSetFromOptions", t->jacShared, &t->jacShared, NULL));
  PetscCheck(t->nentpt >= 0 && t->nentpt <= 16 && (t->nentpt & (t->nentpt - 1)) == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-feg_cuda_nentpt %" PetscInt_FMT " is not supported: allowed are 0 (automatic), 1, 2, 4, 8, 16", t->nentpt);
  PetscCheck(t->blockSize == 0 || (t->blockSize >= 32 && t->blockSize <= 1024 && t->blockSize % 32 == 0), comm, PETSC_ERR_ARG_OUTOFRANGE, "-feg_cuda_block_size %" PetscInt_FMT " must be 0 or a multiple of 32 from 32 to 1024", t->blockSize);
  PetscCheck(t->qchunk >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-feg_cuda_qchunk %" PetscInt_FMT " must be non-negative", t->qchunk);
  PetscFunctionReturn(PETSC_SUCCESS);
}
