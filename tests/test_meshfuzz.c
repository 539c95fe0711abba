/* Every mesh file of share/meshes and tests/meshes (Gmsh 2.2 and 4.1), cut at random points and with random bytes changed, read through
   FEGCreateMeshFromOptions(): each read must end in a PETSc error that names the file, or give a mesh that passes
   PETSc's topology checks and on which an operator is either made (finite) or refused for its inverted or flat cells
   or its cell types;
   never a crash or a hang. Seeded,
   bounded in count (FUZZ_CASES per file) and time (an alarm).
   By hand: FEGTEST_SEED=n for other seeds, FEGTEST_VERBOSE=1 for each case's outcome, under valgrind for writes
   outside an allocation that do not crash. */
#include "fegtest.h"
#include <dirent.h>
#include <signal.h>

#define FUZZ_CASES   64
#define FUZZ_SECONDS 300

/* a small, seeded generator, the same on every machine */
static unsigned long long fuzz_state = 0x2545F4914F6CDD1DULL;
static unsigned int       fuzz_next(void)
{
  fuzz_state ^= fuzz_state << 13;
  fuzz_state ^= fuzz_state >> 7;
  fuzz_state ^= fuzz_state << 17;
  return (unsigned int)(fuzz_state >> 11);
}

typedef struct {
  int read_errors, check_errors, meshes;
} fuzz_counts;

/* reads name as a user would, then checks what it gave; a failed check of a mesh the read accepted fails the test */
static PetscErrorCode fuzz_read(const char *name, fuzz_counts *n, char *why, size_t len)
{
  PetscOptions   o;
  DM             dm   = NULL;
  FEGForm        form = NULL;
  Mat            A    = NULL;
  Vec            x, y;
  PetscReal      ny;
  char           opts[PETSC_MAX_PATH_LEN + 64];
  PetscErrorCode e;
  fegtest_err    err = {"", 0};

  PetscFunctionBegin;
  why[0] = 0;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-feg_mesh_file %s -feg_op_type lma", name));
  PetscCall(PetscOptionsCreate(&o));
  PetscCall(PetscOptionsInsertString(o, opts));
  PetscCall(PetscOptionsPush(o));
  PetscCall(PetscPushErrorHandler(fegtest_errhandler, &err));
  e = FEGCreateMeshFromOptions(PETSC_COMM_SELF, NULL, &dm);
  PetscCall(PetscPopErrorHandler());
  /* with -malloc_debug, a read that wrote outside PETSc's allocations fails here */
  PetscCall(PetscMallocValidate(__LINE__, PETSC_FUNCTION_NAME, __FILE__));
  if (e) {
    n->read_errors++;
    if (getenv("FEGTEST_VERBOSE")) printf("read refused: %s\n", err.msg);
    if (!strstr(err.msg, name)) PetscCall(PetscSNPrintf(why, len, "the read failed with a message that does not name the file: %s", err.msg));
  } else {
    /* PETSc's checks of the topology, then the geometry through fegpu's: an operator refuses inverted or flat cells */
    PetscCall(PetscPushErrorHandler(fegtest_errhandler, &err));
    e = DMPlexCheckSymmetry(dm);
    if (!e) e = DMPlexCheckSkeleton(dm, 0);
    if (!e) e = DMPlexCheckFaces(dm, 0);
    PetscCall(PetscPopErrorHandler());
    if (e) PetscCall(PetscSNPrintf(why, len, "the read gave a mesh that fails PETSc's topology checks: %s", err.msg));
    else {
      PetscCall(PetscPushErrorHandler(fegtest_errhandler, &err));
      e = FEGSetUpDiscretization(dm, 1, PETSC_TRUE, "u");
      if (!e) e = fegtest_form(PETSC_COMM_SELF, NULL, NULL, PETSC_FALSE, &form);
      if (!e) e = FEGCreateOperator(dm, form, &A);
      PetscCall(PetscPopErrorHandler());
      if (e) {
        n->check_errors++;
        /* what fegpu refuses in a mesh it read: inverted or flat cells, cells of several types or of a type it lacks */
        if (!strstr(err.msg, "Jacobian determinant") && !strstr(err.msg, "Mixed cell types") && !strstr(err.msg, "is not supported: fegpu supports")) PetscCall(PetscSNPrintf(why, len, "the operator on a mesh the read accepted failed: %s", err.msg));
      } else {
        PetscCall(MatCreateVecs(A, &x, &y));
        PetscCall(VecSet(x, 1.0));
        PetscCall(MatMult(A, x, y));
        PetscCall(VecNorm(y, NORM_2, &ny));
        if (PetscIsInfOrNanReal(ny)) PetscCall(PetscSNPrintf(why, len, "the operator on a mesh the read accepted gives %g", (double)ny));
        PetscCall(VecDestroy(&x));
        PetscCall(VecDestroy(&y));
        n->meshes++;
      }
    }
  }
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&o));
  /* after an error, objects made before it are the test's to lose */
  if (!e) {
    PetscCall(MatDestroy(&A));
    PetscCall(FEGFormDestroy(&form));
    PetscCall(DMDestroy(&dm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void fuzz_alarm(int sig)
{
  (void)sig;
  fprintf(stderr, "test_meshfuzz: a read took the test past %d s (a hang)\n", FUZZ_SECONDS);
  _exit(3);
}

START_TEST(test_fuzz_mesh_files)
{
  const char    *dirs[2] = {"../share/meshes", "meshes"};
  struct dirent *ent;
  fuzz_counts    n     = {0, 0, 0};
  int            files = 0;
  char           tmp[128], why[2048];

  if (getenv("FEGTEST_SEED")) fuzz_state += strtoull(getenv("FEGTEST_SEED"), NULL, 10); /* other seeds, by hand */
  signal(SIGALRM, fuzz_alarm);
  alarm(FUZZ_SECONDS);
  snprintf(tmp, sizeof(tmp), "fegtest-fuzz-%d.msh", (int)getpid());
  for (int id = 0; id < 2; id++) {
    const char *dir = dirs[id];
    DIR        *d   = opendir(dir);

    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((ent = readdir(d))) {
      size_t         len = strlen(ent->d_name), size;
      char           path[PETSC_MAX_PATH_LEN];
      unsigned char *orig, *buf;
      FILE          *fp;

      if (len < 5 || strcmp(ent->d_name + len - 4, ".msh")) continue;
      snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
      fp = fopen(path, "rb");
      ck_assert_msg(fp != NULL, "cannot open %s", path);
      fseek(fp, 0, SEEK_END);
      size = (size_t)ftell(fp);
      fseek(fp, 0, SEEK_SET);
      orig = (unsigned char *)malloc(size);
      buf  = (unsigned char *)malloc(size);
      ck_assert(fread(orig, 1, size, fp) == size);
      fclose(fp);
      files++;
      for (int k = 0; k < FUZZ_CASES && size > 0; k++) { /* an empty file has nothing to change */
        size_t out = size;

        const int   kind = k % 4, nb = 1 + (int)(fuzz_next() % 8);
        const char *end      = "\n$EndElements\n";
        const char *kinds[4] = {"cut short", "bytes changed", "cut short, an $End line added", "digits changed"};

        memcpy(buf, orig, size);
        if (kind == 0 || kind == 2) out = fuzz_next() % size;
        else if (kind == 1)
          for (int b = 0; b < nb; b++) buf[fuzz_next() % size] = (unsigned char)(fuzz_next() % 256);
        else /* the file still parses: counts, vertex numbers and coordinates change */
          for (int b = 0; b < nb; b++) {
            size_t at = fuzz_next() % size;

            while (at < size && (buf[at] < '0' || buf[at] > '9')) at++;
            if (at < size) buf[at] = (unsigned char)('0' + fuzz_next() % 10);
          }
        /* by hand, FEGTEST_KEEP=1 keeps every case's file under its own name */
        if (getenv("FEGTEST_KEEP")) snprintf(tmp, sizeof(tmp), "fegtest-fuzz-%.32s-%d.msh", ent->d_name, k);
        fp = fopen(tmp, "wb");
        ck_assert(fp != NULL);
        ck_assert(fwrite(buf, 1, out, fp) == out);
        if (kind == 2) ck_assert(fwrite(end, 1, strlen(end), fp) == strlen(end));
        fclose(fp);
        if (getenv("FEGTEST_VERBOSE")) {
          printf("%s case %d (%s)\n", ent->d_name, k, kinds[kind]);
          fflush(stdout);
        }
        TCHK(fuzz_read(tmp, &n, why, sizeof(why)));
        ck_assert_msg(!why[0], "%s, case %d (%s, %zu of %zu bytes): %s", ent->d_name, k, kinds[kind], out, size, why);
      }
      free(orig);
      free(buf);
    }
    closedir(d);
  }
  alarm(0);
  remove(tmp);
  ck_assert_msg(files >= 10, "only %d mesh files in share/meshes and tests/meshes", files);
  printf("meshfuzz: %d files x %d cases: %d refused by the read, %d meshes read and refused by the operator (inverted or flat cells, mixed or unsupported cell types), %d meshes read and checked\n", files, FUZZ_CASES, n.read_errors, n.check_errors, n.meshes);
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc = tcase_create("fuzz");

  tcase_add_test(tc, test_fuzz_mesh_files);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "meshfuzz", add_tests);
}
