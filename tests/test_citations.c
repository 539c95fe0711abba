/* Each built-in type registers the papers it follows with PETSc's citations list (-citations) when it is first used.
   A paper is registered once per process, so each run makes one type's operator first: the list must lack the type's
   papers before and hold them after, whatever the other types register.
   fegtest: nsize 1
   fegtest: args -cite_type lma | -cite_type addto | -cite_type matfree */
#include "fegtest.h"

/* Whether PETSc's citation list holds key. Reading the list empties it, so its contents are put back */
#if PETSC_VERSION_LT(3, 20, 0)
typedef size_t fegtest_count; /* PetscSegBuffer sizes became PetscCount */
#else
typedef PetscCount fegtest_count;
#endif
static PetscBool cited(const char *key)
{
  fegtest_count n;
  size_t        k = strlen(key);
  char         *list, *back;
  PetscBool     found = PETSC_FALSE;

  if (PetscSegBufferGetSize(PetscCitationsList, &n) || !n || PetscMalloc1(n, &list)) return PETSC_FALSE;
  if (PetscSegBufferExtractTo(PetscCitationsList, list)) return PETSC_FALSE;
  for (size_t i = 0; i + k <= (size_t)n && !found; i++) found = (PetscBool)(list[i] == key[0] && !memcmp(list + i, key, k));
  if (PetscSegBufferGet(PetscCitationsList, n, &back)) return PETSC_FALSE;
  memcpy(back, list, (size_t)n);
  if (PetscFree(list)) return PETSC_FALSE;
  return found;
}

START_TEST(test_citations)
{
  const char *lmapapers[] = {"@article{markall2013assembly,", "@article{maciol2010integration,", "@article{kruzel2020highorder,", NULL};
  const char *mfpapers[]  = {"@article{modave2016nodal,", NULL};
  char        type[64]    = "";
  PetscBool   set, mf;
  DM          dm;
  FEGForm     form;
  Mat         A;

  TCHK(PetscOptionsGetString(NULL, NULL, "-cite_type", type, sizeof(type), &set));
  ck_assert_msg(set, "run with -cite_type lma, addto or matfree");
  mf = (PetscBool)!strcmp(type, FEGOPMATFREE);
  TCHK(fegtest_setup(PETSC_COMM_WORLD, DM_POLYTOPE_TRIANGLE, 1, PETSC_TRUE, PETSC_FALSE, 2, &dm));
  TCHK(fegtest_form(PETSC_COMM_WORLD, NULL, NULL, PETSC_FALSE, &form));
  for (const char **p = mf ? mfpapers : lmapapers; *p; p++) ck_assert_msg(!cited(*p), "%s is cited before any operator", *p);
  TCHK(fegtest_operator(dm, form, type, &A));
  for (const char **p = mf ? mfpapers : lmapapers; *p; p++) ck_assert_msg(cited(*p), "an operator of type %s did not register %s", type, *p);
  TCHK(MatDestroy(&A));
  TCHK(FEGFormDestroy(&form));
  TCHK(DMDestroy(&dm));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc = tcase_create("citations");

  tcase_add_test(tc, test_citations);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "citations", add_tests);
}
