/* Text of any length for views and messages: a string that grows as formatted pieces are appended */
#include <fegpu/private/fegsysimpl.h>
#include <stdarg.h>

/* Appends the formatted text to *s (NULL: an empty string), reallocating it to fit; free it with PetscFree() */
PetscErrorCode FEGStrAppendf(char **s, const char fmt[], ...)
{
  va_list ap;
  size_t  old = *s ? strlen(*s) : 0;
  int     n;

  PetscFunctionBegin;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Cannot format \"%s\"", fmt);
  PetscCall(PetscRealloc(old + (size_t)n + 1, s));
  va_start(ap, fmt);
  (void)vsnprintf(*s + old, (size_t)n + 1, fmt, ap);
  va_end(ap);
  PetscFunctionReturn(PETSC_SUCCESS);
}
