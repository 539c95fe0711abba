/* fegpu: finite element operators for PETSc DMPlex, assembled (addto), element-local (lma) or matrix-free, on the host
   or the GPU */
#pragma once

#include <petscdmplex.h>
#include <petscksp.h>
#include <fegpuconf.h>

#define FEGPU_VERSION_MAJOR 0
#define FEGPU_VERSION_MINOR 2

#if PETSC_VERSION_LT(3, 19, 0) && !defined(PETSC_SUCCESS)
  /* PETSc 3.19 named the success code; with 3.18 fegpu's users may write it too */
  #define PETSC_SUCCESS 0
#endif

/* The package */
PETSC_EXTERN PetscClassId   FEG_FORM_CLASSID;
PETSC_EXTERN PetscClassId   FEG_OP_CLASSID;
PETSC_EXTERN PetscErrorCode FEGInitializePackage(void);
PETSC_EXTERN PetscErrorCode FEGFinalizePackage(void);

/* Derivative index of a(u,v) = sum_ij C_ij d_i u d_j v: 0 is the value, 1..dim the gradient components */
#define FEG_MAX_DERIV 4

/* Coefficient computed at each quadrature point from the auxiliary field w (Nw components) and its gradient
   (gradw[k*dim+d]); C (row i = trial derivative, column j = test derivative, 4x4 row-major) and D arrive holding the
   constant and linear parts and may be modified. */
typedef PetscErrorCode (*FEGPointwiseFn)(PetscInt dim, PetscInt Nw, const PetscReal x[], const PetscScalar w[], const PetscScalar gradw[], PetscScalar C[], PetscScalar D[], void *ctx);

/* A bilinear form a(u,v) = int sum_{i,j=0..dim} C_ij d_i u d_j v and a linear form b(v) = int sum_j D_j d_j v: what is
   computed (how is the operator's business) */
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
/* nc values W at every quadrature point of every local cell (a Vec from FEGDMCreateQuadratureVec(), read where it lives:
   on the GPU for CUDA Vecs), mapped like the auxiliary field: C_ij += A[(i*4+j)*nc+k] W_k, D_j += B[j*nc+k] W_k */
PETSC_EXTERN PetscErrorCode FEGFormSetQuadratureCoefficient(FEGForm, Vec, PetscInt, const PetscScalar[], const PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGFormGetQuadratureCoefficient(FEGForm, Vec *, PetscInt *);
PETSC_EXTERN PetscErrorCode FEGFormIsSymmetric(FEGForm, PetscBool *);

/* Constructors: advection-diffusion mass*m(u,v) + dscale*d(u,v) + ascale*a(u,v) (Markall et al. eqs. 11-13),
   with diffusivity kappa (dim x dim, row-major) and velocity the first dim components of an auxiliary field;
   and convection-diffusion-reaction with a full (dim+1)x(dim+1) C and D (Kruzel et al.) */
PETSC_EXTERN PetscErrorCode FEGFormCreateAdvectionDiffusion(MPI_Comm, PetscInt, PetscScalar, PetscScalar, const PetscScalar[], PetscScalar, DM, Vec, FEGForm *);
PETSC_EXTERN PetscErrorCode FEGFormCreateCDR(MPI_Comm, PetscInt, const PetscScalar[], const PetscScalar[], FEGForm *);

/* Spaces and meshes */
PETSC_EXTERN PetscErrorCode FEGCreateFE(MPI_Comm, PetscInt, DMPolytopeType, PetscInt, PetscBool, PetscFE *);
/* Node families of the Lagrange elements (-feg_fe_nodes) */
typedef enum {
  FEG_NODES_EQUISPACED,    /* PETSc's default nodes, fegpu's quadrature */
  FEG_NODES_GLL,           /* Gauss-Lobatto-Legendre nodes (quadrilaterals, hexahedra), fegpu's quadrature */
  FEG_NODES_GLL_COLLOCATED /* GLL nodes and the GLL rule on those nodes: spectral elements, the BP5 discretization */
} FEGNodeType;
PETSC_EXTERN const char *const FEGNodeTypes[];
PETSC_EXTERN PetscErrorCode    FEGCreateFEWithNodes(MPI_Comm, PetscInt, DMPolytopeType, PetscInt, PetscBool, FEGNodeType, PetscFE *);
PETSC_EXTERN PetscErrorCode    FEGCreateQuadrature(PetscInt, DMPolytopeType, PetscInt, PetscQuadrature *);
PETSC_EXTERN PetscErrorCode    FEGCreateBoxMesh(MPI_Comm, DMPolytopeType, const PetscInt[], const PetscReal[], const PetscReal[], PetscReal, DM *);
PETSC_EXTERN PetscErrorCode    FEGCreateMeshFromOptions(MPI_Comm, const char[], DM *);
/* Cell ordering inside each process, for locality of the gathers and scatters (-feg_reorder) */
typedef enum {
  FEG_REORDER_NONE,  /* the mesh's own order (a Gmsh file's, or the box builder's) */
  FEG_REORDER_METIS, /* cells grouped by METIS k-way parts of the local dual graph */
  FEG_REORDER_SFC    /* cells along a Hilbert curve through their centroids */
} FEGReorderType;
PETSC_EXTERN const char *const FEGReorderTypes[];
PETSC_EXTERN PetscErrorCode    FEGMeshReorder(DM, FEGReorderType, DM *);
PETSC_EXTERN PetscErrorCode    FEGMeshRefine(DM, DM *);
PETSC_EXTERN PetscErrorCode    FEGSetUpDiscretization(DM, PetscInt, PetscBool, const char[]);
PETSC_EXTERN PetscErrorCode    FEGDMSetUpSection(DM);
PETSC_EXTERN PetscErrorCode    FEGDMCreateQuadratureVec(DM, PetscInt, Vec *);
PETSC_EXTERN PetscErrorCode    FEGDMCreateQuadratureCoordinates(DM, Vec *);
PETSC_EXTERN PetscErrorCode    FEGDMProjectFunction(DM, PetscReal, PetscErrorCode (*)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *), void *, Vec);

/* Operators: an FEGOp computes a form on a DM in the way its type says; its Mat is what solvers use */
typedef struct _p_FEGOp *FEGOp;
typedef const char      *FEGOpType;
#define FEGOPADDTO   "addto"   /* element matrices added into an assembled AIJ matrix */
#define FEGOPLMA     "lma"     /* element matrices kept; MatMult gathers, multiplies and scatters */
#define FEGOPMATFREE "matfree" /* only what the action needs beyond the reference element */
#define FEGOPAUTO    "auto"    /* one of the others, chosen at setup from a calibrated cost model */

/* the PetscPartitioner type fegpu registers: METIS k-way on the cell dual graph (-petscpartitioner_type metis) */
#define FEGPARTITIONERMETIS "metis"

/* Where a preconditioner that needs matrix values gets them from, for operators that are not assembled */
typedef enum {
  FEG_PMAT_AUTO,  /* only when the PC needs values: from stored element matrices if any, else by addto */
  FEG_PMAT_NONE,  /* never: the PC gets the operator itself */
  FEG_PMAT_ADDTO, /* an addto matrix of the same form */
  FEG_PMAT_LMA    /* assembled from the stored element matrices (lma operators) */
} FEGPmatType;
PETSC_EXTERN const char *const FEGPmatTypes[];

/* Precision of the element data an operator stores (lma's element matrices); vectors, integration and sums stay in
   PetscScalar */
typedef enum {
  FEG_PRECISION_DOUBLE,
  FEG_PRECISION_SINGLE
} FEGPrecision;
PETSC_EXTERN const char *const FEGPrecisions[];

PETSC_EXTERN PetscFunctionList FEGOpList;
PETSC_EXTERN PetscErrorCode    FEGOpRegister(const char[], PetscErrorCode (*)(FEGOp));
PETSC_EXTERN PetscErrorCode    FEGOpRegisterDevice(const char[], PetscErrorCode (*)(FEGOp));
PETSC_EXTERN PetscErrorCode    FEGOpCreate(MPI_Comm, FEGOp *);
PETSC_EXTERN PetscErrorCode    FEGOpSetType(FEGOp, FEGOpType);
PETSC_EXTERN PetscErrorCode    FEGOpGetType(FEGOp, FEGOpType *);
PETSC_EXTERN PetscErrorCode    FEGOpSetDM(FEGOp, DM);
PETSC_EXTERN PetscErrorCode    FEGOpGetDM(FEGOp, DM *);
PETSC_EXTERN PetscErrorCode    FEGOpSetForm(FEGOp, FEGForm);
PETSC_EXTERN PetscErrorCode    FEGOpGetForm(FEGOp, FEGForm *);
PETSC_EXTERN PetscErrorCode    FEGOpSetPmatType(FEGOp, FEGPmatType);
PETSC_EXTERN PetscErrorCode    FEGOpGetPmatType(FEGOp, FEGPmatType *);
PETSC_EXTERN PetscErrorCode    FEGOpSetPrecision(FEGOp, FEGPrecision);
PETSC_EXTERN PetscErrorCode    FEGOpGetPrecision(FEGOp, FEGPrecision *);
PETSC_EXTERN PetscErrorCode    FEGOpSetOptionsPrefix(FEGOp, const char[]);
PETSC_EXTERN PetscErrorCode    FEGOpSetFromOptions(FEGOp);
PETSC_EXTERN PetscErrorCode    FEGOpSetUp(FEGOp);
PETSC_EXTERN PetscErrorCode    FEGOpCreateMat(FEGOp, Mat *);
PETSC_EXTERN PetscErrorCode    FEGOpView(FEGOp, PetscViewer);
PETSC_EXTERN PetscErrorCode    FEGOpGetApplyBytes(FEGOp, PetscLogDouble *);
PETSC_EXTERN PetscErrorCode    FEGOpViewFromOptions(FEGOp, PetscObject, const char[]);
PETSC_EXTERN PetscErrorCode    FEGOpDestroy(FEGOp *);

/* The operator as a Mat */
PETSC_EXTERN PetscErrorCode FEGCreateOperator(DM, FEGForm, Mat *);
PETSC_EXTERN PetscErrorCode FEGOperatorAssemble(Mat, FEGForm);
PETSC_EXTERN PetscErrorCode FEGOperatorGetOp(Mat, FEGOp *);
PETSC_EXTERN PetscErrorCode FEGOperatorGetType(Mat, FEGOpType *);
PETSC_EXTERN PetscErrorCode FEGOperatorGetPmat(Mat, Mat *);
PETSC_EXTERN PetscErrorCode FEGComputeRHS(DM, FEGForm, Vec);
PETSC_EXTERN PetscErrorCode FEGDMSetForm(DM, FEGForm);
PETSC_EXTERN PetscErrorCode FEGDMGetForm(DM, FEGForm *);

/* Benchmark support: this GPU's STREAM triad (GB/s), FP64 FMA rate (GFLOP/s) and scattered atomicAdd rate (G/s) */
PETSC_EXTERN PetscErrorCode FEGDeviceRoofline(PetscReal *, PetscReal *, PetscReal *);
