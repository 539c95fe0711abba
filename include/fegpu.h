/* fegpu: finite element operators for PETSc DMPlex, assembled (Addto), element-local (LMA), on host or GPU */
#pragma once

#include <petscdmplex.h>
#include <petscksp.h>
#include <fegpuconf.h>
#include <fegpu/compat.h>

#define FEGPU_VERSION_MAJOR 0
#define FEGPU_VERSION_MINOR 1

/* The package */
PETSC_EXTERN PetscClassId FEG_FORM_CLASSID;
PETSC_EXTERN PetscErrorCode FEGInitializePackage(void);
PETSC_EXTERN PetscErrorCode FEGFinalizePackage(void);

/* How an operator is applied */
typedef enum {
  FEG_STRATEGY_ADDTO,
  FEG_STRATEGY_LMA,
  FEG_STRATEGY_MATFREE
} FEGStrategy;
PETSC_EXTERN const char *const FEGStrategies[];

/* Derivative index of a(u,v) = sum_ij C_ij d_i u d_j v: 0 is the value, 1..dim the gradient components */
#define FEG_MAX_DERIV 4

/* Coefficient computed at each quadrature point from the auxiliary field w (Nw components) and its gradient
   (gradw[k*dim+d]); C (row i = trial derivative, column j = test derivative, 4x4 row-major) and D arrive holding the
   constant and linear parts and may be modified. */
typedef PetscErrorCode (*FEGPointwiseFn)(PetscInt dim, PetscInt Nw, const PetscReal x[], const PetscScalar w[], const PetscScalar gradw[], PetscScalar C[], PetscScalar D[], void *ctx);

/* A bilinear form a(u,v) = int sum_{i,j=0..dim} C_ij d_i u d_j v and a linear form b(v) = int sum_j D_j d_j v */
typedef struct _p_FEGForm *FEGForm;

PETSC_EXTERN PetscErrorCode FEGFormCreate(MPI_Comm, FEGForm *);
PETSC_EXTERN PetscErrorCode FEGFormDestroy(FEGForm *);
PETSC_EXTERN PetscErrorCode FEGFormView(FEGForm, PetscViewer);
PETSC_EXTERN PetscErrorCode FEGFormSetOptionsPrefix(FEGForm, const char[]);
PETSC_EXTERN PetscErrorCode FEGFormSetFromOptions(FEGForm);
PETSC_EXTERN PetscErrorCode FEGFormSetConstant(FEGForm, const PetscScalar[], const PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGFormGetConstant(FEGForm, PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGFormSetAuxiliaryField(FEGForm, DM, Vec);
PETSC_EXTERN PetscErrorCode FEGFormGetAuxiliaryField(FEGForm, DM *, Vec *);
PETSC_EXTERN PetscErrorCode FEGFormSetLinearCoefficient(FEGForm, PetscInt, const PetscScalar[], const PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGFormSetPointwiseCoefficient(FEGForm, FEGPointwiseFn, void *);
PETSC_EXTERN PetscErrorCode FEGFormIsSymmetric(FEGForm, PetscBool *);
PETSC_EXTERN PetscErrorCode FEGFormSetStrategy(FEGForm, FEGStrategy);
PETSC_EXTERN PetscErrorCode FEGFormGetStrategy(FEGForm, FEGStrategy *);

/* Constructors: advection-diffusion mass*m(u,v) + dscale*d(u,v) + ascale*a(u,v) (Markall et al. eqs. 11-13),
   with diffusivity kappa (dim x dim, row-major) and velocity the first dim components of an auxiliary field;
   and convection-diffusion-reaction with a full (dim+1)x(dim+1) C and D (Kruzel et al.) */
PETSC_EXTERN PetscErrorCode FEGFormCreateAdvectionDiffusion(MPI_Comm, PetscInt, PetscScalar, PetscScalar, const PetscScalar[], PetscScalar, DM, Vec, FEGForm *);
PETSC_EXTERN PetscErrorCode FEGFormCreateCDR(MPI_Comm, PetscInt, const PetscScalar[], const PetscScalar[], FEGForm *);

/* Spaces and meshes */
PETSC_EXTERN PetscErrorCode FEGCreateFE(MPI_Comm, PetscInt, DMPolytopeType, PetscInt, PetscBool, PetscFE *);
PETSC_EXTERN PetscErrorCode FEGCreateQuadrature(PetscInt, DMPolytopeType, PetscInt, PetscQuadrature *);
PETSC_EXTERN PetscErrorCode FEGCreateBoxMesh(MPI_Comm, DMPolytopeType, const PetscInt[], const PetscReal[], const PetscReal[], PetscReal, DM *);
PETSC_EXTERN PetscErrorCode FEGCreateMeshFromOptions(MPI_Comm, const char[], DM *);
PETSC_EXTERN PetscErrorCode FEGSetUpDiscretization(DM, PetscInt, PetscBool, const char[]);

/* Operators */
PETSC_EXTERN PetscErrorCode FEGCreateOperator(DM, FEGForm, Mat *);
PETSC_EXTERN PetscErrorCode FEGOperatorAssemble(Mat, FEGForm);
PETSC_EXTERN PetscErrorCode FEGOperatorGetStrategy(Mat, FEGStrategy *);
PETSC_EXTERN PetscErrorCode FEGComputeRHS(DM, FEGForm, Vec);
PETSC_EXTERN PetscErrorCode FEGDMSetForm(DM, FEGForm);
PETSC_EXTERN PetscErrorCode FEGDMGetForm(DM, FEGForm *);

/* Benchmark support: this GPU's STREAM triad (GB/s), FP64 FMA rate (GFLOP/s) and scattered atomicAdd rate (G/s) */
PETSC_EXTERN PetscErrorCode FEGDeviceRoofline(PetscReal *, PetscReal *, PetscReal *);
