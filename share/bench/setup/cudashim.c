/* Where a setup's time goes, below -log_view's events: an LD_PRELOAD library that times the CUDA runtime calls of a
   process (fegpu's, PETSc's) inside windows opened by fegpu's public setup functions, and prints per window the time
   in each call kind, its count and its slowest call, and the time outside CUDA calls (host work).
     source .gpu/env.sh && gcc -O2 -shared -fPIC -o cudashim.so share/bench/setup/cudashim.c -I$PETSC_DIR/include \
       -I/usr/local/cuda/include -ldl
     LD_PRELOAD=$PWD/cudashim.so ./bench ...
   Windows do not nest: a window function called inside another is counted in the outer one. Some PETSc functions are
   timed inclusively (outermost call only) inside each window and over the whole process (printed at exit). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include <petscdm.h>

typedef struct _p_FEGForm *FEGForm; /* as fegpu.h has it, without the configured header */

enum {
  K_MALLOC,
  K_FREE,
  K_MALLOCASYNC,
  K_FREEASYNC,
  K_MALLOCHOST,
  K_FREEHOST,
  K_MEMCPY,
  K_MEMCPYASYNC,
  K_MEMSET,
  K_MEMSETASYNC,
  K_LAUNCH,
  K_LAUNCH13,
  K_GETKERNEL,
  K_DEVSYNC,
  K_STREAMSYNC,
  K_EVENTSYNC,
  K_FUNCATTR,
  K_OCC,
  K_N
};
static const char *kname[K_N] = {"cudaMalloc",      "cudaFree",         "cudaMallocAsync",    "cudaFreeAsync",   "cudaMallocHost",        "cudaFreeHost",          "cudaMemcpy",           "cudaMemcpyAsync",    "cudaMemset",
                                 "cudaMemsetAsync", "cudaLaunchKernel", "__cudaLaunchKernel", "__cudaGetKernel", "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaFuncAttributes", "cudaOccupancy"};

static int    inwin, depth, nwin;
static double tk[K_N], tmax[K_N], twin0;
static long   nk[K_N];

/* PETSc functions timed inclusively: per window and over the process */
enum {
  F_GSEC,
  F_CGSEC,
  F_CGVEC,
  F_COORDLOC,
  F_CREATEDS,
  F_CLOSUREIDX,
  F_L2GMAP,
  F_SECSF,
  F_PROJECT,
  F_FROMFILE,
  F_CLONE,
  F_SETUP,
  F_CELLCOORDS,
  F_N
};
static const char *fname[F_N] = {"DMGetGlobalSection", "PetscSectionCreateGlobalSection", "DMCreateGlobalVector", "DMGetCoordinatesLocal", "DMCreateDS", "DMPlexGetClosureIndices", "DMGetLocalToGlobalMapping", "DMGetSectionSF", "DMProjectFunction", "DMPlexCreateFromFile", "DMClone", "DMSetUp", "DMPlexGetCellCoordinates"};
static double tf[F_N], tfall[F_N];
static long   nf[F_N], nfall[F_N];
static int    df[F_N];

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void win_open(void)
{
  if (depth++) return;
  inwin = 1;
  memset(tk, 0, sizeof(tk));
  memset(tmax, 0, sizeof(tmax));
  memset(nk, 0, sizeof(nk));
  memset(tf, 0, sizeof(tf));
  memset(nf, 0, sizeof(nf));
  twin0 = now();
}

static void win_close(const char *name)
{
  double t, in = 0;

  if (--depth) return;
  t     = now() - twin0;
  inwin = 0;
  for (int k = 0; k < K_N; k++) in += tk[k];
  fprintf(stderr, "cudashim %s #%d: %.2f ms, host %.2f ms", name, ++nwin, 1e3 * t, 1e3 * (t - in));
  for (int k = 0; k < K_N; k++)
    if (nk[k]) fprintf(stderr, " | %s %ld: %.2f ms (max %.2f)", kname[k], nk[k], 1e3 * tk[k], 1e3 * tmax[k]);
  for (int k = 0; k < F_N; k++)
    if (nf[k]) fprintf(stderr, " | %s %ld: %.2f ms", fname[k], nf[k], 1e3 * tf[k]);
  fprintf(stderr, "\n");
}

#define REAL(f) \
  static __typeof__(&f) real; \
  if (!real) real = (__typeof__(&f))dlsym(RTLD_NEXT, #f)
#define TIMED(k, call) \
  do { \
    double t0_ = now(), d_; \
    r          = call; \
    d_         = now() - t0_; \
    if (inwin) { \
      tk[k] += d_; \
      nk[k]++; \
      if (d_ > tmax[k]) tmax[k] = d_; \
    } \
  } while (0)
/* a function f of return type T timed by TIMER (TIMED or FTIMED) as entry k */
#define WRAP(T, TIMER, k, f, params, args) \
  T f params \
  { \
    T r; \
    REAL(f); \
    TIMER(k, real args); \
    return r; \
  }
#define CUDAWRAP(k, f, params, args)  WRAP(cudaError_t, TIMED, k, f, params, args)
#define PETSCWRAP(k, f, params, args) WRAP(PetscErrorCode, FTIMED, k, f, params, args)

CUDAWRAP(K_MALLOC, cudaMalloc, (void **p, size_t n), (p, n))
CUDAWRAP(K_FREE, cudaFree, (void *p), (p))
CUDAWRAP(K_MALLOCASYNC, cudaMallocAsync, (void **p, size_t n, cudaStream_t s), (p, n, s))
CUDAWRAP(K_FREEASYNC, cudaFreeAsync, (void *p, cudaStream_t s), (p, s))
CUDAWRAP(K_MALLOCHOST, cudaMallocHost, (void **p, size_t n), (p, n))
CUDAWRAP(K_FREEHOST, cudaFreeHost, (void *p), (p))
CUDAWRAP(K_MEMCPY, cudaMemcpy, (void *d, const void *s, size_t n, enum cudaMemcpyKind k), (d, s, n, k))
CUDAWRAP(K_MEMCPYASYNC, cudaMemcpyAsync, (void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st), (d, s, n, k, st))
CUDAWRAP(K_MEMSET, cudaMemset, (void *d, int v, size_t n), (d, v, n))
CUDAWRAP(K_MEMSETASYNC, cudaMemsetAsync, (void *d, int v, size_t n, cudaStream_t st), (d, v, n, st))
CUDAWRAP(K_LAUNCH, cudaLaunchKernel, (const void *f, dim3 g, dim3 b, void **a, size_t sh, cudaStream_t st), (f, g, b, a, sh, st))
/* what nvcc 13's <<<>>> calls */
extern cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
extern cudaError_t __cudaGetKernel(cudaKernel_t *, const void *);
CUDAWRAP(K_LAUNCH13, __cudaLaunchKernel, (cudaKernel_t f, dim3 g, dim3 b, void **a, size_t sh, cudaStream_t st), (f, g, b, a, sh, st))
CUDAWRAP(K_GETKERNEL, __cudaGetKernel, (cudaKernel_t * k, const void *f), (k, f))
CUDAWRAP(K_DEVSYNC, cudaDeviceSynchronize, (void), ())
CUDAWRAP(K_STREAMSYNC, cudaStreamSynchronize, (cudaStream_t st), (st))
CUDAWRAP(K_EVENTSYNC, cudaEventSynchronize, (cudaEvent_t e), (e))
CUDAWRAP(K_FUNCATTR, cudaFuncGetAttributes, (struct cudaFuncAttributes * at, const void *f), (at, f))
CUDAWRAP(K_FUNCATTR, cudaFuncSetAttribute, (const void *f, enum cudaFuncAttribute at, int v), (f, at, v))
CUDAWRAP(K_OCC, cudaOccupancyMaxActiveBlocksPerMultiprocessor, (int *n, const void *f, int b, size_t sh), (n, f, b, sh))

#define FTIMED(k, call) \
  do { \
    double t0_ = now(), d_; \
    df[k]++; \
    r  = call; \
    d_ = now() - t0_; \
    if (!--df[k]) { \
      tfall[k] += d_; \
      nfall[k]++; \
      if (inwin) { \
        tf[k] += d_; \
        nf[k]++; \
      } \
    } \
  } while (0)
PETSCWRAP(F_GSEC, DMGetGlobalSection, (DM dm, PetscSection *s), (dm, s))
#if PETSC_VERSION_LT(3, 22, 0) /* 3.18's, without usePermutation (this shim is used with 3.18 and 3.22) */
PETSCWRAP(F_CGSEC, PetscSectionCreateGlobalSection, (PetscSection s, PetscSF sf, PetscBool b, PetscBool c, PetscSection *g), (s, sf, b, c, g))
#else
PETSCWRAP(F_CGSEC, PetscSectionCreateGlobalSection, (PetscSection s, PetscSF sf, PetscBool a, PetscBool b, PetscBool c, PetscSection *g), (s, sf, a, b, c, g))
#endif
PETSCWRAP(F_CGVEC, DMCreateGlobalVector, (DM dm, Vec *v), (dm, v))
PETSCWRAP(F_COORDLOC, DMGetCoordinatesLocal, (DM dm, Vec *v), (dm, v))
PETSCWRAP(F_CREATEDS, DMCreateDS, (DM dm), (dm))
PETSCWRAP(F_CLOSUREIDX, DMPlexGetClosureIndices, (DM dm, PetscSection s, PetscSection is, PetscInt p, PetscBool u, PetscInt *n, PetscInt *ix[], PetscInt *o, PetscScalar *v[]), (dm, s, is, p, u, n, ix, o, v))
PETSCWRAP(F_L2GMAP, DMGetLocalToGlobalMapping, (DM dm, ISLocalToGlobalMapping *m), (dm, m))
PETSCWRAP(F_SECSF, DMGetSectionSF, (DM dm, PetscSF *sf), (dm, sf))
PETSCWRAP(F_PROJECT, DMProjectFunction, (DM dm, PetscReal t, PetscErrorCode (**f)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *), void **c, InsertMode m, Vec v), (dm, t, f, c, m, v))
PETSCWRAP(F_FROMFILE, DMPlexCreateFromFile, (MPI_Comm comm, const char f[], const char n[], PetscBool i, DM *dm), (comm, f, n, i, dm))
PETSCWRAP(F_CLONE, DMClone, (DM dm, DM *c), (dm, c))
PETSCWRAP(F_SETUP, DMSetUp, (DM dm), (dm))
PETSCWRAP(F_CELLCOORDS, DMPlexGetCellCoordinates, (DM dm, PetscInt c, PetscBool *dg, PetscInt *n, const PetscScalar *a[], PetscScalar *x[]), (dm, c, dg, n, a, x))

__attribute__((destructor)) static void report(void)
{
  fprintf(stderr, "cudashim process:");
  for (int k = 0; k < F_N; k++)
    if (nfall[k]) fprintf(stderr, " | %s %ld: %.2f ms", fname[k], nfall[k], 1e3 * tfall[k]);
  fprintf(stderr, "\n");
}

/* the windows: fegpu's setup calls */
#define WINDOW(f, params, args) \
  PetscErrorCode f params \
  { \
    PetscErrorCode r; \
    REAL(f); \
    win_open(); \
    r = real args; \
    win_close(#f); \
    return r; \
  }

WINDOW(FEGCreateOperator, (DM dm, FEGForm f, Mat *A), (dm, f, A))
WINDOW(FEGOperatorAssemble, (Mat A, FEGForm f), (A, f))
WINDOW(FEGCreateMeshFromOptions, (MPI_Comm c, const char p[], DM *dm), (c, p, dm))
WINDOW(FEGSetUpDiscretization, (DM dm, PetscInt k, PetscBool c, const char n[]), (dm, k, c, n))
WINDOW(FEGDMProjectFunction, (DM dm, PetscReal t, PetscErrorCode (*fn)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *), void *ctx, Vec v), (dm, t, fn, ctx, v))
