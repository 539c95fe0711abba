/* fegpu: finite element operators for PETSc DMPlex, assembled (addto), element-local (lma) or matrix-free, on the host
   or the GPU */
#pragma once

#include <petscdmplex.h>
#include <petscksp.h>
#include <fegpuconf.h>

#define FEGPU_VERSION_MAJOR 0
#define FEGPU_VERSION_MINOR 3

#if PETSC_VERSION_LT(3, 19, 0) && !defined(PETSC_SUCCESS)
  /* PETSc 3.19 named the success code; with 3.18 fegpu's users may write it too */
  #define PETSC_SUCCESS 0
#endif

/* The package */
PETSC_EXTERN PetscClassId   FEG_FORM_CLASSID;
PETSC_EXTERN PetscClassId   FEG_OP_CLASSID;
PETSC_EXTERN PetscErrorCode FEGInitializePackage(void);
PETSC_EXTERN PetscErrorCode FEGFinalizePackage(void);
PETSC_EXTERN PetscErrorCode FEGSetSetupThreads(PetscInt);
/* The process's GPU made ready for PETSc and fegpu, without a context on another GPU */
PETSC_EXTERN PetscErrorCode FEGDeviceInitialize(void);

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
PETSC_EXTERN PetscErrorCode    FEGMeshKershaw(DM, PetscReal);
PETSC_EXTERN PetscErrorCode    FEGMeshSetCoordinateOrder(DM, PetscInt);
/* Cell ordering inside each process, for locality of the gathers and scatters (-feg_mesh_reorder) */
typedef enum {
  FEG_REORDER_NONE,  /* the mesh's own order (a Gmsh file's, or the box builder's) */
  FEG_REORDER_METIS, /* cells grouped by METIS k-way parts of the local dual graph */
  FEG_REORDER_SFC    /* cells along a Hilbert curve through their centroids */
} FEGReorderType;
PETSC_EXTERN const char *const FEGReorderTypes[];
PETSC_EXTERN PetscErrorCode    FEGMeshReorder(DM, FEGReorderType, DM *);
PETSC_EXTERN PetscErrorCode    FEGMeshSetReorderPartSize(DM, PetscInt);
PETSC_EXTERN PetscErrorCode    FEGMeshGetReorderPartSize(DM, PetscInt *);
PETSC_EXTERN PetscErrorCode    FEGMeshRefine(DM, DM *);
PETSC_EXTERN PetscErrorCode    FEGSetUpDiscretization(DM, PetscInt, PetscBool, const char[]);
PETSC_EXTERN PetscErrorCode    FEGDMSetUpSection(DM);
PETSC_EXTERN PetscErrorCode    FEGDMAddBoundary(DM, DMBoundaryConditionType, const char[], DMLabel, PetscInt, const PetscInt[], PetscInt, PetscInt, const PetscInt[], void (*)(void), void (*)(void), void *, PetscInt *);
PETSC_EXTERN PetscErrorCode    FEGDMCreateQuadratureVec(DM, PetscInt, Vec *);
PETSC_EXTERN PetscErrorCode    FEGDMCreateQuadratureCoordinates(DM, Vec *);
/* The orders of a polynomial hierarchy (DMCoarsen() of a fegpu DM: the same mesh at a lower order, -feg_coarsen_order) */
typedef enum {
  FEG_COARSEN_HALVE,    /* p -> p/2 (rounded down), down to 1 */
  FEG_COARSEN_DECREMENT /* p -> p - 1, down to 1 */
} FEGCoarsenOrder;
PETSC_EXTERN const char *const FEGCoarsenOrders[];
PETSC_EXTERN PetscErrorCode    FEGDMSetCoarsenOrder(DM, FEGCoarsenOrder);
PETSC_EXTERN PetscErrorCode    FEGDMGetCoarsenOrder(DM, FEGCoarsenOrder *);
PETSC_EXTERN PetscErrorCode    FEGDMSetElementOrder(DM, FEGReorderType);
PETSC_EXTERN PetscErrorCode    FEGDMGetElementOrder(DM, FEGReorderType *);
PETSC_EXTERN PetscErrorCode    FEGDMGetOrderHierarchy(DM, PetscInt *, PetscInt[]);
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

/* How the GPU apply of element-local types (lma, matfree) adds element results into a vector: atomics, or a
   deterministic gather through a dof-to-entries map (FEGOpSetScatter(), FEGFormSetRHSScatter()) */
typedef enum {
  FEG_SCATTER_ATOMIC,
  FEG_SCATTER_GATHER
} FEGScatter;
PETSC_EXTERN const char *const FEGScatters[];

/* Who moves the ghost values and sums of the overlapped GPU apply on several processes (FEGOpSetHaloExchange()) */
typedef enum {
  FEG_HALO_AUTO,   /* ipc where every neighbour allows it, else pinned */
  FEG_HALO_IPC,    /* fegpu, device to device (CUDA IPC, processes of one node) */
  FEG_HALO_PINNED, /* fegpu, through pinned host buffers and MPI point-to-point messages */
  FEG_HALO_PETSCSF /* PetscSF */
} FEGHaloExchange;
PETSC_EXTERN const char *const FEGHaloExchanges[];

/* The GPU element-integration kernel of the types that compute element matrices (addto, lma;
   FEGOpSetIntegrationKernel()) */
typedef enum {
  FEG_INTEGRATION_AUTO,
  FEG_INTEGRATION_THREAD, /* one element per thread */
  FEG_INTEGRATION_BLOCK,  /* one element per thread block (Kruzel et al.) */
  FEG_INTEGRATION_GEMM,   /* DGEMM over reference tables */
  FEG_INTEGRATION_ENTRIES /* one element entry per thread from reference tensors (affine cells, constant C) */
} FEGIntegrationKernel;
PETSC_EXTERN const char *const FEGIntegrationKernels[];

/* How GPU addto adds element matrices into the CSR values (FEGOpAddToSetMode()) */
typedef enum {
  FEG_ADDTO_AUTO,
  FEG_ADDTO_ATOMIC, /* atomicAdd at positions found at setup */
  FEG_ADDTO_COLOR,  /* element colours, colour after colour: deterministic */
  FEG_ADDTO_COO,    /* PETSc's MatSetValuesCOO() of device element matrices */
  FEG_ADDTO_GATHER  /* element matrices stored, each value summed from its entries in element order: deterministic */
} FEGAddToMode;
PETSC_EXTERN const char *const FEGAddToModes[];

/* The matfree kernels (FEGOpMatFreeSetKernel()): quadrature-point tensors for any cell, reference operators with
   per-element factors on affine simplices (also as batched GEMMs, and fused on the FP64 tensor cores), sum
   factorisation on quadrilaterals and hexahedra */
typedef enum {
  FEG_MATFREE_AUTO,
  FEG_MATFREE_QP,
  FEG_MATFREE_REFOP,
  FEG_MATFREE_GEMM,
  FEG_MATFREE_MMA,
  FEG_MATFREE_SUMFACT
} FEGMatFreeKernel;
PETSC_EXTERN const char *const FEGMatFreeKernels[];
/* Where sum factorisation gets the geometry at each quadrature point (FEGOpMatFreeSetGeometry()): the pairs of Chat
   stored per point (per element on affine hexahedra), or computed in the kernel from the cells' coordinate nodes */
typedef enum {
  FEG_MATFREE_GEOMETRY_AUTO,
  FEG_MATFREE_GEOMETRY_STORED,
  FEG_MATFREE_GEOMETRY_COMPUTED
} FEGMatFreeGeometry;
PETSC_EXTERN const char *const FEGMatFreeGeometries[];

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
PETSC_EXTERN PetscErrorCode    FEGOpSetHaloOverlap(FEGOp, PetscBool);
PETSC_EXTERN PetscErrorCode    FEGOpGetHaloOverlap(FEGOp, PetscBool *);
PETSC_EXTERN PetscErrorCode    FEGOpSetHaloExchange(FEGOp, FEGHaloExchange);
PETSC_EXTERN PetscErrorCode    FEGOpGetHaloExchange(FEGOp, FEGHaloExchange *);
PETSC_EXTERN PetscErrorCode    FEGOpSetOptionsPrefix(FEGOp, const char[]);
PETSC_EXTERN PetscErrorCode    FEGOpSetFromOptions(FEGOp);
PETSC_EXTERN PetscErrorCode    FEGOpSetUp(FEGOp);
PETSC_EXTERN PetscErrorCode    FEGOpCreateMat(FEGOp, Mat *);
PETSC_EXTERN PetscErrorCode    FEGOpView(FEGOp, PetscViewer);
PETSC_EXTERN PetscErrorCode    FEGOpGetApplyBytes(FEGOp, PetscLogDouble *);
PETSC_EXTERN PetscErrorCode    FEGOpViewFromOptions(FEGOp, PetscObject, const char[]);
PETSC_EXTERN PetscErrorCode    FEGOpDestroy(FEGOp *);

/* Settings of some types, composed on the operator by those types (no effect on the others, as PETSc's type-specific
   setters; the getters need the type) */
PETSC_EXTERN PetscErrorCode FEGOpSetScatter(FEGOp, FEGScatter); /* lma, matfree */
PETSC_EXTERN PetscErrorCode FEGOpGetScatter(FEGOp, FEGScatter *);
PETSC_EXTERN PetscErrorCode FEGOpSetIntegrationKernel(FEGOp, FEGIntegrationKernel); /* addto, lma */
PETSC_EXTERN PetscErrorCode FEGOpGetIntegrationKernel(FEGOp, FEGIntegrationKernel *);
PETSC_EXTERN PetscErrorCode FEGOpSetIntegrationTuning(FEGOp, PetscInt, PetscInt, PetscInt, PetscBool);
PETSC_EXTERN PetscErrorCode FEGOpGetIntegrationTuning(FEGOp, PetscInt *, PetscInt *, PetscInt *, PetscBool *);
PETSC_EXTERN PetscErrorCode FEGOpAddToSetMode(FEGOp, FEGAddToMode);
PETSC_EXTERN PetscErrorCode FEGOpAddToGetMode(FEGOp, FEGAddToMode *);
PETSC_EXTERN PetscErrorCode FEGOpLMASetSymmetric(FEGOp, PetscBool);
PETSC_EXTERN PetscErrorCode FEGOpLMAGetSymmetric(FEGOp, PetscBool *);
PETSC_EXTERN PetscErrorCode FEGOpLMASetTiles(FEGOp, PetscBool);
PETSC_EXTERN PetscErrorCode FEGOpLMAGetTiles(FEGOp, PetscBool *, PetscBool *);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeSetKernel(FEGOp, FEGMatFreeKernel);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeGetKernel(FEGOp, FEGMatFreeKernel *);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeSetGeometry(FEGOp, FEGMatFreeGeometry);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeGetGeometry(FEGOp, FEGMatFreeGeometry *);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeSetFactored(FEGOp, PetscBool);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeGetFactored(FEGOp, PetscBool *);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeSetNodal(FEGOp, PetscBool);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeGetNodal(FEGOp, PetscBool *);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeSetTiling(FEGOp, PetscInt, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeGetTiling(FEGOp, PetscInt *, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeSetGemmWorkspace(FEGOp, PetscInt);
PETSC_EXTERN PetscErrorCode FEGOpMatFreeGetGemmWorkspace(FEGOp, PetscInt *);
PETSC_EXTERN PetscErrorCode FEGOpAutoSetApplies(FEGOp, PetscInt);
PETSC_EXTERN PetscErrorCode FEGOpAutoGetApplies(FEGOp, PetscInt *);

/* The operator as a Mat */
PETSC_EXTERN PetscErrorCode FEGCreateOperator(DM, FEGForm, Mat *);
PETSC_EXTERN PetscErrorCode FEGOperatorAssemble(Mat, FEGForm);
PETSC_EXTERN PetscErrorCode FEGOperatorGetOp(Mat, FEGOp *);
PETSC_EXTERN PetscErrorCode FEGOperatorGetType(Mat, FEGOpType *);
PETSC_EXTERN PetscErrorCode FEGOperatorGetPmat(Mat, Mat *);
PETSC_EXTERN PetscErrorCode FEGComputeRHS(DM, FEGForm, Vec);
PETSC_EXTERN PetscErrorCode FEGFormSetRHSScatter(FEGForm, FEGScatter);
PETSC_EXTERN PetscErrorCode FEGFormGetRHSScatter(FEGForm, FEGScatter *);
PETSC_EXTERN PetscErrorCode FEGDMSetForm(DM, FEGForm);
PETSC_EXTERN PetscErrorCode FEGDMGetForm(DM, FEGForm *);
PETSC_EXTERN PetscErrorCode FEGDMCreateInterpolation(DM, DM, Mat *);
PETSC_EXTERN PetscErrorCode FEGCreateChebyshevInverse(Mat, PetscReal, PetscReal, PetscInt, Mat *);
PETSC_EXTERN PetscErrorCode FEGOperatorGetJacobiBounds(Mat, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode FEGDMSetMGPrecision(DM, FEGPrecision);
PETSC_EXTERN PetscErrorCode FEGDMGetMGPrecision(DM, FEGPrecision *);

/* Benchmark support: this GPU's STREAM triad (GB/s), FP64 FMA rate (GFLOP/s) and scattered atomicAdd rate (G/s) */
PETSC_EXTERN PetscErrorCode FEGDeviceRoofline(PetscReal *, PetscReal *, PetscReal *);
