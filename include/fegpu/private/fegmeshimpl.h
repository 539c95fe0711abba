/* fegpu's private mesh layer (src/mesh): the table of cell types, box meshes, mesh files, distribution, refinement,
   cell orderings, and the closures of sections on a DMPlex read in bulk */
#pragma once

#include <fegpu/private/fegsysimpl.h>

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
  const char    *name;                                                 /* value of -feg_mesh_cell_type */
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
PETSC_INTERN PetscErrorCode    FEGPlexCreateFromCellList_Private(MPI_Comm, const FEGCellInfo *, PetscInt, PetscInt, const PetscInt[], const PetscReal[], const char[], const unsigned char[], DM *);
PETSC_EXTERN PetscErrorCode    FEGPlexLabelComplete(DM, DMLabel);
PETSC_INTERN PetscErrorCode    FEGMeshDistribute_Private(DM *, const char[]);
PETSC_INTERN PetscErrorCode    FEGPlexSetPartsSF(DM, PetscInt, PetscInt[], PetscSFNode[]);
PETSC_INTERN PetscErrorCode    FEGMeshRefineFromOptions_Private(DM *, PetscBool, PetscInt *);
PETSC_INTERN PetscErrorCode    FEGMeshRefineFromOptionsEnd_Private(DM, PetscInt);
PETSC_INTERN PetscErrorCode    PetscPartitionerCreate_FEGMetis(PetscPartitioner);
/* cell orderings of FEGMeshReorder(): perm[i] = the cell (counted from the first) that goes to position i */
PETSC_INTERN PetscErrorCode FEGMeshOrderCells_Metis(DM, PetscInt, PetscInt[]);
PETSC_INTERN PetscErrorCode FEGMeshOrderCells_SFC(DM, PetscInt, PetscInt[]);
PETSC_INTERN PetscErrorCode FEGMeshCellOrder(DM, FEGReorderType, PetscInt *, PetscInt[]);

/* ------------------------------------------------------------------------------------------------------ closures */
/* one section's closure of every cell, read in FEGPlexGetClosureBulk()'s pass over the cones */
typedef struct {
  DM                 dm;   /* a DM with the topology read: the mesh, its coordinate DM, an auxiliary DM */
  PetscSection       sec;  /* a local section on it */
  PetscInt           n;    /* closure indices per cell */
  PetscInt          *idx;  /* the indices, idx[(c - cStart) n + i]; or NULL, and then */
  const PetscScalar *vals; /* x[(c - cStart) n + i] = Re vals[index] (a local vector's array) */
  PetscReal         *x;
} FEGClosureTarget;

PETSC_EXTERN PetscErrorCode FEGPlexGetClosureBulk(DM, PetscInt, PetscInt, PetscInt, const FEGClosureTarget[], PetscInt, PetscInt *);
PETSC_EXTERN PetscErrorCode FEGPlexGetClosureIndicesBulk(DM, PetscSection, PetscInt, PetscInt, PetscInt, PetscInt[], PetscInt *);
