/* The operator class: its ops table and the small private API operator types are written against. A type (fegpu's
   addto, lma and matfree, or an application's, registered with FEGOpRegister()) fills op->ops in its create function
   and keeps its data in op->data. When the DM's vectors live on the GPU, FEGOpSetUp() first calls the function
   registered for the type with FEGOpRegisterDevice(), which installs the device ops table; after that no function
   asks where it runs. */
#pragma once

#include <fegpu/private/fegformimpl.h>

PETSC_INTERN PetscFunctionList FEGOpDeviceList;
PETSC_INTERN PetscBool         FEGOpRegisterAllCalled;
PETSC_INTERN PetscErrorCode    FEGOpRegisterAll(void);
PETSC_INTERN PetscErrorCode    FEGOpRegisterDevice_Private(void);
/* the right-hand side on the GPU: the CUDA backend's, set by FEGOpRegisterDevice_Private() in a CUDA build, else NULL */
PETSC_INTERN PetscErrorCode (*FEGComputeRHSDevice)(FEGDisc *, FEGForm, Vec);

typedef struct _FEGOpOps *FEGOpOps;
struct _FEGOpOps {
  PetscErrorCode (*setfromoptions)(FEGOp, PetscOptionItems *);
  PetscErrorCode (*setup)(FEGOp);                      /* after op->disc is built */
  PetscErrorCode (*creatematrix)(FEGOp, Mat);          /* give the Mat its type and pattern (assembled types); without
                                                                  it the operator is a MATSHELL calling apply and friends */
  PetscErrorCode (*assemble)(FEGOp, Mat);              /* compute from the form; assembled types fill the Mat */
  PetscErrorCode (*apply)(FEGOp, Vec, Vec, PetscBool); /* y = A x, or y += A x */
  PetscErrorCode (*applytranspose)(FEGOp, Vec, Vec, PetscBool);
  PetscErrorCode (*getdiagonal)(FEGOp, Vec);
  PetscErrorCode (*assemblevalues)(FEGOp, Mat *);        /* an AIJ matrix of what the type stores (-feg_op_pmat lma):
                                                                  created on the first call, refilled on later ones */
  PetscErrorCode (*applybytes)(FEGOp, PetscLogDouble *); /* bytes of stored data (element data, indices) one apply
                                                                  reads at least (FEGOpGetApplyBytes()) */
  PetscErrorCode (*view)(FEGOp, PetscViewer);
  PetscErrorCode (*destroy)(FEGOp);
  PetscErrorCode (*choosetype)(FEGOp, PetscBool, char[], size_t); /* a type that picks another at setup (auto): its
                                                                     name, from whether the DM is on the device */
};

struct _p_FEGOp {
  PETSCHEADER(struct _FEGOpOps);
  DM               dm;
  FEGForm          form;
  FEGDisc         *disc;              /* the DM's shared discretization (FEGDMGetDisc()), taken by FEGOpSetUp() */
  PetscContainer   disccontainer;     /* the reference held on it */
  PetscLogDouble   tpattern, tdevice; /* seconds of setup spent on the matrix pattern and on device data */
  PetscBool        setupcalled;
  PetscBool        hasmat;              /* FEGOpCreateMat() was called: an assembled type fills one matrix */
  const char      *backend;             /* "host" or "GPU", set by whoever installs the ops table */
  FEGPmatType      pmattype;            /* -feg_op_pmat */
  Mat              pmat;                /* assembled preconditioning matrix of a shell operator, made on demand */
  PetscInt         nassembled;          /* assemblies so far */
  PetscInt         pmatassembled;       /* the assembly pmat was built from */
  PetscObjectState formState, auxState; /* what the last assembly saw */
  PetscLogDouble   bytes;               /* host memory the type holds */
  const char      *stores;              /* what that memory is, for FEGOpView() */
  Vec              xl, yl;              /* local work vectors of element-local operators */
  PetscBool        overlap;             /* -feg_op_halo_overlap (GPU element-local types) */
  FEGHaloExchange  haloexchange;        /* -feg_op_halo_exchange: who moves the ghost values of the overlapped apply */
  FEGPrecision     precision;           /* -feg_op_precision */
  PetscBool        single;              /* set by the type's create function: it can store its data in single */
  char            *autoinfo;            /* why -feg_op_type auto chose the type, for FEGOpView() */
  void            *data;
};

/* assembled preconditioning matrix kept up to date with the operator */
PETSC_INTERN PetscErrorCode FEGOpGetPmat_Private(FEGOp, Mat *);
PETSC_INTERN PetscErrorCode FEGOpSetFromOptions_Private(FEGOp, PetscBool);
PETSC_INTERN PetscErrorCode FEGOpIsStale_Private(FEGOp, FEGForm, PetscBool *);
PETSC_INTERN PetscErrorCode FEGOpAssembleMat_Private(FEGOp, Mat);
PETSC_INTERN PetscErrorCode FEGCreateOperator_Private(DM, FEGForm, const char[], FEGOpType, FEGPrecision, Mat *);
PETSC_INTERN PetscErrorCode FEGCreateFormOperator_Private(DM, FEGForm, FEGPrecision, Mat *);

/* ------------------------------------------------------------------------- Chebyshev inverse (chebyshev.c) */
/* k steps of Chebyshev iteration with Jacobi for A x = b from x = 0 on an AIJ matrix of one process, each step one pass
   over the CSR rows (Saad, Iterative Methods, Alg. 12.1, with D^{-1} as the preconditioner) */
typedef struct {
  Mat              A;    /* the AIJ matrix */
  Vec              dinv; /* 1 / diag(A), of A's state dstate */
  PetscObjectState dstate;
  PetscReal        theta;    /* centre of the eigenvalue interval of D^{-1} A: d_0 = D^{-1} b / theta */
  PetscInt         its;      /* steps */
  PetscInt         nnz;      /* the matrix's entries (its pattern is fixed) */
  PetscReal       *c1, *c2;  /* d_{k+1} = c1[k] d_k + c2[k] D^{-1} r_{k+1}, k = 0 .. its-2 */
  PetscScalar     *r, *d[2]; /* host work: residual, two directions */
  PetscLogDouble   flops;    /* of one product */
  void            *dev;      /* device work (chebycuda.c) */
  PetscErrorCode (*devdestroy)(void **);
} FEGCheby;
PETSC_INTERN PetscErrorCode (*FEGChebyApplyDevice)(FEGCheby *, Vec, Vec);

/* ------------------------------------------------------------------------------ polynomial hierarchy (interp.c) */
/* Prolongation from a coarse order to a fine one on the same mesh, and its transpose, element by element: each fine
   node of a cell takes the coarse function's value there (Pe[a*Nbc+b], coarse basis function b at fine node a); the
   transpose weights each fine dof by 1/(cells sharing it) so that every (fine, coarse) pair counts once. Indices are
   the global vectors' on one process and the local vectors' on several; -1 marks a constrained dof. */
typedef struct {
  DM             dmf, dmc;
  FEGDisc       *df, *dc;
  PetscContainer cf, cc;
  PetscInt       Ne, Nbf, Nbc;
  PetscReal     *Pe;          /* Pe[a*Nbc+b], Nbf x Nbc */
  PetscBool      local;       /* several processes: through DMGlobalToLocal()/DMLocalToGlobal() */
  PetscInt       nf, nc;      /* entries of the arrays fidx and cidx index */
  PetscInt      *fidx, *cidx; /* fidx[e*Nbf+a], cidx[e*Nbc+b] */
  PetscReal     *w;           /* w[i], i < nf: 1/multiplicity, 0 where constrained */
  PetscScalar   *work;        /* one element's values (host) */
  Vec            fl, cl;      /* local work vectors (several processes) */
  PetscBool      ondevice;    /* CUDA vectors: the device implementation applies */
  PetscLogDouble flops;       /* per product */
  void          *dev;
  PetscErrorCode (*devdestroy)(void **);
} FEGInterp;
/* the device implementation (CUDA build, set by FEGOpRegisterDevice_Private(), else NULL): y = P x (fine from coarse)
   or, transpose, y = P^T x, on the arrays fidx/cidx index (CUDA Vecs) */
PETSC_INTERN PetscErrorCode (*FEGInterpApplyDevice)(FEGInterp *, Vec, Vec, PetscBool);

/* ---------------------------------------------------------------------------- private API for operator types */
/* Element matrices, vectors (right-hand sides) and the lift of boundary values of one cell on the host */
PETSC_EXTERN PetscErrorCode FEGIntegrateElementMatrix(FEGDisc *, FEGCoeff *, PetscInt, PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGIntegrateElementVector(FEGDisc *, FEGCoeff *, PetscInt, PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGIntegrateElementLift(FEGDisc *, FEGCoeff *, PetscInt, const PetscScalar[], PetscScalar[]);

/* Element-local operators on the host: y (+)= A x or A^T x by gathering each element's values, applying the element
   operator, scattering-adding and summing across processes (DMLocalToGlobal) */
typedef PetscErrorCode (*FEGElemApplyFn)(FEGOp, PetscInt, const PetscScalar[], PetscScalar[], PetscBool);
typedef PetscErrorCode (*FEGElemDiagFn)(FEGOp, PetscInt, PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGOpApplyElementLocal(FEGOp, FEGElemApplyFn, Vec, Vec, PetscBool, PetscBool);
PETSC_EXTERN PetscErrorCode FEGOpDiagonalElementLocal(FEGOp, FEGElemDiagFn, Vec);
PETSC_EXTERN PetscErrorCode FEGOpGetLocalVectors(FEGOp, Vec *, Vec *);

/* Every element matrix of the op's form, Ke[(e*Nb+a)*Nb+b] (row a: test function), on the host */
PETSC_EXTERN PetscErrorCode FEGOpElementMatrices(FEGOp, PetscScalar[]);
/* the same, rounded to single precision element by element (-feg_op_precision single) */
PETSC_EXTERN PetscErrorCode FEGOpElementMatricesSingle(FEGOp, float[]);
PETSC_INTERN PetscErrorCode FEGOpElementJacobiBounds(FEGOp, PetscReal *, PetscReal *);

/* AIJ matrices of the DM's element pattern: preallocated from the closures (MatSetValues/DMPlexMatSetClosure), or
   for MatSetValuesCOO() of every element entry, element by element (Ke[(e*Nb+a)*Nb+b]) or element-interleaved
   (Ke[(a*Nb+b)*Ne+e]); constrained dofs get negative indices, which the COO assembly drops */
PETSC_EXTERN PetscErrorCode FEGOpPreallocate(FEGOp, Mat);
PETSC_EXTERN PetscErrorCode FEGOpPreallocateCOO(FEGOp, PetscBool, Mat);
PETSC_EXTERN PetscErrorCode FEGOpGetMatType(FEGOp, MatType, MatType *);

/* GPU integration kernel and its tuning (Krużel et al.: entries per thread, parts, Jacobian data in shared memory) */
typedef struct {
  FEGIntegrationKernel kernel;
  PetscInt             blockSize, nentpt, qchunk;
  PetscBool            jacShared;
} FEGTuning;
PETSC_INTERN PetscErrorCode FEGTuningSetFromOptions(PetscOptionItems *, MPI_Comm, FEGTuning *);
PETSC_INTERN PetscErrorCode FEGTuningCheck(MPI_Comm, PetscInt, PetscInt, PetscInt);
/* composes FEGOpSetIntegrationKernel() and friends on a type whose data (op->data) starts with its FEGTuning, or
   removes them */
PETSC_INTERN PetscErrorCode FEGTuningCompose(FEGOp, PetscBool);
PETSC_INTERN PetscErrorCode FEGScatterSetFromOptions(PetscOptionItems *, FEGScatter *);
