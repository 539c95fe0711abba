static const char help[] = "The start of a GPU process, timed on every process of a run started at once: the program's load (process\n"
                           "  start to main), the CUDA driver's start (cuInit), the primary context of the process's GPU, PetscInitialize()\n"
                           "  and fegpu's device start on that context (FEGDeviceInitialize()). The driver and the context come first,\n"
                           "  before PETSc, so that each is timed alone. Run it under share/fegpu/gpu-bind (each process sees one GPU).\n"
                           "  Prints one line per process; -csv F appends\n"
                           "  processes,rank,load_s,driver_s,context_s,petsc_s,fegpu_s,label\n"
                           "  -label <text, for the CSV>\n";

#include "benchutil.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(FEGPU_HAVE_CUDA)
  #include <cuda.h>
#endif

/* seconds since boot (CLOCK_BOOTTIME, the clock of /proc/self/stat's start time) */
static double BootSeconds(void)
{
  struct timespec t;

  if (clock_gettime(CLOCK_BOOTTIME, &t)) return -1.0;
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the process's start in seconds since boot (field 22 of /proc/self/stat, in clock ticks), -1 where it cannot be read */
static double ProcessStart(void)
{
  char  buf[1024], *p;
  FILE *f     = fopen("/proc/self/stat", "r");
  long  ticks = sysconf(_SC_CLK_TCK);
  int   field = 2;

  if (!f) return -1.0;
  p = fgets(buf, sizeof(buf), f);
  (void)fclose(f);
  if (!p || ticks <= 0 || !(p = strrchr(buf, ')'))) return -1.0; /* the command name may hold spaces: count after it */
  for (p++; *p && field < 22; p++)
    if (*p == ' ') field++;
  return field == 22 ? (double)strtoull(p, NULL, 10) / (double)ticks : -1.0;
}

int main(int argc, char **argv)
{
  double      t[5] = {0}, *all = NULL;
  char        csv[PETSC_MAX_PATH_LEN] = "", label[64] = "";
  PetscMPIInt size, rank;
#if defined(FEGPU_HAVE_CUDA)
  const char *errname = NULL;
  int         cuerr = 0, ndev = 0;
#endif

  t[0] = ProcessStart();
  t[1] = BootSeconds();
#if defined(FEGPU_HAVE_CUDA)
  {
    CUdevice  dev;
    CUcontext ctx;
    CUresult  e = cuInit(0);

    t[2] = BootSeconds();
    if (e == CUDA_SUCCESS) e = cuDeviceGetCount(&ndev);
    if (e == CUDA_SUCCESS) e = cuDeviceGet(&dev, 0);
    if (e == CUDA_SUCCESS) e = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (e == CUDA_SUCCESS) e = cuCtxSetCurrent(ctx);
    t[3] = BootSeconds();
    if (e != CUDA_SUCCESS) {
      cuerr = (int)e;
      if (e == CUDA_ERROR_STUB_LIBRARY) errname = "CUDA_ERROR_STUB_LIBRARY, the toolkit's stub of a machine without the NVIDIA driver";
      else if (cuGetErrorName(e, &errname) != CUDA_SUCCESS) errname = "an unknown CUDA error";
    }
  }
#endif
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  t[4] = BootSeconds();
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_start options", NULL);
  PetscCall(PetscOptionsString("-csv", "Append one CSV line per process to this file", NULL, csv, csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsString("-label", "A label for the CSV lines", NULL, label, label, sizeof(label), NULL));
  PetscOptionsEnd();
#if defined(FEGPU_HAVE_CUDA)
  PetscCheck(!cuerr, PETSC_COMM_SELF, PETSC_ERR_LIB, "bench_start needs a GPU: the CUDA driver's start failed with %s (%d)", errname, cuerr);
  /* the context timed is device 0's, which is the process's own GPU only when it sees one */
  PetscCheck(ndev == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "bench_start times each process's start on its own GPU, but this process sees %d GPUs: run it under share/fegpu/gpu-bind, which shows each process one", ndev);
#else
  SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_SUP, "bench_start needs a GPU: fegpu was built without CUDA (configure it against a CUDA-enabled PETSc)");
#endif
  {
    double td, mine[5];

    PetscCall(FEGDeviceInitialize());
    td      = BootSeconds();
    mine[0] = t[0] >= 0 ? t[1] - t[0] : -1.0; /* load: process start to main */
    mine[1] = t[2] - t[1];                    /* the driver */
    mine[2] = t[3] - t[2];                    /* the context */
    mine[3] = t[4] - t[3];                    /* PetscInitialize() */
    mine[4] = td - t[4];                      /* FEGDeviceInitialize() */
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (rank == 0) PetscCall(PetscMalloc1(5 * size, &all));
    PetscCallMPI(MPI_Gather(mine, 5, MPI_DOUBLE, all, 5, MPI_DOUBLE, 0, PETSC_COMM_WORLD));
  }
  if (rank == 0) {
    FILE     *fp = NULL;
    PetscBool exists;

    if (csv[0]) {
      PetscCall(PetscTestFile(csv, 'r', &exists));
      PetscCall(PetscFOpen(PETSC_COMM_SELF, csv, "a", &fp));
      if (!exists) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "processes,rank,load_s,driver_s,context_s,petsc_s,fegpu_s,label\n"));
    }
    for (PetscMPIInt r = 0; r < size; r++) {
      const double *a = all + 5 * r;

      PetscCall(PetscPrintf(PETSC_COMM_SELF, "processes %d rank %d load %.3f s driver %.3f s context %.3f s PetscInitialize %.3f s FEGDeviceInitialize %.3f s\n", (int)size, (int)r, a[0], a[1], a[2], a[3], a[4]));
      if (fp) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%s\n", (int)size, (int)r, a[0], a[1], a[2], a[3], a[4], label));
    }
    if (fp) PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
    PetscCall(PetscFree(all));
  }
  PetscCall(PetscFinalize());
  return 0;
}
