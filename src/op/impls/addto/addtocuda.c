/* addto on the GPU: element matrices integrated on the device and added straight into the CSR values of an
   AIJCUSPARSE matrix at positions found once at setup (atomics, or element colours without atomics), or handed to
   PETSc's MatSetValuesCOO(). On several processes the positions point into the diagonal and off-diagonal blocks of
   MPIAIJCUSPARSE for owned rows; entries of rows owned elsewhere are summed into a send buffer and reach their owner
   through a PetscSF, which adds them in a second kernel: only those cross processes. The deterministic modes: element
   colours, or (gather) the element matrices stored and each CSR value summed from them in element order. */
#include "addto.h"
#include "addtocuda.h"
#include <fegpu/private/fegcudaimpl.h>
#include <petsc/private/hashmapij.h>
#include <petscsf.h>

typedef struct {
  FEGDevOp     base;
  FEGAddToMode mode; /* atomic, color, coo or gather (auto until FEGAddtoAutoMode()) */
  int         *pos;  /* CSR position of every element entry, element-interleaved or (posmajor) element-major; -1 dropped (constrained) */
  PetscBool    posmajor;
  int         *colorElems;
  PetscInt    *colorOff, ncolors;
  double      *coo; /* COO values, element by element */
  PetscInt     nnz;
  /* gather: the element matrices (in the layout of pos: element-major where posmajor) and, per CSR position p of the
     npos, the entries summed into it, gentry[goff[p]..goff[p+1]) (FEGDevSortedMap(); pos itself is then freed) */
  double  *gK;
  int     *goff, *gentry;
  PetscInt npos;
  /* several processes: positions below nA are in the diagonal block, below nAB in the off-diagonal block, the rest
     in the send buffer of nsend entries of rows owned elsewhere; msf takes each to its own slot on the owner, whose
     nrecv received values are added at recvpos (atomic) */
  PetscInt nA, nAB, nsend, nrecv;
  double  *sendbuf, *recvbuf;
  int     *recvpos;
  /* the deterministic modes: the nu positions received at, upos[i], and their received values recvbuf[ulist[k]],
     k in uoff[i]..uoff[i+1]-1, ordered by sending rank (FEGDevSumCSR() instead of atomics) */
  int     nu;
  int    *upos, *uoff, *ulist;
  PetscSF rowsf;
} FEGOp_AddTo_CUDA;

static PetscErrorCode FEGOpSetUp_AddTo_CUDA(FEGOp op)
{
  FEGOp_AddTo      *a = (FEGOp_AddTo *)op->data;
  FEGOp_AddTo_CUDA *dev;

  PetscFunctionBegin;
  PetscCall(PetscNew(&dev));
  a->dev    = dev;
  dev->mode = a->mode;
  PetscCall(FEGDevOpSetUp(op, PETSC_TRUE, &a->tuning, FEG_SCATTER_ATOMIC, &dev->base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -feg_op_addto_mode auto: gather where the integration kernel takes one element per thread, so writes the element
   matrices coalesced (element-interleaved): there the sums beat the atomics in all but one of the cases measured
   (triangles, quadrilaterals, tetrahedra, prisms, hexahedra; affine or not; constant or pointwise coefficients), and
   the assembly is bitwise reproducible. Atomic where the kernel takes an element's entries together (gather was
   slower there), or where gather's buffers (12 bytes per entry, about 32 while its map is built) would not fit in the
   free device memory. */
static PetscErrorCode FEGAddtoAutoMode(FEGOp_AddTo_CUDA *dev, size_t nentries)
{
  size_t fr, tot;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemGetInfo(&fr, &tot));
  dev->mode = (!dev->posmajor && 32 * nentries <= fr) ? FEG_ADDTO_GATHER : FEG_ADDTO_ATOMIC;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Greedy colouring: elements of one colour share no dof. The positions are then put in colour order, so that the
   launch of one colour reads its elements' positions as contiguous runs rather than one sector per entry */
static PetscErrorCode FEGColorElements(FEGDisc *disc, FEGOp_AddTo_CUDA *dev)
{
  PetscInt     **colorOff = &dev->colorOff, *ncolors = &dev->ncolors;
  int          **elems = &dev->colorElems;
  const PetscInt Ne = disc->Ne, Nb = disc->Nb;
  PetscInt      *doff, *delem, *cnt, *color, *mark, nc = 0;
  int           *order;

  PetscFunctionBegin;
  PetscCall(FEGDiscGetDofElements(disc, &doff, &delem));
  PetscCall(PetscMalloc2(Ne, &color, Ne + 1, &mark));
  for (PetscInt k = 0; k <= Ne; k++) mark[k] = -1;
  for (PetscInt e = 0; e < Ne; e++) {
    PetscInt c = 0;

    for (PetscInt b = 0; b < Nb; b++) {
      const PetscInt i = disc->lidx[e * Nb + b];
      for (PetscInt k = doff[i]; k < doff[i + 1]; k++)
        if (delem[k] < e) mark[color[delem[k]]] = e;
    }
    while (mark[c] == e) c++;
    color[e] = c;
    nc       = PetscMax(nc, c + 1);
  }
  PetscCall(PetscCalloc1(nc + 1, colorOff));
  for (PetscInt e = 0; e < Ne; e++) (*colorOff)[color[e] + 1]++;
  for (PetscInt c = 0; c < nc; c++) (*colorOff)[c + 1] += (*colorOff)[c];
  PetscCall(PetscCalloc1(nc, &cnt));
  PetscCall(PetscMalloc1(Ne, &order));
  for (PetscInt e = 0; e < Ne; e++) order[(*colorOff)[color[e]] + cnt[color[e]]++] = (int)e;
  PetscCall(FEGDevMallocCopy((void **)elems, order, sizeof(int) * Ne, NULL));
  *ncolors = nc;
  {
    int *posc;

    PetscCall(FEGDevMallocCopy((void **)&posc, NULL, sizeof(int) * Ne * Nb * Nb, NULL));
    PetscCall(FEGDevPermutePositions((int)Ne, (int)(Nb * Nb), *elems, dev->pos, posc));
    FEGDevFree(dev->pos);
    dev->pos = posc;
  }
  PetscCall(PetscFree(order));
  PetscCall(PetscFree2(color, mark));
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree2(doff, delem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* position of column c in row i of a CSR block (sorted columns), -1 if absent */
static PetscErrorCode FEGRowFind(const PetscInt *ia, const PetscInt *ja, PetscInt i, PetscInt c, PetscInt *p)
{
  PetscInt loc;

  PetscFunctionBegin;
  PetscCall(PetscFindInt(c, ia[i + 1] - ia[i], ja + ia[i], &loc));
  *p = loc < 0 ? -1 : ia[i] + loc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the split position of owned global row r (local i) and global column c: diagonal block, or off-diagonal block through
   garray (sorted global columns of the off-diagonal block) */
static PetscErrorCode FEGOwnedPosition(const PetscInt *ia, const PetscInt *ja, const PetscInt *ib, const PetscInt *jb, const PetscInt *garray, PetscInt ng, PetscInt cstart, PetscInt cend, PetscInt nA, PetscInt r, PetscInt i, PetscInt c, int *pos)
{
  PetscInt p, j;

  PetscFunctionBegin;
  if (c >= cstart && c < cend) PetscCall(FEGRowFind(ia, ja, i, c - cstart, &p));
  else {
    PetscCall(PetscFindInt(c, ng, garray, &j));
    p = -1;
    if (j >= 0) PetscCall(FEGRowFind(ib, jb, i, j, &p));
    if (p >= 0) p += nA;
  }
  PetscCheck(p >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is not in the preallocated pattern", r, c);
  *pos = (int)p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  int pos, rank, m;
} FEGRecvKey;

static int FEGRecvKeyCompare(const void *a, const void *b)
{
  const FEGRecvKey *x = (const FEGRecvKey *)a, *y = (const FEGRecvKey *)b;

  if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
  return x->rank < y->rank ? -1 : (x->rank > y->rank ? 1 : 0);
}

/* The deterministic modes on several processes: where the multi-SF puts a received value depends on the order its
   messages were matched in, so the values arriving at one position are put in the order of their senders' ranks
   (each sender sends a position at most once), summed in that order and added by one thread (FEGDevSumCSR()) */
static PetscErrorCode FEGAddtoRecvOrder(FEGOp op, FEGOp_AddTo_CUDA *dev, const int *rpos)
{
  PetscMPIInt rank;
  PetscInt   *srank, *rrank;
  FEGRecvKey *key;
  int        *upos, *uoff, *ulist, nu = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)op), &rank));
  PetscCall(PetscMalloc2(dev->nsend, &srank, dev->nrecv, &rrank));
  for (PetscInt k = 0; k < dev->nsend; k++) srank[k] = rank;
  PetscCall(PetscSFGatherBegin(dev->rowsf, MPIU_INT, srank, rrank));
  PetscCall(PetscSFGatherEnd(dev->rowsf, MPIU_INT, srank, rrank));
  PetscCall(PetscMalloc4(dev->nrecv, &key, dev->nrecv, &upos, dev->nrecv + 1, &uoff, dev->nrecv, &ulist));
  for (PetscInt m = 0; m < dev->nrecv; m++) {
    key[m].pos  = rpos[m];
    key[m].rank = (int)rrank[m];
    key[m].m    = (int)m;
  }
  if (dev->nrecv) qsort(key, (size_t)dev->nrecv, sizeof(FEGRecvKey), FEGRecvKeyCompare);
  for (PetscInt k = 0; k < dev->nrecv; k++) {
    if (k == 0 || key[k].pos != key[k - 1].pos) {
      upos[nu]   = key[k].pos;
      uoff[nu++] = (int)k;
    }
    ulist[k] = key[k].m;
  }
  uoff[nu] = (int)dev->nrecv;
  dev->nu  = nu;
  PetscCall(FEGDevMallocCopy((void **)&dev->upos, upos, sizeof(int) * PetscMax(nu, 1), NULL));
  PetscCall(FEGDevMallocCopy((void **)&dev->uoff, uoff, sizeof(int) * (nu + 1), NULL));
  PetscCall(FEGDevMallocCopy((void **)&dev->ulist, ulist, sizeof(int) * PetscMax(dev->nrecv, 1), NULL));
  PetscCall(PetscFree4(key, upos, uoff, ulist));
  PetscCall(PetscFree2(srank, rrank));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several processes: the exact pattern through FEGOpPreallocate(); then every element entry's position in the diagonal
   or off-diagonal block of MPIAIJCUSPARSE, or its slot in the send buffer (one per distinct off-process entry), and the
   PetscSF that takes the send buffer to the owners, who learn the columns once and find the positions themselves */
static PetscErrorCode FEGAddtoSplitSetUp(FEGOp op, Mat A, FEGOp_AddTo_CUDA *dev)
{
  FEGDisc        *disc = op->disc;
  const PetscInt  Ne = disc->Ne, Nb = disc->Nb;
  const PetscInt *gidx, *ia, *ja, *ib, *jb, *garray, *deg;
  PetscInt        rstart, rend, nrows, ng, noff = 0, *srow, *scol, *rcol;
  int            *hpos, *rpos;
  Mat             Ad, Ao;
  PetscBool       done;
  PetscHMapIJ     slots;
  PetscLayout     rmap;
  PetscSF         msf;
  PetscLogDouble  t0 = 0.0;

  PetscFunctionBegin;
  PetscCall(FEGOpPreallocate(op, A));
  PetscCall(FEGPhaseBegin(FEG_SetupPattern, (PetscObject)op, &t0));
  PetscCall(FEGDiscGetGlobalIndices(disc, &gidx));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the diagonal block's CSR structure");
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &ib, &jb, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the off-diagonal block's CSR structure");
  PetscCall(MatGetLocalSize(Ao, NULL, &ng));
  dev->nA  = ia[nrows];
  dev->nAB = ia[nrows] + ib[nrows];
  PetscCheck(dev->nAB + (PetscInt64)Ne * Nb * Nb < (PetscInt64)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "GPU addto positions are 32-bit: %" PetscInt_FMT " nonzeros and %" PetscInt_FMT " elements of %" PetscInt_FMT " dofs are too many for one process",
             dev->nAB, Ne, Nb);
  for (size_t k = 0; k < (size_t)Ne * Nb; k++) noff += (gidx[k] >= 0 && (gidx[k] < rstart || gidx[k] >= rend)) ? Nb : 0;
  PetscCall(PetscMalloc3((size_t)Ne * Nb * Nb, &hpos, noff, &srow, noff, &scol));
  PetscCall(PetscHMapIJCreate(&slots));
  dev->nsend = 0;
  for (PetscInt e = 0; e < Ne; e++) {
    const PetscInt *gi = gidx + (size_t)e * Nb;

    for (PetscInt a = 0; a < Nb; a++)
      for (PetscInt b = 0; b < Nb; b++) {
        const PetscInt r = gi[a], c = gi[b];
        const size_t   k = ((size_t)a * Nb + b) * Ne + e;

        if (r < 0 || c < 0) hpos[k] = -1;
        else if (r >= rstart && r < rend) PetscCall(FEGOwnedPosition(ia, ja, ib, jb, garray, ng, rstart, rend, dev->nA, r, r - rstart, c, &hpos[k]));
        else {
          PetscHashIJKey key = {r, c};
          PetscInt       slot;

          PetscCall(PetscHMapIJGet(slots, key, &slot));
          if (slot < 0) {
            slot       = dev->nsend++;
            srow[slot] = r;
            scol[slot] = c;
            PetscCall(PetscHMapIJSet(slots, key, slot));
          }
          hpos[k] = (int)(dev->nAB + slot);
        }
      }
  }
  PetscCall(PetscHMapIJDestroy(&slots));
  PetscCall(FEGDevMallocCopy((void **)&dev->pos, hpos, sizeof(int) * Ne * Nb * Nb, NULL));
  /* each send slot is a leaf on its row; the multi-SF gives it a root of its own on the owner */
  PetscCall(MatGetLayouts(A, &rmap, NULL));
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)op), &dev->rowsf));
  PetscCall(PetscSFSetGraphLayout(dev->rowsf, rmap, dev->nsend, NULL, PETSC_OWN_POINTER, srow));
  PetscCall(PetscSFComputeDegreeBegin(dev->rowsf, &deg));
  PetscCall(PetscSFComputeDegreeEnd(dev->rowsf, &deg));
  dev->nrecv = 0;
  for (PetscInt i = 0; i < rend - rstart; i++) dev->nrecv += deg[i];
  PetscCall(PetscMalloc2(dev->nrecv, &rcol, dev->nrecv, &rpos));
  PetscCall(PetscSFGatherBegin(dev->rowsf, MPIU_INT, scol, rcol));
  PetscCall(PetscSFGatherEnd(dev->rowsf, MPIU_INT, scol, rcol));
  for (PetscInt i = 0, m = 0; i < rend - rstart; i++)
    for (PetscInt k = 0; k < deg[i]; k++, m++) PetscCall(FEGOwnedPosition(ia, ja, ib, jb, garray, ng, rstart, rend, dev->nA, rstart + i, i, rcol[m], &rpos[m]));
  PetscCall(PetscSFGetMultiSF(dev->rowsf, &msf));
  PetscCall(PetscSFSetUp(msf));
  /* atomic adds the received values at recvpos, colour and gather sum them in the senders' order (FEGAddtoRecvOrder());
     auto, resolved only after the pattern, gets both until then */
  if (dev->mode != FEG_ADDTO_COLOR && dev->mode != FEG_ADDTO_GATHER) PetscCall(FEGDevMallocCopy((void **)&dev->recvpos, rpos, sizeof(int) * dev->nrecv, NULL));
  if (dev->mode != FEG_ADDTO_ATOMIC) PetscCall(FEGAddtoRecvOrder(op, dev, rpos));
  PetscCall(FEGDevMallocCopy((void **)&dev->sendbuf, NULL, sizeof(double) * dev->nsend, NULL));
  PetscCall(FEGDevMallocCopy((void **)&dev->recvbuf, NULL, sizeof(double) * dev->nrecv, NULL));
  PetscCall(PetscFree2(rcol, rpos));
  PetscCall(PetscFree3(hpos, srow, scol));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &ia, &ja, &done));
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nrows, &ib, &jb, &done));
  /* both blocks get their device copy now: the assembly only asks for their device arrays to write */
  for (PetscInt b = 0; b < 2; b++) {
    const PetscInt *i, *j;
    PetscScalar    *v;
    PetscMemType    mt;

    PetscCall(MatSeqAIJGetCSRAndMemType(b ? Ao : Ad, &i, &j, &v, &mt));
    PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The addto matrix is not a device (MPIAIJCUSPARSE) matrix: use -dm_mat_type aijcusparse or leave it unset");
  }
  PetscCall(FEGPhaseEnd(FEG_SetupPattern, (PetscObject)op, t0, &op->tpattern));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* AIJCUSPARSE (unless -dm_mat_type says otherwise) with its final pattern: MatSetPreallocationCOO() of the element
   entries (coo), or the pattern and the CSR position of every element entry from one sort on the device */
static PetscErrorCode FEGOpCreateMatrix_AddTo_CUDA(FEGOp op, Mat A)
{
  FEGOp_AddTo_CUDA *dev  = (FEGOp_AddTo_CUDA *)((FEGOp_AddTo *)op->data)->dev;
  FEGDisc          *disc = op->disc;
  const PetscInt    Ne = disc->Ne, Nb = disc->Nb;
  MatType           mtype;
  PetscMPIInt       size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)op), &size));
  PetscCall(FEGOpGetMatType(op, MATAIJCUSPARSE, &mtype));
  PetscCall(MatSetType(A, mtype));
  if (dev->mode == FEG_ADDTO_COO) {
    PetscCall(FEGOpPreallocateCOO(op, PETSC_FALSE, A));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
    PetscCall(FEGDevMallocCopy((void **)&dev->coo, NULL, sizeof(double) * Ne * Nb * Nb, NULL));
  } else if (size > 1) {
    PetscCall(FEGAddtoSplitSetUp(op, A, dev));
    if (dev->mode == FEG_ADDTO_COLOR) PetscCall(FEGColorElements(disc, dev));
  } else {
    const PetscInt *l2g, *ia, *ja;
    PetscInt       *hia, *hja;
    PetscScalar    *va;
    PetscMemType    memtype;
    int            *dgidx, *drow, *dcol, nnz;
    const int       n  = (int)disc->nglobal;
    PetscLogDouble  t0 = 0.0;

    /* one process: global rows are the owned rows; the element entries' global indices are mapped on the device from
       the local ones already there, the pattern and positions come from one sort on the device, and only the CSR
       structure crosses to the host, which is where PETSc builds a matrix from it */
    PetscCall(FEGDiscGetLocalToGlobal(disc, &l2g)); /* read in its own phase (dof map), not the pattern's */
    PetscCall(FEGPhaseBegin(FEG_SetupPattern, (PetscObject)op, &t0));
    PetscCall(FEGDevLocalToGlobalIndices(disc, (size_t)Ne * Nb, dev->base.d.idx, &dgidx));
    PetscCall(FEGDevMallocCopy((void **)&dev->pos, NULL, sizeof(int) * Ne * Nb * Nb, NULL));
    PetscCall(FEGDevCSRPattern((int)Ne, (int)Nb, n, dgidx, dev->pos, &drow, &dcol, &nnz));
    PetscCallCUDA(cudaFree(dgidx));
    PetscCall(PetscMalloc2(n + 1, &hia, PetscMax(nnz, 1), &hja));
    if (sizeof(PetscInt) == sizeof(int)) {
      PetscCallCUDA(cudaMemcpy(hia, drow, sizeof(int) * (n + 1), cudaMemcpyDeviceToHost));
      PetscCallCUDA(cudaMemcpy(hja, dcol, sizeof(int) * nnz, cudaMemcpyDeviceToHost));
    } else {
      int *h;

      PetscCall(PetscMalloc1(PetscMax(n + 1, nnz), &h));
      PetscCallCUDA(cudaMemcpy(h, drow, sizeof(int) * (n + 1), cudaMemcpyDeviceToHost));
      for (PetscInt i = 0; i <= n; i++) hia[i] = h[i];
      PetscCallCUDA(cudaMemcpy(h, dcol, sizeof(int) * nnz, cudaMemcpyDeviceToHost));
      for (PetscInt k = 0; k < nnz; k++) hja[k] = h[k];
      PetscCall(PetscFree(h));
    }
    PetscCallCUDA(cudaFree(drow));
    PetscCallCUDA(cudaFree(dcol));
    PetscCall(MatSeqAIJSetPreallocationCSR(A, hia, hja, NULL));
    PetscCall(PetscFree2(hia, hja));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
    PetscCall(MatSeqAIJGetCSRAndMemType(A, &ia, &ja, &va, &memtype));
    PetscCheck(PetscMemTypeDevice(memtype), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The addto matrix is not a device (AIJCUSPARSE) matrix: use -dm_mat_type aijcusparse or leave it unset");
    dev->nnz = nnz;
    PetscCall(FEGPhaseEnd(FEG_SetupPattern, (PetscObject)op, t0, &op->tpattern));
    if (dev->mode == FEG_ADDTO_COLOR) PetscCall(FEGColorElements(disc, dev));
  }
  if (dev->pos) {
    /* kernels that take an element's entries together read its positions as one run */
    dev->posmajor = FEGDevElementMajor(&dev->base.d, &dev->base.tune, FEGFormConstantC(op->form), (PetscBool)(dev->mode == FEG_ADDTO_GATHER));
    if (dev->posmajor) {
      int *pe;

      PetscCall(FEGDevMallocCopy((void **)&pe, NULL, sizeof(int) * Ne * Nb * Nb, NULL));
      PetscCall(FEGDevInterleave((int)(Nb * Nb), (int)Ne, dev->pos, pe)); /* pe[e*Nb*Nb+ent] = pos[ent*Ne+e] */
      FEGDevFree(dev->pos);
      dev->pos = pe;
    }
  }
  if (dev->mode == FEG_ADDTO_AUTO) PetscCall(FEGAddtoAutoMode(dev, (size_t)Ne * Nb * Nb));
  if (dev->rowsf) {
    /* several processes: keep only the list the mode adds received values through. FEGAddtoSplitSetUp() builds both
       for auto, which is resolved only here, after the pattern (its free-memory test sees the pattern's buffers) */
    if (dev->mode == FEG_ADDTO_ATOMIC) {
      FEGDevFree(dev->upos);
      FEGDevFree(dev->uoff);
      FEGDevFree(dev->ulist);
      dev->nu = 0;
    } else FEGDevFree(dev->recvpos);
  }
  if (dev->mode == FEG_ADDTO_GATHER) {
    const size_t m = (size_t)Ne * Nb * Nb;

    /* every position's entries, found once; the kernels then store each entry where pos would have sent it */
    dev->npos = size > 1 ? dev->nAB + dev->nsend : dev->nnz;
    PetscCall(FEGDevSortedMap((int)m, dev->pos, (int)dev->npos, &dev->goff, &dev->gentry));
    FEGDevFree(dev->pos);
    PetscCall(FEGDevMallocCopy((void **)&dev->gK, NULL, sizeof(double) * m, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpAssemble_AddTo_CUDA(FEGOp op, Mat A)
{
  FEGOp_AddTo_CUDA *dev = (FEGOp_AddTo_CUDA *)((FEGOp_AddTo *)op->data)->dev;
  FEGDevDisc       *d   = &dev->base.d;
  FEGDevCoeff       c;

  PetscFunctionBegin;
  PetscCall(FEGDevCoeffPrepare(op->disc, op->form, &dev->base.cc, &c));
  if (dev->coo) {
    FEGDevOutput o = {FEG_DEV_OUT_COO, dev->coo, NULL};

    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(FEGDevElementMatrices(d, &c, NULL, d->Ne, &o, &dev->base.tune));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSetValuesCOO(A, dev->coo, INSERT_VALUES));
  } else {
    PetscScalar *va, *vb = NULL;
    Mat          Ad = A, Ao = NULL;
    FEGDevOutput o = {FEG_DEV_OUT_CSR_ATOMIC, NULL, dev->pos, NULL, NULL, 0, 0, 0};

    o.posmajor = dev->posmajor ? 1 : 0;
    if (dev->rowsf) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(Ad, &va));
    if (Ao) PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(Ao, &vb));
    PetscCall(PetscLogGpuTimeBegin());
    o.vals = va;
    if (Ao) {
      /* owned rows straight into the two blocks, rows of other processes into the send buffer */
      o.split = 1;
      o.vals2 = vb;
      o.vals3 = dev->sendbuf;
      o.nA    = (int)dev->nA;
      o.nAB   = (int)dev->nAB;
      if (!dev->gK) {
        PetscCall(FEGDevZero(va, dev->nA));
        PetscCall(FEGDevZero(vb, dev->nAB - dev->nA));
        PetscCall(FEGDevZero(dev->sendbuf, dev->nsend));
      }
    } else if (!dev->gK) PetscCall(FEGDevZero(va, dev->nnz));
    if (dev->gK) {
      /* the element matrices in pos's layout, then every CSR value (and send slot) stored from its entries */
      FEGDevOutput ok = {dev->posmajor ? FEG_DEV_OUT_COO : FEG_DEV_OUT_LMA, dev->gK};

      PetscCall(FEGDevElementMatrices(d, &c, NULL, d->Ne, &ok, &dev->base.tune));
      PetscCall(FEGDevSumCSR((int)dev->npos, NULL, dev->goff, dev->gentry, dev->gK, 0, &o));
    } else if (dev->colorOff) {
      /* a colour adds to an entry at most once and colours run in stream order, so the sums' order is fixed; the
         atomic is a fire-and-forget reduction where a load-add-store would wait on each entry in turn (an order of
         magnitude slower with a few thousand threads per colour) */
      o.poslist = 1; /* positions in colour order (FEGColorElements()) */
      for (PetscInt k = 0; k < dev->ncolors; k++) {
        FEGDevOutput ok = o;

        ok.pos = dev->pos + dev->colorOff[k] * (dev->posmajor ? d->Nb * d->Nb : 1);
        PetscCall(FEGDevElementMatrices(d, &c, dev->colorElems + dev->colorOff[k], (int)(dev->colorOff[k + 1] - dev->colorOff[k]), &ok, &dev->base.tune));
      }
    } else PetscCall(FEGDevElementMatrices(d, &c, NULL, d->Ne, &o, &dev->base.tune));
    PetscCall(PetscLogGpuTimeEnd());
    if (Ao) {
      PetscSF msf;

      /* each send slot to its own slot on the owner, then added there */
      PetscCall(PetscSFGetMultiSF(dev->rowsf, &msf));
      PetscCall(PetscSFReduceWithMemTypeBegin(msf, MPIU_SCALAR, PETSC_MEMTYPE_DEVICE, dev->sendbuf, PETSC_MEMTYPE_DEVICE, dev->recvbuf, MPI_REPLACE));
      PetscCall(PetscSFReduceEnd(msf, MPIU_SCALAR, dev->sendbuf, dev->recvbuf, MPI_REPLACE));
      PetscCall(PetscLogGpuTimeBegin());
      if (dev->uoff) PetscCall(FEGDevSumCSR(dev->nu, dev->upos, dev->uoff, dev->ulist, dev->recvbuf, 1, &o));
      else PetscCall(FEGDevAddAt((int)dev->nrecv, dev->recvpos, dev->recvbuf, &o));
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(Ao, &vb));
    }
    PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(Ad, &va));
    if (Ao) PetscCall(PetscObjectStateIncrease((PetscObject)A));
  }
  PetscCall(FEGDevCoeffRelease(op->form, &dev->base.cc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpView_AddTo_CUDA(FEGOp op, PetscViewer viewer)
{
  FEGOp_AddTo_CUDA *dev   = (FEGOp_AddTo_CUDA *)((FEGOp_AddTo *)op->data)->dev;
  const FEGDevDisc *d     = &dev->base.d;
  PetscLogDouble    bytes = (PetscLogDouble)FEGDevOpBytes(&dev->base);

  PetscFunctionBegin;
  if (dev->pos) bytes += (PetscLogDouble)d->Ne * d->Nb * d->Nb * sizeof(int);
  if (dev->coo) bytes += (PetscLogDouble)d->Ne * d->Nb * d->Nb * sizeof(double);
  if (dev->gK) bytes += (PetscLogDouble)d->Ne * d->Nb * d->Nb * (sizeof(double) + sizeof(int)) + (PetscLogDouble)(dev->npos + 1) * sizeof(int);
  PetscCall(FEGDevOpView(op, &dev->base, viewer));
  if (dev->coo) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: MatSetValuesCOO of device element matrices\n"));
  else if (dev->rowsf)
    PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: %s into the diagonal and off-diagonal blocks; %" PetscInt_FMT " entries of rows owned elsewhere sent, %" PetscInt_FMT " received (PetscSF)\n", dev->colorOff ? "coloured" : (dev->gK ? "element entries summed per position" : "atomics"),
                                     dev->nsend, dev->nrecv));
  else if (dev->gK) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: element matrices stored, each CSR value the sum of its %s entries in element order (deterministic, no atomics)\n", dev->posmajor ? "element-major" : "element-interleaved"));
  else if (dev->colorOff) PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: coloured, %" PetscInt_FMT " colours, one add per entry and colour (deterministic)\n", dev->ncolors));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "GPU addto: atomics into the CSR values\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU memory: %.4g MB (operator data; the matrix is PETSc's)\n", bytes / 1048576.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpDestroy_AddTo_CUDA(FEGOp op)
{
  FEGOp_AddTo      *a   = (FEGOp_AddTo *)op->data;
  FEGOp_AddTo_CUDA *dev = (FEGOp_AddTo_CUDA *)a->dev;

  PetscFunctionBegin;
  if (dev) {
    PetscCall(FEGDevOpDestroy(&dev->base));
    FEGDevFree(dev->pos);
    FEGDevFree(dev->colorElems);
    FEGDevFree(dev->coo);
    FEGDevFree(dev->gK);
    FEGDevFree(dev->goff);
    FEGDevFree(dev->gentry);
    FEGDevFree(dev->sendbuf);
    FEGDevFree(dev->recvbuf);
    FEGDevFree(dev->recvpos);
    FEGDevFree(dev->upos);
    FEGDevFree(dev->uoff);
    FEGDevFree(dev->ulist);
    PetscCall(PetscSFDestroy(&dev->rowsf));
    PetscCall(PetscFree(dev->colorOff));
    PetscCall(PetscFree(a->dev));
  }
  PetscCall(FEGOpDestroy_AddTo(op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* installs addto's GPU ops table (FEGOpRegisterDevice()) */
PetscErrorCode FEGOpUseDevice_AddTo(FEGOp op)
{
  PetscFunctionBegin;
  op->ops->setup        = FEGOpSetUp_AddTo_CUDA;
  op->ops->creatematrix = FEGOpCreateMatrix_AddTo_CUDA;
  op->ops->assemble     = FEGOpAssemble_AddTo_CUDA;
  op->ops->view         = FEGOpView_AddTo_CUDA;
  op->ops->destroy      = FEGOpDestroy_AddTo_CUDA;
  op->backend           = "GPU";
  PetscFunctionReturn(PETSC_SUCCESS);
}
