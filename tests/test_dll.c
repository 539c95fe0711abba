/* -dll_append: PETSc loads libfegpu and calls PetscDLLibraryRegister_fegpu, which registers fegpu's class and log
   events, with no fegpu call in the program */
#include <check.h>
#include <stdlib.h>
#include <petscsys.h>
#include <fegpu.h>

START_TEST(test_registered_by_dll_append)
{
  PetscLogEvent ev = -1;
  PetscBool     flg;

  ck_assert_int_eq(PetscOptionsHasName(NULL, NULL, "-dll_append", &flg), 0);
  ck_assert_msg(flg, "-dll_append was not given");
  ck_assert_int_eq(PetscLogEventGetId("FEGAssemble", &ev), 0);
  ck_assert_msg(ev >= 0, "libfegpu's log events are not registered after -dll_append");
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("dll");
  TCase   *tc = tcase_create("dll_append");
  SRunner *sr;
  int      nf;

  /* tests run in tests/, the library is built in lib/ */
  setenv("PETSC_OPTIONS", "-dll_append ../lib/libfegpu.so", 1);
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_add_test(tc, test_registered_by_dll_append);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return nf ? 1 : 0;
}
