static const char help[] = "Mesh construction on several processes: FEGCreateMeshFromOptions() (a box with -feg_mesh_*, or a file with\n"
                           "  -feg_mesh_file, refined with -dm_refine) and a continuous Lagrange field of order -order on it\n"
                           "  (FEGSetUpDiscretization(): sections and the global numbering), each timed on the slowest process, with each\n"
                           "  process's peak resident memory (getrusage) after both. Prints one line; -csv F appends\n"
                           "  processes,cells,unknowns,mesh_s,disc_s,rss0_mb,rssmax_mb,label\n"
                           "  -order <2>  -label <text, for the CSV>\n";

#include "benchutil.h"
#include <sys/resource.h>

/* the slowest process's seconds since t0 */
static PetscErrorCode Elapsed(double t0, double *s)
{
  double t = MPI_Wtime() - t0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&t, s, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM            dm;
  Vec           u;
  PetscInt      order                   = 2, cStart, cEnd, ncells, lcells, N;
  char          csv[PETSC_MAX_PATH_LEN] = "", label[64] = "";
  double        t0, tmesh, tdisc, rss, rss0, rssmax;
  struct rusage ru;
  PetscMPIInt   size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_mesh options", NULL);
  PetscCall(PetscOptionsInt("-order", "Order of the continuous Lagrange field", NULL, order, &order, NULL));
  PetscCall(PetscOptionsString("-csv", "Append one CSV line to this file", NULL, csv, csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsString("-label", "A label for the CSV line", NULL, label, label, sizeof(label), NULL));
  PetscOptionsEnd();
  PetscCall(BenchCheckInt("-order", order, 1, 8));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, NULL, &dm));
  PetscCall(Elapsed(t0, &tmesh));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  PetscCall(FEGSetUpDiscretization(dm, order, PETSC_TRUE, "u"));
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(Elapsed(t0, &tdisc));
  PetscCheck(getrusage(RUSAGE_SELF, &ru) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "getrusage() failed");
  rss  = ru.ru_maxrss / 1024.0; /* kilobytes on Linux */
  rss0 = rss;
  PetscCallMPI(MPI_Bcast(&rss0, 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&rss, &rssmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(VecGetSize(u, &N));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  lcells = cEnd - cStart;
  PetscCallMPI(MPI_Allreduce(&lcells, &ncells, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "processes %d cells %" PetscInt_FMT " unknowns %" PetscInt_FMT " mesh %.3f s discretization %.3f s peak memory rank 0 %.0f MB, largest %.0f MB\n", (int)size, ncells, N, tmesh, tdisc, rss0, rssmax));
  if (csv[0]) {
    FILE     *fp;
    PetscBool exists;

    PetscCall(PetscTestFile(csv, 'r', &exists));
    PetscCall(PetscFOpen(PETSC_COMM_WORLD, csv, "a", &fp));
    if (!exists) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "processes,cells,unknowns,mesh_s,disc_s,rss0_mb,rssmax_mb,label\n"));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "%d,%" PetscInt_FMT ",%" PetscInt_FMT ",%.3f,%.3f,%.0f,%.0f,%s\n", (int)size, ncells, N, tmesh, tdisc, rss0, rssmax, label));
    PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
  }
  PetscCall(VecDestroy(&u));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
