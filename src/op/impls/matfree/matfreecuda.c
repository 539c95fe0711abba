/* matfree on the GPU: the data of the kernel in use (reference operators, 1D tables, factors), the factors computed on
   the device from the geometry, which is freed after each assembly, and the kernels of matfree.cu, refop.cu and
   sumfact.cu behind the shared vector handling */
#include "matfree.h"
#include "matfreecuda.h"
#include <fegpu/private/fegcudaimpl.h>

typedef struct {
  FEGDevOp      base;
  int           mfKernel, mfKind; /* what the buffers below were built for (-1: none) */
  double       *Cq;               /* qp: Cq[(q*Nd*Nd+r*Nd+s)*Ne+e] */
  FEGDevQP      qp;               /* qp: base.d and Cq, for the kernel */
  FEGDevRefOp   ro;               /* refop, gemm, mma */
  double       *mfOp, *mfG, *mfA, *mfWork, *mfAf;
  int           mfLda, mfEc;
  FEGDevSumFact sf; /* sumfact */
  double       *sfB1, *sfD1, *sfGq, *sfW1, *sfCl, *sfKc;
  int          *sfIdx, *sfLex, *sfQlex;
  double       *sfgB, *sfgD; /* computed geometry: the coordinate nodes' 1D tables and lexicographic order */
  int          *sfLexg;
} FEGOp_MatFree_CUDA;

static FEGOp_MatFree_CUDA *FEGMatFreeDev(FEGOp op)
{
  return (FEGOp_MatFree_CUDA *)((FEGOp_MatFree *)op->data)->dev;
}

static PetscErrorCode FEGMatFreeDevFree(FEGOp_MatFree_CUDA *dev)
{
  PetscFunctionBegin;
  FEGDevFree(dev->Cq);
  FEGDevFree(dev->mfOp);
  FEGDevFree(dev->mfG);
  FEGDevFree(dev->mfA);
  FEGDevFree(dev->mfWork);
  FEGDevFree(dev->mfAf);
  FEGDevFree(dev->sfB1);
  FEGDevFree(dev->sfD1);
  FEGDevFree(dev->sfGq);
  FEGDevFree(dev->sfW1);
  FEGDevFree(dev->sfKc);
  FEGDevFree(dev->sfCl);
  FEGDevFree(dev->sfIdx);
  FEGDevFree(dev->sfLex);
  FEGDevFree(dev->sfQlex);
  FEGDevFree(dev->sfgB);
  FEGDevFree(dev->sfgD);
  FEGDevFree(dev->sfLexg);
  dev->mfKernel    = -1;
  dev->base.gindex = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* refop elements per thread and groups per block by order, from sweeps of share/bench/bench_matfree -sweep */
static void FEGRefOpTuning(PetscInt dim, PetscInt Nb, int *ne, int *nb, int *nr)
{
  /* order 1..8; tetrahedra Nb = 4..165 (sweeps of orders 1-5 with -sweep), triangles Nb = 3..45 (not swept) */
  static const int ne3[8] = {2, 4, 4, 4, 4, 4, 4, 4}, nb3[8] = {16, 16, 8, 4, 4, 2, 2, 2};
  static const int ne2[8] = {1, 1, 2, 4, 4, 4, 4, 4}, nb2[8] = {64, 32, 16, 8, 4, 4, 4, 2};
  int              p = 0;

  while (p < 7 && (dim == 3 ? (p + 1) * (p + 2) * (p + 3) / 6 : (p + 1) * (p + 2) / 2) < Nb) p++;
  *ne = dim == 3 ? ne3[p > 0 ? p - 1 : 0] : ne2[p > 0 ? p - 1 : 0];
  *nb = dim == 3 ? nb3[p > 0 ? p - 1 : 0] : nb2[p > 0 ? p - 1 : 0];
  *nr = 1;
  while (*nb > 1 && Nb * *nb > 1024) *nb /= 2;
}

/* mma tiles: 8-row tiles per warp (mt), 8-element tiles per warp (nt), warps across the elements (wc) and the rows (wr)
   of a block; at least 4 warps a block, every row tile taken. From sweeps of tetrahedra of orders 1-8
   (bench_matfree -sweep): 2 element tiles (4 for P1), one row tile a warp except 4 for 9 to 16 row tiles (P6, P7) */
static void FEGRefOpMmaTuning(const FEGOp_MatFree *mf, FEGDevRefOp *r)
{
  const int RT = r->Mp / 8;

  r->mt = mf->nr ? (int)mf->nr : (RT > 8 && RT <= 16 ? 4 : 1);
  r->nt = mf->ne ? (int)mf->ne : (RT == 1 ? 4 : 2);
  r->wr = PetscMin(8, (RT + r->mt - 1) / r->mt);
  r->wc = mf->nb ? (int)mf->nb : PetscMax(1, 4 / r->wr);
  /* within the 227 KB of shared memory a block may have on sm_90 */
  while (!mf->nb && r->wc > 1 && FEGDevRefOpMmaShared(r) > 227 * 1024) r->wc /= 2;
}

/* factored mma: warps per block by the row tiles of its first product (4 for P3, P4; 8 for P5; 16 for P6-P8
   tetrahedra) and 16-element tile groups per block (2 at P6 tetrahedra, else 1), from sweeps (with 4 warps P5-P8 were
   slower factored than unfactored) */
static void FEGRefOpMmaFactoredTuning(const FEGOp_MatFree *mf, PetscInt dim, PetscInt Nb, FEGDevRefOp *r)
{
  r->mt = 1;
  r->nt = mf->ne ? (int)mf->ne : 2;
  r->wr = r->Mp1 <= 64 ? 4 : (r->Mp1 <= 128 ? 8 : 16);
  r->wc = mf->nb ? (int)mf->nb : (dim == 3 && Nb == 84 ? 2 : 1);
}

/* Device data of the matfree kernel in use, rebuilt when the kernel or the stored pairs change */
static PetscErrorCode FEGMatFreeDevSetUpKernel(FEGOp op, FEGOp_MatFree_CUDA *dev)
{
  const FEGOp_MatFree *mf   = (FEGOp_MatFree *)op->data;
  FEGDisc             *disc = op->disc;
  const PetscInt       Ne = disc->Ne, Nb = disc->Nb, Nq = disc->Nq, np = mf->npairs;

  PetscFunctionBegin;
  if (dev->mfKernel == (int)mf->kernel && dev->mfKind == mf->kind) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGMatFreeDevFree(dev));
  if (FEGMatFreeIsRefOp(mf->kernel)) {
    FEGDevRefOp *r = &dev->ro;
    double      *Op;

    const PetscInt ldo = (Nb + 1) / 2 * 2;

    PetscCall(PetscCalloc1(np * Nb * ldo, &Op));
    for (PetscInt m = 0; m < np; m++)
      for (PetscInt b = 0; b < Nb; b++)
        for (PetscInt a = 0; a < Nb; a++) Op[(m * Nb + b) * ldo + a] = mf->Op[(m * Nb + b) * Nb + a];
    PetscCall(FEGDevMallocCopy((void **)&dev->mfOp, Op, sizeof(double) * np * Nb * ldo, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->mfG, NULL, sizeof(double) * Ne * np, NULL));
    PetscCall(PetscMemzero(r, sizeof(*r)));
    r->Ne     = (int)Ne;
    r->Nb     = (int)Nb;
    r->nops   = (int)np;
    r->contig = dev->base.contig ? 1 : 0;
    r->unique = dev->base.unique ? 1 : 0;
    for (PetscInt m = 0; m < np; m++) r->tperm[m] = (int)mf->tperm[m];
    r->ldo = (int)ldo;
    r->Op  = dev->mfOp;
    r->G   = dev->mfG;
    r->idx = dev->base.d.idx;
    FEGRefOpTuning(disc->dim, Nb, &r->ne, &r->nb, &r->nr);
    if (mf->ne) r->ne = (int)mf->ne;
    if (mf->nb) r->nb = (int)mf->nb;
    if (mf->nr) r->nr = (int)mf->nr;
    /* the smallest elements: one thread each, unless a block shape was asked for */
    r->thread = mf->kernel == FEG_MATFREE_REFOP && !mf->ne && !mf->nb && !mf->nr && FEGDevRefOpThreadCompiled((int)Nb);
    r->Oph    = mf->Op;
    r->dim    = (int)disc->dim;
    /* the factors, if any, come from FEGMatFreeSelect() */
    r->fk  = r->thread && mf->factored && FEGDevRefOpFactoredCompiled((int)Nb, (int)disc->dim, (int)mf->frank) ? (int)mf->frank : 0;
    r->Cfh = mf->Cf;
    if (r->fk && mf->nodal) {
      PetscBool found;
      PetscInt  perm[10];

      PetscCall(FEGMatFreeNodalP2(op, &found, perm));
      r->nodal = found ? 1 : 0;
      for (PetscInt c = 0; found && c < Nb; c++) r->nperm[c] = (int)perm[c];
    }
    PetscCheck(mf->kernel != FEG_MATFREE_REFOP || r->nr <= 2, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "-feg_op_matfree_nr %d: refop takes 1 or 2 rows per thread (4 is for mma)", r->nr);
    /* factored unless a tile shape of the unfactored kernel was asked for (row tiles, or more than 2 element tiles) */
    if (mf->kernel == FEG_MATFREE_MMA && mf->factored && mf->frank && !mf->nr && mf->ne <= 2) {
      /* factored: A1 = [C_1; ...; C_dim] (dim k x Nb) and A2 = [C_1^T ... C_dim^T M] (Nb x (dim k + Nb), M the mass
         operator if the kind has one), fragment-major as below */
      const int DK = (int)(disc->dim * mf->frank), vv = mf->kind == FEG_MF_VVGG_SYM, RT1 = (DK + 7) / 8, KT1 = (int)(Nb + 3) / 4, RT2 = (int)(Nb + 7) / 8, K2 = DK + (vv ? 4 * KT1 : 0), KT2 = (K2 + 3) / 4;
      double   *Af;

      r->fk  = (int)mf->frank;
      r->Mp1 = 8 * RT1;
      r->Kp  = 4 * KT1;
      r->Mp  = 8 * RT2;
      r->K2p = 4 * KT2;
      r->Kb  = PetscMax(DK + r->Kp, r->K2p);
      PetscCall(PetscCalloc1((size_t)(RT1 * KT1 + RT2 * KT2) * 32, &Af));
      for (int rt = 0; rt < RT1; rt++)
        for (int kt = 0; kt < KT1; kt++)
          for (int l = 0; l < 32; l++) {
            const int a = 8 * rt + l / 4, b = 4 * kt + l % 4;

            if (a < DK && b < Nb) Af[(rt * KT1 + kt) * 32 + l] = mf->Cf[(size_t)a * Nb + b];
          }
      for (int rt = 0; rt < RT2; rt++)
        for (int kt = 0; kt < KT2; kt++)
          for (int l = 0; l < 32; l++) {
            const int a = 8 * rt + l / 4, j = 4 * kt + l % 4;
            double   *A = &Af[(RT1 * KT1 + rt * KT2 + kt) * 32 + l];

            if (a >= Nb) continue;
            if (j < DK) *A = mf->Cf[(size_t)j * Nb + a];
            else if (vv && j - DK < Nb) *A = mf->Op[(size_t)(j - DK) * Nb + a]; /* the mass pair is the first */
          }
      PetscCall(FEGDevMallocCopy((void **)&dev->mfAf, Af, sizeof(double) * (RT1 * KT1 + RT2 * KT2) * 32, NULL));
      PetscCall(PetscFree(Af));
      r->Af  = dev->mfAf;
      r->Af2 = dev->mfAf + (size_t)RT1 * KT1 * 32;
      FEGRefOpMmaFactoredTuning(mf, disc->dim, Nb, r);
    } else if (mf->kernel == FEG_MATFREE_MMA) {
      /* Af[((m*RT+rt)*KT+kt)*32+lane] = Op_m[8 rt + lane/4][4 kt + lane%4]: each A fragment one coalesced load */
      const int RT = (int)(Nb + 7) / 8, KT = (int)(Nb + 3) / 4;
      double   *Af;

      r->Mp = 8 * RT;
      r->Kp = 4 * KT;
      PetscCall(PetscCalloc1((size_t)np * RT * KT * 32, &Af));
      for (PetscInt m = 0; m < np; m++)
        for (int rt = 0; rt < RT; rt++)
          for (int kt = 0; kt < KT; kt++)
            for (int l = 0; l < 32; l++) {
              const PetscInt a = 8 * rt + l / 4, b = 4 * kt + l % 4;

              if (a < Nb && b < Nb) Af[((m * RT + rt) * KT + kt) * 32 + l] = mf->Op[(m * Nb + b) * Nb + a];
            }
      PetscCall(FEGDevMallocCopy((void **)&dev->mfAf, Af, sizeof(double) * np * RT * KT * 32, NULL));
      PetscCall(PetscFree(Af));
      r->Af = dev->mfAf;
      FEGRefOpMmaTuning(mf, r);
    }
    if (mf->kernel == FEG_MATFREE_GEMM) {
      /* stacked operators A[(m*Nb+a) + b*lda] = Op_m[a,b]; chunks of elements so Z stays within 256 MB */
      const PetscInt lda = (np * Nb + 3) / 4 * 4, ldx = (Nb + 3) / 4 * 4;
      double        *A;

      PetscCall(PetscCalloc1(lda * Nb, &A));
      for (PetscInt m = 0; m < np; m++)
        for (PetscInt b = 0; b < Nb; b++)
          for (PetscInt a = 0; a < Nb; a++) A[(m * Nb + a) + b * lda] = mf->Op[(m * Nb + b) * Nb + a];
      PetscCall(FEGDevMallocCopy((void **)&dev->mfA, A, sizeof(double) * lda * Nb, NULL));
      PetscCall(PetscFree(A));
      dev->mfLda = (int)lda;
      dev->mfEc  = (int)PetscMax(1, PetscMin(Ne, (PetscInt)(((size_t)mf->gemmMB << 20) / (sizeof(double) * (lda + ldx)))));
      PetscCall(FEGDevMallocCopy((void **)&dev->mfWork, NULL, sizeof(double) * (lda + ldx) * dev->mfEc, NULL));
      r->A    = dev->mfA;
      r->lda  = dev->mfLda;
      r->Ec   = dev->mfEc;
      r->work = dev->mfWork;
    }
    PetscCall(PetscFree(Op));
  } else if (mf->kernel == FEG_MATFREE_SUMFACT) {
    FEGDevSumFact *sf = &dev->sf;
    double        *B1, *D1, *Gq, *W1;
    int           *lex, *qlex, *gidx;

    PetscCall(PetscMalloc6(mf->P * mf->Q, &B1, mf->P * mf->Q, &D1, mf->Q * mf->Q, &Gq, mf->Q, &W1, Nb, &lex, Nq, &qlex));
    for (PetscInt k = 0; k < mf->P * mf->Q; k++) {
      B1[k] = mf->B1[k];
      D1[k] = mf->D1[k];
    }
    for (PetscInt k = 0; k < mf->Q * mf->Q; k++) Gq[k] = mf->Gq[k];
    for (PetscInt k = 0; k < mf->Q; k++) W1[k] = mf->W1[k];
    for (PetscInt l = 0; l < Nb; l++) lex[l] = (int)mf->lex[l];
    for (PetscInt l = 0; l < Nq; l++) qlex[l] = (int)mf->qlex[l];
    PetscCall(FEGDevMallocCopy((void **)&dev->sfB1, B1, sizeof(double) * mf->P * mf->Q, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfD1, D1, sizeof(double) * mf->P * mf->Q, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfGq, Gq, sizeof(double) * mf->Q * mf->Q, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfW1, W1, sizeof(double) * mf->Q, NULL));
    /* in lexicographic node order; with atomic adds, global indices (-1: constrained; on several processes < -1: the
       halo's ghost buffers): no copies around the kernel. Hexahedra element-major: a warp's threads hold the nodes of
       one or two elements, whose indices are then a few sectors, not one per thread */
    PetscCall(FEGDevInterleaveIndices(disc, disc->lidx, mf->lex, (PetscBool)(disc->dim != 3), &dev->sfIdx, NULL));
    PetscCall(FEGDevOpGlobalIndices(op, &dev->base, (size_t)Ne * Nb, dev->sfIdx, &gidx));
    if (gidx) {
      FEGDevFree(dev->sfIdx);
      dev->sfIdx = gidx;
    }
    PetscCall(FEGDevMallocCopy((void **)&dev->sfLex, lex, sizeof(int) * Nb, NULL));
    PetscCall(FEGDevMallocCopy((void **)&dev->sfQlex, qlex, sizeof(int) * Nq, NULL));
    PetscCall(PetscFree6(B1, D1, Gq, W1, lex, qlex));
    PetscCall(PetscMemzero(sf, sizeof(*sf)));
    sf->dim    = (int)disc->dim;
    sf->Ne     = (int)Ne;
    sf->P      = (int)mf->P;
    sf->Q      = (int)mf->Q;
    sf->npairs = (int)np;
    sf->kind   = mf->kind;
    sf->colloc = mf->colloc ? 1 : 0;
    sf->unique = dev->base.unique ? 1 : 0;
    sf->B1     = dev->sfB1;
    sf->D1     = dev->sfD1;
    sf->Gq     = dev->sfGq;
    sf->W1     = dev->sfW1;
    sf->hB1    = mf->B1;
    sf->hGq    = mf->Gq;
    sf->hW1    = mf->W1;
    sf->idx    = dev->sfIdx;
    sf->lex    = dev->sfLex; /* the launch shape comes at each assembly (FEGDevSumFactConfigure()): it depends on the geometry */
  }
  if (mf->kernel == FEG_MATFREE_QP) {
    PetscCall(FEGDevMallocCopy((void **)&dev->Cq, NULL, sizeof(double) * Ne * Nq * (disc->dim + 1) * (disc->dim + 1), NULL));
    dev->qp.d  = &dev->base.d;
    dev->qp.Cq = dev->Cq;
  }
  dev->mfKernel = (int)mf->kernel;
  dev->mfKind   = mf->kind;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ----------------------------------------------------------------------------------------------- the kernels */
static PetscErrorCode FEGMFDevApply_QP(FEGOp op, const FEGDevLaunch *L)
{
  PetscFunctionBegin;
  PetscCall(FEGDevQPApply(&FEGMatFreeDev(op)->qp, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* refop, and the diagonal of gemm and mma too */
static PetscErrorCode FEGMFDevApply_RefOp(FEGOp op, const FEGDevLaunch *L)
{
  PetscFunctionBegin;
  PetscCall(FEGDevRefOpApply(&FEGMatFreeDev(op)->ro, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGMFDevApply_Gemm(FEGOp op, const FEGDevLaunch *L)
{
  PetscFunctionBegin;
  PetscCall(FEGDevGemmApply(&FEGMatFreeDev(op)->ro, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGMFDevApply_Mma(FEGOp op, const FEGDevLaunch *L)
{
  PetscFunctionBegin;
  PetscCall(FEGDevRefOpMmaApply(&FEGMatFreeDev(op)->ro, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGMFDevApply_SumFact(FEGOp op, const FEGDevLaunch *L)
{
  PetscFunctionBegin;
  PetscCall(FEGDevSumFactApply(&FEGMatFreeDev(op)->sf, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of one action */
static PetscLogDouble FEGMFDevFlops_QP(FEGOp op)
{
  const FEGDisc *d = op->disc;

  return (PetscLogDouble)d->Ne * d->Nq * (4.0 * d->Nb * d->dim + 4.0 * d->Nb + 2.0 * (d->dim + 1) * (d->dim + 1));
}

/* the multiply-adds (2 flops each) of the refop kernel in use, per action: the operators as they are (nops Nb^2, and
   Nb per operator to combine them by the factors), or the gradient operators factored through rank k (dim k Nb to the
   reference gradients, dim^2 k to mix them by the factors, dim k Nb back, and the mass operator's Nb (Nb + 1) where the
   form has one; the nodal form of P2 goes through the 4 P1 nodal values per direction) */
static PetscLogDouble FEGMFDevFlops_RefOp(FEGOp op)
{
  const FEGOp_MatFree      *mf  = (FEGOp_MatFree *)op->data;
  const FEGOp_MatFree_CUDA *dev = FEGMatFreeDev(op);
  const FEGDevRefOp        *r   = &dev->ro;
  const PetscLogDouble      Ne = op->disc->Ne, Nb = op->disc->Nb, dim = op->disc->dim;
  const PetscLogDouble      k = r->nodal ? 4.0 : (r->fk ? r->fk : (r->Af2 ? mf->frank : 0.0));

  if (k > 0) return 2.0 * Ne * (2.0 * dim * k * Nb + dim * dim * k + (mf->kind == FEG_MF_VVGG_SYM ? Nb * (Nb + 1.0) : 0.0));
  return 2.0 * Ne * mf->npairs * Nb * (Nb + 1.0);
}

static PetscLogDouble FEGMFDevFlops_SumFact(FEGOp op)
{
  const FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  const PetscLogDouble P = mf->P, Q = mf->Q;
  const PetscBool      mass = (PetscBool)(mf->kind == FEG_MF_VV);
  PetscLogDouble       c;

  /* multiply-adds of one way, counted twice below (forward and back) at 2 flops each. Hexahedra: interpolation to the
     points (P^3 Q + P^2 Q^2 + P Q^3, none when collocated) and 3 derivative contractions there (3 Q^4, none for mass).
     Quadrilaterals: 2 + 3 contractions of each kind (mass 1 + 1, collocated 2 derivative contractions) */
  if (op->disc->dim == 3) c = (mf->colloc ? 0 : P * P * P * Q + P * P * Q * Q + P * Q * Q * Q) + (mass ? 0 : 3 * Q * Q * Q * Q);
  else if (mass) c = mf->colloc ? 0 : P * P * Q + P * Q * Q;
  else if (mf->colloc) c = 2 * P * P * P;
  else c = 2 * P * P * Q + 3 * P * Q * Q;
  /* computed geometry: the Jacobian (9 G multiply-adds a point on hexahedra, after 27 G^2 per column), its adjugate
     and the pairs (about 45) */
  if (mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED) c += op->disc->Nq * (9.0 * mf->geoG + 45.0) / 2.0 + (op->disc->dim == 3 ? Q * Q * 27.0 * mf->geoG * mf->geoG / 2.0 : 0.0);
  return op->disc->Ne * (2.0 * 2.0 * c + 2.0 * op->disc->Nq * mf->npairs * (mf->kind == FEG_MF_FULL ? 1 : 2));
}

/* each kernel on the GPU; refop and gemm may store into element-owned dofs instead of adding */
static const struct {
  FEGDevApplyFn apply;
  FEGDevApplyFn diag;
  PetscLogDouble (*flops)(FEGOp);
  PetscBool overwrite;
} FEGMatFreeDevice[] = {
  [FEG_MATFREE_QP] = {FEGMFDevApply_QP,      FEGMFDevApply_QP,      FEGMFDevFlops_QP,      PETSC_FALSE},
    [FEG_MATFREE_REFOP] = {FEGMFDevApply_RefOp,   FEGMFDevApply_RefOp,   FEGMFDevFlops_RefOp,   PETSC_TRUE },
    [FEG_MATFREE_GEMM] = {FEGMFDevApply_Gemm,    FEGMFDevApply_RefOp,   FEGMFDevFlops_RefOp,   PETSC_TRUE },
    [FEG_MATFREE_MMA] = {FEGMFDevApply_Mma,     FEGMFDevApply_RefOp,   FEGMFDevFlops_RefOp,   PETSC_TRUE },
    [FEG_MATFREE_SUMFACT] = {FEGMFDevApply_SumFact, FEGMFDevApply_SumFact, FEGMFDevFlops_SumFact, PETSC_FALSE}
};

/* ----------------------------------------------------------------------------------------------------- the type */
/* the GPU runs gemm and mma (auto takes mma from tetrahedra of order 3, 20 dofs, where it overtakes refop; it is
   ahead of gemm at every order) and sum factorisation compiled for 2 to 9 nodes and P or P+1 Gauss points per
   direction */
static const FEGMatFreeCaps FEGMatFreeDeviceCaps = {PETSC_TRUE, 20, 2, 9, PETSC_TRUE, "the GPU kernels are compiled for 2 to 9 nodes and P or P+1 Gauss points per direction", PETSC_TRUE};

static PetscErrorCode FEGOpSetUp_MatFree_CUDA(FEGOp op)
{
  FEGOp_MatFree      *mf = (FEGOp_MatFree *)op->data;
  FEGOp_MatFree_CUDA *dev;

  PetscFunctionBegin;
  PetscCall(PetscNew(&dev));
  mf->dev       = dev;
  dev->mfKernel = -1;
  PetscCall(FEGDevOpSetUp(op, PETSC_FALSE, NULL, mf->scatter, &dev->base));
  op->stores = "matfree data on the GPU";
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAssemble_MatFree_CUDA(FEGOp op, Mat A)
{
  FEGOp_MatFree      *mf  = (FEGOp_MatFree *)op->data;
  FEGOp_MatFree_CUDA *dev = FEGMatFreeDev(op);
  FEGDevCoeff         c;
  int                 pr[16], ps[16];

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Integrate, op, 0, 0, 0));
  PetscCall(FEGMatFreeSelect(op, &FEGMatFreeDeviceCaps));
  /* matfree keeps only its factors: the geometry is recomputed for each assembly and freed after it */
  PetscCall(FEGDevDiscGeometry(&dev->base.d));
  {
    PetscLogDouble t0 = 0.0;

    /* the kernel's own data (index layouts, reference operators) is setup, made here once the kernel is known */
    PetscCall(FEGPhaseBegin(FEG_SetupDevice, (PetscObject)op, &t0));
    PetscCall(FEGMatFreeDevSetUpKernel(op, dev));
    PetscCall(FEGPhaseEnd(FEG_SetupDevice, (PetscObject)op, t0, &op->tdevice));
  }
  for (PetscInt m = 0; m < mf->npairs; m++) {
    pr[m] = (int)mf->pr[m];
    ps[m] = (int)mf->ps[m];
  }
  PetscCall(FEGDevCoeffPrepare(op->disc, op->form, &dev->base.cc, &c));
  PetscCall(PetscLogGpuTimeBegin());
  if (mf->kernel == FEG_MATFREE_QP) PetscCall(FEGDevChat(&dev->base.d, &c, dev->Cq));
  else if (mf->kernel == FEG_MATFREE_SUMFACT) {
    FEGDevSumFact *sf  = &dev->sf;
    PetscBool      per = PETSC_FALSE;

    sf->geoG = 0;
    if (mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED) {
      const PetscInt Nv = op->disc->Nv;

      /* nothing stored: the kernels compute the pairs from the coordinate nodes the discretization keeps on the device */
      if (!dev->sfgB) {
        PetscCall(FEGDevMallocCopy((void **)&dev->sfgB, mf->gB, sizeof(double) * mf->Q * mf->geoG, NULL));
        PetscCall(FEGDevMallocCopy((void **)&dev->sfgD, mf->gD, sizeof(double) * mf->Q * mf->geoG, NULL));
        PetscCall(FEGDevMallocCopy((void **)&dev->sfLexg, mf->lexg, sizeof(int) * Nv, NULL));
      }
      FEGDevFree(dev->sfCl);
      FEGDevFree(dev->sfKc);
      sf->geoG  = (int)mf->geoG;
      sf->Nv    = (int)Nv;
      sf->iso   = mf->iso ? 1 : 0;
      sf->X     = dev->base.d.X;
      sf->gB    = dev->sfgB;
      sf->gD    = dev->sfgD;
      sf->lexg  = dev->sfLexg;
      sf->hgB   = mf->gB;
      sf->hgD   = mf->gD;
      sf->hlexg = mf->lexg;
      for (PetscInt k = 0; k < 16; k++) sf->C[k] = mf->Cc[k];
    } else {
      /* the pairs at every point; on hexahedra one value per element when that is all they hold (affine cells, C
         constant in each): Q^3 times fewer bytes for the kernel to read. With one Jacobian per cell and a constant C
         that value, det J T^T C T, comes straight from the geometry: the per-point pairs (Q^3 times the memory, written
         with a stride) and their check were most of such an assembly */
      if (sf->dim == 3 && !dev->sfKc) PetscCall(FEGDevMallocCopy((void **)&dev->sfKc, NULL, sizeof(double) * sf->Ne * sf->npairs, NULL));
      if (sf->dim == 3 && dev->base.d.nG == 1 && c.mode == FEG_DEV_COEFF_CONSTANT) {
        PetscCall(FEGDevChatPairs(&dev->base.d, &c, 0, (int)mf->npairs, pr, ps, NULL, dev->sfKc));
        per = PETSC_TRUE;
      } else {
        if (!dev->sfCl) PetscCall(FEGDevMallocCopy((void **)&dev->sfCl, NULL, sizeof(double) * sf->Ne * sf->npairs * op->disc->Nq, NULL));
        PetscCall(FEGDevChatPairs(&dev->base.d, &c, 1, (int)mf->npairs, pr, ps, dev->sfQlex, dev->sfCl));
        if (sf->dim == 3) PetscCall(FEGDevSumFactPerElement(sf->Ne, sf->npairs, sf->Q, sf->dim, sf->W1, dev->sfCl, dev->sfKc, &per));
      }
      if (per) FEGDevFree(dev->sfCl);
      else FEGDevFree(dev->sfKc);
    }
    sf->Cl = dev->sfCl;
    sf->Kc = dev->sfKc;
    PetscCall(FEGDevSumFactConfigure(sf, (int)mf->nb)); /* its shared memory depends on the geometry */
  } else PetscCall(FEGDevChatPairs(&dev->base.d, &c, 0, (int)mf->npairs, pr, ps, NULL, dev->mfG));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevDiscFreeGeometry(&dev->base.d));
  PetscCall(FEGDevCoeffRelease(op->form, &dev->base.cc));
  PetscCall(PetscLogEventEnd(FEG_Integrate, op, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApply_MatFree_CUDA(FEGOp op, Vec x, Vec y, PetscBool add)
{
  const FEGMatFreeKernel k = ((FEGOp_MatFree *)op->data)->kernel;

  PetscFunctionBegin;
  PetscCall(FEGDevOpApply(op, &FEGMatFreeDev(op)->base, FEGMatFreeDevice[k].apply, FEGMatFreeDevice[k].flops(op), FEGMatFreeDevice[k].overwrite, x, y, PETSC_FALSE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApplyTranspose_MatFree_CUDA(FEGOp op, Vec x, Vec y, PetscBool add)
{
  const FEGMatFreeKernel k = ((FEGOp_MatFree *)op->data)->kernel;

  PetscFunctionBegin;
  PetscCall(FEGDevOpApply(op, &FEGMatFreeDev(op)->base, FEGMatFreeDevice[k].apply, FEGMatFreeDevice[k].flops(op), FEGMatFreeDevice[k].overwrite, x, y, PETSC_TRUE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpGetDiagonal_MatFree_CUDA(FEGOp op, Vec d)
{
  PetscFunctionBegin;
  PetscCall(FEGDevOpDiagonal(op, &FEGMatFreeDev(op)->base, FEGMatFreeDevice[((FEGOp_MatFree *)op->data)->kernel].diag, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the per-element data the kernels read: quadrature-point tensors (qp), factors per element (refop, gemm, mma), pairs
   per point or per element (sumfact) */
static PetscLogDouble FEGMatFreeDevElementBytes(const FEGOp_MatFree_CUDA *dev)
{
  const FEGDevDisc *d     = &dev->base.d;
  PetscLogDouble    bytes = 0.0;

  if (dev->Cq) bytes += (PetscLogDouble)d->Ne * d->Nq * (d->dim + 1) * (d->dim + 1) * sizeof(double);
  if (dev->mfG) bytes += (PetscLogDouble)d->Ne * dev->ro.nops * sizeof(double);
  if (dev->sfCl) bytes += (PetscLogDouble)d->Ne * d->Nq * dev->sf.npairs * sizeof(double);
  if (dev->sfKc) bytes += (PetscLogDouble)d->Ne * dev->sf.npairs * sizeof(double);
  if (dev->mfKernel == FEG_MATFREE_SUMFACT && dev->sf.geoG) bytes += (PetscLogDouble)d->Ne * d->Nv * d->dim * sizeof(double); /* the coordinate nodes */
  return bytes;
}

/* that data and an index per element dof, unless the kernel computes the index (refop and mma when the dofs are the
   elements' own in order: discontinuous, one process) */
static PetscErrorCode FEGOpApplyBytes_MatFree_CUDA(FEGOp op, PetscLogDouble *bytes)
{
  FEGOp_MatFree_CUDA *dev     = FEGMatFreeDev(op);
  const PetscBool     noindex = (PetscBool)(dev->base.contig && (dev->mfKernel == FEG_MATFREE_REFOP || dev->mfKernel == FEG_MATFREE_MMA));

  PetscFunctionBegin;
  *bytes = FEGMatFreeDevElementBytes(dev) + (noindex ? 0.0 : (PetscLogDouble)dev->base.d.Ne * dev->base.d.Nb * sizeof(int));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpView_MatFree_CUDA(FEGOp op, PetscViewer viewer)
{
  FEGOp_MatFree_CUDA *dev   = FEGMatFreeDev(op);
  const FEGDevDisc   *d     = &dev->base.d;
  PetscLogDouble      bytes = (PetscLogDouble)FEGDevOpBytes(&dev->base) + FEGMatFreeDevElementBytes(dev);

  PetscFunctionBegin;
  PetscCall(FEGOpView_MatFree(op, viewer));
  PetscCall(FEGDevOpView(op, &dev->base, viewer));
  if (dev->mfG) bytes += (PetscLogDouble)dev->ro.nops * d->Nb * dev->ro.ldo * sizeof(double);
  if (dev->mfWork) bytes += (PetscLogDouble)dev->mfEc * (dev->mfLda + d->Nb) * sizeof(double);
  if (dev->mfAf) bytes += (dev->ro.Af2 ? (PetscLogDouble)dev->ro.Mp1 * dev->ro.Kp + (PetscLogDouble)dev->ro.Mp * dev->ro.K2p : (PetscLogDouble)dev->ro.nops * dev->ro.Mp * dev->ro.Kp) * sizeof(double);
  if (dev->sfIdx) bytes += (PetscLogDouble)d->Ne * d->Nb * sizeof(int);
  switch (dev->mfKernel) {
  case FEG_MATFREE_REFOP:
    if (dev->ro.thread) {
      if (dev->ro.nodal) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree refop: gradient operators factored through the P1 nodal values of the P2 derivatives (M^rs = D_r^T M1 D_s), the reference tables compiled in\n"));
      else if (dev->ro.fk) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree refop: gradient operators factored (M^rs = C_r^T C_s, rank %d)\n", dev->ro.fk));
      PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree refop: one thread per element, the operators in the kernel's parameters (constant operands of the FMAs), scatter by %s\n", dev->base.unique ? "plain stores" : (dev->base.tlist ? "transpose gather" : "atomics")));
      break;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree refop: %d elements per thread (Ne), %d element groups per block (Nb), %d row(s) per thread, %d threads per block, geometric factors fetched just in time, scatter by %s\n", dev->ro.ne, dev->ro.nb,
                                     dev->ro.nr, dev->ro.nb * ((dev->ro.Nb + dev->ro.nr - 1) / dev->ro.nr), dev->base.unique ? (dev->base.contig ? "plain stores (contiguous element-owned dofs)" : "plain stores (element-owned dofs)") : (dev->base.tlist ? "transpose gather" : "atomics")));
    break;
  case FEG_MATFREE_GEMM:
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree gemm: cuBLAS DGEMM (%d x %d) x (%d x chunk) with leading dimension %d, %d elements per chunk\n", dev->ro.nops * dev->ro.Nb, dev->ro.Nb, dev->ro.Nb, dev->mfLda, dev->mfEc));
    break;
  case FEG_MATFREE_MMA:
    if (dev->ro.Af2) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree mma: gradient operators factored (M^rs = C_r^T C_s, rank %d): U = A1 X with A1 %d x %d, Z = G U, Y = A2 [Z; g0 X] with A2 %d x %d, %d elements and %d warps per block, %zu bytes of shared memory, scatter by %s\n",
                                       dev->ro.fk, dev->ro.Mp1, dev->ro.Kp, dev->ro.Mp, dev->ro.K2p, 8 * dev->ro.nt * dev->ro.wc, dev->ro.wr, FEGDevRefOpMmaShared(&dev->ro), dev->base.unique ? "plain stores" : (dev->base.tlist ? "transpose gather" : "atomics")));
      break;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree mma: mma.sync m8n8k4 FP64, operators padded to %d x %d, %d x %d tiles of 8 x 8 per warp, %d x %d warps per block (%d elements), %zu bytes of shared memory, scatter by %s\n", dev->ro.Mp,
                                     dev->ro.Kp, dev->ro.mt, dev->ro.nt, dev->ro.wr, dev->ro.wc, 8 * dev->ro.nt * dev->ro.wc, FEGDevRefOpMmaShared(&dev->ro), dev->base.unique ? "plain stores" : (dev->base.tlist ? "transpose gather" : "atomics")));
    break;
  case FEG_MATFREE_SUMFACT:
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree sumfact: %d elements per block, %d threads, %d bytes of shared memory per block; pairs %s\n", dev->sf.neb, dev->sf.nthreads, dev->sf.shmem,
                                     dev->sf.geoG ? "computed in the kernel from the coordinate nodes" : (dev->sf.Kc ? "stored per element (affine cells, C constant in each)" : "stored per quadrature point")));
    break;
  default:
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU matfree qp: element-interleaved quadrature-point tensors, scatter by %s%s\n", dev->base.tlist ? "transpose gather" : "atomics", dev->base.direct ? ", no global-to-local copies (one process, no constraints)" : ""));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU memory: %.4g MB\n", bytes / 1048576.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpDestroy_MatFree_CUDA(FEGOp op)
{
  FEGOp_MatFree      *mf  = (FEGOp_MatFree *)op->data;
  FEGOp_MatFree_CUDA *dev = (FEGOp_MatFree_CUDA *)mf->dev;

  PetscFunctionBegin;
  if (dev) {
    PetscCall(FEGDevOpDestroy(&dev->base));
    PetscCall(FEGMatFreeDevFree(dev));
    PetscCall(PetscFree(mf->dev));
  }
  PetscCall(FEGOpDestroy_MatFree(op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* installs matfree's GPU ops table (FEGOpRegisterDevice()) */
PetscErrorCode FEGOpUseDevice_MatFree(FEGOp op)
{
  PetscFunctionBegin;
  op->ops->setup          = FEGOpSetUp_MatFree_CUDA;
  op->ops->assemble       = FEGOpAssemble_MatFree_CUDA;
  op->ops->apply          = FEGOpApply_MatFree_CUDA;
  op->ops->applytranspose = FEGOpApplyTranspose_MatFree_CUDA;
  op->ops->getdiagonal    = FEGOpGetDiagonal_MatFree_CUDA;
  op->ops->view           = FEGOpView_MatFree_CUDA;
  op->ops->applybytes     = FEGOpApplyBytes_MatFree_CUDA;
  op->ops->destroy        = FEGOpDestroy_MatFree_CUDA;
  op->backend             = "GPU";
  PetscFunctionReturn(PETSC_SUCCESS);
}
