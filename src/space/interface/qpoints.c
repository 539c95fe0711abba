/* Vectors at the quadrature points of a DM's cells: the layout coefficients given point by point use, and the points
   themselves, so that an application computes its coefficients where its vectors live (on the GPU for CUDA Vecs) */
#include <fegpu/private/fegspaceimpl.h>

#if defined(FEGPU_HAVE_CUDA)
PETSC_INTERN PetscErrorCode FEGDevQuadraturePoints(FEGDisc *, Vec);
#endif

PetscErrorCode (*FEGDiscDeviceQuadraturePoints)(FEGDisc *, Vec) = NULL;

/* the space layer's device functions, in a CUDA build (the package initialiser calls it) */
PetscErrorCode FEGSpaceRegisterDevice(void)
{
  PetscFunctionBegin;
#if defined(FEGPU_HAVE_CUDA)
  FEGDiscDeviceQuadraturePoints = FEGDevQuadraturePoints;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDiscCreateQuadratureVec_Private(DM dm, const FEGDisc *disc, PetscInt bs, Vec *v)
{
  VecType vtype;

  PetscFunctionBegin;
  PetscCall(DMGetVecType(dm, &vtype));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)dm), v));
  PetscCall(VecSetSizes(*v, disc->Ne * disc->Nq * bs, PETSC_DETERMINE));
  PetscCall(VecSetBlockSize(*v, bs));
  PetscCall(VecSetType(*v, vtype ? vtype : VECSTANDARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMCreateQuadratureVec - creates a vector with bs values at every quadrature point of every local cell of a DM
  whose field fegpu discretizes, of the DM's vector type (a CUDA vector when the DM's are)

  Collective

  Input Parameters:
+ dm - the DM
- bs - values per point: 16 for C and 4 for D in `FEGFormSetQuadratureCoefficient()`, the dimension for points

  Output Parameter:
. v - the vector: local size Ne*Nq*bs, block size bs, entry (e*Nq + q)*bs + k for point q of local cell cStart + e

  Level: intermediate

.seealso: FEGFormSetQuadratureCoefficient(), FEGDMCreateQuadratureCoordinates()
@*/
PetscErrorCode FEGDMCreateQuadratureVec(DM dm, PetscInt bs, Vec *v)
{
  FEGDisc       *disc;
  PetscContainer c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(v, 3);
  PetscCheck(bs >= 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "Values per quadrature point %" PetscInt_FMT " must be at least 1", bs);
  PetscCall(FEGDMGetDisc(dm, &disc, &c));
  PetscCall(FEGDiscCreateQuadratureVec_Private(dm, disc, bs, v));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMCreateQuadratureCoordinates - creates a vector holding the real-space quadrature points of every local cell, in
  the layout of `FEGDMCreateQuadratureVec()` with bs the coordinate dimension; computed on the GPU when the DM's vectors
  are CUDA vectors

  Collective

  Input Parameter:
. dm - the DM

  Output Parameter:
. X - the points, x_d of point q of local cell cStart + e at (e*Nq + q)*dim + d

  Level: intermediate

  Note:
  With `VecStrideGather()`, `VecPointwiseMult()` and the other Vec operations (which run on the GPU for CUDA vectors)
  an x-dependent coefficient is computed into the vectors of `FEGFormSetQuadratureCoefficient()` without host loops.

.seealso: FEGDMCreateQuadratureVec(), FEGFormSetQuadratureCoefficient()
@*/
PetscErrorCode FEGDMCreateQuadratureCoordinates(DM dm, Vec *X)
{
  FEGDisc       *disc;
  PetscContainer c;
  PetscBool      ondevice;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(X, 2);
  PetscCall(FEGDMGetDisc(dm, &disc, &c));
  PetscCall(FEGDiscCreateQuadratureVec_Private(dm, disc, disc->dim, X));
  PetscCall(FEGDMIsOnDevice(dm, &ondevice));
  if (ondevice) PetscCall((*FEGDiscDeviceQuadraturePoints)(disc, *X));
  else {
    PetscScalar *x;

    PetscCall(FEGDiscSetUpGeometry(disc));
    PetscCall(VecGetArrayWrite(*X, &x));
    /* in the DM's cell order, whatever the elements' (FEGDMSetElementOrder()) */
    for (PetscInt e = 0; e < disc->Ne; e++) {
      const size_t n = (size_t)disc->Nq * disc->dim;

      PetscCall(PetscArraycpy(&x[(size_t)(FEGDiscCell(disc, e) - disc->cStart) * n], &disc->xq[(size_t)e * n], n));
    }
    PetscCall(VecRestoreArrayWrite(*X, &x));
  }
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
