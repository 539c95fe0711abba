/* matfree's device structures and launchers (matfree.cu: qp and the factors, refop.cu: refop and gemm, sumfact.cu) */
#pragma once

#include <fegpu/private/fegcuda.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* refop/gemm: reference operators and per-element factors */
typedef struct {
  int           Ne, Nb, nops, ne, nb, nr; /* elements, dofs per element, operators, elements per thread, groups per block, rows per thread */
  int           e0, e1;                   /* the elements one refop launch applies (set by FEGDevRefOpApply) */
  int           ldo;                      /* leading dimension of the operators (Nb rounded up to even, for vector loads) */
  int           contig, unique;           /* element e's dofs are e*Nb..e*Nb+Nb-1 / no dof is shared by two elements */
  int           tperm[16];                /* operator whose factor a transposed apply uses */
  const double *Op;                       /* Op[(m*Nb+k)*ldo+n] */
  const double *G;                        /* G[e*nops+m] */
  const int    *idx;                      /* idx[b*Ne+e] */
  /* mma: operators padded to Mp x Kp (8 and 4), fragment-major Af[((m*Mp/8+rt)*Kp/4+kt)*32+lane]; per warp mt x nt
     8 x 8 tiles, wr x wc warps per block */
  int           Mp, Kp, mt, nt, wr, wc;
  const double *Af;
  /* mma factored (fk > 0): U = A1 X with A1 = [C_1; ...; C_dim] padded to Mp1 x Kp, mixed by the factors into Z in
     place, then Y = A2 [Z; g_0 X] with A2 = [C_1^T ... C_dim^T M] padded to Mp x K2p (Af2); Kb rows staged per element */
  int           Mp1, K2p, Kb;
  const double *Af2;
  /* refop with one thread per element (small Nb): the operators from the host copy into the kernel's parameters */
  int           thread;
  const double *Oph; /* host: Oph[(m*Nb+k)*Nb+n] = Op_m[n][k] */
  /* and for diffusion kinds the gradient operators factored, M^rs = C_r^T C_s, rank fk (0: not factored) */
  int           dim, fk;
  const double *Cfh; /* host: Cfh[(s*fk+i)*Nb+b] = C_(s+1)[i][b] */
  /* or, on P2 simplices, factored through P1 nodal values with nodal.h's tables compiled in; nperm[c]: the basis
     function of canonical node c */
  int nodal, nperm[10];
  /* gemm: A = [Op_1; ...; Op_nops] (leading dimension lda), and work space for Ec elements' X and Z */
  const double *A;
  int           lda, Ec;
  double       *work;
} FEGDevRefOp;

/* qp: the discretization and the tensors Cq[(q*Nd*Nd+r*Nd+s)*Ne+e] at every quadrature point */
typedef struct {
  const FEGDevDisc *d;
  const double     *Cq;
} FEGDevQP;

/* sumfact: 1D tables, lexicographic dofs, the stored pairs at the lexicographic Gauss points */
typedef struct {
  int           dim, Ne, P, Q, npairs, kind, colloc, unique; /* colloc: B1 = I */
  int           neb, nthreads, shmem;                        /* elements, threads and bytes of shared memory per block */
  int           e0, e1;                                      /* the elements one launch applies (set by FEGDevSumFactApply) */
  const double *B1, *D1;                                     /* Q x P */
  const double *Gq;                                          /* Q x Q: derivatives at the points of their Lagrange functions */
  const double *W1;                                          /* the Q 1D weights */
  const double *hB1, *hGq, *hW1;                             /* host copies of B1, Gq and W1 (the hexahedral kernels' parameter) */
  const double *Cl;                                          /* Cl[(e*npairs+m)*Q^dim+l], or NULL with Kc */
  const double *Kc;                                          /* Kc[e*npairs+m]: pairs per element (affine hexahedra, C constant in each), the value at point l its weight times Kc */
  const int    *idx;                                         /* idx[l*Ne+e] (2D) or idx[e*P^3+l] (3D), l lexicographic */
  const int    *lex;                                         /* basis function of lexicographic node l */
  /* with global indices on several processes, an index g < -1 is entry -2-g of the halo's ghost buffers: values xg
     (received), sums yg (to send); set per launch by FEGDevSumFactApply(), NULL for ranges that reach no ghost */
  const double *xg;
  double       *yg;
  /* computed geometry (geoG > 0): the pairs at each point from the Jacobian there, made from the element's coordinate
     nodes X[(e*Nv+v)*dim+d] (the discretization's), lexg[g] the node at lexicographic position g of the G^dim, gB and
     gD (Q x G) their 1D basis at the points, C the constant coefficient (iso: FEGMFPairsFromJacobian()); h*: host
     copies for the hexahedral kernels' parameter */
  int           geoG, Nv, iso;
  const double *X, *gB, *gD;
  const int    *lexg;
  const double *hgB, *hgD;
  const int    *hlexg;
  double        C[16];
} FEGDevSumFact;

/* the launch's action or diagonal (L->diag) by each kernel */
PETSC_INTERN PetscErrorCode FEGDevQPApply(const FEGDevQP *, const FEGDevLaunch *);
PETSC_INTERN PetscErrorCode FEGDevChatPairs(const FEGDevDisc *, const FEGDevCoeff *, int, int, const int *, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevRefOpApply(const FEGDevRefOp *, const FEGDevLaunch *);
PETSC_INTERN PetscErrorCode FEGDevRefOpMmaApply(const FEGDevRefOp *, const FEGDevLaunch *);
PETSC_INTERN size_t         FEGDevRefOpMmaShared(const FEGDevRefOp *);
PETSC_INTERN int            FEGDevRefOpThreadCompiled(int);
PETSC_INTERN int            FEGDevRefOpFactoredCompiled(int, int, int);
PETSC_INTERN PetscErrorCode FEGDevGemmApply(const FEGDevRefOp *, const FEGDevLaunch *);
PETSC_INTERN PetscErrorCode FEGDevSumFactApply(const FEGDevSumFact *, const FEGDevLaunch *);
PETSC_INTERN PetscErrorCode FEGDevSumFactConfigure(FEGDevSumFact *, int);
PETSC_INTERN PetscErrorCode FEGDevSumFactPerElement(int, int, int, int, const double *, const double *, double *, PetscBool *);

#if defined(__cplusplus)
}
#endif
