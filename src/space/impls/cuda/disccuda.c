/* A discretization on the device: reference tables, coordinates and dof indices uploaded from the host FEGDisc, and the
   geometry computed there by the same FEGGeometryAt() the host used */
#include <fegpu/private/fegspaceimpl.h>
#include <petscdevice_cuda.h>

/* a per-element index array on the device in the element-interleaved order most kernels read,
   d[l*Ne+e] = src[e*Nb + (perm ? perm[l] : l)], or with interleave false element-major, d[e*Nb+l]; total += its bytes
   when given */
PetscErrorCode FEGDevInterleaveIndices(const FEGDisc *disc, const PetscInt src[], const PetscInt perm[], PetscBool interleave, int **d, size_t *total)
{
  const PetscInt Ne = disc->Ne, Nb = disc->Nb;
  int           *h, *t;

  PetscFunctionBegin;
  /* element-major and contiguous on the host, transposed on the device */
  if (!perm && sizeof(PetscInt) == sizeof(int)) PetscCall(FEGDevMallocCopy((void **)&t, src, sizeof(int) * Ne * Nb, NULL));
  else {
    PetscCall(PetscMalloc1((size_t)Ne * Nb + 1, &h));
    /* on the cells' threads, which also share the first touch of h's pages (26M entries at BP3's 8M Q2 unknowns) */
#pragma omp parallel for num_threads(FEGDiscThreads(disc)) schedule(static)
    for (PetscInt e = 0; e < Ne; e++)
      for (PetscInt l = 0; l < Nb; l++) h[(size_t)e * Nb + l] = (int)src[(size_t)e * Nb + (perm ? perm[l] : l)];
    PetscCall(FEGDevMallocCopy((void **)&t, h, sizeof(int) * Ne * Nb, NULL));
    PetscCall(PetscFree(h));
  }
  if (!interleave) {
    *d = t;
    if (total) *total += sizeof(int) * Ne * Nb;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FEGDevMallocCopy((void **)d, NULL, sizeof(int) * Ne * Nb, total));
  PetscCall(FEGDevInterleave((int)Ne, (int)Nb, t, *d));
  PetscCallCUDA(cudaFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *dout[k] = the global index of local dof didx[k] (FEGDiscGetLocalToGlobal(), -1 where constrained) for n device
   indices, mapped on the device into a new array; the element-to-dof map is on the device already, only the
   local-to-global map travels */
PetscErrorCode FEGDevLocalToGlobalIndices(FEGDisc *disc, size_t n, const int *didx, int **dout)
{
  const PetscInt *l2g;
  int            *dl2g;

  PetscFunctionBegin;
  PetscCall(FEGDiscGetLocalToGlobal(disc, &l2g));
  if (sizeof(PetscInt) == sizeof(int)) PetscCall(FEGDevMallocCopy((void **)&dl2g, l2g, sizeof(int) * disc->nlocal, NULL));
  else {
    int *h;

    PetscCall(PetscMalloc1(disc->nlocal + 1, &h));
    for (PetscInt l = 0; l < disc->nlocal; l++) h[l] = (int)l2g[l];
    PetscCall(FEGDevMallocCopy((void **)&dl2g, h, sizeof(int) * disc->nlocal, NULL));
    PetscCall(PetscFree(h));
  }
  PetscCall(FEGDevMallocCopy((void **)dout, NULL, sizeof(int) * n, NULL));
  PetscCall(FEGDevMapIndices(n, didx, dl2g, *dout));
  PetscCallCUDA(cudaFree(dl2g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bytes of a discretization's geometry */
static size_t FEGDevGeometryBytes(const FEGDevDisc *d)
{
  return sizeof(double) * d->Ne * d->nG * (d->dim * d->dim + 1);
}

/* The geometry on the device. A copy of the discretization's tables (FEGDevDiscCreate()) uses the tables' geometry,
   computed by the first copy that needs it (FEGDevDiscFreeGeometry() says how long it is kept): it depends on the mesh
   and the quadrature only, so a DM's later operators and right-hand sides compute, allocate and check nothing again
   (it was most of a later P1 lma operator's setup) */
PetscErrorCode FEGDevDiscGeometry(FEGDevDisc *d)
{
  FEGDevDisc  *g = d->tables ? (FEGDevDisc *)d->tables : d;
  const size_t n = FEGDevGeometryBytes(d);
  int         *work, bad;

  PetscFunctionBegin;
  if (d->geo) PetscFunctionReturn(PETSC_SUCCESS);
  if (!g->geo) {
    PetscCall(FEGDevMallocCopy((void **)&g->geo, NULL, n, NULL));
    PetscCall(FEGDevMallocCopy((void **)&work, NULL, sizeof(int), NULL));
    PetscCall(FEGDevGeometry(g, work, &bad));
    PetscCallCUDA(cudaFree(work));
    if (bad != d->Ne) FEGDevFree(g->geo);
    PetscCheck(bad == d->Ne, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Cell %d has Jacobian determinant <= 0 at a quadrature point: the mesh has an inverted or degenerate cell", (int)(d->cStart + (d->ecell ? d->ecell[bad] : bad)));
  }
  if (g != d) g->georefs++;
  d->geo = g->geo;
  d->bytes += n; /* what this copy uses, as with the tables' other arrays */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the quadrature points of every cell into a CUDA Vec (FEGDMCreateQuadratureCoordinates()): computed on the device
   from the cells' coordinate nodes, which travel up once; the host computes no geometry */
PetscErrorCode FEGDevQuadraturePoints(FEGDisc *disc, Vec X)
{
  const PetscInt dim = disc->dim, Ne = disc->Ne, Nq = disc->Nq, Nv = disc->Nv;
  double        *Xd = NULL, *Bd = NULL;
  PetscScalar   *x;

  PetscFunctionBegin;
  if (disc->ecell) {
    PetscReal *Xc; /* the points are the DM's cells', in its order: the coordinates go up in that order */

    PetscCall(PetscMalloc1((size_t)Ne * Nv * dim, &Xc));
    for (PetscInt e = 0; e < Ne; e++) PetscCall(PetscArraycpy(&Xc[disc->ecell[e] * Nv * dim], &disc->X[e * Nv * dim], Nv * dim));
    PetscCall(FEGDevMallocCopy((void **)&Xd, Xc, sizeof(double) * Ne * Nv * dim, NULL));
    PetscCall(PetscFree(Xc));
  } else PetscCall(FEGDevMallocCopy((void **)&Xd, disc->X, sizeof(double) * Ne * Nv * dim, NULL));
  PetscCall(FEGDevMallocCopy((void **)&Bd, disc->Bc, sizeof(double) * Nq * Nv, NULL));
  PetscCall(VecCUDAGetArrayWrite(X, &x));
  PetscCall(FEGDevMapPoints((int)dim, (int)Ne, (int)Nq, (int)Nv, Xd, Bd, x));
  PetscCall(VecCUDARestoreArrayWrite(X, &x));
  FEGDevFree(Xd);
  FEGDevFree(Bd);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* this copy's use of the geometry ends (matfree keeps only its factors: it takes the geometry for each assembly and
   lets it go after). Once a copy that integrates (element matrices or vectors) has used it, the tables keep affine
   cells' geometry (one Jacobian per cell: fewer bytes than the coordinates they keep) for the DM's later operators,
   which a program often makes after destroying earlier ones; otherwise it is freed when no copy uses it */
PetscErrorCode FEGDevDiscFreeGeometry(FEGDevDisc *d)
{
  FEGDevDisc *g = d->tables ? (FEGDevDisc *)d->tables : d;

  PetscFunctionBegin;
  if (!d->geo) PetscFunctionReturn(PETSC_SUCCESS);
  d->bytes -= FEGDevGeometryBytes(d);
  if (g != d) {
    d->geo = NULL;
    if (--g->georefs > 0 || g->keepgeo) PetscFunctionReturn(PETSC_SUCCESS);
  }
  FEGDevFree(g->geo);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDevDiscCacheDestroy(void **p)
{
  FEGDevDisc *c = (FEGDevDisc *)*p;

  PetscFunctionBegin;
  if (c) PetscCall(FEGDevDiscDestroy(c));
  PetscCall(PetscFree(*p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The discretization's device tables, uploaded by the first operator or right-hand side that needs them and kept on the
   FEGDisc (the DM's), so that the others on it upload nothing again: reference tables, coordinates and the
   element-interleaved dof map; with integration on affine cells the reference tensors M^rs too, added when first asked */
static PetscErrorCode FEGDevDiscShared(FEGDisc *disc, PetscBool integration, FEGDevDisc **dc)
{
  const PetscInt dim = disc->dim, Nb = disc->Nb, Nq = disc->Nq, Ne = disc->Ne, Nd = dim + 1, KK = Nq * Nd;
  FEGDevDisc    *d = (FEGDevDisc *)disc->devdisc;

  PetscFunctionBegin;
  if (!d) {
    PetscCall(PetscNew(&d));
    d->dim    = (int)dim;
    d->Nb     = (int)Nb;
    d->Nq     = (int)Nq;
    d->Ne     = (int)Ne;
    d->nG     = (int)disc->nG;
    d->Nv     = (int)disc->Nv;
    d->cStart = (int)disc->cStart;
    d->ecell  = disc->ecell;
    PetscCall(FEGDevMallocCopy((void **)&d->B, disc->T->T[0], sizeof(double) * Nq * Nb, &d->bytes));
    PetscCall(FEGDevMallocCopy((void **)&d->D, disc->T->T[1], sizeof(double) * Nq * Nb * dim, &d->bytes));
    PetscCall(FEGDevMallocCopy((void **)&d->qw, disc->qweights, sizeof(double) * Nq, &d->bytes));
    PetscCall(FEGDevMallocCopy((void **)&d->R, disc->R, sizeof(double) * KK * Nb, &d->bytes));
    PetscCall(FEGDevMallocCopy((void **)&d->G, disc->Gc, sizeof(double) * Nq * disc->Nv * dim, &d->bytes));
    PetscCall(FEGDevMallocCopy((void **)&d->X, disc->X, sizeof(double) * Ne * disc->Nv * dim, &d->bytes));
    PetscCall(FEGDevInterleaveIndices(disc, disc->lidx, NULL, PETSC_TRUE, &d->idx, &d->bytes));
    disc->devdisc        = d;
    disc->devdiscdestroy = FEGDevDiscCacheDestroy;
  }
  /* affine cells: with constant C the element matrix is sum_rs Chat_rs M^rs, Chat = detJ T^T C T. Kept for every
     simplex (no cheaper way to their element matrices) and for other cells while building it stays in the tens of
     milliseconds (hexahedra to Q4, prisms to P4, quadrilaterals at every order) */
  if (!d->M && disc->affine && integration && (disc->cell->simplex || (double)Nd * Nd * Nb * Nb * Nq <= 33554432.0)) {
    const PetscInt nn = Nb * Nb, ns = Nd * (Nd + 1) / 2;
    double        *M, *MS;

    PetscCall(PetscCalloc1(Nd * Nd * nn, &M));
    PetscCall(PetscCalloc1(Nd * Nd * nn + Nd * Nb, &MS));
    /* M^rs[a*Nb+b] = sum_q w_q R_r(b) R_s(a) */
    for (PetscInt r = 0; r < Nd; r++)
      for (PetscInt s = 0; s < Nd; s++) PetscCall(FEGDiscRefTensor(disc, r, s, M + (r * Nd + s) * nn));
    /* the kernels' form: the symmetric sums S^k, then the antisymmetric differences A^k (FEGSplitPairs()) */
    for (PetscInt ab = 0; ab < nn; ab++) {
      double X[4][4], sym[10], skew[6];

      for (PetscInt r = 0; r < Nd; r++)
        for (PetscInt s = 0; s < Nd; s++) X[r][s] = M[(r * Nd + s) * nn + ab];
      FEGSplitPairs((int)Nd, X, 1.0, sym, skew);
      for (PetscInt k = 0; k < ns; k++) MS[k * nn + ab] = sym[k];
      for (PetscInt k = 0; k < Nd * Nd - ns; k++) MS[(ns + k) * nn + ab] = skew[k];
    }
    /* the right-hand side's rows: Mv[t*Nb+a] = sum_b M^0t_ab (trial value u = 1) */
    for (PetscInt t = 0; t < Nd; t++)
      for (PetscInt a = 0; a < Nb; a++)
        for (PetscInt b = 0; b < Nb; b++) MS[Nd * Nd * nn + t * Nb + a] += M[(t * Nb + a) * Nb + b];
    PetscCall(FEGDevMallocCopy((void **)&d->M, MS, sizeof(double) * (Nd * Nd * nn + Nd * Nb), &d->bytes));
    PetscCall(PetscFree(MS));
    PetscCall(PetscFree(M));
  }
  *dc = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An operator's or a right-hand side's device discretization: the shared tables (FEGDevDiscShared()), and its own
   geometry and, with integration on large elements, products of reference derivatives */
PetscErrorCode FEGDevDiscCreate(FEGDisc *disc, PetscBool integration, FEGDevDisc *d)
{
  FEGDevDisc *c = NULL;

  PetscFunctionBegin;
  PetscCall(FEGDevDiscShared(disc, integration, &c));
  *d         = *c;
  d->tables  = c;
  d->geo     = NULL;
  d->georefs = 0;
  d->keepgeo = 0;
  d->gidx    = NULL;
  d->P       = NULL;
  if (!integration) d->M = NULL; /* as when each built its own: only integration uses the reference tensors */
  if (integration && c->nG == 1) c->keepgeo = 1;
  PetscCall(FEGDevDiscGeometry(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* frees what this copy owns (everything, for the discretization's own tables) */
PetscErrorCode FEGDevDiscDestroy(FEGDevDisc *d)
{
  PetscFunctionBegin;
  if (!d->tables) {
    FEGDevFree(d->B);
    FEGDevFree(d->D);
    FEGDevFree(d->qw);
    FEGDevFree(d->R);
    FEGDevFree(d->M);
    FEGDevFree(d->G);
    FEGDevFree(d->X);
    FEGDevFree(d->idx);
    FEGDevFree(d->gidx);
  }
  FEGDevFree(d->P);
  PetscCall(FEGDevDiscFreeGeometry(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}
