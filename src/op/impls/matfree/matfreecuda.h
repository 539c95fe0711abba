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
} FEGDevRefOp;

/* sumfact: 1D tables, lexicographic dofs, the stored pairs at the lexicographic Gauss points */
typedef struct {
  int           dim, Ne, P, Q, npairs, kind, colloc, neb, nthreads, unique; /* colloc: B1 = I */
  int           e0, e1;                                                     /* the elements one launch applies (set by FEGDevSumFactApply) */
  const double *B1, *D1;                                                    /* Q x P */
  const double *Cl;                                                         /* Cl[(e*npairs+m)*Q^dim+l] */
  const int    *idx;                                                        /* idx[l*Ne+e], l lexicographic */
  const int    *lex;                                                        /* basis function of lexicographic node l */
} FEGDevSumFact;

PETSC_INTERN PetscErrorCode FEGDevQPApply(const FEGDevDisc *, int, int, const double *, const double *, double *, int, int, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevChatPairs(const FEGDevDisc *, const FEGDevCoeff *, int, int, const int *, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevRefOpApply(const FEGDevRefOp *, int, int, const double *, double *, int, int, int, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevGemmApply(const FEGDevRefOp *, int, int, const double *, int, double *, int, const double *, double *, int, int, int, const int *, const int *, double *);
PETSC_INTERN PetscErrorCode FEGDevSumFactApply(const FEGDevSumFact *, int, int, const double *, double *, int, int, int, const int *, const int *, double *);
PETSC_INTERN size_t         FEGDevSumFactShared(const FEGDevSumFact *);

#if defined(__cplusplus)
}
#endif
