/* fegpu internals shared by the interface and the implementations */
#pragma once

#include <fegpu.h>
#include <petsc/private/petscimpl.h>
#include <fegpu/compat.h>
#include <fegpu/private/fegmf.h>

PETSC_INTERN PetscBool     FEGPackageInitialized;
PETSC_INTERN PetscLogEvent FEG_Setup, FEG_Integrate, FEG_Assemble, FEG_Apply, FEG_RHS;

struct _FEGFormOps {
  PetscErrorCode (*view)(FEGForm, PetscViewer);
};

struct _p_FEGForm {
  PETSCHEADER(struct _FEGFormOps);
  PetscScalar    C0[FEG_MAX_DERIV * FEG_MAX_DERIV]; /* constant part, C0[i*4+j], i trial and j test derivative */
  PetscScalar    D0[FEG_MAX_DERIV];
  DM             auxdm; /* auxiliary field w: any scalar or vector PetscFE on a DM sharing the operator's mesh */
  Vec            aux;   /* global Vec of auxdm */
  PetscInt       Nw;    /* components of w, 0 without an auxiliary field */
  PetscInt       Nlin;  /* components the linear map was given for; must equal Nw at use */
  PetscScalar   *A, *B; /* C_ij += A[(i*4+j)*Nw+k] w_k, D_j += B[j*Nw+k] w_k */
  FEGPointwiseFn pointwise;
  void          *pwctx;
  FEGStrategy    strategy;
};

/* What every strategy needs of the discretization: cells, dofs, reference tables, geometry at quadrature points */
typedef struct {
  DM              dm; /* borrowed: the operator holds the reference */
  PetscInt        dim, cStart, cEnd, Ne;
  DMPolytopeType  ct;
  PetscFE         fe;
  PetscInt        order;
  PetscBool       continuous;
  PetscInt        Nb, Nq;
  const PetscReal *qpoints, *qweights;
  PetscTabulation T;    /* basis values and reference gradients at the quadrature points (owned by fe) */
  IS              cellIS;
  PetscFEGeom    *geom; /* J, invJ, detJ per cell and quadrature point (one point per cell where affine) */
  PetscReal      *xq;   /* Ne*Nq*dim quadrature points in real space */
  PetscInt       *lidx; /* Ne*Nb local dof offsets of each cell, in basis order (constrained dofs included) */
  PetscInt        nlocal, nglobal; /* local Vec size, owned global size */
  PetscLogDouble  bytes;
} FEGDisc;

/* Scratch and state for evaluating a form on one discretization */
typedef struct {
  FEGForm         form;
  PetscBool       constant; /* C and D identical at every quadrature point */
  Vec             auxloc;
  PetscTabulation Taux; /* auxiliary basis at the main quadrature points */
  PetscInt        NbAux;
  PetscScalar    *C, *D; /* Nq x 16 and Nq x 4 for the current cell */
  PetscScalar    *w, *gradw;
} FEGCoeff;

typedef enum {
  FEG_ADDTO_AUTO,
  FEG_ADDTO_ATOMIC,
  FEG_ADDTO_COLOR,
  FEG_ADDTO_COO
} FEGAddtoMode;
PETSC_INTERN const char *const FEGAddtoModes[];

typedef enum {
  FEG_LMA_SCATTER_ATOMIC,
  FEG_LMA_SCATTER_GATHER
} FEGLMAScatter;
PETSC_INTERN const char *const FEGLMAScatters[];

/* Device tuning, mirrored into FEGDevTuning by the CUDA backend */
typedef struct {
  PetscInt  kernel, blockSize, nentpt, qchunk;
  PetscBool jacShared;
} FEGTuning;
PETSC_INTERN const char *const FEGCudaKernels[];

/* matfree kernels: quadrature-point tensors for any cell (qp), reference operators with per-element factors on
   affine simplices (refop, and its batched-GEMM form on the GPU), sum factorisation on quadrilaterals and hexahedra */
typedef enum {
  FEG_MF_AUTO,
  FEG_MF_QP,
  FEG_MF_REFOP,
  FEG_MF_GEMM,
  FEG_MF_SUMFACT
} FEGMatFreeKernel;
PETSC_INTERN const char *const FEGMatFreeKernels[];

typedef struct {
  FEGMatFreeKernel kernel; /* in use */
  int              kind;   /* FEGMFKind: which Chat entries are stored */
  PetscInt         npairs, pr[16], ps[16], tperm[16]; /* stored pairs; tperm[m]: the pair (ps[m], pr[m]) */
  PetscInt         ne, nb, nr;                        /* refop: elements per thread, element groups per block, rows per thread */
  PetscInt         gemmMB;                            /* gemm: MB of work space per element chunk */
  PetscBool        meshChecked, affine, tensor; /* structure of the mesh and space, found at the first assembly */
  const char      *tensorWhy;                   /* why not tensor */
  int              opKind;                      /* pair set Op was built for, -1 none */
  PetscReal       *Op;  /* refop: npairs reference operators, column-major Op[(m*Nb+b)*Nb+a] (a test, b trial) */
  PetscScalar     *G;   /* refop: per-element factors G[e*npairs+m] = (detJ T^T C T)_(pr,ps) */
  PetscInt         P, Q; /* sumfact: 1D nodes and 1D quadrature points */
  PetscReal       *B1, *D1; /* sumfact: Q x P 1D basis values and derivatives at the 1D Gauss points */
  PetscReal       *Bt, *Dt; /* sumfact: their P x Q transposes */
  PetscScalar     *work;    /* sumfact: host element workspace, 10 max(P,Q)^dim */
  PetscInt        *lex, *qlex; /* sumfact: basis function / quadrature point at each lexicographic index */
  PetscScalar     *Cl; /* sumfact: Cl[(e*npairs+m)*Nq+l] at lexicographic quadrature point l */
} FEGMatFree;

typedef struct _n_FEGOp *FEGOp;
struct _n_FEGOp {
  DM               dm;
  FEGDisc          disc;
  FEGForm          form;
  FEGStrategy      strategy;
  PetscBool        ondevice; /* the DM's vectors are CUDA vectors: everything runs on the GPU */
  FEGAddtoMode     addtoMode;
  FEGLMAScatter    lmaScatter;
  FEGTuning        tuning;
  void            *dev; /* FEGOpDevice of the CUDA backend */
  PetscObjectState formState, auxState; /* what the last assembly saw */
  PetscBool        assembled;
  PetscScalar     *Ke; /* lma: Ne element matrices, Nb x Nb row-major (row = test function) */
  FEGMatFreeKernel mfRequest; /* -feg_matfree_kernel */
  FEGMatFree       mf;
  PetscScalar     *Cq; /* matfree: Ne*Nq (dim+1)x(dim+1) tensors w detJ T^T C T seen by the reference derivatives */
  /* element-local shells (lma, matfree) on the host: y_e (+)= A_e x_e or A_e^T x_e, and diag(A_e) */
  PetscErrorCode (*elemApply)(FEGOp, PetscInt, const PetscScalar[], PetscScalar[], PetscBool);
  PetscErrorCode (*elemDiag)(FEGOp, PetscInt, PetscScalar[]);
  Vec              xl, yl;
};

PETSC_INTERN PetscErrorCode FEGDiscCreate(DM, FEGDisc *);
PETSC_INTERN PetscErrorCode FEGDiscDestroy(FEGDisc *);
PETSC_INTERN PetscErrorCode FEGCoeffSetUp(FEGDisc *, FEGForm, FEGCoeff *);
PETSC_INTERN PetscErrorCode FEGCoeffEvaluate(FEGDisc *, FEGCoeff *, PetscInt);
PETSC_INTERN PetscErrorCode FEGCoeffDestroy(FEGCoeff *);
PETSC_INTERN PetscErrorCode FEGFormCheckCompatible(FEGForm, DM);
PETSC_INTERN PetscErrorCode FEGIntegrateElementMatrix(FEGDisc *, FEGCoeff *, PetscInt, PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode FEGIntegrateElementVector(FEGDisc *, FEGCoeff *, PetscInt, PetscScalar[], PetscScalar[]);

PETSC_INTERN PetscErrorCode FEGOpGet(Mat, FEGOp *);
PETSC_INTERN PetscErrorCode FEGDMIsOnDevice(DM, PetscBool *);
#if defined(FEGPU_HAVE_CUDA)
PETSC_INTERN PetscErrorCode FEGOpDevSetUp(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpDevDestroy(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpDevView(FEGOp, PetscViewer);
PETSC_INTERN PetscErrorCode FEGOpDevCreateMat_AddTo(FEGOp, Mat);
PETSC_INTERN PetscErrorCode FEGOpDevAssemble_AddTo(FEGOp, Mat);
PETSC_INTERN PetscErrorCode FEGOpDevAssemble_Shell(FEGOp);
PETSC_INTERN PetscErrorCode FEGOpDevApply_Shell(FEGOp, Vec, Vec, PetscBool, PetscBool);
PETSC_INTERN PetscErrorCode FEGOpDevDiagonal_Shell(FEGOp, Vec);
PETSC_INTERN PetscErrorCode FEGComputeRHS_Device(FEGDisc *, FEGForm, Vec);
#endif
PETSC_INTERN PetscErrorCode FEGOpView(FEGOp, PetscViewer);
PETSC_INTERN PetscErrorCode FEGOpCreateMat_AddTo(FEGOp, Mat *);
PETSC_INTERN PetscErrorCode FEGOpAssemble_AddTo(FEGOp, Mat);
PETSC_INTERN PetscErrorCode FEGOpCreateShell(FEGOp, Mat *);
PETSC_INTERN PetscErrorCode FEGShellAssembled(FEGOp, Mat);
PETSC_INTERN PetscErrorCode FEGOpCreateMat_LMA(FEGOp, Mat *);
PETSC_INTERN PetscErrorCode FEGOpAssemble_LMA(FEGOp, Mat);
PETSC_INTERN PetscErrorCode FEGOpCreateMat_MatFree(FEGOp, Mat *);
PETSC_INTERN PetscErrorCode FEGOpAssemble_MatFree(FEGOp, Mat);
PETSC_INTERN PetscErrorCode FEGMatFreeDestroy(FEGMatFree *);
PETSC_INTERN PetscErrorCode FEGMatFreeView(FEGOp, PetscInt, PetscViewer);
PETSC_INTERN PetscErrorCode FEGFormCellwiseConstant(FEGForm, PetscBool *);
PETSC_INTERN PetscErrorCode FEGFormBlockPattern(FEGForm, PetscBool *, PetscBool *, PetscBool *, PetscBool *);
