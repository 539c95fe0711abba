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
static double      tf[F_N], tfall[F_N];
static long        nf[F_N], nfall[F_N];
static int         df[F_N];

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

cudaError_t cudaMalloc(void **p, size_t n)
{
  cudaError_t r;
  REAL(cudaMalloc);
  TIMED(K_MALLOC, real(p, n));
  return r;
}
cudaError_t cudaFree(void *p)
{
  cudaError_t r;
  REAL(cudaFree);
  TIMED(K_FREE, real(p));
  return r;
}
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
  cudaError_t r;
  REAL(cudaMallocAsync);
  TIMED(K_MALLOCASYNC, real(p, n, s));
  return r;
}
cudaError_t cudaFreeAsync(void *p, cudaStream_t s)
{
  cudaError_t r;
  REAL(cudaFreeAsync);
  TIMED(K_FREEASYNC, real(p, s));
  return r;
}
cudaError_t cudaMallocHost(void **p, size_t n)
{
  cudaError_t r;
  REAL(cudaMallocHost);
  TIMED(K_MALLOCHOST, real(p, n));
  return r;
}
cudaError_t cudaFreeHost(void *p)
{
  cudaError_t r;
  REAL(cudaFreeHost);
  TIMED(K_FREEHOST, real(p));
  return r;
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
  cudaError_t r;
  REAL(cudaMemcpy);
  TIMED(K_MEMCPY, real(d, s, n, k));
  return r;
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st)
{
  cudaError_t r;
  REAL(cudaMemcpyAsync);
  TIMED(K_MEMCPYASYNC, real(d, s, n, k, st));
  return r;
}
cudaError_t cudaMemset(void *d, int v, size_t n)
{
  cudaError_t r;
  REAL(cudaMemset);
  TIMED(K_MEMSET, real(d, v, n));
  return r;
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st)
{
  cudaError_t r;
  REAL(cudaMemsetAsync);
  TIMED(K_MEMSETASYNC, real(d, v, n, st));
  return r;
}
cudaError_t cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **a, size_t sh, cudaStream_t st)
{
  cudaError_t r;
  REAL(cudaLaunchKernel);
  TIMED(K_LAUNCH, real(f, g, b, a, sh, st));
  return r;
}
/* what nvcc 13's <<<>>> calls */
extern cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
extern cudaError_t __cudaGetKernel(cudaKernel_t *, const void *);
cudaError_t        __cudaLaunchKernel(cudaKernel_t f, dim3 g, dim3 b, void **a, size_t sh, cudaStream_t st)
{
  cudaError_t r;
  REAL(__cudaLaunchKernel);
  TIMED(K_LAUNCH13, real(f, g, b, a, sh, st));
  return r;
}
cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *f)
{
  cudaError_t r;
  REAL(__cudaGetKernel);
  TIMED(K_GETKERNEL, real(k, f));
  return r;
}
cudaError_t cudaDeviceSynchronize(void)
{
  cudaError_t r;
  REAL(cudaDeviceSynchronize);
  TIMED(K_DEVSYNC, real());
  return r;
}
cudaError_t cudaStreamSynchronize(cudaStream_t st)
{
  cudaError_t r;
  REAL(cudaStreamSynchronize);
  TIMED(K_STREAMSYNC, real(st));
  return r;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
  cudaError_t r;
  REAL(cudaEventSynchronize);
  TIMED(K_EVENTSYNC, real(e));
  return r;
}
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *at, const void *f)
{
  cudaError_t r;
  REAL(cudaFuncGetAttributes);
  TIMED(K_FUNCATTR, real(at, f));
  return r;
}
cudaError_t cudaFuncSetAttribute(const void *f, enum cudaFuncAttribute at, int v)
{
  cudaError_t r;
  REAL(cudaFuncSetAttribute);
  TIMED(K_FUNCATTR, real(f, at, v));
  return r;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *f, int b, size_t sh)
{
  cudaError_t r;
  REAL(cudaOccupancyMaxActiveBlocksPerMultiprocessor);
  TIMED(K_OCC, real(n, f, b, sh));
  return r;
}

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

PetscErrorCode DMGetGlobalSection(DM dm, PetscSection *s)
{
  PetscErrorCode r;
  REAL(DMGetGlobalSection);
  FTIMED(F_GSEC, real(dm, s));
  return r;
}
#if PETSC_VERSION_LT(3, 22, 0) /* 3.18's, without usePermutation (this shim is used with 3.18 and 3.22) */
PetscErrorCode PetscSectionCreateGlobalSection(PetscSection s, PetscSF sf, PetscBool b, PetscBool c, PetscSection *g)
{
  PetscErrorCode r;
  REAL(PetscSectionCreateGlobalSection);
  FTIMED(F_CGSEC, real(s, sf, b, c, g));
  return r;
}
#else
PetscErrorCode PetscSectionCreateGlobalSection(PetscSection s, PetscSF sf, PetscBool a, PetscBool b, PetscBool c, PetscSection *g)
{
  PetscErrorCode r;
  REAL(PetscSectionCreateGlobalSection);
  FTIMED(F_CGSEC, real(s, sf, a, b, c, g));
  return r;
}
#endif
PetscErrorCode DMCreateGlobalVector(DM dm, Vec *v)
{
  PetscErrorCode r;
  REAL(DMCreateGlobalVector);
  FTIMED(F_CGVEC, real(dm, v));
  return r;
}
PetscErrorCode DMGetCoordinatesLocal(DM dm, Vec *v)
{
  PetscErrorCode r;
  REAL(DMGetCoordinatesLocal);
  FTIMED(F_COORDLOC, real(dm, v));
  return r;
}
PetscErrorCode DMCreateDS(DM dm)
{
  PetscErrorCode r;
  REAL(DMCreateDS);
  FTIMED(F_CREATEDS, real(dm));
  return r;
}
PetscErrorCode DMPlexGetClosureIndices(DM dm, PetscSection s, PetscSection is, PetscInt p, PetscBool u, PetscInt *n, PetscInt *ix[], PetscInt *o, PetscScalar *v[])
{
  PetscErrorCode r;
  REAL(DMPlexGetClosureIndices);
  FTIMED(F_CLOSUREIDX, real(dm, s, is, p, u, n, ix, o, v));
  return r;
}
PetscErrorCode DMGetLocalToGlobalMapping(DM dm, ISLocalToGlobalMapping *m)
{
  PetscErrorCode r;
  REAL(DMGetLocalToGlobalMapping);
  FTIMED(F_L2GMAP, real(dm, m));
  return r;
}
PetscErrorCode DMGetSectionSF(DM dm, PetscSF *sf)
{
  PetscErrorCode r;
  REAL(DMGetSectionSF);
  FTIMED(F_SECSF, real(dm, sf));
  return r;
}
PetscErrorCode DMProjectFunction(DM dm, PetscReal t, PetscErrorCode (**f)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *), void **c, InsertMode m, Vec v)
{
  PetscErrorCode r;
  REAL(DMProjectFunction);
  FTIMED(F_PROJECT, real(dm, t, f, c, m, v));
  return r;
}
PetscErrorCode DMPlexCreateFromFile(MPI_Comm comm, const char f[], const char n[], PetscBool i, DM *dm)
{
  PetscErrorCode r;
  REAL(DMPlexCreateFromFile);
  FTIMED(F_FROMFILE, real(comm, f, n, i, dm));
  return r;
}
PetscErrorCode DMClone(DM dm, DM *c)
{
  PetscErrorCode r;
  REAL(DMClone);
  FTIMED(F_CLONE, real(dm, c));
  return r;
}
PetscErrorCode DMSetUp(DM dm)
{
  PetscErrorCode r;
  REAL(DMSetUp);
  FTIMED(F_SETUP, real(dm));
  return r;
}
PetscErrorCode DMPlexGetCellCoordinates(DM dm, PetscInt c, PetscBool *dg, PetscInt *n, const PetscScalar *a[], PetscScalar *x[])
{
  PetscErrorCode r;
  REAL(DMPlexGetCellCoordinates);
  FTIMED(F_CELLCOORDS, real(dm, c, dg, n, a, x));
  return r;
}

__attribute__((destructor)) static void report(void)
{
  fprintf(stderr, "cudashim process:");
  for (int k = 0; k < F_N; k++)
    if (nfall[k]) fprintf(stderr, " | %s %ld: %.2f ms", fname[k], nfall[k], 1e3 * tfall[k]);
  fprintf(stderr, "\n");
}

/* the windows */
PetscErrorCode FEGCreateOperator(DM dm, FEGForm f, Mat *A)
{
  PetscErrorCode r;
  REAL(FEGCreateOperator);
  win_open();
  r = real(dm, f, A);
  win_close("FEGCreateOperator");
  return r;
}
PetscErrorCode FEGCreateMeshFromOptions(MPI_Comm c, const char p[], DM *dm)
{
  PetscErrorCode r;
  REAL(FEGCreateMeshFromOptions);
  win_open();
  r = real(c, p, dm);
  win_close("FEGCreateMeshFromOptions");
  return r;
}
PetscErrorCode FEGSetUpDiscretization(DM dm, PetscInt k, PetscBool c, const char n[])
{
  PetscErrorCode r;
  REAL(FEGSetUpDiscretization);
  win_open();
  r = real(dm, k, c, n);
  win_close("FEGSetUpDiscretization");
  return r;
}
PetscErrorCode FEGDMProjectFunction(DM dm, PetscReal t, PetscErrorCode (*fn)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *), void *ctx, Vec v)
{
  PetscErrorCode r;
  REAL(FEGDMProjectFunction);
  win_open();
  r = real(dm, t, fn, ctx, v);
  win_close("FEGDMProjectFunction");
  return r;
}
