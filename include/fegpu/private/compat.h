/* The one place where fegpu handles differences between the PETSc versions it supports (3.18 to 3.22) and reaches into
   PETSc's private structures (through the functions below, defined in src/sys/interface/compat.c, the only source that
   includes PETSc's private headers for their structures). Why fegpu does each:
   - PetscSection arrays: the bulk reads of a mesh's dof map touch every point of the chart, and sections of millions of
     points are built on the setup threads; a call per point (PetscSectionGetDof(), PetscSectionSetDof()) costs more
     than the work (share/doc/performance.md, the PETSc-routine table);
   - DM methods: fegpu's local section by cell type (prisms need it, FEGDMSetUpSection()), its global vector (the Plex
     view and load methods are PETSc's private functions) and DMCreateMatrix() of a DM with a form (FEGDMSetForm()):
     DMPlex has no public setters for them;
   - PetscFE: tensor elements tabulated from their 1D factors (FEGCreateFE());
   - PetscPartitioner: fegpu's METIS partitioner is a PETSc partitioner type.
   Private layouts change without notice, so outside the versions they were checked against the build stops here. */
#pragma once

#include <petscversion.h>
#include <petscdm.h>
#include <petscfe.h>
#include <petscpartitioner.h>
#include <petscsf.h>

#if PETSC_VERSION_LT(3, 18, 0) || PETSC_VERSION_GE(3, 23, 0)
  #error "fegpu reaches into PETSc's PetscSection, DM, PetscFE and PetscPartitioner structures as PETSc 3.18 to 3.22 lay them out (src/sys/interface/compat.c): check them against this PETSc's include/petsc/private/ headers, then widen the range here"
#endif

/* PetscSFGetRootRanks() and PetscSFGetLeafRanks() return their count of processes as a PetscInt in PETSc 3.18 and as a
   PetscMPIInt in 3.22 (one type unless PETSc has 64-bit indices). These take a PetscMPIInt and pass PETSc the type its
   prototype has, chosen at compile time from the prototype itself; the variable not passed stays 0 */
#define FEG_SF_COUNT(f, t, m, i) _Generic(&f, t: (m), default: (i))

static inline PetscErrorCode FEGSFGetRootRanks(PetscSF sf, PetscMPIInt *n, const PetscMPIInt **ranks, const PetscInt **off, const PetscInt **mine, const PetscInt **remote)
{
  PetscMPIInt nm = 0;
  PetscInt    ni = 0;

  PetscFunctionBegin;
  PetscCall(PetscSFGetRootRanks(sf, FEG_SF_COUNT(PetscSFGetRootRanks, PetscErrorCode(*)(PetscSF, PetscMPIInt *, const PetscMPIInt **, const PetscInt **, const PetscInt **, const PetscInt **), &nm, &ni), ranks, off, mine, remote));
  if (n) PetscCall(PetscMPIIntCast(nm + ni, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode FEGSFGetLeafRanks(PetscSF sf, PetscMPIInt *n, const PetscMPIInt **ranks, const PetscInt **off, const PetscInt **loc)
{
  PetscMPIInt nm = 0;
  PetscInt    ni = 0;

  PetscFunctionBegin;
  PetscCall(PetscSFGetLeafRanks(sf, FEG_SF_COUNT(PetscSFGetLeafRanks, PetscErrorCode(*)(PetscSF, PetscMPIInt *, const PetscMPIInt **, const PetscInt **, const PetscInt **), &nm, &ni), ranks, off, loc));
  if (n) PetscCall(PetscMPIIntCast(nm + ni, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatShellSetOperation takes void (*)(void) in every supported version; one cast keeps call sites uniform */
#define FEGMatShellOp(f) ((void (*)(void))(f))

/* 3.18 spells the arrangement count and the arrangements DMPolytopeTypeGetNumArrangments, DMPolytopeTypeGetArrangment */
#if PETSC_VERSION_LT(3, 20, 0)
  #define FEGAssertPointer(p, a)               PetscValidPointer(p, a)
  #define FEGPolytopeTypeGetNumArrangements(t) DMPolytopeTypeGetNumArrangments(t)
  #define FEGPolytopeTypeGetArrangement(t, o)  DMPolytopeTypeGetArrangment(t, o)
#else
  #define FEGAssertPointer(p, a)               PetscAssertPointer(p, a)
  #define FEGPolytopeTypeGetNumArrangements(t) DMPolytopeTypeGetNumArrangements(t)
  #define FEGPolytopeTypeGetArrangement(t, o)  DMPolytopeTypeGetArrangement(t, o)
#endif

/* later versions than 3.18 say whether to project the current coordinates into the new coordinate space (3.18 always
   does; checked against 3.18 and 3.22) */
#if PETSC_VERSION_LT(3, 19, 0)
  #define FEGPlexCreateCoordinateSpace(dm, degree) DMPlexCreateCoordinateSpace(dm, degree, NULL)
#else
  #define FEGPlexCreateCoordinateSpace(dm, degree) DMPlexCreateCoordinateSpace(dm, degree, PETSC_TRUE, NULL)
#endif

/* a new coordinate space, the current coordinates projected into it: DMProjectCoordinates() became
   DMSetCoordinateDisc(..., PETSC_TRUE) (checked against 3.18 and 3.22) */
#if PETSC_VERSION_LT(3, 19, 0)
  #define FEGSetCoordinateDisc(dm, fe) DMProjectCoordinates(dm, fe)
#else
  #define FEGSetCoordinateDisc(dm, fe) DMSetCoordinateDisc(dm, fe, PETSC_TRUE)
#endif

/* A set-up PetscSection's arrays, read directly; PETSc's getters index them by point - pStart, whatever the section's
   permutation */
typedef struct {
  PetscInt        pStart, pEnd;
  const PetscInt *dof, *off;      /* dof[p - pStart], off[p - pStart] */
  PetscInt        bcStart, bcEnd; /* the constraint section's chart (empty without constraints) */
  const PetscInt *cdof, *coff;    /* constrained dofs of p and where their local indices start in cind */
  const PetscInt *cind;
} FEGSectionLayout;
PETSC_INTERN PetscErrorCode FEGSectionGetLayout(PetscSection, FEGSectionLayout *);
/* the point's and the field's dof arrays of a section of one field with its chart set, before set-up */
PETSC_INTERN PetscErrorCode FEGSectionGetDofArrays(PetscSection, PetscInt **, PetscInt **);
/* PetscSectionSetUp() of such a section (no permutation: the field's offsets are the point's), with its constraint
   sections, on nt threads */
PETSC_INTERN PetscErrorCode FEGSectionSetUpOneField(PetscSection, PetscInt);
/* the global section DMGetGlobalSection() would make of the DM's local section and point SF, on one process or several
   (nothing where PETSc's must come later: periodic DMs, several fields); collective */
PETSC_INTERN PetscErrorCode FEGDMSetGlobalSectionFromLocal(DM);
PETSC_INTERN PetscErrorCode FEGDMHasGlobalSection(DM, PetscBool *);
/* DMCreateGlobalVector() of a DMPlex: PETSc's vector, its block size found on the setup threads, and on several
   processes CUDA vectors without an eager host copy; collective */
PETSC_INTERN PetscErrorCode FEGPlexCreateGlobalVector(DM, Vec *);
/* DMPlexGetCellType()'s cache (PETSc 3.22) filled from the cell-type label's strata */
PETSC_INTERN PetscErrorCode FEGPlexSetCellTypeCache(DM, DMLabel);

/* the DM methods of sections that FEGDMSetUpSection() replaces */
typedef struct {
  PetscErrorCode (*createlocalsection)(DM);
  PetscErrorCode (*createglobalvector)(DM, Vec *);
  PetscErrorCode (*clone)(DM, DM *);
} FEGDMSectionOps;
PETSC_INTERN PetscErrorCode FEGDMGetSectionOps(DM, FEGDMSectionOps *);
PETSC_INTERN PetscErrorCode FEGDMSetSectionOps(DM, const FEGDMSectionOps *);
PETSC_INTERN PetscErrorCode FEGDMSetCreateMatrix(DM, PetscErrorCode (*)(DM, Mat *));
/* a polynomial hierarchy's DM methods: DMCoarsen() and DMCreateInterpolation() fegpu's; no injection, restriction
   or coarsening hierarchy of DMPlex's (they would coarsen the mesh) */
PETSC_INTERN PetscErrorCode FEGDMSetHierarchyOps(DM, PetscErrorCode (*)(DM, MPI_Comm, DM *), PetscErrorCode (*)(DM, DM, Mat *, Vec *));

typedef PetscErrorCode (*FEGFECreateTabulationFn)(PetscFE, PetscInt, const PetscReal *, PetscInt, PetscTabulation);
PETSC_INTERN PetscErrorCode FEGFEGetCreateTabulation(PetscFE, FEGFECreateTabulationFn *);
PETSC_INTERN PetscErrorCode FEGFESetCreateTabulation(PetscFE, FEGFECreateTabulationFn);

/* a PetscPartitioner type's implementation: its data and methods. 3.21 added the edge weights' section to partition:
   its declaration writes FEG_PARTITIONER_EDGE_SECTION(name) before the target section */
#if PETSC_VERSION_LT(3, 21, 0)
  #define FEG_PARTITIONER_EDGE_SECTION(name)
#else
  #define FEG_PARTITIONER_EDGE_SECTION(name) PetscSection name,
#endif
typedef struct {
  PetscErrorCode (*view)(PetscPartitioner, PetscViewer);
  PetscErrorCode (*destroy)(PetscPartitioner);
  PetscErrorCode (*partition)(PetscPartitioner, PetscInt, PetscInt, PetscInt[], PetscInt[], PetscSection, FEG_PARTITIONER_EDGE_SECTION(e) PetscSection, PetscSection, IS *);
} FEGPartitionerOps;
PETSC_INTERN PetscErrorCode FEGPartitionerSetImplementation(PetscPartitioner, void *, const FEGPartitionerOps *);
PETSC_INTERN PetscErrorCode FEGPartitionerGetData(PetscPartitioner, void **);
PETSC_INTERN PetscErrorCode FEGPartitionerQuality(PetscPartitioner, PetscBool, PetscInt *, PetscReal *);
PETSC_INTERN PetscErrorCode FEGPartitionerUsesVertexWeights(PetscPartitioner, PetscBool *);
