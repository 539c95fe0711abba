/* The discretization on the device (src/space/impls/cuda): reference tables, coordinates, dof indices and geometry,
   with the launchers of the geometry kernels. C-compatible, raw device pointers only; the host side that reads an
   FEGDisc is in fegspaceimpl.h. */
#pragma once

#include <fegpu/private/fegdevice.h>
#include <fegpu/private/fegpoint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* Reference tables and geometry of one discretization on the device */
typedef struct {
  int             dim, Nb, Nq, Ne, nG; /* nG: geometry points per element, 1 for affine cells, Nq otherwise */
  int             Nv;                  /* coordinate nodes per cell */
  int             cStart;              /* the first cell of the DM, for messages */
  const PetscInt *ecell;               /* the host discretization's element order (FEGDiscCell()), for messages; borrowed */
  double         *B, *D, *qw;          /* B[q*Nb+b], D[(q*Nb+b)*dim+d] reference basis and gradients, qw[q] */
  double         *G;                   /* G[(q*Nv+v)*dim+d] reference gradients of the coordinate basis */
  double         *R;                   /* R[(q*(dim+1)+r) + a*Nq*(dim+1)]: reference value (r=0) and gradients, column-major for GEMM */
  double         *M;                   /* the reference element tensors M^rs_ab = sum_q w_q R_r(b) R_s(a), split (FEGSplitPairs()):
                                  M[(k*Nb+a)*Nb+b] the symmetric S^k (k < (dim+1)(dim+2)/2) then the antisymmetric A^k, then
                                  the right-hand sides' row sums, M[(dim+1)^2 Nb^2 + t*Nb+a] = sum_b M^0t_ab */
  double         *P;                   /* P[(q*Nd*Nd+r*Nd+s) + (a*Nb+b)*Nq*Nd*Nd] = R_qr(b) R_qs(a), Nd = dim+1 (large elements, when it fits) */
  double         *X;                   /* X[(e*Nv+v)*dim+d] coordinates of the coordinate nodes */
  double         *geo;                 /* geo[(e*nG+g)*(dim*dim+1)+k]: invJ (row-major d xi_r / d x_c) then det J */
  int            *idx;                 /* idx[b*Ne+e] local dof of basis function b of element e (element-interleaved) */
  int            *gidx;                /* the tables' only: idx in global indices on one process, made by the first operator
                                  that indexes the global vectors (FEGDevOpTableGlobalIndices()) */
  size_t          bytes;
  void           *tables;  /* NULL in the discretization's tables (an FEGDevDisc), which every operator and right-hand side on
                      it shares (FEGDevDiscCreate()); in such a copy, those tables, to which B, D, qw, R, M, G, X, idx
                      belong, and whose geo it uses while it holds one of their georefs; P is the copy's own */
  int             georefs; /* the tables' only: the copies using their geo (FEGDevDiscGeometry()) */
  int             keepgeo; /* the tables' only: geo stays when no copy uses it (affine cells, used by integration) */
} FEGDevDisc;

PETSC_INTERN PetscErrorCode FEGDevGeometry(FEGDevDisc *, int *, int *);
PETSC_INTERN PetscErrorCode FEGDevMapPoints(int, int, int, int, const double *, const double *, double *);

#if defined(__cplusplus)
}
#endif

#if defined(__CUDACC__)
/* the geometry (invJ, then det J) of point q of element e */
static __device__ __forceinline__ const double *FEGDevGeo(const FEGDevDisc &d, int e, int q)
{
  return d.geo + ((size_t)e * d.nG + (d.nG == 1 ? 0 : q)) * (d.dim * d.dim + 1);
}
#endif
