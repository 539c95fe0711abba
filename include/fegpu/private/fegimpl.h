/* fegpu internals: the package, the table of cell types, forms, the discretization every operator type reads, and
   host coefficient evaluation and element integration. Functions marked PETSC_EXTERN are the private API an operator
   type (fegpu's own or an application's, see fegopimpl.h) may use. */
#pragma once

#include <fegpu.h>
#include <petsc/private/petscimpl.h>
#include <fegpu/private/compat.h>
#include <fegpu/private/fegpoint.h>

PETSC_INTERN PetscBool     FEGPackageInitialized;
PETSC_INTERN PetscLogEvent FEG_Setup, FEG_Integrate, FEG_Assemble, FEG_Apply, FEG_RHS;
PETSC_INTERN PetscLogEvent FEG_SetupDofMap, FEG_SetupGeometry, FEG_SetupPattern, FEG_SetupDevice, FEG_RHSBoundary;
PETSC_INTERN PetscLogEvent FEG_BoxMesh, FEG_PlexFaces, FEG_PlexTopology, FEG_PlexRefine;

/* A setup phase: its log event (-log_view) and its wall time added to *acc (-feg_view) */
static inline PetscErrorCode FEGPhaseBegin(PetscLogEvent ev, PetscObject o, PetscLogDouble *t0)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(ev, o, 0, 0, 0));
  PetscCall(PetscTime(t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode FEGPhaseEnd(PetscLogEvent ev, PetscObject o, PetscLogDouble t0, PetscLogDouble *acc)
{
  PetscLogDouble t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t1));
  *acc += t1 - t0;
  PetscCall(PetscLogEventEnd(ev, o, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------- cell types */
/* A cell's faces as PETSc's interpolation makes them (DMPlexGetRawFaces_Internal()): local vertex numbers, in order */
typedef struct {
  PetscInt nfaces;
  PetscInt size[6]; /* 2: segment, 3: triangle, 4: quadrilateral */
  PetscInt vert[24];
} FEGCellFaces;

/* Everything fegpu needs to know about a cell type; every "which cell?" question reads this table (cell.c) */
typedef struct {
  DMPolytopeType ct;
  const char    *name;                                                 /* value of -feg_cell_type */
  const char    *plural;                                               /* for messages */
  PetscInt       dim;                                                  /* topological dimension */
  PetscInt       nverts;                                               /* vertices, the nodes of straight (P1/Q1) coordinates */
  PetscBool      simplex;                                              /* with straight edges the reference map is affine: one Jacobian per cell */
  PetscBool      tensor;                                               /* a tensor product of segments: sum factorisation applies */
  PetscBool      mixedFaces;                                           /* faces of two types: continuous spaces of order >= 2 need FEGDMSetUpSection() */
  PetscErrorCode (*quadrature)(PetscInt, PetscInt, PetscQuadrature *); /* fegpu's rule for elements of order p */
  PetscInt boxCells;                                                   /* cells of the box mesh in each square or cube */
  void (*boxSplit)(const PetscInt corner[8], PetscInt cells[]);        /* those cells' vertices; corner[i + 2j + 4k] */
  DMPolytopeType listedAs;                                             /* what PETSc's cell-list reader takes a cell of nverts vertices for */
  FEGCellFaces   faces;                                                /* FEGPlexCreateFromCellList() interpolates with these */
  PetscInt       refineChildren;                                       /* cells of its uniform refinement (FEGMeshRefine()) */
  unsigned char  refine[8][8];                                         /* refine[j][i]: vertex i of child j, as the set of the cell's vertices (bit k: its k-th vertex in closure order) of
                                  the vertex, edge, quadrilateral or hexahedron whose centre it is; children and vertex orders as DMRefine() */
} FEGCellInfo;

PETSC_INTERN const FEGCellInfo FEGCellInfos[];
PETSC_INTERN const PetscInt    FEGNumCellInfos;
PETSC_INTERN const char *const FEGCellNames[]; /* the names, then "FEGCellType", "FEG_CELL_", NULL: an enum table */
PETSC_EXTERN PetscErrorCode    FEGCellInfoGet(MPI_Comm, DMPolytopeType, const FEGCellInfo **);
PETSC_INTERN void              FEGBoxSplitTriangle(const PetscInt[], PetscInt[]);
PETSC_INTERN void              FEGBoxSplitQuadrilateral(const PetscInt[], PetscInt[]);
PETSC_INTERN void              FEGBoxSplitTetrahedron(const PetscInt[], PetscInt[]);
PETSC_INTERN void              FEGBoxSplitHexahedron(const PetscInt[], PetscInt[]);
PETSC_INTERN void              FEGBoxSplitPrism(const PetscInt[], PetscInt[]);
PETSC_INTERN PetscErrorCode    FEGMeshReadFile_Private(MPI_Comm, const char[], DM *);
PETSC_EXTERN PetscErrorCode    FEGPlexCreateFromCellList(MPI_Comm, const FEGCellInfo *, PetscInt, PetscInt, const PetscInt[], const PetscReal[], const char[], DM *);
PETSC_EXTERN PetscErrorCode    FEGPlexLabelComplete(DM, DMLabel);
PETSC_INTERN PetscErrorCode    FEGMeshDistribute_Private(DM *, const char[], PetscBool);
PETSC_INTERN PetscErrorCode    FEGMeshRefineFromOptions_Private(DM *, PetscInt *);
PETSC_INTERN PetscErrorCode    FEGMeshRefineFromOptionsEnd_Private(DM, PetscInt);
PETSC_INTERN PetscErrorCode    PetscPartitionerCreate_FEGMetis(PetscPartitioner);
PETSC_INTERN PetscErrorCode    FEGDMSetUpGlobalSection(DM);
PETSC_INTERN PetscErrorCode    FEGDMSectionsCoincide(DM, PetscBool *);
/* cell orderings of FEGMeshReorder(): perm[i] = the cell (counted from the first) that goes to position i */
PETSC_INTERN PetscErrorCode FEGMeshOrderCells_Metis(DM, PetscInt, PetscInt[]);
PETSC_INTERN PetscErrorCode FEGMeshOrderCells_SFC(DM, PetscInt, PetscInt[]);

/* the papers the strategies follow (src/sys/interface/cite.c), listed by -citations */
typedef enum {
  FEG_CITE_MARKALL, /* Addto with atomics or colouring, the Local Matrix Approach */
  FEG_CITE_MACIOL,  /* one element per thread block GPU integration */
  FEG_CITE_KRUZEL,  /* high-order integration kernels, NENTPT and parts */
  FEG_CITE_MODAVE,  /* reference operators and batched GEMM for the matrix-free action */
  FEG_NUM_CITATIONS
} FEGCitation;
PETSC_INTERN PetscErrorCode FEGCitationsRegister(FEGCitation);

/* ---------------------------------------------------------------------------------------------------------- forms */
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
  Vec            Wq;      /* values at the quadrature points (FEGFormSetQuadratureCoefficient()), or NULL */
  PetscInt       Nqc;     /* values per point */
  PetscScalar   *Aq, *Bq; /* C_ij += Aq[(i*4+j)*Nqc+k] Wq_k, D_j += Bq[j*Nqc+k] Wq_k */
};

/* C and D the same everywhere: no pointwise function, no auxiliary-field map, no quadrature-point values (what the
   device's coefficient setup, FEGDevCoeffPrepare(), calls FEG_DEV_COEFF_CONSTANT) */
static inline PetscBool FEGFormConstantC(FEGForm form)
{
  return (PetscBool)(!form->pointwise && !(form->auxdm && form->A) && !form->Wq);
}

PETSC_INTERN PetscErrorCode FEGCheckFinite(MPI_Comm, const char[], const PetscScalar[], PetscInt, PetscInt, const char[]);
PETSC_INTERN PetscErrorCode FEGFormCheckCompatible(FEGForm, DM);
PETSC_EXTERN PetscErrorCode FEGFormCellwiseConstant(FEGForm, PetscBool *);
PETSC_EXTERN PetscErrorCode FEGFormBlockPattern(FEGForm, PetscBool *, PetscBool *, PetscBool *, PetscBool *);

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
  PetscReal         *X;               /* X[(e*Nv+v)*dim+d] coordinates of each cell's coordinate nodes */
  PetscBool          affine;          /* the Jacobian is constant in every cell */
  PetscInt           nG;              /* geometry points per cell: 1 (affine) or Nq */
  PetscReal         *geo;             /* geo[(e*nG+g)*(dim*dim+1)+k]: invJ (row-major d xi_r / d x_c), then det J; FEGDiscSetUpGeometry() */
  PetscReal         *xq;              /* xq[(e*Nq+q)*dim+d] quadrature points in real space; FEGDiscSetUpGeometry() */
  PetscInt          *lidx;            /* lidx[e*Nb+b] local dof of basis function b of cell e (constrained dofs included) */
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
} FEGDisc;

/* one section's closure of every cell, read in FEGPlexGetClosureBulk()'s pass over the cones */
typedef struct {
  DM                 dm;   /* a DM with the topology read: the mesh, its coordinate DM, an auxiliary DM */
  PetscSection       sec;  /* a local section on it */
  PetscInt           n;    /* closure indices per cell */
  PetscInt          *idx;  /* the indices, idx[(c - cStart) n + i]; or NULL, and then */
  const PetscScalar *vals; /* x[(c - cStart) n + i] = Re vals[index] (a local vector's array) */
  PetscReal         *x;
} FEGClosureTarget;

PETSC_EXTERN PetscErrorCode FEGSetupThreads(MPI_Comm, PetscInt *);
/* the threads of a setup loop over n items: all nthreads from 64k items on, else one (fewer items are not worth waking
   the threads for, and the tests' small meshes then keep the serial paths) */
static inline int FEGLoopThreads(PetscInt64 n, PetscInt nthreads)
{
  return (int)(n >= 65536 ? PetscMax(1, nthreads) : 1);
}
/* the first of n items in block b of nt equal blocks (block b is [FEGBlockStart(n, b, nt), FEGBlockStart(n, b + 1, nt))),
   in 64-bit arithmetic: n * b overflows 32 bits past 134M items on 16 threads */
static inline PetscInt FEGBlockStart(PetscInt n, PetscInt b, PetscInt nt)
{
  return (PetscInt)((PetscInt64)n * b / nt);
}
/* the threads of a loop over the discretization's cells: one per 64k element dofs, so small meshes (and the tests under
   valgrind) take few. Waking all sixteen of the H100 host's threads for 2 ms of work made one process in two 2-3x
   slower to set up (24k P3 tetrahedra: 0.012-0.016 or 0.031-0.041 s; eight threads 0.012-0.018 s in all 14;
   share/bench/auto/setupnoise2.sh) */
static inline int FEGDiscThreads(const FEGDisc *disc)
{
  return (int)PetscMax(1, PetscMin((PetscInt64)disc->nthreads, (PetscInt64)disc->Ne * disc->Nb / 65536));
}
PETSC_EXTERN PetscErrorCode FEGPlexGetClosureBulk(DM, PetscInt, PetscInt, PetscInt, const FEGClosureTarget[], PetscInt, PetscInt *);
PETSC_EXTERN PetscErrorCode FEGPlexGetClosureIndicesBulk(DM, PetscSection, PetscInt, PetscInt, PetscInt, PetscInt[], PetscInt *);
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
PETSC_INTERN PetscErrorCode FEGFormCheckQuadrature(FEGForm, const FEGDisc *);

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

/* ----------------------------------------------------------------------------------- host coefficients, elements */
/* Scratch and state for evaluating a form on one discretization */
typedef struct {
  FEGForm            form;
  PetscBool          constant; /* C and D identical at every quadrature point */
  Vec                auxloc;
  PetscTabulation    Taux; /* auxiliary basis at the main quadrature points */
  PetscInt           NbAux;
  PetscScalar       *C, *D; /* Nq x 16 and Nq x 4 for the current cell */
  PetscScalar       *w, *gradw;
  const PetscScalar *Wq; /* the form's quadrature-point values, read on the host, or NULL */
} FEGCoeff;

PETSC_EXTERN PetscErrorCode FEGCoeffSetUp(FEGDisc *, FEGForm, FEGCoeff *);
PETSC_EXTERN PetscErrorCode FEGCoeffEvaluate(FEGDisc *, FEGCoeff *, PetscInt);
PETSC_EXTERN PetscErrorCode FEGCoeffDestroy(FEGCoeff *);
PETSC_EXTERN PetscErrorCode FEGIntegrateElementMatrix(FEGDisc *, FEGCoeff *, PetscInt, PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGIntegrateElementVector(FEGDisc *, FEGCoeff *, PetscInt, PetscScalar[], PetscScalar[]);
PETSC_EXTERN PetscErrorCode FEGIntegrateElementLift(FEGDisc *, FEGCoeff *, PetscInt, const PetscScalar[], PetscScalar[]);

/* ------------------------------------------------------------------------------------------------------ devices */
/* fegpu runs on the GPU when the DM's vectors are CUDA vectors */
PETSC_EXTERN PetscErrorCode FEGDMIsOnDevice(DM, PetscBool *);

/* What the CUDA backend provides outside the operator types; filled by the registration when fegpu is built with CUDA
   (opreg.c), empty otherwise */
typedef struct {
  PetscBool available;
  PetscErrorCode (*computerhs)(FEGDisc *, FEGForm, Vec); /* caches its device data in FEGDisc.rhsdev */
  PetscErrorCode (*roofline)(double *, double *, double *);
  PetscErrorCode (*select)(void);                /* the GPU PETSc chose for this process, before fegpu's first device allocation */
  PetscErrorCode (*meminfo)(size_t *, size_t *); /* free and total bytes of this process's GPU */
  PetscErrorCode (*qpoints)(FEGDisc *, Vec);     /* the quadrature points of every cell into a CUDA Vec */
} FEGDeviceBackend;
PETSC_INTERN FEGDeviceBackend FEGDevice;
PETSC_INTERN PetscErrorCode   FEGDeviceBackendRegister(void);
