/* fegpu's CUDA backend, the part every operator type shares: element outputs and tuning, and the launchers of the
   shared .cu files (element matrices and vectors, scatters). Launchers take raw
   device pointers only; everything that touches Vec, Mat or DM stays in the .c files. C-compatible so both sides
   include it. Each type's own device structures and launchers are in its folder (src/op/impls/<type>/<type>.h). */
#pragma once

#include <fegpu/private/fegformcuda.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* -feg_op_precision single at 16 and 20 dofs (Q3 quadrilaterals, P3 tetrahedra): lma's entries k = a*Nb+b of an element in
   groups of FEG_LMA_SW consecutive ones, the groups element-interleaved, so that a row is Nb/FEG_LMA_SW 16-byte loads
   instead of 4-byte loads of entries interleaved one by one (measured faster). Not at up to 10 dofs, where two
   elements per thread take 8-byte loads and the kernel is bound by L2 (the gathers and atomics): one element per
   thread with groups was slower there. Other sizes untried. */
#define FEG_LMA_SW 4
FEG_INLINE int FEGLMASingleGrouped(int Nb)
{
  return Nb == 16 || Nb == 20;
}
/* entry k of element e among Ne elements' entries stored in element-interleaved groups of w consecutive ones; callers
   pass w as a constant (with w chosen at run time the single assembly of sizes not compiled in was slower) */
FEG_INLINE size_t FEGLMAGroupIndex(int w, size_t k, size_t e, size_t Ne)
{
  return ((k / w) * Ne + e) * w + k % w;
}
/* where entry k of element e is among an lma's single element matrices */
FEG_INLINE size_t FEGLMASingleIndex(int Nb, size_t k, size_t e, size_t Ne)
{
  return FEGLMASingleGrouped(Nb) ? FEGLMAGroupIndex(FEG_LMA_SW, k, e, Ne) : k * Ne + e;
}
/* Double precision at 16 dofs (Q3 quadrilaterals): lma's entries in pairs of consecutive ones of a row, the pairs
   element-interleaved, a row Nb/2 16-byte loads (measured faster than 8-byte loads; P3 tetrahedra's 20 dofs gained
   nothing, and keep one by one) */
#define FEG_LMA_DW 2
FEG_INLINE int FEGLMADoubleGrouped(int Nb)
{
  return Nb == 16;
}
/* where entry k of element e is among an lma's double element matrices */
FEG_INLINE size_t FEGLMADoubleIndex(int Nb, size_t k, size_t e, size_t Ne)
{
  return FEGLMADoubleGrouped(Nb) ? FEGLMAGroupIndex(FEG_LMA_DW, k, e, Ne) : k * Ne + e;
}

/* The dof counts of the small elements that one-element-per-thread kernels are compiled for, so their per-element
   arrays stay in registers (a count known only at run time puts them on the stack): P1 and P2 simplices, P1 prisms,
   Q1 and Q2 quadrilaterals, Q1 hexahedra. X(NB) for each (lma.cu, matfree.cu); FEGDevSmallNb(): whether Nb is one
   (lmacuda.c's tiles, FEGLMASymmetricSize()). */
#define FEG_DEV_SMALL_NB(X) X(3) X(4) X(6) X(8) X(9) X(10)

FEG_INLINE int FEGDevSmallNb(int Nb)
{
  switch (Nb) {
#define FEG_DEV_SMALL_CASE(NB) case NB:
    FEG_DEV_SMALL_NB(FEG_DEV_SMALL_CASE)
#undef FEG_DEV_SMALL_CASE
    return 1;
  default:
    return 0;
  }
}

/* lma's element matrices of a symmetric form (FEGFormIsSymmetric()) at the sizes whose one-element-per-thread kernels
   are compiled (FEGDevSmallNb()'s, 15, 18, 20 and 27 dofs; 20 in double only, whose single entries are grouped, and
   not 16, grouped in both): the entries a <= b alone, row after row (Nb (Nb + 1) / 2 of them), element-interleaved,
   (b, a) read as (a, b). MatMult reads 55 entries of a P2 tetrahedron instead of 100 */
FEG_INLINE int FEGLMASymmetricSize(int Nb, int single)
{
  if (FEGDevSmallNb(Nb)) return 1;
  switch (Nb) {
  case 15:
  case 18:
  case 27:
    return 1;
  case 20:
    return !single;
  default:
    return 0;
  }
}
/* the place of entry (a, b) or (b, a) among an element's packed entries */
FEG_INLINE size_t FEGLMASymEntry(int Nb, int a, int b)
{
  const int r = a < b ? a : b, c = a < b ? b : a;

  return (size_t)r * Nb - (size_t)r * (r - 1) / 2 + (size_t)(c - r);
}

/* Where element matrix entries go */
typedef enum {
  FEG_DEV_OUT_LMA,        /* Kout[(a*Nb+b)*Ne+e], or with grouped Kout[FEGLMADoubleIndex()] */
  FEG_DEV_OUT_LMA_SINGLE, /* the same rounded to float, into valsf[FEGLMASingleIndex()] (-feg_op_precision single) */
  FEG_DEV_OUT_CSR_ATOMIC, /* atomicAdd(vals[pos[(a*Nb+b)*Ne+e]]); deterministic when launched colour by colour */
  FEG_DEV_OUT_COO         /* coo[e*Nb*Nb+a*Nb+b], the order given to MatSetPreallocationCOO */
} FEGDevOut;

typedef struct {
  FEGDevOut  out;
  double    *vals; /* LMA storage, CSR values or COO values */
  const int *pos;  /* CSR positions, -1 for a dropped (constrained) entry */
  /* several processes (split set): positions from nA on are in the off-diagonal block vals2, from nAB on in the
     buffer vals3 of entries in rows other processes own (a block or the buffer may be empty, its pointer NULL) */
  double *vals2, *vals3;
  int     nA, nAB, split;
  float  *valsf;
  int     poslist;  /* pos is indexed by an entry's place in the element list (colours: pos permuted at setup so each
                      colour reads its positions coalesced), not by its element */
  int     posmajor; /* pos element-major, pos[e*Nb*Nb+a*Nb+b] (kernels that take an element's entries together), not
                       element-interleaved, pos[(a*Nb+b)*Ne+e] (one element per thread) */
  int     grouped;  /* FEG_DEV_OUT_LMA: lma's own storage, in pairs at FEGLMADoubleGrouped() sizes (not addto's buffer) */
  int     sym;      /* FEG_DEV_OUT_LMA(_SINGLE): a symmetric form's entries a <= b alone, at [FEGLMASymEntry()*Ne+e] */
} FEGDevOutput;

/* Kernel choice and tuning (Krużel et al.: entries per thread, parts, Jacobian data in shared memory) */
typedef struct {
  int kernel;    /* 0 auto, 1 one element per thread, 2 one element per thread block, 3 GEMM over reference tables,
                    4 (auto only) one thread per entry from reference tensors */
  int blockSize; /* threads per block of the block kernel (0: choose) */
  int nentpt;    /* matrix entries per thread and part: 1, 2, 4, 8 or 16 (0: choose) */
  int qchunk;    /* quadrature points staged in shared memory at a time (0: choose) */
  int jacShared; /* stage the element's Jacobian data in shared memory first */
  int nparts;    /* out: parts the element matrix was split into (block kernel) */
  int used;      /* out: kernel used */
  /* the GEMM kernel's buffers (Chat or U, and K for outputs it cannot write itself), kept and grown between
     assemblies: a cudaMalloc/cudaFree pair of a few hundred MB per assembly cost as much as the stores */
  double *work;
  size_t  nwork; /* doubles */
} FEGDevTuning;

/* One launch of an element-local operator's kernel, made by FEGDevOpApply() and FEGDevOpDiagonal() (devop.c) and handed
   to the type's launcher with the type's own device data: which elements, which vectors, the halo's buffers, and the
   deterministic scatter's */
typedef struct {
  int           e0, e1;    /* elements e0..e1-1 */
  const double *x;         /* the input: a local array, or with global indices (direct, gindex) a global one; NULL for the diagonal */
  double       *y;         /* the output, added into */
  int           transpose; /* A^T x */
  int           diag;      /* the diagonal of elements e0..e1-1 into y instead of the action */
  int           overwrite; /* store into y instead of adding: element-owned dofs covering y, in one range */
  /* the halo's ghost values and sums that a coded index (< -1) reaches, or NULL (ranges that reach no ghost) */
  const double *xg;
  double       *yg;
  /* the deterministic scatter (gather): per-entry results into ybuf, summed per dof through toff/tlist into y after the
     last range, the launch whose nlocal is the local size (0 on the others); toff NULL with atomics */
  const int *toff, *tlist;
  double    *ybuf;
  int        nlocal;
} FEGDevLaunch;

PETSC_INTERN PetscErrorCode FEGDevBuildP(FEGDevDisc *, size_t);
PETSC_INTERN PetscErrorCode FEGDevElementMatrices(const FEGDevDisc *, const FEGDevCoeff *, const int *, int, const FEGDevOutput *, FEGDevTuning *);
PETSC_INTERN PetscBool      FEGDevElementMajor(const FEGDevDisc *, const FEGDevTuning *, PetscBool, PetscBool);
PETSC_INTERN PetscErrorCode FEGDevElementVectors(const FEGDevDisc *, const FEGDevCoeff *, const double *, double *, double *, PetscBool);
PETSC_INTERN PetscErrorCode FEGDevChat(const FEGDevDisc *, const FEGDevCoeff *, double *);
PETSC_INTERN PetscErrorCode FEGDevTransposeMap(const FEGDevDisc *, int, int **, int **);
PETSC_INTERN PetscErrorCode FEGDevSortedMap(int, const int *, int, int **, int **);
PETSC_INTERN PetscErrorCode FEGDevZero(double *, size_t);
PETSC_INTERN PetscErrorCode FEGDevGather(int, const int *, const int *, const double *, double *);
PETSC_INTERN PetscErrorCode FEGDevLaunchGather(const FEGDevLaunch *, const double *);
PETSC_INTERN PetscErrorCode FEGDevCopyIndexed(int, const int *, const int *, const double *, double *);
PETSC_INTERN PetscErrorCode FEGDevSumInto(int, const int *, const int *, const int *, const double *, double *);
PETSC_INTERN PetscErrorCode FEGDevCopyToPointers(int, const int *, const double *, double *const *);
PETSC_INTERN PetscErrorCode FEGDevLocalToOwned(int, const int *, const int *, const double *, double *, int);
PETSC_INTERN PetscErrorCode FEGDevLocalCode(int, int, const int *, const int *, int, const int *, int *);

/* The transfer between two orders of a polynomial hierarchy on the device (interp.cu; the host's FEGInterp): element
   values gathered in chunks, one DGEMM with the element prolongation, stored (prolongation: every cell holding a fine
   node computes the same value) or added atomically (its transpose, the fine values weighted by w) */
typedef struct {
  int     Ne, Nbf, Nbc, chunk; /* elements, fine and coarse dofs per element, elements per GEMM */
  double *Pe;                  /* the element prolongation, column-major Nbf x Nbc */
  int    *fidx, *cidx;         /* each element's fine and coarse entries, -1 constrained */
  double *w;                   /* fine weights */
  double *Ef, *Ec;             /* chunk x Nbf and chunk x Nbc work */
} FEGDevInterp;
PETSC_INTERN PetscErrorCode FEGDevInterpApply(const FEGDevInterp *, const double *, double *, int, int);

/* Chebyshev steps with Jacobi on a CSR matrix (cheby.cu; the host's FEGCheby): x = S b, one kernel per step, lanes
   threads per row; r, d0, d1: n-long work */
typedef struct {
  int           n, lanes;
  const int    *ia, *ja;
  const double *a, *dinv;
  double       *r, *d0, *d1;
} FEGDevCheby;
PETSC_INTERN PetscErrorCode FEGDevChebyApply(const FEGDevCheby *, const double *, double *, int, double, const double *, const double *);

#if defined(__cplusplus)
}
#endif

#if defined(__CUDACC__)

/* A dof's value and the adding of a result through a kernel's index g: an entry of the vector (local or global
   indices), -1 a constrained dof (global indices: read as zero, never written), g < -1 entry -2-g of the halo's ghost
   buffers (global indices on several processes: values xg received, sums yg to send) */
static __device__ __forceinline__ double FEGCodedLoad(const double *__restrict__ x, const double *__restrict__ xg, int g)
{
  return g >= 0 ? x[g] : (g < -1 ? xg[-2 - g] : 0.0);
}

static __device__ __forceinline__ void FEGCodedAdd(double *__restrict__ y, double *__restrict__ yg, int g, double v, bool unique)
{
  if (g >= 0) {
    if (unique) y[g] += v;
    else atomicAdd(&y[g], v);
  } else if (g < -1) atomicAdd(&yg[-2 - g], v);
}

/* The load and add of a kernel compiled for both: CODED as above; plain (no halo buffers given, so no index below -1)
   an entry or -1, read as zero and never written, with no branch for the buffers (whose run-time branches kept the
   compiler from batching a mass kernel's adds) */
template <bool CODED>
static __device__ __forceinline__ double FEGIdxLoad(const double *__restrict__ x, const double *__restrict__ xg, int g)
{
  return CODED ? FEGCodedLoad(x, xg, g) : (g >= 0 ? x[g] : 0.0);
}

template <bool CODED>
static __device__ __forceinline__ void FEGIdxAdd(double *__restrict__ y, double *__restrict__ yg, int g, double v, bool unique)
{
  if (CODED) FEGCodedAdd(y, yg, g, v, unique);
  else if (g >= 0) atomicAdd(&y[g], v);
}

/* The sum of v[list[k]], k in off[i]..off[i+1]-1, in that order: what every deterministic scatter (lma's and matfree's
   transpose gather, the halo's received sums, addto gather's CSR values) adds for its row i */
static __device__ __forceinline__ double FEGListSum(const int *__restrict__ off, const int *__restrict__ list, const double *__restrict__ v, int i)
{
  double s = 0.0;

  for (int k = off[i]; k < off[i + 1]; k++) s += v[list[k]];
  return s;
}

/* Chat for a kernel that knows the dimension only at run time: the shared function with a compile-time dimension */
static __device__ __forceinline__ void FEGChatDev(int dim, const double C[16], const double *invJ, double wdet, double Ch[4][4])
{
  if (dim == 2) FEGChat(2, C, invJ, wdet, Ch);
  else FEGChat(3, C, invJ, wdet, Ch);
}

/* where CSR position p of an FEGDevOutput lives (one array on one process; diagonal block, off-diagonal block or send
   buffer on several) */
static __device__ __forceinline__ double *FEGDevTarget(const FEGDevOutput &o, int p)
{
  if (!o.split || p < o.nA) return o.vals + p;
  return p < o.nAB ? o.vals2 + (p - o.nA) : o.vals3 + (p - o.nAB);
}

#endif
