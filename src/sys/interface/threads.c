/* Threads for the host's setup loops over cells (the bulk dof-map read): each process takes its share of the node's
   cores, so that several ranks per node do not oversubscribe it. Without OpenMP (configure --with-openmp=0) one. */
#include <fegpu/private/fegsysimpl.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

static PetscInt FEGSetupThreadsRequested = 0; /* FEGSetSetupThreads(); 0: automatic */

/*@
  FEGSetSetupThreads - the threads each process uses at most in fegpu's host setup loops over cells (the bulk dof-map
  and coordinate read, the global indices, the affine test), which take one per 64k element dofs

  Not Collective

  Input Parameter:
. n - at least 1, or 0 for the default: the OpenMP threads (OMP_NUM_THREADS or the cores) divided by the processes on
      the node; 1 when fegpu is configured --with-openmp=0

  Options Database Key:
. -feg_setup_threads <n> - the same; the option wins over this function

  Level: advanced

.seealso: FEGSetupThreads()
@*/
PetscErrorCode FEGSetSetupThreads(PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Setup threads %" PetscInt_FMT " must be at least 1, or 0 for the default", n);
  FEGSetupThreadsRequested = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGSetupThreads - the number of threads a process uses in fegpu's host setup loops: -feg_setup_threads N, else
  `FEGSetSetupThreads()`'s, else the OpenMP threads available (OMP_NUM_THREADS or the cores) divided by the processes of
  comm on the same node

  Collective on comm the first time (a node-local communicator is split off it to count the node's processes)

  Options Database Key:
. -feg_setup_threads <n> - the threads, at least 1

  Level: developer

.seealso: FEGSetSetupThreads()
@*/
PetscErrorCode FEGSetupThreads(MPI_Comm comm, PetscInt *nt)
{
  static PetscMPIInt nlocal = 0; /* processes of the first communicator asked about on this node */

  PetscFunctionBegin;
  *nt = 1;
#if defined(_OPENMP)
  {
    PetscInt  n   = 0;
    PetscBool set = PETSC_FALSE;

    if (!nlocal) {
      MPI_Comm node;

      PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
      PetscCallMPI(MPI_Comm_size(node, &nlocal));
      PetscCallMPI(MPI_Comm_free(&node));
    }
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-feg_setup_threads", &n, &set));
    PetscCheck(!set || n >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-feg_setup_threads %" PetscInt_FMT " must be at least 1", n);
    *nt = set ? n : (FEGSetupThreadsRequested > 0 ? FEGSetupThreadsRequested : PetscMax(1, omp_get_max_threads() / nlocal));
  }
#else
  (void)comm;
  (void)nlocal;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
