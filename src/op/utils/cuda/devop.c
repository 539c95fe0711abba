/* What every operator type does the same way on the device: its discretization, coefficients and scatter map, and the
   vector handling around a kernel (global or local arrays, zeroing, summing across processes) */
#include <fegpu/private/fegcudaimpl.h>
#include <petscsf.h>

PETSC_INTERN PetscErrorCode FEGComputeRHS_CUDA(FEGDisc *, FEGForm, Vec);

/* the stream fegpu's kernels run on (their launches name none): the halo's copies and events queue behind them */
#define FEG_STREAM ((cudaStream_t)0)

/* The owned unconstrained dofs as (local, owned row) pairs and the ghost dofs as (local, owner and its row) from the
   sections (FEGDiscGetLocalToGlobal() and the processes' row ranges), without the section SF PETSc would build and set
   up for DMGlobalToLocal() (a graph of every local dof: a large part of a setup at millions of dofs); ok when every
   owned row has exactly one local dof, as with DMPlex sections. Where the owned rows increase with the local dofs
   (fegpu's global section; with nglobal of them in [0, nglobal) that makes each appear once) the pairs are counted and
   written in blocks on the cells' threads; otherwise one pass marks each row seen. One process has no ghosts
   (rloc, rrem may be NULL then). Collective. */
static PetscErrorCode FEGDiscHaloPairs(FEGDisc *disc, int *nown, int **lown, int **gown, PetscInt *nrem, PetscInt **rloc, PetscSFNode **rrem, PetscBool *ok)
{
  const PetscInt  n = disc->nlocal, ng = disc->nglobal;
  const PetscInt *l2g;
  const int       nt   = FEGLoopThreads(n, FEGDiscThreads(disc));
  MPI_Comm        comm = PetscObjectComm((PetscObject)disc->dm);
  PetscMPIInt     size, rank;
  PetscInt       *cnt, *first, *last, *ranges, rstart;
  int             inc = 1;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(size + 1, &ranges));
  ranges[0] = 0;
  if (size > 1) {
    PetscCallMPI(MPI_Allgather(&ng, 1, MPIU_INT, ranges + 1, 1, MPIU_INT, comm));
    for (PetscMPIInt r = 0; r < size; r++) ranges[r + 1] += ranges[r];
  } else ranges[1] = ng;
  rstart = ranges[rank];
  PetscCall(FEGDiscGetLocalToGlobal(disc, &l2g));
  PetscCall(PetscMalloc2(n + 1, lown, n + 1, gown));
  PetscCall(PetscMalloc3(nt + 1, &cnt, nt, &first, nt, &last));
  cnt[0] = 0;
#pragma omp parallel for num_threads(nt) schedule(static, 1) reduction(&& : inc)
  for (int b = 0; b < nt; b++) {
    PetscInt c = 0, prev = -1;

    first[b] = -1;
    for (PetscInt l = FEGBlockStart(n, b, nt); l < FEGBlockStart(n, b + 1, nt); l++) {
      const PetscInt g = l2g[l] - rstart;

      if (l2g[l] < 0 || g < 0 || g >= ng) continue; /* constrained, or another process's */
      if (g <= prev) inc = 0;
      if (first[b] < 0) first[b] = g;
      prev = g;
      c++;
    }
    last[b]    = prev;
    cnt[b + 1] = c;
  }
  for (int b = 0, prev = -1; b < nt; b++) {
    if (first[b] >= 0) {
      if (first[b] <= prev) inc = 0;
      prev = (int)last[b];
    }
    cnt[b + 1] += cnt[b];
  }
  *nown = (int)cnt[nt];
  *ok   = (PetscBool)(*nown == ng);
  if (inc) {
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int b = 0; b < nt; b++) {
      PetscInt k = cnt[b];

      for (PetscInt l = FEGBlockStart(n, b, nt); l < FEGBlockStart(n, b + 1, nt); l++) {
        const PetscInt g = l2g[l] - rstart;

        if (l2g[l] < 0 || g < 0 || g >= ng) continue;
        (*lown)[k] = (int)l;
        (*gown)[k] = (int)g;
        k++;
      }
    }
  } else {
    PetscBT seen;

    PetscCall(PetscBTCreate(ng + 1, &seen));
    *ok   = PETSC_TRUE;
    *nown = 0;
    for (PetscInt l = 0; l < n; l++) {
      const PetscInt g = l2g[l] - rstart;

      if (l2g[l] < 0 || g < 0 || g >= ng) continue;
      if (PetscBTLookupSet(seen, g)) {
        *ok = PETSC_FALSE;
        break;
      }
      (*lown)[*nown] = (int)l;
      (*gown)[*nown] = (int)g;
      (*nown) += 1;
    }
    if (*nown != ng) *ok = PETSC_FALSE;
    PetscCall(PetscBTDestroy(&seen));
  }
  PetscCall(PetscFree3(cnt, first, last));
  *nrem = 0;
  if (size > 1) { /* the ghosts: each with the process whose rows hold it, counted and written in blocks in local order */
    PetscInt *gcnt, bad = -1;

    PetscCall(PetscCalloc1(nt + 1, &gcnt));
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int b = 0; b < nt; b++)
      for (PetscInt l = FEGBlockStart(n, b, nt); l < FEGBlockStart(n, b + 1, nt); l++)
        if (l2g[l] >= 0 && (l2g[l] < rstart || l2g[l] >= rstart + ng)) gcnt[b + 1]++;
    for (int b = 0; b < nt; b++) gcnt[b + 1] += gcnt[b];
    PetscCall(PetscMalloc2(gcnt[nt] + 1, rloc, gcnt[nt] + 1, rrem));
#pragma omp parallel for num_threads(nt) schedule(static, 1) reduction(max : bad)
    for (int b = 0; b < nt; b++) {
      PetscInt k = gcnt[b];

      for (PetscInt l = FEGBlockStart(n, b, nt); l < FEGBlockStart(n, b + 1, nt); l++) {
        const PetscInt g  = l2g[l];
        PetscMPIInt    lo = 0, hi = size;

        if (g < 0 || (g >= rstart && g < rstart + ng)) continue;
        if (g >= ranges[size]) {
          bad = PetscMax(bad, l);
          continue;
        }
        while (hi - lo > 1) { /* the last process whose rows start at or before g */
          const PetscMPIInt mid = (lo + hi) / 2;

          if (ranges[mid] <= g) lo = mid;
          else hi = mid;
        }
        (*rloc)[k]       = l;
        (*rrem)[k].rank  = lo;
        (*rrem)[k].index = g - ranges[lo];
        k++;
      }
    }
    PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Local dof %" PetscInt_FMT " has global row %" PetscInt_FMT ", beyond the %" PetscInt_FMT " rows", bad, l2g[bad], ranges[size]);
    *nrem = gcnt[nt];
    PetscCall(PetscFree(gcnt));
  }
  PetscCall(PetscFree(ranges));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owned dofs as index pairs on the device and the ghost dofs in an SF of their own (FEGDiscHaloPairs()): made once
   per discretization and shared by its operators and right-hand sides, which otherwise each read the local-to-global
   map, uploaded the pairs and set up the SF again */
typedef struct {
  PetscBool ok;                 /* on every process each owned row has exactly one local dof: the pairs are made */
  int       nown, *lown, *gown; /* the owned unconstrained dofs: local index, index in the process's rows (device) */
  PetscSF   ghosts;             /* several processes: leaves the local ghost dofs, roots their owners' rows */
  PetscInt  nint;               /* elements 0..nint-1 touch no ghost dof; -1 until an operator asks (FEGDiscDevPairsInterior()) */
} FEGDevPairs;

static PetscErrorCode FEGDevPairsDestroy(void **ctx)
{
  FEGDevPairs *p = (FEGDevPairs *)*ctx;

  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  FEGDevFree(p->lown);
  FEGDevFree(p->gown);
  PetscCall(PetscSFDestroy(&p->ghosts));
  PetscCall(PetscFree(*ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the discretization's pairs, made at the first call (collective then) */
static PetscErrorCode FEGDiscGetDevPairs(FEGDisc *disc, FEGDevPairs **pairs)
{
  FEGDevPairs *p = (FEGDevPairs *)disc->devpairs;

  PetscFunctionBegin;
  if (!p) {
    MPI_Comm     comm = PetscObjectComm((PetscObject)disc->dm);
    PetscMPIInt  size;
    PetscBool    ok;
    int          nown = 0, *lown, *gown;
    PetscInt     nrem = 0, *rloc = NULL;
    PetscSFNode *rrem = NULL;

    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(FEGDiscHaloPairs(disc, &nown, &lown, &gown, &nrem, &rloc, &rrem, &ok));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, comm));
    PetscCall(PetscNew(&p));
    disc->devpairs        = p;
    disc->devpairsdestroy = FEGDevPairsDestroy;
    p->ok                 = ok;
    p->nint               = -1;
    if (ok) {
      p->nown = nown;
      PetscCall(FEGDevMallocCopy((void **)&p->lown, lown, sizeof(int) * PetscMax(nown, 1), NULL));
      PetscCall(FEGDevMallocCopy((void **)&p->gown, gown, sizeof(int) * PetscMax(nown, 1), NULL));
      if (size > 1) {
        PetscCall(PetscSFCreate(comm, &p->ghosts));
        PetscCall(PetscSFSetGraph(p->ghosts, disc->nglobal, nrem, rloc, PETSC_COPY_VALUES, rrem, PETSC_COPY_VALUES));
        PetscCall(PetscSFSetUp(p->ghosts));
      }
    }
    PetscCall(PetscFree2(lown, gown));
    PetscCall(PetscFree2(rloc, rrem));
  }
  *pairs = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* how many leading elements touch no ghost dof: every one on one process; else the first that touches one, found on the
   cells' threads (the cells touching ghosts go last, so a serial scan read nearly every element). Kept with the pairs:
   every operator on the discretization asks */
static PetscErrorCode FEGDiscDevPairsInterior(FEGDisc *disc, FEGDevPairs *p, PetscInt *nint)
{
  PetscFunctionBegin;
  if (p->nint < 0 && !p->ghosts) p->nint = disc->Ne;
  else if (p->nint < 0) {
    const PetscInt *rloc;
    PetscInt        nrem, first = disc->Ne;
    PetscBT         ghost;

    PetscCall(PetscSFGetGraph(p->ghosts, NULL, &nrem, &rloc, NULL));
    PetscCall(PetscBTCreate(disc->nlocal + 1, &ghost));
    for (PetscInt k = 0; k < nrem; k++) PetscCall(PetscBTSet(ghost, rloc ? rloc[k] : k));
#pragma omp parallel for num_threads(FEGDiscThreads(disc)) schedule(static) reduction(min : first)
    for (PetscInt e = 0; e < disc->Ne; e++) {
      if (e >= first) continue;
      for (PetscInt b = 0; b < disc->Nb; b++)
        if (PetscBTLookup(ghost, disc->lidx[(size_t)e * disc->Nb + b])) {
          first = e;
          break;
        }
    }
    PetscCall(PetscBTDestroy(&ghost));
    p->nint = first;
  }
  *nint = p->nint;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n indices to the device as int, each checked against [0, bound) (w: room for n + 1 of them) */
static PetscErrorCode FEGDevIndexCopy(PetscInt n, const PetscInt a[], PetscInt bound, int w[], int **d)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < n; k++) {
    PetscCheck(a[k] >= 0 && a[k] < bound, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Halo index %" PetscInt_FMT " at %" PetscInt_FMT " is outside [0, %" PetscInt_FMT ")", a[k], k, bound);
    w[k] = (int)a[k];
  }
  PetscCall(FEGDevMallocCopy((void **)d, w, sizeof(int) * (n + 1), NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegpu's exchange over the halo SF's graph (FEGDevHalo): PetscSF's rank lists give, per neighbour, the local ghosts
   it owns (leaves, rmine) and the owned entries it holds as ghosts (roots, irootloc), both in the order PetscSF packs
   them, so the two sides of each message agree */
static PetscErrorCode FEGDevHaloIpcSetUp(FEGDevHalo *, PetscBool *, const char **);

static PetscErrorCode FEGDevHaloCreate(PetscSF sf, PetscInt nlocal, FEGHaloExchange mode, FEGDevHalo **halo)
{
  FEGDevHalo        *h;
  PetscMPIInt        nr = 0, nl = 0;
  PetscInt           nroots, *key, *soff, *slist, *srow;
  const PetscInt    *roff, *rmine, *loff, *rootloc;
  const PetscMPIInt *rranks, *lranks;
  int               *w;

  PetscFunctionBegin;
  PetscCall(PetscNew(&h));
  PetscCall(PetscSFGetGraph(sf, &nroots, NULL, NULL, NULL));
  PetscCall(FEGSFGetRootRanks(sf, &nr, &rranks, &roff, &rmine, NULL));
  PetscCall(FEGSFGetLeafRanks(sf, &nl, &lranks, &loff, &rootloc));
  PetscCall(PetscCommDuplicate(PetscObjectComm((PetscObject)sf), &h->comm, &h->tag));
  h->nr = nr;
  h->nl = nl;
  h->ng = (int)roff[nr];
  h->no = (int)loff[nl];
  PetscCall(PetscMalloc4(nr, &h->rranks, nl, &h->lranks, nr + 1, &h->roff, nl + 1, &h->loff));
  PetscCall(PetscArraycpy(h->rranks, rranks, nr));
  PetscCall(PetscArraycpy(h->lranks, lranks, nl));
  PetscCall(PetscArraycpy(h->roff, roff, nr + 1));
  PetscCall(PetscArraycpy(h->loff, loff, nl + 1));
  PetscCall(PetscMalloc1(nr + nl + 1, &h->req));
  PetscCall(PetscMalloc1(PetscMax(h->ng, h->no) + 2, &w));
  PetscCall(FEGDevIndexCopy(h->ng, rmine, nlocal, w, &h->gidx));
  PetscCall(FEGDevIndexCopy(h->no, rootloc, nroots, w, &h->oidx));
  /* the owned entries that receive sums, each with its buffer entries in buffer order: the buffer entries sorted by
     their root (a pass over every root made it cost the process's rows, not its halo's) */
  PetscCall(PetscMalloc4(h->no + 1, &key, h->no + 1, &srow, h->no + 2, &soff, h->no + 1, &slist));
  for (int k = 0; k < h->no; k++) {
    key[k]   = rootloc[k];
    slist[k] = k;
  }
  PetscCall(PetscSortIntWithArray(h->no, key, slist));
  h->nsum = 0;
  soff[0] = 0;
  for (PetscInt k = 0, j; k < h->no; k = j) {
    j = k + 1;
    while (j < h->no && key[j] == key[k]) j++;
    PetscCall(PetscSortInt(j - k, slist + k)); /* a root's entries in buffer order, as the sums read them */
    srow[h->nsum]     = key[k];
    soff[h->nsum + 1] = j;
    h->nsum++;
  }
  PetscCall(FEGDevIndexCopy(h->nsum, srow, nroots, w, &h->srow));
  PetscCall(FEGDevIndexCopy(h->nsum + 1, soff, h->no + 1, w, &h->soff));
  PetscCall(FEGDevIndexCopy(h->no, slist, h->no, w, &h->slist));
  PetscCall(PetscFree(w));
  PetscCall(PetscFree4(key, srow, soff, slist));
  PetscCall(FEGDevMallocCopy((void **)&h->dg, NULL, sizeof(double) * (h->ng + 1), NULL));
  PetscCall(FEGDevMallocCopy((void **)&h->dn, NULL, sizeof(double) * (h->no + 1), NULL));
  PetscCall(FEGDevMallocCopy((void **)&h->dy, NULL, sizeof(double) * (h->ng + 1), NULL));
  if (mode == FEG_HALO_AUTO || mode == FEG_HALO_IPC) {
    PetscBool   ok;
    const char *why;

    PetscCall(FEGDevHaloIpcSetUp(h, &ok, &why));
    PetscCheck(ok || mode != FEG_HALO_IPC, h->comm, PETSC_ERR_SUP, "-feg_op_halo_exchange ipc is not possible here (%s); use auto, pinned or petscsf", why);
    if (!ok) PetscCall(PetscInfo(NULL, "Ghost exchange through pinned host buffers: %s\n", why));
  }
  /* the host-staged exchange's buffers and events (the device-to-device one has none) */
  if (!h->ipc) {
    PetscCallCUDA(cudaMallocHost((void **)&h->hg, sizeof(double) * (h->ng + 1)));
    PetscCallCUDA(cudaMallocHost((void **)&h->hn, sizeof(double) * (h->no + 1)));
    PetscCallCUDA(cudaEventCreateWithFlags(&h->packed, cudaEventDisableTiming));
    PetscCallCUDA(cudaEventCreateWithFlags(&h->gread, cudaEventDisableTiming));
    PetscCallCUDA(cudaEventCreateWithFlags(&h->nread, cudaEventDisableTiming));
  }
  *halo = h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what one process tells a neighbour for the device-to-device exchange: its receive buffer (where the neighbour's
   segment starts, how long it is) and the event the neighbour's stream waits on for what this process sends it */
typedef struct {
  cudaIpcMemHandle_t   mem;
  cudaIpcEventHandle_t ev;
  PetscInt             off, n;
} FEGIpcLink;

/* Sets up the device-to-device exchange when every neighbour is a process of this node and every buffer and event
   opens (collective; *ok the same on every process; nothing is left open when it is false, *why says what failed) */
static PetscErrorCode FEGDevHaloIpcSetUp(FEGDevHalo *h, PetscBool *ok, const char **why)
{
  MPI_Comm     node;
  MPI_Group    gall, gnode;
  PetscMPIInt  n     = h->nr + h->nl, *in, *out, tag2;
  PetscBool    local = PETSC_TRUE, opened = PETSC_TRUE;
  FEGIpcLink  *sl, *rl;
  MPI_Request *req;
  double     **fp, **bp;

  PetscFunctionBegin;
  *ok  = PETSC_FALSE;
  *why = NULL;
  /* every neighbour on this node */
  PetscCallMPI(MPI_Comm_split_type(h->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_group(h->comm, &gall));
  PetscCallMPI(MPI_Comm_group(node, &gnode));
  PetscCall(PetscMalloc2(n + 1, &in, n + 1, &out));
  for (PetscMPIInt i = 0; i < h->nr; i++) in[i] = h->rranks[i];
  for (PetscMPIInt i = 0; i < h->nl; i++) in[h->nr + i] = h->lranks[i];
  PetscCallMPI(MPI_Group_translate_ranks(gall, n, in, gnode, out));
  for (PetscMPIInt i = 0; i < n; i++)
    if (out[i] == MPI_UNDEFINED) local = PETSC_FALSE;
  PetscCall(PetscFree2(in, out));
  PetscCallMPI(MPI_Group_free(&gall));
  PetscCallMPI(MPI_Group_free(&gnode));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPIU_BOOL, MPI_LAND, h->comm));
  if (!local) {
    *why = "a neighbour is a process of another node";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* this process's events, and its buffers and events told to each neighbour: to an owner (rranks) the ghost buffer
     dg, where that owner's values go, and evb, which it waits on for sums; to a holder (lranks) the owned buffer dn and
     evf */
  PetscCallCUDA(cudaEventCreateWithFlags(&h->evf, cudaEventDisableTiming | cudaEventInterprocess));
  PetscCallCUDA(cudaEventCreateWithFlags(&h->evb, cudaEventDisableTiming | cudaEventInterprocess));
  PetscCall(PetscCalloc2(n + 1, &sl, n + 1, &rl));
  PetscCall(PetscMalloc1(2 * n + 1, &req));
  for (PetscMPIInt i = 0; i < n; i++) {
    const PetscBool owner = (PetscBool)(i < h->nr); /* link i: to/from the owner rranks[i], else the holder lranks[i-nr] */
    const PetscInt  j     = owner ? i : i - h->nr;

    PetscCallCUDA(cudaIpcGetMemHandle(&sl[i].mem, owner ? (void *)h->dg : (void *)h->dn));
    PetscCallCUDA(cudaIpcGetEventHandle(&sl[i].ev, owner ? h->evb : h->evf));
    sl[i].off = owner ? h->roff[j] : h->loff[j];
    sl[i].n   = owner ? h->roff[j + 1] - h->roff[j] : h->loff[j + 1] - h->loff[j];
  }
  /* a pair of processes can be linked both ways: what goes to an owner and what goes to a holder use two tags */
  PetscCall(PetscCommGetNewTag(h->comm, &tag2));
  for (PetscMPIInt i = 0; i < n; i++) {
    const PetscBool owner = (PetscBool)(i < h->nr);

    /* from an owner comes its dn (where this process's sums go); it was sent with the holders' tag */
    PetscCallMPI(MPI_Irecv(&rl[i], (PetscMPIInt)sizeof(FEGIpcLink), MPI_BYTE, owner ? h->rranks[i] : h->lranks[i - h->nr], owner ? tag2 : h->tag, h->comm, &req[i]));
    PetscCallMPI(MPI_Isend(&sl[i], (PetscMPIInt)sizeof(FEGIpcLink), MPI_BYTE, owner ? h->rranks[i] : h->lranks[i - h->nr], owner ? h->tag : tag2, h->comm, &req[n + i]));
  }
  PetscCallMPI(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE));
  PetscCall(PetscFree(req));
  /* open them: an owner's dn and evf, a holder's dg and evb; the segments must be this process's */
  PetscCall(PetscCalloc1(n + 1, &h->opened));
  PetscCall(PetscCalloc2(h->nr + 1, &h->wf, h->nl + 1, &h->wb));
  PetscCall(PetscMalloc2(h->no + 1, &fp, h->ng + 1, &bp));
  for (PetscMPIInt i = 0; i < n && opened; i++) {
    const PetscBool owner = (PetscBool)(i < h->nr);
    const PetscInt  j = owner ? i : i - h->nr, mine = owner ? h->roff[j + 1] - h->roff[j] : h->loff[j + 1] - h->loff[j];
    cudaEvent_t    *ev = owner ? &h->wf[j] : &h->wb[j];

    PetscCheck(rl[i].n == mine, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Halo link to rank %d: it expects %" PetscInt_FMT " entries, this process has %" PetscInt_FMT, (int)(owner ? h->rranks[j] : h->lranks[j]), rl[i].n, mine);
    if (cudaIpcOpenMemHandle(&h->opened[i], rl[i].mem, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
      (void)cudaGetLastError();
      h->opened[i] = NULL;
      opened       = PETSC_FALSE;
      *why         = "cudaIpcOpenMemHandle() failed";
      break;
    }
    if (cudaIpcOpenEventHandle(ev, rl[i].ev) != cudaSuccess) {
      (void)cudaGetLastError();
      *ev    = NULL;
      opened = PETSC_FALSE;
      *why   = "cudaIpcOpenEventHandle() failed";
      break;
    }
    /* owned entry k (forward) or ghost entry k (backward) of this segment goes to the neighbour's buffer at off + k - start */
    for (PetscInt k = 0; k < mine; k++) {
      if (owner) bp[h->roff[j] + k] = (double *)h->opened[i] + rl[i].off + k;
      else fp[h->loff[j] + k] = (double *)h->opened[i] + rl[i].off + k;
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &opened, 1, MPIU_BOOL, MPI_LAND, h->comm));
  if (opened) {
    PetscCall(FEGDevMallocCopy((void **)&h->fptr, fp, sizeof(double *) * (h->no + 1), NULL));
    PetscCall(FEGDevMallocCopy((void **)&h->bptr, bp, sizeof(double *) * (h->ng + 1), NULL));
    h->ipc     = PETSC_TRUE;
    h->lastdir = -1;
    *ok        = PETSC_TRUE;
  } else {
    if (!*why) *why = "another process could not open its neighbours' buffers";
    for (PetscMPIInt i = 0; i < n; i++) {
      const PetscBool owner = (PetscBool)(i < h->nr);
      cudaEvent_t     ev    = owner ? h->wf[i] : h->wb[i - h->nr];

      if (!h->opened[i]) break;
      PetscCallCUDA(cudaIpcCloseMemHandle(h->opened[i]));
      if (ev) PetscCallCUDA(cudaEventDestroy(ev));
      else break;
    }
    PetscCall(PetscFree(h->opened));
    PetscCall(PetscFree2(h->wf, h->wb));
    PetscCallCUDA(cudaEventDestroy(h->evf));
    PetscCallCUDA(cudaEventDestroy(h->evb));
    /* no process may free a buffer another one still maps */
    PetscCallMPI(MPI_Barrier(h->comm));
  }
  PetscCall(PetscFree2(fp, bp));
  PetscCall(PetscFree2(sl, rl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevHaloDestroy(FEGDevHalo **halo)
{
  FEGDevHalo *h = *halo;

  PetscFunctionBegin;
  if (!h) PetscFunctionReturn(PETSC_SUCCESS);
  if (h->ipc) {
    /* the streams done with every buffer, then the mappings closed everywhere before any process frees its own */
    PetscCallCUDA(cudaStreamSynchronize(FEG_STREAM));
    PetscCallMPI(MPI_Barrier(h->comm));
    for (PetscMPIInt i = 0; i < h->nr + h->nl; i++) PetscCallCUDA(cudaIpcCloseMemHandle(h->opened[i]));
    for (PetscMPIInt i = 0; i < h->nr; i++) PetscCallCUDA(cudaEventDestroy(h->wf[i]));
    for (PetscMPIInt i = 0; i < h->nl; i++) PetscCallCUDA(cudaEventDestroy(h->wb[i]));
    PetscCallMPI(MPI_Barrier(h->comm));
    PetscCallCUDA(cudaEventDestroy(h->evf));
    PetscCallCUDA(cudaEventDestroy(h->evb));
    FEGDevFree(h->fptr);
    FEGDevFree(h->bptr);
    PetscCall(PetscFree(h->opened));
    PetscCall(PetscFree2(h->wf, h->wb));
  }
  FEGDevFree(h->gidx);
  FEGDevFree(h->oidx);
  FEGDevFree(h->srow);
  FEGDevFree(h->soff);
  FEGDevFree(h->slist);
  FEGDevFree(h->dg);
  FEGDevFree(h->dn);
  FEGDevFree(h->dy);
  if (!h->ipc) {
    PetscCallCUDA(cudaFreeHost(h->hg));
    PetscCallCUDA(cudaFreeHost(h->hn));
    PetscCallCUDA(cudaEventDestroy(h->packed));
    PetscCallCUDA(cudaEventDestroy(h->gread));
    PetscCallCUDA(cudaEventDestroy(h->nread));
  }
  PetscCall(PetscFree4(h->rranks, h->lranks, h->roff, h->loff));
  PetscCall(PetscFree(h->req));
  PetscCall(PetscCommDestroy(&h->comm));
  PetscCall(PetscFree(*halo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Posts the receives into one pinned buffer (once the device has finished reading what it held) and queues the packing
   of the other behind the kernels on the stream: forward, the owned entries src[oidx[k]] of a global array; backward,
   the ghost entries src[gidx[k]] of a local array, or src itself when it is in ghost order already (inorder); then
   the copy to pinned memory. Nothing here waits for the device. */
static PetscErrorCode FEGDevHaloBegin(FEGDevHalo *h, PetscBool forward, const double *src, PetscBool inorder)
{
  const PetscMPIInt  nrecv = forward ? h->nr : h->nl, nsend = forward ? h->nl : h->nr;
  const PetscMPIInt *rk = forward ? h->rranks : h->lranks;
  const PetscInt    *ro = forward ? h->roff : h->loff, *so = forward ? h->loff : h->roff;
  double            *rbuf = forward ? h->hg : h->hn, *sdev = forward ? h->dn : h->dg, *shost = forward ? h->hn : h->hg;
  const int         *idx = forward ? h->oidx : h->gidx;

  PetscFunctionBegin;
  if (h->ipc) {
    /* a receiver is done with its buffer once it has sent the other way (its stream read the buffer before packing);
       two exchanges the same way in a row (a diagonal after a diagonal) wait for every stream instead */
    if (h->lastdir == (forward ? 0 : 1)) {
      PetscCallCUDA(cudaStreamSynchronize(FEG_STREAM));
      PetscCallMPI(MPI_Barrier(h->comm));
    }
    h->lastdir = forward ? 0 : 1;
    for (PetscMPIInt i = 0; i < nrecv; i++) PetscCallMPI(MPI_Irecv(NULL, 0, MPI_BYTE, rk[i], h->tag, h->comm, &h->req[i]));
    PetscCall(FEGDevCopyToPointers((int)so[nsend], inorder ? NULL : idx, src, forward ? h->fptr : h->bptr));
    PetscCallCUDA(cudaEventRecord(forward ? h->evf : h->evb, FEG_STREAM));
    /* the event is recorded: the receivers may queue their wait on it */
    for (PetscMPIInt i = 0; i < nsend; i++) PetscCallMPI(MPI_Isend(NULL, 0, MPI_BYTE, forward ? h->lranks[i] : h->rranks[i], h->tag, h->comm, &h->req[nrecv + i]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallCUDA(cudaEventSynchronize(forward ? h->gread : h->nread));
  for (PetscMPIInt i = 0; i < nrecv; i++) {
    PetscMPIInt n;

    PetscCall(PetscMPIIntCast(ro[i + 1] - ro[i], &n));
    PetscCallMPI(MPI_Irecv(rbuf + ro[i], n, MPI_DOUBLE, rk[i], h->tag, h->comm, &h->req[i]));
  }
  if (so[nsend]) {
    if (!inorder) PetscCall(FEGDevCopyIndexed((int)so[nsend], NULL, idx, src, sdev));
    PetscCallCUDA(cudaMemcpyAsync(shost, inorder ? src : sdev, sizeof(double) * so[nsend], cudaMemcpyDeviceToHost, FEG_STREAM));
  }
  PetscCallCUDA(cudaEventRecord(h->packed, FEG_STREAM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sends the packed entries once they are in host memory, waits for the other processes' and queues their unpacking:
   forward, the ghost values into dst[gidx[k]] (dst NULL: left in the device buffer dg, where a kernel with global
   indices reads them); backward, the ghost sums added into the owned entries of dst */
static PetscErrorCode FEGDevHaloEnd(FEGDevHalo *h, PetscBool forward, double *dst)
{
  const PetscMPIInt  nrecv = forward ? h->nr : h->nl, nsend = forward ? h->nl : h->nr;
  const PetscMPIInt *sk = forward ? h->lranks : h->rranks;
  const PetscInt    *ro = forward ? h->roff : h->loff, *so = forward ? h->loff : h->roff;
  double            *rhost = forward ? h->hg : h->hn, *rdev = forward ? h->dg : h->dn, *shost = forward ? h->hn : h->hg;

  PetscFunctionBegin;
  if (!h->ipc) {
    PetscCallCUDA(cudaEventSynchronize(h->packed));
    for (PetscMPIInt i = 0; i < nsend; i++) {
      PetscMPIInt n;

      PetscCall(PetscMPIIntCast(so[i + 1] - so[i], &n));
      PetscCallMPI(MPI_Isend(shost + so[i], n, MPI_DOUBLE, sk[i], h->tag, h->comm, &h->req[nrecv + i]));
    }
  }
  PetscCallMPI(MPI_Waitall(nrecv + nsend, h->req, MPI_STATUSES_IGNORE));
  /* what arrived is in rdev: written there by the senders' kernels (ipc), or copied up now */
  if (h->ipc)
    for (PetscMPIInt i = 0; i < nrecv; i++) PetscCallCUDA(cudaStreamWaitEvent(FEG_STREAM, forward ? h->wf[i] : h->wb[i], 0));
  else if (ro[nrecv]) PetscCallCUDA(cudaMemcpyAsync(rdev, rhost, sizeof(double) * ro[nrecv], cudaMemcpyHostToDevice, FEG_STREAM));
  if (forward && dst) PetscCall(FEGDevCopyIndexed((int)ro[nrecv], h->gidx, NULL, rdev, dst));
  else if (!forward) PetscCall(FEGDevSumInto(h->nsum, h->srow, h->soff, h->slist, rdev, dst));
  if (!h->ipc) PetscCallCUDA(cudaEventRecord(forward ? h->gread : h->nread, FEG_STREAM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the overlapped apply needs: the owned dofs as index pairs on the device, the ghost dofs in an SF of their own
   (the discretization's, FEGDiscGetDevPairs()); and how many leading elements touch no ghost dof. Every rank takes
   this path or none: an owned entry of the global vector without exactly one local dof (not the case for DMPlex
   sections) keeps PETSc's DMGlobalToLocal(). */
static PetscErrorCode FEGDevOpHaloSetUp(FEGOp op, FEGDevOp *dev)
{
  FEGDisc     *disc = op->disc;
  FEGDevPairs *p;

  PetscFunctionBegin;
  PetscCall(FEGDiscGetDevPairs(disc, &p));
  if (!p->ok) {
    PetscCall(PetscInfo(op, "A global entry without exactly one local dof: DMGlobalToLocal() and DMLocalToGlobal() around the apply\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  dev->overlap = PETSC_TRUE;
  dev->nown    = p->nown;
  dev->lown    = p->lown; /* the discretization's, as is the SF */
  dev->gown    = p->gown;
  /* the local work vectors are made and zeroed at the first apply that uses them: on one process a kernel that
     indexes the global vectors never does (two vectors of millions of entries are a visible part of a setup) */
  if (!p->ghosts) PetscCall(FEGDiscGetLocalToGlobal(disc, &dev->l2g)); /* one process: no ghosts */
  else {
    PetscCall(PetscObjectReference((PetscObject)p->ghosts));
    dev->halo = p->ghosts;
    if (op->haloexchange != FEG_HALO_PETSCSF) {
      PetscCall(FEGDevHaloCreate(dev->halo, disc->nlocal, op->haloexchange, &dev->xchg));
      /* each local dof's place for kernels that index the global vectors: owned, ghost buffer entry, or neither */
      PetscCall(FEGDevMallocCopy((void **)&dev->lcode, NULL, sizeof(int) * (disc->nlocal + 1), NULL));
      PetscCall(FEGDevLocalCode((int)disc->nlocal, dev->nown, dev->lown, dev->gown, dev->xchg->ng, dev->xchg->gidx, dev->lcode));
    }
  }
  PetscCall(FEGDiscDevPairsInterior(disc, p, &dev->nint));
  /* half of them while ghost values arrive, half while sums leave; the transpose gather sums all at once at the end,
     so then the interior goes before the ghost values are in */
  dev->nfirst = dev->tlist ? dev->nint : dev->nint / 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* How the element dofs lie in the vectors: direct, one process and no constraints (local and global vectors coincide);
   unique, no dof shared by two elements; contig, element e owns dofs e*Nb..e*Nb+Nb-1; covering, unique and every local
   dof in an element. Read once per discretization and kept there: a pass over the chart and the dof map per operator
   is a visible part of its setup */
PetscErrorCode FEGDiscLayout(FEGDisc *disc, PetscBool *direct, PetscBool *unique, PetscBool *contig, PetscBool *covering)
{
  const PetscInt Ne = disc->Ne, Nb = disc->Nb;
  PetscBT        seen;

  PetscFunctionBegin;
  if (!disc->layoutset) {
    /* vectors of different sizes cannot coincide (constraints): no pass over the sections then */
    if (disc->nlocal != disc->nglobal) disc->direct = PETSC_FALSE;
    else PetscCall(FEGDMSectionsCoincide(disc->dm, &disc->direct));
    PetscCall(PetscBTCreate(disc->nlocal + 1, &seen));
    disc->unique = disc->contig = PETSC_TRUE;
    /* a continuous space shares a dof within its first elements: then neither holds and the rest need not be read (a
       pass over all of them took 80 ms of BP3's setup at 8M Q2 unknowns) */
    for (PetscInt k = 0; k < Ne * Nb && (disc->unique || disc->contig); k++) {
      if (PetscBTLookupSet(seen, disc->lidx[k])) disc->unique = PETSC_FALSE;
      if (disc->lidx[k] != k) disc->contig = PETSC_FALSE;
    }
    disc->covering = (PetscBool)(disc->unique && Ne * Nb == disc->nlocal);
    PetscCall(PetscBTDestroy(&seen));
    disc->layoutset = PETSC_TRUE;
  }
  *direct   = disc->direct;
  *unique   = disc->unique;
  *contig   = disc->contig;
  *covering = disc->covering;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* integration: the type computes element matrices (addto, lma); scatter gather: build the dof -> entry map */
PetscErrorCode FEGDevOpSetUp(FEGOp op, PetscBool integration, const FEGTuning *t, FEGScatter scatter, FEGDevOp *dev)
{
  FEGDisc       *disc = op->disc;
  PetscLogDouble t0   = 0.0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(dev, sizeof(*dev)));
  PetscCall(FEGPhaseBegin(FEG_SetupDevice, (PetscObject)op, &t0));
  PetscCall(FEGDevDiscCreate(disc, integration, &dev->d));
  /* element matrices of large elements: the products of reference derivatives their GEMM reads, when they fit */
  PetscCall(FEGDevBuildP(&dev->d, integration ? (size_t)256 << 20 : 0));
  PetscCall(FEGPhaseEnd(FEG_SetupDevice, (PetscObject)op, t0, &op->tdevice));
  if (t) {
    dev->tune.kernel    = (int)t->kernel;
    dev->tune.blockSize = (int)t->blockSize;
    dev->tune.nentpt    = (int)t->nentpt;
    dev->tune.qchunk    = (int)t->qchunk;
    dev->tune.jacShared = t->jacShared ? 1 : 0;
  }
  PetscCall(FEGDiscLayout(disc, &dev->direct, &dev->unique, &dev->contig, &dev->covering));
  if (scatter == FEG_SCATTER_GATHER) {
    PetscCall(FEGDevTransposeMap(&dev->d, (int)disc->nlocal, &dev->toff, &dev->tlist));
    PetscCall(FEGDevMallocCopy((void **)&dev->ybuf, NULL, sizeof(double) * dev->d.Ne * dev->d.Nb, NULL));
  }
  if (!dev->direct && op->overlap) PetscCall(FEGDevOpHaloSetUp(op, dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevOpDestroy(FEGDevOp *dev)
{
  PetscFunctionBegin;
  PetscCall(FEGDevDiscDestroy(&dev->d));
  PetscCall(FEGDevCoeffCacheDestroy(&dev->cc));
  FEGDevFree(dev->toff);
  FEGDevFree(dev->tlist);
  FEGDevFree(dev->ybuf);
  FEGDevFree(dev->tune.work);
  PetscCall(FEGDevHaloDestroy(&dev->xchg));
  FEGDevFree(dev->lcode);
  PetscCall(PetscSFDestroy(&dev->halo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

size_t FEGDevOpBytes(const FEGDevOp *dev)
{
  return dev->d.bytes + (dev->tlist ? (size_t)dev->d.Ne * dev->d.Nb * (sizeof(int) + sizeof(double)) : 0) + (size_t)dev->nown * 2 * sizeof(int) + dev->tune.nwork * sizeof(double);
}

/* A type's element-to-dof indices idx (device, n of them) for a kernel that works on the global vectors: mapped through
   lcode on several processes (ghosts in the halo's buffers), the local-to-global map on one; with atomic adds only
   (the transpose gather sums into a local vector). Sets gindex; *out NULL where neither applies (keep the local ones). */
PetscErrorCode FEGDevOpGlobalIndices(FEGOp op, FEGDevOp *dev, size_t n, const int *idx, int **out)
{
  PetscFunctionBegin;
  *out = NULL;
  if (!(dev->l2g || dev->lcode) || dev->tlist) PetscFunctionReturn(PETSC_SUCCESS);
  if (dev->lcode) {
    PetscCall(FEGDevMallocCopy((void **)out, NULL, sizeof(int) * (n + 1), NULL));
    PetscCall(FEGDevMapIndices(n, idx, dev->lcode, *out));
  } else PetscCall(FEGDevLocalToGlobalIndices(op->disc, n, idx, out));
  dev->gindex = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGDevOpGlobalIndices() of the discretization's own dof map (dev->d.idx). On one process the result is the same
   for every operator on the DM, so the tables keep it (*shared: it is theirs, not the caller's to free) and a later
   operator uploads and maps nothing */
PetscErrorCode FEGDevOpTableGlobalIndices(FEGOp op, FEGDevOp *dev, int **out, PetscBool *shared)
{
  FEGDevDisc  *t = (FEGDevDisc *)dev->d.tables;
  const size_t n = (size_t)dev->d.Ne * dev->d.Nb;

  PetscFunctionBegin;
  *shared = PETSC_FALSE;
  if (!t || !dev->l2g || dev->lcode || dev->tlist) {
    PetscCall(FEGDevOpGlobalIndices(op, dev, n, dev->d.idx, out));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!t->gidx) PetscCall(FEGDevLocalToGlobalIndices(op->disc, n, t->idx, &t->gidx));
  *out        = t->gidx;
  *shared     = PETSC_TRUE;
  dev->gindex = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The halo buffers that a kernel indexing the global vectors (gindex) may reach over elements e0..e1-1: none (NULL) on
   one process, with PetscSF's exchange, or for interior elements only (e1 <= nint), so that those ranges take the
   kernels' plain loads and adds (fegcuda.h's FEGIdxLoad<false>) and not the coded ones with their run-time branches */
static PetscErrorCode FEGDevOpGhostBuffers(const FEGDevOp *dev, int e1, const double **xg, double **yg)
{
  const PetscBool some = (PetscBool)(dev->gindex && dev->xchg && e1 > dev->nint);

  PetscFunctionBegin;
  *xg = some ? dev->xchg->dg : NULL;
  *yg = some ? dev->xchg->dy : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* kernel over elements e0..e1-1 (the diagonal when diag); last: the final range, after which the deterministic gather
   sums the per-entry results */
static PetscErrorCode FEGDevOpLaunch(FEGOp op, FEGDevOp *dev, FEGDevApplyFn kernel, const double *x, double *y, PetscBool transpose, PetscBool overwrite, PetscBool diag, int e0, int e1, PetscBool last)
{
  FEGDevLaunch L;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&L, sizeof(L)));
  L.e0        = e0;
  L.e1        = e1;
  L.x         = x;
  L.y         = y;
  L.transpose = transpose ? 1 : 0;
  L.overwrite = overwrite ? 1 : 0;
  L.diag      = diag ? 1 : 0;
  PetscCall(FEGDevOpGhostBuffers(dev, e1, &L.xg, &L.yg));
  L.toff   = dev->toff;
  L.tlist  = dev->tlist;
  L.ybuf   = dev->ybuf;
  L.nlocal = last ? (int)op->disc->nlocal : 0;
  PetscCall((*kernel)(op, &L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ghost exchange of the overlapped apply, fegpu's or PetscSF's: forward, the owners' values of x (global) into the
   ghosts of xl (local); backward, the ghost sums of yl (local) added into their owners' entries of y (global) */
static PetscErrorCode FEGDevOpHaloBegin(FEGDevOp *dev, PetscBool forward, const double *src, double *dst)
{
  PetscFunctionBegin;
  if (dev->xchg) PetscCall(FEGDevHaloBegin(dev->xchg, forward, src, PETSC_FALSE));
  else if (dev->halo && forward) PetscCall(PetscSFBcastWithMemTypeBegin(dev->halo, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, src, PETSC_MEMTYPE_CUDA, dst, MPI_REPLACE));
  else if (dev->halo) PetscCall(PetscSFReduceWithMemTypeBegin(dev->halo, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, src, PETSC_MEMTYPE_CUDA, dst, MPIU_SUM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevOpHaloEnd(FEGDevOp *dev, PetscBool forward, const double *src, double *dst)
{
  PetscFunctionBegin;
  if (dev->xchg) PetscCall(FEGDevHaloEnd(dev->xchg, forward, dst));
  else if (dev->halo && forward) PetscCall(PetscSFBcastEnd(dev->halo, MPIU_SCALAR, src, dst, MPI_REPLACE));
  else if (dev->halo) PetscCall(PetscSFReduceEnd(dev->halo, MPIU_SCALAR, src, dst, MPIU_SUM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y (+)= A x with the halo overlapped (FEGDevOpHaloSetUp()): while the ghost values travel, the owned ones are copied
   in and the first interior elements applied; then the elements that touch ghosts, whose sums leave at once (staged
   through pinned host memory, MPI not being CUDA-aware) while the other interior elements run; the owned sums are
   stored into y before the ghost sums arriving from other processes are added. The constrained entries of xl are
   zeroed at the first call and never written. */
static PetscErrorCode FEGDevOpApplyOverlap(FEGOp op, FEGDevOp *dev, FEGDevApplyFn kernel, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  const PetscScalar *xa;
  PetscScalar       *ya, *xla, *yla;
  const int          Ne = dev->d.Ne, nint = (int)dev->nint, nfirst = (int)dev->nfirst;
  Vec                xl, yl;

  PetscFunctionBegin;
  PetscCall(FEGOpGetLocalVectors(op, &xl, &yl));
  if (!dev->xlzeroed) { /* its constrained entries are read as zeros and never written after this */
    PetscCall(VecZeroEntries(xl));
    dev->xlzeroed = PETSC_TRUE;
  }
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  if (add) PetscCall(VecCUDAGetArray(y, &ya));
  else PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(VecCUDAGetArray(xl, &xla));
  PetscCall(VecCUDAGetArrayWrite(yl, &yla));
  PetscCall(FEGDevOpHaloBegin(dev, PETSC_TRUE, xa, xla));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(FEGDevCopyIndexed(dev->nown, dev->lown, dev->gown, xa, xla));
  PetscCall(FEGDevZero(yla, op->disc->nlocal));
  PetscCall(FEGDevOpLaunch(op, dev, kernel, xla, yla, transpose, PETSC_FALSE, PETSC_FALSE, 0, nfirst, PETSC_FALSE));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevOpHaloEnd(dev, PETSC_TRUE, xa, xla));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(FEGDevOpLaunch(op, dev, kernel, xla, yla, transpose, PETSC_FALSE, PETSC_FALSE, nint, Ne, (PetscBool)(nfirst == nint)));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevOpHaloBegin(dev, PETSC_FALSE, yla, ya));
  PetscCall(PetscLogGpuTimeBegin());
  if (nfirst < nint) PetscCall(FEGDevOpLaunch(op, dev, kernel, xla, yla, transpose, PETSC_FALSE, PETSC_FALSE, nfirst, nint, PETSC_TRUE));
  PetscCall(FEGDevLocalToOwned(dev->nown, dev->lown, dev->gown, yla, ya, add ? 1 : 0));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevOpHaloEnd(dev, PETSC_FALSE, yla, ya));
  PetscCall(VecCUDARestoreArrayWrite(yl, &yla));
  PetscCall(VecCUDARestoreArray(xl, &xla));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  if (add) PetscCall(VecCUDARestoreArray(y, &ya));
  else PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y (+)= A x on several processes with a kernel that indexes the global vectors (gindex with lcode): the owned values
   are read and their sums added in place, the ghosts' in the halo's device buffers, so no local vector is copied in or
   out; the interior elements run while the ghost values arrive and while the ghost sums leave, as above */
static PetscErrorCode FEGDevOpApplyGlobal(FEGOp op, FEGDevOp *dev, FEGDevApplyFn kernel, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  FEGDevHalo        *h = dev->xchg;
  const PetscScalar *xa;
  PetscScalar       *ya;
  const int          Ne = dev->d.Ne, nint = (int)dev->nint, nfirst = (int)dev->nfirst;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  if (add) PetscCall(VecCUDAGetArray(y, &ya));
  else PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(FEGDevHaloBegin(h, PETSC_TRUE, xa, PETSC_FALSE));
  PetscCall(PetscLogGpuTimeBegin());
  if (!add) PetscCall(FEGDevZero(ya, op->disc->nglobal));
  PetscCall(FEGDevZero(h->dy, h->ng));
  PetscCall(FEGDevOpLaunch(op, dev, kernel, xa, ya, transpose, PETSC_FALSE, PETSC_FALSE, 0, nfirst, PETSC_FALSE));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevHaloEnd(h, PETSC_TRUE, NULL));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(FEGDevOpLaunch(op, dev, kernel, xa, ya, transpose, PETSC_FALSE, PETSC_FALSE, nint, Ne, PETSC_FALSE));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevHaloBegin(h, PETSC_FALSE, h->dy, PETSC_TRUE));
  PetscCall(PetscLogGpuTimeBegin());
  if (nfirst < nint) PetscCall(FEGDevOpLaunch(op, dev, kernel, xa, ya, transpose, PETSC_FALSE, PETSC_FALSE, nfirst, nint, PETSC_TRUE));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(FEGDevHaloEnd(h, PETSC_FALSE, ya));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  if (add) PetscCall(VecCUDARestoreArray(y, &ya));
  else PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevOpApply(FEGOp op, FEGDevOp *dev, FEGDevApplyFn kernel, PetscLogDouble flops, PetscBool mayOverwrite, Vec x, Vec y, PetscBool transpose, PetscBool add)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  /* element-owned dofs covering the vector (DG on one process): the kernel stores instead of adding */
  const PetscBool overwrite = (PetscBool)(mayOverwrite && dev->direct && dev->covering && !add);
  Vec             xl, yl;

  PetscFunctionBegin;
  if (dev->overlap && (!dev->gindex || dev->lcode)) {
    if (dev->gindex) PetscCall(FEGDevOpApplyGlobal(op, dev, kernel, x, y, transpose, add));
    else PetscCall(FEGDevOpApplyOverlap(op, dev, kernel, x, y, transpose, add));
    PetscCall(PetscLogGpuFlops(flops));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (dev->direct || dev->gindex) {
    PetscCall(VecCUDAGetArrayRead(x, &xa));
    if (add) PetscCall(VecCUDAGetArray(y, &ya));
    else {
      PetscCall(VecCUDAGetArrayWrite(y, &ya));
      if (!overwrite) PetscCall(FEGDevZero(ya, op->disc->nglobal));
    }
  } else {
    PetscCall(FEGOpGetLocalVectors(op, &xl, &yl));
    PetscCall(VecZeroEntries(xl));
    PetscCall(DMGlobalToLocal(op->dm, x, INSERT_VALUES, xl));
    PetscCall(VecCUDAGetArrayRead(xl, &xa));
    PetscCall(VecCUDAGetArrayWrite(yl, &ya));
    PetscCall(FEGDevZero(ya, op->disc->nlocal));
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(FEGDevOpLaunch(op, dev, kernel, xa, ya, transpose, overwrite, PETSC_FALSE, 0, dev->d.Ne, PETSC_TRUE));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  if (dev->direct || dev->gindex) {
    PetscCall(VecCUDARestoreArrayRead(x, &xa));
    if (add) PetscCall(VecCUDARestoreArray(y, &ya));
    else PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  } else {
    PetscCall(VecCUDARestoreArrayRead(xl, &xa));
    PetscCall(VecCUDARestoreArrayWrite(yl, &ya));
    if (!add) PetscCall(VecZeroEntries(y));
    PetscCall(DMLocalToGlobal(op->dm, yl, ADD_VALUES, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDevOpDiagonal(FEGOp op, FEGDevOp *dev, FEGDevApplyFn kernel, Vec diag)
{
  PetscScalar *ya;
  Vec          yl;

  PetscFunctionBegin;
  if (dev->gindex || dev->direct) {
    PetscCall(VecCUDAGetArrayWrite(diag, &ya));
    PetscCall(FEGDevZero(ya, op->disc->nglobal));
    if (dev->gindex && dev->lcode) PetscCall(FEGDevZero(dev->xchg->dy, dev->xchg->ng));
    PetscCall(FEGDevOpLaunch(op, dev, kernel, NULL, ya, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, 0, dev->d.Ne, PETSC_TRUE));
    if (dev->gindex && dev->lcode) { /* the ghosts' sums, added in place, go to their owners */
      PetscCall(FEGDevHaloBegin(dev->xchg, PETSC_FALSE, dev->xchg->dy, PETSC_TRUE));
      PetscCall(FEGDevHaloEnd(dev->xchg, PETSC_FALSE, ya));
    }
    PetscCall(VecCUDARestoreArrayWrite(diag, &ya));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FEGOpGetLocalVectors(op, NULL, &yl));
  PetscCall(VecCUDAGetArrayWrite(yl, &ya));
  PetscCall(FEGDevZero(ya, op->disc->nlocal));
  PetscCall(FEGDevOpLaunch(op, dev, kernel, NULL, ya, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, 0, dev->d.Ne, PETSC_TRUE));
  if (dev->overlap) {
    PetscScalar *da;

    /* the owned sums stored, the ghosts' sums added by the halo SF, as at the end of an apply */
    PetscCall(VecCUDAGetArrayWrite(diag, &da));
    PetscCall(FEGDevLocalToOwned(dev->nown, dev->lown, dev->gown, ya, da, 0));
    PetscCall(FEGDevOpHaloBegin(dev, PETSC_FALSE, ya, da));
    PetscCall(FEGDevOpHaloEnd(dev, PETSC_FALSE, ya, da));
    PetscCall(VecCUDARestoreArrayWrite(diag, &da));
    PetscCall(VecCUDARestoreArrayWrite(yl, &ya));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecCUDARestoreArrayWrite(yl, &ya));
  PetscCall(VecZeroEntries(diag));
  PetscCall(DMLocalToGlobal(op->dm, yl, ADD_VALUES, diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the geometry points and the integration kernel the element matrices used */
PetscErrorCode FEGDevOpView(FEGOp op, FEGDevOp *dev, PetscViewer viewer)
{
  const FEGDevTuning *t = &dev->tune;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU: geometry at %d point(s) per element", dev->d.nG));
  if (t->used)
    PetscCall(PetscViewerASCIIPrintf(viewer, ", integration kernel: %s", t->used == 1 ? "one element per thread" : (t->used == 2 ? "one element per thread block" : (t->used == 4 ? "reference tensors, one entry per thread (lma: a warp per row of 32 elements)" : "GEMM over reference tables (cuBLAS)"))));
  if (t->used == 3) PetscCall(PetscViewerASCIIPrintf(viewer, " (%s, %d elements per GEMM chunk)", dev->d.P ? "K = Chat P, P the products of reference derivatives" : "K = R^T U", t->nparts));
  if (t->used == 2) PetscCall(PetscViewerASCIIPrintf(viewer, " (block size %d, NENTPT %d, NR_PARTS %d, quadrature chunk %d, Jacobian data in shared memory: %s)", t->blockSize, t->nentpt, t->nparts, t->qchunk, t->jacShared ? "yes" : "no"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  if (dev->gindex && !dev->lcode) PetscCall(PetscViewerASCIIPrintf(viewer, "apply: one kernel on the global vectors through global indices, constrained dofs skipped\n"));
  else if (dev->overlap) {
    PetscMPIInt rank;

    /* per process: the interior prefix is what can overlap the messages */
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)op), &rank));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] apply: owned dofs %s, ghost dofs moved by %s; the first %" PetscInt_FMT " of %d elements touch no ghost dof, %" PetscInt_FMT " of them run while ghost values arrive\n", (int)rank, dev->gindex ? "read and summed in place through global indices" : "copied by fegpu",
                                                 dev->xchg ? (dev->xchg->ipc ? "fegpu (device to device, CUDA IPC)" : "fegpu (pinned host buffers)") : "PetscSF", dev->nint, dev->d.Ne, dev->nfirst));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  } else if (!dev->direct) PetscCall(PetscViewerASCIIPrintf(viewer, "apply: DMGlobalToLocal() and DMLocalToGlobal() around one kernel (-feg_op_halo_overlap false, or see -info)\n"));
  {
    PetscMPIInt rank;
    int         id, n;
    char        bus[32], host[128];

    /* which GPU each process drives: one per process is what scales (share/fegpu/gpu-bind) */
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)op), &rank));
    PetscCallCUDA(cudaGetDevice(&id));
    PetscCallCUDA(cudaGetDeviceCount(&n));
    PetscCallCUDA(cudaDeviceGetPCIBusId(bus, sizeof(bus), id));
    PetscCall(PetscGetHostName(host, sizeof(host)));
    PetscCall(PetscViewerASCIIPushSynchronized(viewer));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "[%d] GPU %d of %d visible on %s (PCI %s)\n", (int)rank, id, n, host, bus));
    PetscCall(PetscViewerFlush(viewer));
    PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What right-hand sides keep on the device between calls: the discretization with its integration tables, the
   coefficient cache, and for -feg_form_rhs_scatter gather the dof -> entry map and the per-entry buffer */
typedef struct {
  FEGDevDisc       d;
  FEGDevCoeffCache cc;
  int             *toff, *tlist;
  double          *ybuf;
  PetscBool        direct, unique, contig, covering; /* FEGDiscLayout() */
  FEGDevPairs     *pairs;                            /* not direct: the owned and ghost dofs (the discretization's) */
} FEGDevRHS;

static PetscErrorCode FEGDevRHSDestroy(void **ctx)
{
  FEGDevRHS *r = (FEGDevRHS *)*ctx;

  PetscFunctionBegin;
  if (!r) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDevCoeffCacheDestroy(&r->cc));
  PetscCall(FEGDevDiscDestroy(&r->d));
  PetscCallCUDA(cudaFree(r->toff));
  PetscCallCUDA(cudaFree(r->tlist));
  PetscCallCUDA(cudaFree(r->ybuf));
  PetscCall(PetscFree(*ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b(v) - a(g, v) on the device, the lifting fused into the element vectors; the device data is made on the first call
   and kept with the shared discretization. The gather (FEGFormSetRHSScatter()) sums each dof's entries in
   a fixed order, so the vector is the same bit for bit from run to run; atomic (the default) is faster. */
PetscErrorCode FEGComputeRHS_CUDA(FEGDisc *disc, FEGForm form, Vec b)
{
  DM                 dm = disc->dm;
  FEGDevRHS         *r  = (FEGDevRHS *)disc->rhsdev;
  FEGDevCoeff        c;
  FEGScatter         scatter = FEG_SCATTER_ATOMIC;
  Vec                bl, gl;
  PetscScalar       *y;
  const PetscScalar *gd = NULL;
  PetscBool          lift;

  PetscFunctionBegin;
  PetscCall(FEGFormGetRHSScatter(form, &scatter));
  if (!r) {
    PetscCall(PetscNew(&r));
    disc->rhsdev        = r;
    disc->rhsdevdestroy = FEGDevRHSDestroy;
    PetscCall(PetscLogEventBegin(FEG_SetupDevice, dm, 0, 0, 0));
    PetscCall(FEGDevDiscCreate(disc, PETSC_TRUE, &r->d));
    PetscCall(FEGDevBuildP(&r->d, (size_t)256 << 20));
    PetscCall(FEGDiscLayout(disc, &r->direct, &r->unique, &r->contig, &r->covering));
    if (!r->direct) {
      FEGDevPairs *p;

      /* the local vector's owned dofs go into b by index pairs and its ghost dofs to their owners' rows through an SF
         of the ghosts alone, not through DMLocalToGlobal() and the section SF of every local dof */
      PetscCall(FEGDiscGetDevPairs(disc, &p));
      if (p->ok) r->pairs = p;
    }
    PetscCall(PetscLogEventEnd(FEG_SetupDevice, dm, 0, 0, 0));
  }
  if (scatter == FEG_SCATTER_GATHER && !r->ybuf) {
    PetscCall(PetscLogEventBegin(FEG_SetupDevice, dm, 0, 0, 0));
    PetscCall(FEGDevTransposeMap(&r->d, (int)disc->nlocal, &r->toff, &r->tlist));
    PetscCall(FEGDevMallocCopy((void **)&r->ybuf, NULL, sizeof(double) * disc->Ne * disc->Nb, NULL));
    PetscCall(PetscLogEventEnd(FEG_SetupDevice, dm, 0, 0, 0));
  }
  PetscCall(FEGDevCoeffPrepare(disc, form, &r->cc, &c));
  PetscCall(DMGetLocalVector(dm, &gl));
  PetscCall(FEGDiscBoundaryValues(disc, gl, &lift, NULL, NULL));
  /* one process without constraints: the element vectors go straight into b; dofs of one element each (discontinuous):
     plain stores, and no zeroing when the elements cover every dof */
  if (r->direct) bl = b;
  else PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(VecCUDAGetArrayWrite(bl, &y));
  if (!(r->covering && scatter != FEG_SCATTER_GATHER)) PetscCall(FEGDevZero(y, disc->nlocal));
  if (lift) PetscCall(VecCUDAGetArrayRead(gl, &gd));
  PetscCall(FEGDevElementVectors(&r->d, &c, gd, y, scatter == FEG_SCATTER_GATHER ? r->ybuf : NULL, r->unique));
  if (scatter == FEG_SCATTER_GATHER) PetscCall(FEGDevGather((int)disc->nlocal, r->toff, r->tlist, r->ybuf, y));
  if (lift) PetscCall(VecCUDARestoreArrayRead(gl, &gd));
  PetscCall(VecCUDARestoreArrayWrite(bl, &y));
  PetscCall(FEGDevCoeffRelease(form, &r->cc));
  if (r->pairs) {
    const PetscScalar *yl;
    PetscScalar       *bb;

    PetscCall(VecCUDAGetArrayRead(bl, &yl));
    PetscCall(VecCUDAGetArrayWrite(b, &bb));
    PetscCall(FEGDevLocalToOwned(r->pairs->nown, r->pairs->lown, r->pairs->gown, yl, bb, 0));
    if (r->pairs->ghosts) { /* the ghosts' sums added to their owners' rows */
      PetscCall(PetscSFReduceBegin(r->pairs->ghosts, MPIU_SCALAR, yl, bb, MPI_SUM));
      PetscCall(PetscSFReduceEnd(r->pairs->ghosts, MPIU_SCALAR, yl, bb, MPI_SUM));
    }
    PetscCall(VecCUDARestoreArrayWrite(b, &bb));
    PetscCall(VecCUDARestoreArrayRead(bl, &yl));
    PetscCall(DMRestoreLocalVector(dm, &bl));
  } else if (!r->direct) {
    PetscCall(VecZeroEntries(b));
    PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
    PetscCall(DMRestoreLocalVector(dm, &bl));
  }
  PetscCall(DMRestoreLocalVector(dm, &gl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
