/* The one place where differences between supported PETSc versions (>= 3.18) are handled; fegpu.h includes it so
   user code may use PETSC_SUCCESS with PETSc 3.18 too */
#pragma once

#include <petscversion.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif

/* MatShellSetOperation takes void (*)(void) in every supported version; one cast keeps call sites uniform */
#define FEGMatShellOp(f) ((void (*)(void))(f))

#if PETSC_VERSION_LT(3, 20, 0)
  #define FEGAssertPointer(p, a) PetscValidPointer(p, a)
#else
  #define FEGAssertPointer(p, a) PetscAssertPointer(p, a)
#endif
