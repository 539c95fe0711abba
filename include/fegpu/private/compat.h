/* The one place where differences between supported PETSc versions (>= 3.18) are handled; private to fegpu */
#pragma once

#include <petscversion.h>

/* MatShellSetOperation takes void (*)(void) in every supported version; one cast keeps call sites uniform */
#define FEGMatShellOp(f) ((void (*)(void))(f))

/* 3.18 spells the arrangement count DMPolytopeTypeGetNumArrangments */
#if PETSC_VERSION_LT(3, 20, 0)
  #define FEGAssertPointer(p, a)               PetscValidPointer(p, a)
  #define FEGPolytopeTypeGetNumArrangements(t) DMPolytopeTypeGetNumArrangments(t)
#else
  #define FEGAssertPointer(p, a)               PetscAssertPointer(p, a)
  #define FEGPolytopeTypeGetNumArrangements(t) DMPolytopeTypeGetNumArrangements(t)
#endif

/* A set-up PetscSection's arrays, read directly: the bulk reads of a mesh's dof map touch every point of the chart, and
   a call per point (PetscSectionGetDof(), PetscSectionGetOffset(), each with its checks) costs more than the read.
   The layout of struct _p_PetscSection used here (pStart, pEnd, atlasDof, atlasOff, bc, bcIndices) is the same in
   3.18 to 3.22; PETSc's getters index these arrays by point - pStart, whatever the section's permutation. */
#include <petsc/private/sectionimpl.h>

typedef struct {
  PetscInt        pStart, pEnd;
  const PetscInt *dof, *off;      /* dof[p - pStart], off[p - pStart] */
  PetscInt        bcStart, bcEnd; /* the constraint section's chart (empty without constraints) */
  const PetscInt *cdof, *coff;    /* constrained dofs of p and where their local indices start in cind */
  const PetscInt *cind;
} FEGSectionLayout;

static inline PetscErrorCode FEGSectionGetLayout(PetscSection s, FEGSectionLayout *l)
{
  PetscFunctionBegin;
  PetscCheck(s->setup, PetscObjectComm((PetscObject)s), PETSC_ERR_ARG_WRONGSTATE, "The section is not set up (PetscSectionSetUp())");
  l->pStart  = s->pStart;
  l->pEnd    = s->pEnd;
  l->dof     = s->atlasDof;
  l->off     = s->atlasOff;
  l->bcStart = l->bcEnd = 0;
  l->cdof = l->coff = l->cind = NULL;
  if (s->bc) {
    l->bcStart = s->bc->pStart;
    l->bcEnd   = s->bc->pEnd;
    l->cdof    = s->bc->atlasDof;
    l->coff    = s->bc->atlasOff;
    l->cind    = s->bcIndices;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
