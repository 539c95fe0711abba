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
