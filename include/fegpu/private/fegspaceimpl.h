/* fegpu's private space layer (src/space): the Lagrange spaces and quadrature fegpu uses, sections, and the
   discretization (FEGDisc) every operator type reads */
#pragma once

#include <fegpu/private/fegmeshimpl.h>
#include <fegpu/private/fegpoint.h>

/* ---------------------------------------------------------------------------------------------- discretization */
/* What every operator type needs of the DM, read once: cells, dofs, reference tables, geometry. The geometry comes
   from the coordinates of each cell's coordinate nodes and the coordinate basis (straight or curved cells alike) through
   FEGGeometryAt(), the same function the device uses. */
typedef struct {
  DM                 dm; /* borrowed: the operator holds the reference */
  const FEGCellInfo *cell;
  DMPolytopeType     ct;
  PetscInt           dim, cStart, cEnd, Ne;
  PetscFE            fe;
  PetscInt           order;
  PetscBool          continuous;
  PetscInt           Nb, Nq;
  const PetscReal   *qpoints, *qweights;
  PetscTabulation    T;               /* basis values and reference gradients at the quadrature points (owned by fe) */
  PetscReal         *R;               /* R[(q*(dim+1)+r) + b*Nq*(dim+1)]: reference value (r = 0) and gradients, column-major */
  PetscInt           Nv;              /* coordinate nodes per cell: the vertices for straight cells */
  PetscReal         *Bc, *Gc;         /* coordinate basis values Bc[q*Nv+v] and reference gradients Gc[(q*Nv+v)*dim+d] */
  PetscReal         *X;               /* X[(e*Nv+v)*dim+d] coordinates of each element's coordinate nodes */
  PetscBool          affine;          /* the Jacobian is constant in every cell */
  PetscInt           nG;              /* geometry points per cell: 1 (affine) or Nq */
  PetscReal         *geo;             /* geo[(e*nG+g)*(dim*dim+1)+k]: invJ (row-major d xi_r / d x_c), then det J; FEGDiscSetUpGeometry() */
  PetscReal         *xq;              /* xq[(e*Nq+q)*dim+d] quadrature points in real space; FEGDiscSetUpGeometry() */
  PetscInt          *lidx;            /* lidx[e*Nb+b] local dof of basis function b of element e (constrained dofs included) */
  FEGReorderType     eorder;          /* the element order asked for (FEGDMGetElementOrder()) */
  PetscInt          *ecell;           /* element e is cell cStart + ecell[e]; NULL: cell cStart + e (FEGDiscCell()) */
  PetscInt           nint;            /* elements 0..nint-1 touch no ghost point (FEGMeshCellOrder() puts the others last) */
  PetscInt           nclasses;        /* orientation classes of the cells: PETSc's closure was read once per class */
  PetscInt          *gidx;            /* the same as global dofs, -1 where constrained; FEGDiscGetGlobalIndices() */
  PetscInt          *l2g;             /* global index of every local dof, -1 where constrained; FEGDiscGetLocalToGlobal() */
  PetscInt           nlocal, nglobal; /* local Vec size, owned global size */
  PetscBool          layoutset;       /* direct, unique, contig, covering computed (FEGDiscLayout(), once) */
  PetscBool          direct, unique, contig, covering;
  PetscLogDouble     bytes;
  PetscLogDouble     tdofmap, tgeometry; /* seconds spent reading the dof map and coordinates, making host geometry */
  PetscInt           nthreads;           /* threads for the host's loops over cells (FEGSetupThreads()) */
  /* what the DM had when this was read: a DM whose section, field or coordinates changed gets a new one */
  PetscSection     lsec;
  Vec              coords;
  PetscObjectState cstate;
  /* right-hand sides on the device: the backend's cached data, freed with the discretization */
  void *rhsdev;
  PetscErrorCode (*rhsdevdestroy)(void **);
  /* the device tables (reference tables, coordinates, dof map) every operator and right-hand side on this
     discretization shares: the backend's, built by the first that needs them, freed with the discretization */
  void *devdisc;
  PetscErrorCode (*devdiscdestroy)(void **);
  /* the owned and ghost dofs as the device's operators and right-hand sides move them (index pairs, the ghosts' SF):
     the backend's, made by the first that needs them, freed with the discretization */
  void *devpairs;
  PetscErrorCode (*devpairsdestroy)(void **);
} FEGDisc;

/* the DM's cell that element e is: the element order is FEGDMGetElementOrder()'s, the arrays given per cell (quadrature
   values, auxiliary closures, messages) the DM's */
static inline PetscInt FEGDiscCell(const FEGDisc *disc, PetscInt e)
{
  return disc->cStart + (disc->ecell ? disc->ecell[e] : e);
}

/* the threads of a loop over the discretization's cells: one per 64k element dofs, so small meshes (and the tests under
   valgrind) take few; waking every thread of a node for a few milliseconds of work makes setup slower and noisier */
static inline int FEGDiscThreads(const FEGDisc *disc)
{
  return (int)PetscMax(1, PetscMin((PetscInt64)disc->nthreads, (PetscInt64)disc->Ne * disc->Nb / 65536));
}

/* value, first and second derivative at x of the 1D Lagrange function of node a of nodes[0..n-1] */
static inline void FEGLagrange1D(PetscInt n, const PetscReal nodes[], PetscInt a, PetscReal x, PetscReal v[3])
{
  v[0] = 1.0;
  v[1] = v[2] = 0.0;
  for (PetscInt b = 0; b < n; b++)
    if (b != a) v[0] *= (x - nodes[b]) / (nodes[a] - nodes[b]);
  for (PetscInt c = 0; c < n; c++) {
    PetscReal t = 1.0 / (nodes[a] - nodes[c]);

    if (c == a) continue;
    for (PetscInt b = 0; b < n; b++)
      if (b != a && b != c) t *= (x - nodes[b]) / (nodes[a] - nodes[b]);
    v[1] += t;
    for (PetscInt m = 0; m < n; m++) {
      PetscReal h = 1.0 / ((nodes[a] - nodes[c]) * (nodes[a] - nodes[m]));

      if (m == a || m == c) continue;
      for (PetscInt b = 0; b < n; b++)
        if (b != a && b != c && b != m) h *= (x - nodes[b]) / (nodes[a] - nodes[b]);
      v[2] += h;
    }
  }
}
PETSC_INTERN PetscErrorCode FEGFEGetNodeType(PetscFE, FEGNodeType *, PetscBool *);
PETSC_INTERN PetscErrorCode FEGSetUpDiscretizationWithNodes(DM, PetscInt, PetscBool, FEGNodeType, const char[]);
PETSC_INTERN PetscErrorCode FEGTensorNodes(PetscDualSpace, PetscInt, PetscInt, PetscReal[], PetscInt[], PetscBool *);
PETSC_EXTERN PetscErrorCode FEGDiscCreate(DM, FEGDisc *);
PETSC_EXTERN PetscErrorCode FEGDiscDestroy(FEGDisc *);
PETSC_EXTERN PetscErrorCode FEGDiscSetUpGeometry(FEGDisc *);
PETSC_EXTERN PetscErrorCode FEGDMGetDisc(DM, FEGDisc **, PetscContainer *);
PETSC_EXTERN PetscErrorCode FEGDiscBoundaryValues(FEGDisc *, Vec, PetscBool *, PetscInt *, PetscInt **);
PETSC_EXTERN PetscErrorCode FEGDiscGetDofElements(const FEGDisc *, PetscInt **, PetscInt **);
PETSC_EXTERN PetscErrorCode FEGDiscGetGlobalIndices(FEGDisc *, const PetscInt **);
PETSC_EXTERN PetscErrorCode FEGDiscGetLocalToGlobal(FEGDisc *, const PetscInt **);
PETSC_INTERN PetscErrorCode FEGDiscRefTensor(const FEGDisc *, PetscInt, PetscInt, PetscReal[]);
PETSC_INTERN PetscErrorCode FEGDiscCoordinateTensor(FEGDisc *, PetscInt *, int[]);
PETSC_EXTERN PetscErrorCode FEGDMSetUpGlobalSection(DM);
PETSC_INTERN PetscErrorCode FEGDMSectionsCoincide(DM, PetscBool *);
/* the same mesh at the next lower order of the DM's polynomial hierarchy (coarsen.c) */
PETSC_INTERN PetscErrorCode FEGDMCoarsenOrder(DM, DM *);

/* Gram-Schmidt, twice for orthogonality to rounding: v (length n, overwritten) made orthogonal to the k orthonormal
   rows Q[j*n..] and appended as row k (k incremented) when the norm it keeps exceeds tol */
static inline void FEGOrthoAppend(PetscInt n, PetscReal Q[], PetscInt *k, PetscReal v[], PetscReal tol)
{
  PetscReal nv = 0.0;

  for (int pass = 0; pass < 2; pass++)
    for (PetscInt j = 0; j < *k; j++) {
      PetscReal t = 0.0;

      for (PetscInt i = 0; i < n; i++) t += Q[j * n + i] * v[i];
      for (PetscInt i = 0; i < n; i++) v[i] -= t * Q[j * n + i];
    }
  for (PetscInt i = 0; i < n; i++) nv += v[i] * v[i];
  nv = PetscSqrtReal(nv);
  if (nv <= tol) return;
  for (PetscInt i = 0; i < n; i++) Q[*k * n + i] = v[i] / nv;
  (*k)++;
}

/* the geometry of point q of cell e: invJ and det J */
static inline const PetscReal *FEGDiscGeometry(const FEGDisc *d, PetscInt e, PetscInt q)
{
  return d->geo + ((size_t)e * d->nG + (d->nG == 1 ? 0 : q)) * (d->dim * d->dim + 1);
}

/* the quadrature points of every cell into a CUDA Vec: the CUDA backend's, set by FEGSpaceRegisterDevice() (called by
   the package initialiser) when fegpu is built with CUDA, else NULL */
PETSC_INTERN                PetscErrorCode (*FEGDiscDeviceQuadraturePoints)(FEGDisc *, Vec);
PETSC_INTERN PetscErrorCode FEGSpaceRegisterDevice(void);

#if defined(FEGPU_HAVE_CUDA)
/* -------------------------------------------------------------------------------------------- on the device (CUDA) */
  #include <fegpu/private/fegspacecuda.h>

/* The discretization on the device: reference tables, coordinates, dof indices and the geometry kernel's output
   (integration: also the reference tensors element-matrix kernels use) */
PETSC_INTERN PetscErrorCode FEGDevDiscCreate(FEGDisc *, PetscBool, FEGDevDisc *);
PETSC_INTERN PetscErrorCode FEGDevInterleaveIndices(const FEGDisc *, const PetscInt[], const PetscInt[], PetscBool, int **, size_t *);
PETSC_INTERN PetscErrorCode FEGDevLocalToGlobalIndices(FEGDisc *, size_t, const int *, int **);
PETSC_INTERN PetscErrorCode FEGDevDiscDestroy(FEGDevDisc *);
PETSC_INTERN PetscErrorCode FEGDevDiscGeometry(FEGDevDisc *);
PETSC_INTERN PetscErrorCode FEGDevDiscFreeGeometry(FEGDevDisc *);
PETSC_INTERN PetscErrorCode FEGDevQuadraturePoints(FEGDisc *, Vec);
#endif
