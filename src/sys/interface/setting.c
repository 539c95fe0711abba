/* A setting kept on a PETSc object (a DM's p-multigrid choices): the value a setter stored, else the option of that
   name with the object's prefix, else the caller's default */
#include <fegpu/private/fegsysimpl.h>

/* stores v on obj under *id (registered on first use) */
PetscErrorCode FEGObjectSetSetting_Private(PetscObject obj, PetscInt *id, PetscEnum v)
{
  PetscFunctionBegin;
  if (*id < 0) PetscCall(PetscObjectComposedDataRegister(id));
  PetscCall(PetscObjectComposedDataSetInt(obj, *id, (PetscInt)v + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *v: what FEGObjectSetSetting_Private() stored under id, else option (with obj's prefix; NULL: none) of the values
   list, else left as the caller set it */
PetscErrorCode FEGObjectGetSetting_Private(PetscObject obj, PetscInt id, const char option[], const char *const list[], PetscEnum *v)
{
  PetscInt  s   = 0;
  PetscBool set = PETSC_FALSE;

  PetscFunctionBegin;
  if (id >= 0) PetscCall(PetscObjectComposedDataGetInt(obj, id, s, set));
  if (set && s > 0) *v = (PetscEnum)(s - 1);
  else if (option) {
    const char *prefix;

    PetscCall(PetscObjectGetOptionsPrefix(obj, &prefix));
    PetscCall(PetscOptionsGetEnum(obj->options, prefix, option, list, v, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
