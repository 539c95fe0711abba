/* matfree: no element or global matrix; only what the action needs beyond the reference element */
#pragma once

#include <fegpu/private/fegopimpl.h>

/* the kernels built on the reference operators and per-element factors (affine simplices, C constant per cell) */
static inline PetscBool FEGMatFreeIsRefOp(FEGMatFreeKernel k)
{
  return (PetscBool)(k == FEG_MATFREE_REFOP || k == FEG_MATFREE_GEMM || k == FEG_MATFREE_MMA);
}

/* What the implementation in use (host or GPU) can run; the kernel choice reads it instead of asking where it runs */
typedef struct {
  PetscBool   gemm;           /* the batched-GEMM and tensor-core forms of refop exist */
  PetscInt    mmaFromNb;      /* auto takes mma on tetrahedra from this many dofs per element (0: never); gemm only by name */
  PetscInt    sfPmin, sfPmax; /* sum factorisation: 1D nodes compiled */
  PetscBool   sfQP1;          /* and only P or P+1 Gauss points per direction */
  const char *sfWhy;          /* what it can run, for the message when a space falls outside */
  PetscBool   geoAuto;        /* auto computes sumfact's geometry in the kernel on non-affine cells (else stores it) */
} FEGMatFreeCaps;

typedef struct {
  /* options */
  FEGMatFreeKernel request;    /* -feg_op_matfree_kernel */
  PetscInt         ne, nb, nr; /* GPU refop: elements per thread, element groups per block, rows per thread; mma: element
                                  tiles per warp, warp columns per block, row tiles per warp (0: tuned) */
  PetscInt         gemmMB;     /* GPU gemm: MB of work space per element chunk */
  PetscBool        factored;   /* refop (host, GPU per thread) and mma: diffusion kinds' gradient operators factored (-feg_op_matfree_factored) */
  PetscBool        nodal;      /* GPU per-thread refop on P2 simplices: factored through P1 nodal values with the tables compiled in (-feg_op_matfree_nodal) */
  FEGScatter       scatter;    /* -feg_op_scatter (GPU) */
  /* the kernel for the current form */
  FEGMatFreeKernel kernel;
  int              kind;                              /* FEGMFKind: which Chat entries are stored */
  PetscInt         npairs, pr[16], ps[16], tperm[16]; /* stored pairs; tperm[m]: the pair (ps[m], pr[m]) */
  /* the space's tensor structure, found once */
  PetscBool   structureFound, tensor;
  const char *tensorWhy;
  /* refop */
  int          opKind; /* pair set Op was built for, -1 none */
  PetscReal   *Op;     /* npairs reference operators, Op[(m*Nb+b)*Nb+a] (a test, b trial) */
  PetscScalar *G;      /* host: per-element factors G[e*npairs+m] = (detJ T^T C T)_(pr,ps) */
  PetscInt     frank;  /* diffusion kinds: rank of the factored gradient operators, M^rs = C_r^T C_s (0: not factored) */
  PetscReal   *Cf;     /* Cf[(s*frank+i)*Nb+b]: C_(s+1) */
  PetscScalar *fwork;  /* host: u and z of the factored apply, 2 dim frank */
  /* sumfact */
  PetscInt     P, Q;       /* 1D nodes and 1D quadrature points */
  PetscBool    gll;        /* the rule is Gauss-Lobatto-Legendre (else Gauss) */
  PetscBool    colloc;     /* the rule's points are the nodes: B1 is the identity */
  PetscReal   *B1, *D1;    /* Q x P 1D basis values and derivatives at the quadrature points */
  PetscReal   *Bt, *Dt;    /* their P x Q transposes */
  PetscReal   *Gq;         /* Q x Q derivatives at the quadrature points of the Lagrange functions of those points */
  PetscReal   *W1;         /* the Q 1D weights */
  PetscInt    *lex, *qlex; /* basis function / quadrature point at each lexicographic index */
  PetscScalar *work;       /* host element workspace, 10 max(P,Q)^dim */
  PetscScalar *Cl;         /* host: Cl[(e*npairs+m)*Nq+l] at lexicographic quadrature point l */
  /* sumfact's geometry computed in the kernel (FEGMatFreeGeometrySetUp()): the coordinate nodes the tensor product of G
     1D nodes, lexg[g] the node at lexicographic position g, gB and gD (Q x G) their 1D basis at the rule's points; C
     the form's constant coefficient, iso its mass-and-Laplacian shape (FEGMFPairsFromJacobian()) */
  FEGMatFreeGeometry georequest, geometry; /* -feg_op_matfree_geometry; in use: stored or computed */
  PetscBool          geoFound;             /* the coordinates' tensor structure looked for */
  PetscInt           geoG;
  int                lexg[27]; /* int: what the point functions and the kernels take */
  const char        *geoWhy;   /* why computed geometry cannot be used (NULL: it can) */
  PetscReal         *gB, *gD;
  PetscReal          Cc[16];
  PetscBool          iso;
  PetscScalar       *cwork; /* host: one element's pairs, npairs x Nq */
  /* qp */
  PetscScalar   *Cq; /* host: Ne*Nq (dim+1)x(dim+1) tensors w detJ T^T C T */
  FEGElemApplyFn elemApply;
  FEGElemDiagFn  elemDiag;
  void          *dev; /* the GPU's data (matfreecuda.c) */
} FEGOp_MatFree;

PETSC_INTERN PetscErrorCode FEGMatFreeSelect(FEGOp, const FEGMatFreeCaps *);
PETSC_INTERN PetscErrorCode FEGMatFreeElementPairs(FEGOp, PetscInt, PetscScalar[]);
PETSC_INTERN PetscErrorCode FEGMatFreeNodalP2(FEGOp, PetscBool *, PetscInt[]);
PETSC_INTERN PetscErrorCode FEGOpView_MatFree(FEGOp, PetscViewer);
PETSC_INTERN PetscErrorCode FEGOpDestroy_MatFree(FEGOp);
