#include <fegpu/private/fegspaceimpl.h>
#include <petscblaslapack.h>
#include <petscds.h>
#include <petscbt.h>

/* The basis of each cell's coordinate nodes at np reference points, values B[p*Nv+v] and reference gradients
   G[(p*Nv+v)*dim+d] (G may be NULL): the coordinate DM's PetscFE when it has one (curved cells of a high-order mesh),
   else the P1/Q1 Lagrange basis of the cell's vertices. Sets disc->Nv. */
static PetscErrorCode FEGDiscCoordinateTabulate(FEGDisc *disc, PetscInt np, const PetscReal pts[], PetscReal **B, PetscReal **G)
{
  const PetscInt  dim = disc->dim;
  DM              cdm;
  PetscInt        nf, Nc = 1, Nbc;
  PetscObject     obj = NULL;
  PetscClassId    id  = 0;
  PetscFE         cfe, own = NULL;
  PetscTabulation T;

  PetscFunctionBegin;
  PetscCall(DMGetCoordinateDM(disc->dm, &cdm));
  PetscCall(DMGetNumFields(cdm, &nf));
  if (nf > 0) PetscCall(DMGetField(cdm, 0, NULL, &obj));
  if (obj) PetscCall(PetscObjectGetClassId(obj, &id));
  if (id == PETSCFE_CLASSID) {
    cfe = (PetscFE)obj;
    PetscCall(PetscFEGetNumComponents(cfe, &Nc));
  } else {
    PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, dim, 1, disc->ct, 1, PETSC_DETERMINE, &own));
    cfe = own;
  }
  PetscCall(PetscFEGetDimension(cfe, &Nbc));
  PetscCheck(Nbc % Nc == 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "The coordinate element has %" PetscInt_FMT " basis functions for %" PetscInt_FMT " components", Nbc, Nc);
  disc->Nv = Nbc / Nc;
  PetscCall(PetscMalloc1(np * disc->Nv, B));
  if (G) PetscCall(PetscMalloc1(np * disc->Nv * dim, G));
  PetscCall(PetscFECreateTabulation(cfe, 1, np, pts, 1, &T));
  /* a vector element's basis function v*Nc+c is the scalar basis function of node v in component c (the order of the
     coordinates in a closure); take component 0 */
  for (PetscInt q = 0; q < np; q++)
    for (PetscInt v = 0; v < disc->Nv; v++) {
      const PetscInt b = v * Nc;

      for (PetscInt c = 1; c < Nc; c++) PetscCheck(T->T[0][(q * Nbc + b) * Nc + c] == 0.0, PETSC_COMM_SELF, PETSC_ERR_SUP, "The coordinate element's basis is not node by node, component by component");
      (*B)[q * disc->Nv + v] = T->T[0][(q * Nbc + b) * Nc];
      if (G)
        for (PetscInt d = 0; d < dim; d++) (*G)[(q * disc->Nv + v) * dim + d] = T->T[1][((q * Nbc + b) * Nc) * dim + d];
    }
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscFEDestroy(&own));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the Jacobian of every cell is the same at all its quadrature points (straight simplices, parallelograms,
   parallelepipeds, right prisms, curved-looking coordinate nodes that are not). J(q) = sum_v X_v Gc(q,v)^T, so it is
   constant iff each coordinate's node values are orthogonal to the differences Gc(q,.,d) - Gc(0,.,d); an orthonormal
   basis S of their span is found once (empty for straight simplices, 4 vectors for trilinear hexahedra), and a cell
   costs dim |S| Nv multiply-adds, not a Jacobian at every quadrature point. Tolerance: 1e-12 relative to the cell's
   size. Collective */
static PetscErrorCode FEGDiscAffine_Private(FEGDisc *disc)
{
  const PetscInt   dim = disc->dim, Nv = disc->Nv, Nq = disc->Nq;
  const PetscReal *Gc = disc->Gc;
  PetscReal       *S, *w;
  PetscInt         nS = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(Nv * Nv, &S, Nv, &w));
  for (PetscInt q = 1; q < Nq && nS < Nv; q++)
    for (PetscInt d = 0; d < dim && nS < Nv; d++) {
      PetscReal n0 = 0.0;

      for (PetscInt v = 0; v < Nv; v++) {
        w[v] = Gc[(q * Nv + v) * dim + d] - Gc[v * dim + d];
        n0 += w[v] * w[v];
      }
      if (n0 > 0.0) FEGOrthoAppend(Nv, S, &nS, w, 1e-10 * PetscSqrtReal(n0)); /* not kept if in the span already */
    }
  {
    int affine = 1;

#pragma omp parallel for num_threads(FEGDiscThreads(disc)) schedule(static) reduction(min : affine)
    for (PetscInt e = 0; e < disc->Ne; e++) {
      const PetscReal *X = disc->X + (size_t)e * Nv * dim;
      PetscReal        h = 0.0;

      if (!affine) continue;
      for (PetscInt v = 1; v < Nv; v++)
        for (PetscInt c = 0; c < dim; c++) h = PetscMax(h, PetscAbsReal(X[v * dim + c] - X[c]));
      /* S is orthogonal to the constants (sum_v Gc(q,v) = 0), so differences to node 0 keep far-off cells exact */
      for (PetscInt k = 0; k < nS && affine; k++)
        for (PetscInt c = 0; c < dim; c++) {
          PetscReal r = 0.0;

          for (PetscInt v = 1; v < Nv; v++) r += (X[v * dim + c] - X[c]) * S[k * Nv + v];
          if (PetscAbsReal(r) > 1e-12 * h) affine = 0;
        }
    }
    disc->affine = affine ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(PetscFree2(S, w));
  /* one answer on every process, so that choices made from it (kernels, -feg_op_type auto) agree */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &disc->affine, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)disc->dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Coordinates of every cell's coordinate nodes (disc->X, read in bulk beside the dof map where bulk is set, checked here
   on the first cells against PETSc's own DMPlexGetCellCoordinates(); cellwise (periodic) coordinates and layouts the
   bulk read does not reproduce are read cell by cell), and whether every cell's Jacobian is constant */
static PetscErrorCode FEGDiscCoordinates_Private(FEGDisc *disc, PetscBool bulk)
{
  const PetscInt dim = disc->dim, Nv = disc->Nv, Nq = disc->Nq;

  PetscInt ncheck = bulk ? PetscMin(disc->Ne, 64) : disc->Ne;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < ncheck; e++) {
    const PetscScalar *array;
    PetscScalar       *x = NULL;
    PetscBool          isDG;
    PetscInt           n;

    PetscCall(DMPlexGetCellCoordinates(disc->dm, disc->cStart + e, &isDG, &n, &array, &x));
    PetscCheck(n == Nv * dim, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " coordinate values, expected %" PetscInt_FMT " (%" PetscInt_FMT " nodes of the coordinate element)", disc->cStart + e, n, Nv * dim, Nv);
    for (PetscInt k = 0; k < n; k++) {
      PetscReal *X = &disc->X[(size_t)e * Nv * dim + k];

      /* a coordinate layout the bulk read does not reproduce: every cell through PETSc */
      if (bulk && *X != PetscRealPart(x[k])) {
        bulk   = PETSC_FALSE;
        ncheck = disc->Ne;
      }
      *X = PetscRealPart(x[k]);
    }
    PetscCall(DMPlexRestoreCellCoordinates(disc->dm, disc->cStart + e, &isDG, &n, &array, &x));
  }
  PetscCall(FEGDiscAffine_Private(disc));
  disc->nG = disc->affine ? 1 : Nq;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDiscRefTensor - a reference tensor of affine cells, out[i + j Nb] = sum_q w_q R_x(q, i) R_y(q, j), R_0 the
  reference values and R_r (r >= 1) the reference derivatives along r - 1 of the basis functions: one DGEMM

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGDiscRefTensor(const FEGDisc *disc, PetscInt x, PetscInt y, PetscReal out[])
{
  const PetscInt  Nb = disc->Nb, Nq = disc->Nq, Nd = disc->dim + 1, KK = Nq * Nd;
  const PetscReal one = 1.0, zero = 0.0;
  PetscReal      *A, *WA;
  PetscBLASInt    bNb, bNq;

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(Nb, &bNb));
  PetscCall(PetscBLASIntCast(Nq, &bNq));
  PetscCall(PetscMalloc2(Nq * Nb, &A, Nq * Nb, &WA));
  for (PetscInt b = 0; b < Nb; b++)
    for (PetscInt q = 0; q < Nq; q++) {
      A[b * Nq + q]  = disc->R[q * Nd + x + b * KK];
      WA[b * Nq + q] = disc->qweights[q] * disc->R[q * Nd + y + b * KK];
    }
  PetscCallBLAS("BLASgemm", BLASgemm_("T", "N", &bNb, &bNb, &bNq, &one, A, &bNq, WA, &bNq, &zero, out, &bNb));
  PetscCall(PetscFree2(A, WA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDiscSetUpGeometry - the host geometry (invJ and det J at one point per affine cell, else at every quadrature
  point) and the quadrature points in real space, computed on first use: host types and host coefficient evaluation
  need them, the device computes its own from the coordinates

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGDiscSetUpGeometry(FEGDisc *disc)
{
  const PetscInt dim = disc->dim, Nv = disc->Nv, Nq = disc->Nq, ng = dim * dim + 1;

  PetscLogDouble t0 = 0.0;

  PetscFunctionBegin;
  if (disc->geo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGPhaseBegin(FEG_SetupGeometry, (PetscObject)disc->dm, &t0));
  PetscCall(PetscMalloc2((size_t)disc->Ne * disc->nG * ng, &disc->geo, (size_t)disc->Ne * Nq * dim, &disc->xq));
  for (PetscInt e = 0; e < disc->Ne; e++) {
    const PetscReal *X = disc->X + (size_t)e * Nv * dim;

    for (PetscInt g = 0; g < disc->nG; g++) {
      PetscReal *geo = disc->geo + ((size_t)e * disc->nG + g) * ng;

      geo[ng - 1] = FEGGeometryAt((int)dim, (int)Nv, X, disc->Gc + g * Nv * dim, geo);
      PetscCheck(geo[ng - 1] > 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Cell %" PetscInt_FMT " has Jacobian determinant %g <= 0 at a quadrature point: the mesh has an inverted or degenerate cell", FEGDiscCell(disc, e), (double)geo[ng - 1]);
    }
    for (PetscInt q = 0; q < Nq; q++) FEGMapPoint((int)dim, (int)Nv, X, disc->Bc + q * Nv, disc->xq + ((size_t)e * Nq + q) * dim);
  }
  disc->bytes += (PetscLogDouble)disc->Ne * (disc->nG * ng + Nq * dim) * sizeof(PetscReal);
  PetscCall(FEGPhaseEnd(FEG_SetupGeometry, (PetscObject)disc->dm, t0, &disc->tgeometry));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a DM's local and global vectors coincide: one process, no constraints, the same chart and offsets in both
   sections. Then a global vector serves where a local one is read or written, without the section SF PETSc builds for
   DMGlobalToLocal() and DMLocalToGlobal(). */
PetscErrorCode FEGDMSectionsCoincide(DM dm, PetscBool *same)
{
  PetscMPIInt      size;
  PetscSection     lsec, gsec;
  FEGSectionLayout ll, gl;
  PetscInt         nl, ng;

  PetscFunctionBegin;
  *same = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  if (size > 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGDMSetUpGlobalSection(dm)); /* fegpu's, where it can, before PETSc's would be built */
  PetscCall(DMGetLocalSection(dm, &lsec));
  PetscCall(DMGetGlobalSection(dm, &gsec));
  PetscCall(PetscSectionGetStorageSize(lsec, &nl));
  PetscCall(PetscSectionGetConstrainedStorageSize(gsec, &ng));
  if (nl != ng) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGSectionGetLayout(lsec, &ll));
  PetscCall(FEGSectionGetLayout(gsec, &gl));
  if (ll.pStart != gl.pStart || ll.pEnd != gl.pEnd) PetscFunctionReturn(PETSC_SUCCESS);
  *same = PETSC_TRUE;
  for (PetscInt i = 0; i < ll.pEnd - ll.pStart; i++)
    if (ll.off[i] != gl.off[i]) {
      *same = PETSC_FALSE;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDiscGetLocalToGlobal - the global index of every local dof, l2g[l] (-1 where constrained; dofs of other processes
  included), from the two sections point by point: the owner's offset plus the dof's place among the point's
  unconstrained dofs (what DMPlexGetClosureIndices() gives with the global section); computed once and kept

  Not Collective

  Note:
  On one process this is the map PETSc's section SF (`DMGetSectionSF()`) describes, without building the SF.

  Level: developer
@*/
PetscErrorCode FEGDiscGetLocalToGlobal(FEGDisc *disc, const PetscInt **l2g)
{
  PetscFunctionBegin;
  if (!disc->l2g) {
    PetscSection     lsec, gsec;
    FEGSectionLayout L, G;
    PetscLogDouble   t0 = 0.0;

    PetscCall(FEGPhaseBegin(FEG_SetupDofMap, (PetscObject)disc->dm, &t0));
    PetscCall(DMGetLocalSection(disc->dm, &lsec));
    PetscCall(DMGetGlobalSection(disc->dm, &gsec));
    PetscCall(FEGSectionGetLayout(lsec, &L));
    PetscCall(FEGSectionGetLayout(gsec, &G));
    PetscCheck(G.pStart <= L.pStart && G.pEnd >= L.pEnd, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The global section's chart [%" PetscInt_FMT ", %" PetscInt_FMT ") does not cover the local section's [%" PetscInt_FMT ", %" PetscInt_FMT ")", G.pStart, G.pEnd, L.pStart, L.pEnd);
    PetscCall(PetscMalloc1(disc->nlocal + 1, &disc->l2g));
    /* each point writes its own dofs' entries: on the cells' threads (8M points at BP3's 8M Q2 unknowns) */
#pragma omp parallel for num_threads(FEGDiscThreads(disc)) schedule(static)
    for (PetscInt p = L.pStart; p < L.pEnd; p++) {
      const PetscInt  dof = L.dof[p - L.pStart], lo = L.off[p - L.pStart];
      const PetscInt  cdof = p >= L.bcStart && p < L.bcEnd ? L.cdof[p - L.bcStart] : 0;
      const PetscInt *cind = cdof ? L.cind + L.coff[p - L.bcStart] : NULL;
      PetscInt        go = G.off[p - G.pStart], c = 0;

      if (!dof) continue;
      if (go < 0) go = -(go + 1); /* owned by another process: its global offset */
      for (PetscInt k = 0; k < dof; k++) {
        if (c < cdof && cind[c] == k) {
          disc->l2g[lo + k] = -1;
          c++;
        } else disc->l2g[lo + k] = go + k - c;
      }
    }
    disc->bytes += (PetscLogDouble)disc->nlocal * sizeof(PetscInt);
    PetscCall(FEGPhaseEnd(FEG_SetupDofMap, (PetscObject)disc->dm, t0, &disc->tdofmap));
  }
  *l2g = disc->l2g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDiscGetGlobalIndices - the global dof of every element's basis functions, gidx[e*Nb+b] (-1 where constrained;
  rows of other processes included), derived once from the element-to-dof map and the sections

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGDiscGetGlobalIndices(FEGDisc *disc, const PetscInt **gidx)
{
  PetscFunctionBegin;
  if (!disc->gidx) {
    const PetscInt *l2g;
    PetscLogDouble  t0 = 0.0;

    PetscCall(FEGDiscGetLocalToGlobal(disc, &l2g));
    PetscCall(FEGPhaseBegin(FEG_SetupDofMap, (PetscObject)disc->dm, &t0));
    PetscCall(PetscMalloc1((size_t)disc->Ne * disc->Nb, &disc->gidx));
    /* threads also share the first touch of the array's pages */
#pragma omp parallel for num_threads(FEGDiscThreads(disc)) schedule(static)
    for (PetscInt e = 0; e < disc->Ne; e++)
      for (PetscInt b = 0; b < disc->Nb; b++) disc->gidx[(size_t)e * disc->Nb + b] = l2g[disc->lidx[(size_t)e * disc->Nb + b]];
    disc->bytes += (PetscLogDouble)disc->Ne * disc->Nb * sizeof(PetscInt);
    PetscCall(FEGPhaseEnd(FEG_SetupDofMap, (PetscObject)disc->dm, t0, &disc->tdofmap));
  }
  *gidx = disc->gidx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt FEGElementOrderId = -1;

/*@
  FEGDMSetElementOrder - the order in which fegpu's operators on a DM visit its cells: the mesh's own, or one for
  locality (METIS parts or a Hilbert curve); on several processes the cells that touch a ghost point always go last

  Logically Collective

  Input Parameters:
+ dm   - the DMPlex
- type - `FEG_REORDER_NONE` (default), `FEG_REORDER_METIS` or `FEG_REORDER_SFC`

  Options Database Key:
. -feg_element_order <none,metis,sfc> - the same, read with the DM's options prefix when its discretization is read

  Level: intermediate

  Notes:
  The order is a permutation inside fegpu's discretization, computed when it is first read from the DM's point SF
  (and, for metis and sfc, its cells): the DM is not renumbered, so a DM that an application distributed itself gets
  the overlap of the GPU operators (-feg_op_halo_overlap: the cells that read only owned dofs are applied while the
  ghost values move) at no mesh cost. Arrays given or returned per cell (`FEGDMCreateQuadratureVec()`,
  `FEGDMCreateQuadratureCoordinates()`) stay in the DM's cell order. `FEGMeshReorder()` renumbers the mesh itself, which
  also places the dofs of neighbouring cells close together; METIS parts have `FEGMeshSetReorderPartSize()` cells.

  Coarse DMs of `DMCoarsen()` inherit the setting. Changing it after the discretization was read makes the DM's next
  operator read it again.

.seealso: FEGDMGetElementOrder(), FEGMeshReorder(), FEGOpSetHaloOverlap()
@*/
PetscErrorCode FEGDMSetElementOrder(DM dm, FEGReorderType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(dm, type, 2);
  PetscCheck(type >= FEG_REORDER_NONE && type <= FEG_REORDER_SFC, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "Element order %d is not one of FEG_REORDER_NONE, FEG_REORDER_METIS, FEG_REORDER_SFC", (int)type);
  PetscCall(FEGObjectSetSetting_Private((PetscObject)dm, &FEGElementOrderId, (PetscEnum)type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMGetElementOrder - see `FEGDMSetElementOrder()`: the setting, else -feg_element_order from the DM's options
  prefix, else `FEG_REORDER_NONE`

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGDMGetElementOrder(DM dm, FEGReorderType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(type, 2);
  *type = FEG_REORDER_NONE;
  PetscCall(FEGObjectGetSetting_Private((PetscObject)dm, FEGElementOrderId, "-feg_element_order", FEGReorderTypes, (PetscEnum *)type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The elements in the order of FEGDMGetElementOrder() (FEGMeshCellOrder()): the dof map and the coordinates permuted
   with it, and disc->ecell kept where it is not the cells' own order */
static PetscErrorCode FEGDiscOrderElements_Private(FEGDisc *disc)
{
  const PetscInt Ne = disc->Ne, Nb = disc->Nb, nx = disc->Nv * disc->dim;
  PetscInt      *order;
  PetscBool      identity = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(FEGDMGetElementOrder(disc->dm, &disc->eorder));
  PetscCall(PetscMalloc1(Ne + 1, &order));
  PetscCall(FEGMeshCellOrder(disc->dm, disc->eorder, &disc->nint, order));
  for (PetscInt e = 0; e < Ne && identity; e++) identity = (PetscBool)(order[e] == e);
  if (identity) {
    PetscCall(PetscFree(order));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    PetscInt  *lidx;
    PetscReal *X;

    /* gathered into new arrays on the cells' threads, which replace the old ones (where the mesh's order is not
       ghost-last already, or with an element ordering; a box's cells come ghost-last from its builder) */
    PetscCall(PetscMalloc1((size_t)Ne * Nb, &lidx));
    PetscCall(PetscMalloc1((size_t)Ne * nx, &X));
#pragma omp parallel for num_threads(FEGDiscThreads(disc)) schedule(static)
    for (PetscInt e = 0; e < Ne; e++) {
      for (PetscInt b = 0; b < Nb; b++) lidx[(size_t)e * Nb + b] = disc->lidx[(size_t)order[e] * Nb + b];
      for (PetscInt k = 0; k < nx; k++) X[(size_t)e * nx + k] = disc->X[(size_t)order[e] * nx + k];
    }
    PetscCall(PetscFree(disc->lidx));
    PetscCall(PetscFree(disc->X));
    disc->lidx = lidx;
    disc->X    = X;
  }
  disc->ecell = order;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads everything an operator needs from the DM's PetscFE field, section and coordinates */
PetscErrorCode FEGDiscCreate(DM dm, FEGDisc *disc)
{
  PetscInt        Nf, Nc, cdim;
  PetscObject     obj;
  PetscClassId    id;
  PetscBool       isplex;
  PetscQuadrature quad;
  PetscSpace      P;
  PetscDualSpace  Q;
  PetscSection    lsec, gsec;
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscLogDouble  t0   = 0.0;
  PetscBool       bulk;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(disc, sizeof(*disc)));
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isplex, comm, PETSC_ERR_ARG_WRONG, "fegpu needs a DMPlex, not a %s", ((PetscObject)dm)->type_name);
  PetscCall(PetscLogEventBegin(FEG_Setup, dm, 0, 0, 0));
  disc->dm = dm;
  PetscCall(FEGSetupThreads(comm, &disc->nthreads));
  PetscCall(DMGetDimension(dm, &disc->dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(cdim == disc->dim, comm, PETSC_ERR_SUP, "Coordinate dimension %" PetscInt_FMT " differs from the mesh dimension %" PetscInt_FMT ": manifolds are not supported", cdim, disc->dim);
  PetscCall(DMGetNumFields(dm, &Nf));
  PetscCheck(Nf == 1, comm, PETSC_ERR_ARG_WRONG, "The DM has %" PetscInt_FMT " fields; fegpu needs exactly one scalar PetscFE field (FEGSetUpDiscretization() or DMSetField() and DMCreateDS())", Nf);
  PetscCall(DMGetField(dm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  PetscCheck(id == PETSCFE_CLASSID, comm, PETSC_ERR_ARG_WRONG, "The DM's field is not a PetscFE");
  disc->fe = (PetscFE)obj;
  PetscCall(PetscObjectReference(obj));
  PetscCall(PetscFEGetNumComponents(disc->fe, &Nc));
  PetscCheck(Nc == 1, comm, PETSC_ERR_ARG_WRONG, "The field has %" PetscInt_FMT " components; fegpu's forms are scalar", Nc);
  PetscCall(PetscFEGetDimension(disc->fe, &disc->Nb));
  PetscCall(PetscFEGetBasisSpace(disc->fe, &P));
  PetscCall(PetscSpaceGetDegree(P, &disc->order, NULL));
  PetscCheck(disc->order >= 1 && disc->order <= 8, comm, PETSC_ERR_ARG_OUTOFRANGE, "Polynomial order %" PetscInt_FMT " is not supported: fegpu supports orders 1 to 8", disc->order);
  PetscCall(PetscFEGetDualSpace(disc->fe, &Q));
  PetscCall(PetscDualSpaceLagrangeGetContinuity(Q, &disc->continuous));
  PetscCall(PetscFEGetQuadrature(disc->fe, &quad));
  PetscCall(PetscQuadratureGetData(quad, NULL, &Nc, &disc->Nq, &disc->qpoints, &disc->qweights));
  PetscCheck(Nc == 1, comm, PETSC_ERR_ARG_WRONG, "The field's quadrature has %" PetscInt_FMT " components, expected 1", Nc);
  PetscCall(PetscFEGetCellTabulation(disc->fe, 1, &disc->T));

  PetscCall(DMPlexGetHeightStratum(dm, 0, &disc->cStart, &disc->cEnd));
  disc->Ne = disc->cEnd - disc->cStart;
  {
    DMPolytopeType ct = DM_POLYTOPE_UNKNOWN, ctg;

    for (PetscInt c = disc->cStart; c < disc->cEnd; c++) {
      DMPolytopeType cct;

      PetscCall(DMPlexGetCellType(dm, c, &cct));
      if (c == disc->cStart) ct = cct;
      PetscCheck(cct == ct, PETSC_COMM_SELF, PETSC_ERR_SUP, "Mixed cell types (%s and %s) are not supported", DMPolytopeTypes[ct], DMPolytopeTypes[cct]);
    }
    /* ranks without cells still need the cell type */
    PetscCall(MPIU_Allreduce(&ct, &ctg, 1, MPI_INT, MPI_MIN, comm));
    PetscCall(FEGCellInfoGet(comm, ctg, &disc->cell));
    disc->ct = ctg;
  }
  {
    const PetscInt Nd = disc->dim + 1, KK = disc->Nq * Nd;

    /* reference values and gradients as one column-major (Nq (dim+1)) x Nb matrix, the layout every kernel reads */
    PetscCall(PetscMalloc1((size_t)KK * disc->Nb, &disc->R));
    for (PetscInt q = 0; q < disc->Nq; q++)
      for (PetscInt b = 0; b < disc->Nb; b++) {
        disc->R[q * Nd + (size_t)b * KK] = disc->T->T[0][q * disc->Nb + b];
        for (PetscInt r = 0; r < disc->dim; r++) disc->R[q * Nd + 1 + r + (size_t)b * KK] = disc->T->T[1][(q * disc->Nb + b) * disc->dim + r];
      }
  }
  PetscCall(FEGPhaseBegin(FEG_SetupGeometry, (PetscObject)dm, &t0));
  PetscCall(FEGDiscCoordinateTabulate(disc, disc->Nq, disc->qpoints, &disc->Bc, &disc->Gc));
  PetscCall(FEGPhaseEnd(FEG_SetupGeometry, (PetscObject)dm, t0, &disc->tgeometry));

  PetscCall(DMGetLocalSection(dm, &lsec));
  PetscCall(DMGetGlobalSection(dm, &gsec));
  if (disc->Ne) {
    PetscInt ncl, *cl = NULL, n = 0;

    /* a section that does not give a cell its element's dofs (PETSc's on continuous prisms of order >= 2) */
    PetscCall(DMPlexGetTransitiveClosure(dm, disc->cStart, PETSC_TRUE, &ncl, &cl));
    for (PetscInt r = 0; r < ncl; r++) {
      PetscInt d;

      PetscCall(PetscSectionGetDof(lsec, cl[2 * r], &d));
      n += d;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, disc->cStart, PETSC_TRUE, &ncl, &cl));
    PetscCheck(n == disc->Nb, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The DM's local section gives cell %" PetscInt_FMT " %" PetscInt_FMT " dofs in its closure, but its element has %" PetscInt_FMT "%s", disc->cStart, n, disc->Nb, disc->cell->mixedFaces ? ": call FEGDMSetUpSection() after DMCreateDS() (FEGSetUpDiscretization() does), since PETSc's section gives all faces the same dofs" : "");
  }
  PetscCall(PetscSectionGetStorageSize(lsec, &disc->nlocal));
  PetscCall(PetscSectionGetConstrainedStorageSize(gsec, &disc->nglobal));
  /* the dof map and, in the same pass over the cells' cones, their coordinates (the "dof map" phase) */
  PetscCall(FEGPhaseBegin(FEG_SetupDofMap, (PetscObject)dm, &t0));
  PetscCall(PetscMalloc1(disc->Ne * disc->Nb, &disc->lidx));
  PetscCall(PetscMalloc1((size_t)disc->Ne * disc->Nv * disc->dim, &disc->X));
  {
    FEGClosureTarget t[2] = {
      {dm, lsec, disc->Nb, disc->lidx, NULL, NULL}
    };
    Vec                cellc, coords;
    const PetscScalar *ca = NULL;

    PetscCall(DMGetCellCoordinatesLocal(dm, &cellc));
    PetscCall(DMGetCoordinatesLocal(dm, &coords));
    bulk = (PetscBool)(!cellc && coords && disc->Ne > 0);
    if (bulk) {
      PetscCall(DMGetCoordinateDM(dm, &t[1].dm));
      PetscCall(DMGetLocalSection(t[1].dm, &t[1].sec));
      PetscCall(VecGetArrayRead(coords, &ca));
      t[1].n    = disc->Nv * disc->dim;
      t[1].vals = ca;
      t[1].x    = disc->X;
    }
    PetscCall(FEGPlexGetClosureBulk(dm, disc->cStart, disc->cEnd, bulk ? 2 : 1, t, FEGDiscThreads(disc), &disc->nclasses));
    if (bulk) PetscCall(VecRestoreArrayRead(coords, &ca));
  }
  PetscCall(FEGPhaseEnd(FEG_SetupDofMap, (PetscObject)dm, t0, &disc->tdofmap));
  PetscCall(FEGPhaseBegin(FEG_SetupGeometry, (PetscObject)dm, &t0));
  PetscCall(FEGDiscCoordinates_Private(disc, bulk));
  PetscCall(FEGPhaseEnd(FEG_SetupGeometry, (PetscObject)dm, t0, &disc->tgeometry));
  PetscCall(FEGPhaseBegin(FEG_SetupDofMap, (PetscObject)dm, &t0));
  PetscCall(FEGDiscOrderElements_Private(disc));
  PetscCall(FEGPhaseEnd(FEG_SetupDofMap, (PetscObject)dm, t0, &disc->tdofmap));
  /* held, so that a pointer compared later cannot be a new object at a freed one's address */
  disc->lsec = lsec;
  PetscCall(PetscObjectReference((PetscObject)lsec));
  PetscCall(DMGetCoordinatesLocal(dm, &disc->coords));
  if (disc->coords) {
    PetscCall(PetscObjectReference((PetscObject)disc->coords));
    PetscCall(PetscObjectStateGet((PetscObject)disc->coords, &disc->cstate));
  }
  /* dof indices and coordinates; the host geometry and global indices add theirs when made */
  disc->bytes = (PetscLogDouble)disc->Ne * ((disc->Nb + (disc->ecell ? 1 : 0)) * sizeof(PetscInt) + disc->Nv * disc->dim * sizeof(PetscReal));
  PetscCall(PetscLogEventEnd(FEG_Setup, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDiscDestroy(FEGDisc *disc)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(disc->R));
  PetscCall(PetscFree(disc->Bc));
  PetscCall(PetscFree(disc->Gc));
  PetscCall(PetscFree(disc->X));
  PetscCall(PetscFree2(disc->geo, disc->xq));
  PetscCall(PetscFree(disc->lidx));
  PetscCall(PetscFree(disc->ecell));
  PetscCall(PetscFree(disc->gidx));
  PetscCall(PetscFree(disc->l2g));
  if (disc->rhsdevdestroy) PetscCall((*disc->rhsdevdestroy)(&disc->rhsdev));
  if (disc->devpairsdestroy) PetscCall((*disc->devpairsdestroy)(&disc->devpairs));
  if (disc->devdiscdestroy) PetscCall((*disc->devdiscdestroy)(&disc->devdisc));
  PetscCall(PetscSectionDestroy(&disc->lsec));
  PetscCall(VecDestroy(&disc->coords));
  PetscCall(PetscFEDestroy(&disc->fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDiscGetDofElements - the transpose of the element-to-dof map: the elements touching local dof i are
  elems[off[i]] .. elems[off[i+1]-1], in increasing order; PetscFree2(off, elems) when done

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGDiscGetDofElements(const FEGDisc *disc, PetscInt **off, PetscInt **elems)
{
  const PetscInt n = disc->nlocal, Ne = disc->Ne, Nb = disc->Nb;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n + 1, off, (size_t)Ne * Nb, elems));
  PetscCall(PetscArrayzero(*off, n + 1));
  for (size_t k = 0; k < (size_t)Ne * Nb; k++) (*off)[disc->lidx[k] + 1]++;
  for (PetscInt i = 0; i < n; i++) (*off)[i + 1] += (*off)[i];
  /* fill with off[i] as the cursor, then shift the offsets back */
  for (PetscInt e = 0; e < Ne; e++)
    for (PetscInt b = 0; b < Nb; b++) (*elems)[(*off)[disc->lidx[e * Nb + b]]++] = e;
  for (PetscInt i = n; i > 0; i--) (*off)[i] = (*off)[i - 1];
  (*off)[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDiscContainerDestroy_Private(void *ctx)
{
  FEGDisc *disc = (FEGDisc *)ctx;

  PetscFunctionBegin;
  PetscCall(FEGDiscDestroy(disc));
  PetscCall(PetscFree(disc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDMGetDisc - the DM's discretization, read once and shared by every operator and right-hand side on it (the
  element-to-dof map, coordinates and, when asked for, global dofs and host geometry); read again when the DM's local
  section, field or coordinates have changed since

  Collective

  Output Parameters:
+ disc      - the discretization
- container - a new reference that keeps it alive: PetscContainerDestroy() it when done

  Level: developer
@*/
PetscErrorCode FEGDMGetDisc(DM dm, FEGDisc **disc, PetscContainer *container)
{
  PetscContainer   c;
  FEGDisc         *d = NULL;
  PetscSection     lsec;
  Vec              coords;
  PetscObjectState cstate = 0;
  PetscObject      fe     = NULL;
  PetscInt         Nf;
  FEGReorderType   eorder;
  PetscBool        valid = PETSC_FALSE, gvalid;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)dm, "FEGDisc", (PetscObject *)&c));
  PetscCall(DMGetLocalSection(dm, &lsec));
  PetscCall(FEGDMSetUpGlobalSection(dm));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  if (coords) PetscCall(PetscObjectStateGet((PetscObject)coords, &cstate));
  PetscCall(DMGetNumFields(dm, &Nf));
  if (Nf > 0) PetscCall(DMGetField(dm, 0, NULL, &fe));
  if (c) {
    PetscCall(PetscContainerGetPointer(c, (void **)&d));
    PetscCall(FEGDMGetElementOrder(dm, &eorder));
    valid = (PetscBool)(d->lsec == lsec && d->coords == coords && d->cstate == cstate && (PetscObject)d->fe == fe && d->eorder == eorder);
  }
  /* every process reads it again if one must (reading is collective) */
  PetscCall(MPIU_Allreduce(&valid, &gvalid, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)dm)));
  if (!gvalid) {
    PetscCall(PetscNew(&d));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, d));
    PetscCall(PetscContainerSetUserDestroy(c, FEGDiscContainerDestroy_Private));
    {
      PetscErrorCode ierr = FEGDiscCreate(dm, d);

      if (ierr) {
        PetscCall(PetscContainerDestroy(&c));
        PetscCall(ierr);
      }
    }
    PetscCall(PetscObjectCompose((PetscObject)dm, "FEGDisc", (PetscObject)c));
  } else PetscCall(PetscObjectReference((PetscObject)c));
  *disc      = d;
  *container = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  FEGDiscCoordinateTensor - whether the cells' coordinate nodes are the tensor product of G equispaced 1D nodes on
  [-1, 1] (the vertices of straight quadrilaterals and hexahedra, G = 2; the nodes of second-order ones, G = 3), and if
  so lexg[g] (G^dim entries), the coordinate node at lexicographic position g (x fastest). Found by tabulating the
  coordinate basis at those G^dim reference points, where a Lagrange basis of these nodes is 1 at one node and 0 at
  the others; the caller checks the tensor form against the tabulation at its quadrature points.
*/
PetscErrorCode FEGDiscCoordinateTensor(FEGDisc *disc, PetscInt *G, int lexg[])
{
  const PetscInt dim = disc->dim, Nv = disc->Nv;
  PetscInt       g = 0, n;
  PetscReal     *pts, *B;
  PetscBool      ok = PETSC_TRUE;

  PetscFunctionBegin;
  *G = 0;
  for (PetscInt k = 2; k <= 3; k++)
    if ((dim == 2 ? k * k : k * k * k) == Nv) g = k;
  if (!disc->cell->tensor || !g) PetscFunctionReturn(PETSC_SUCCESS);
  n = Nv;
  PetscCall(PetscMalloc1(n * dim, &pts));
  for (PetscInt l = 0; l < n; l++)
    for (PetscInt d = 0, r = l; d < dim; d++, r /= g) pts[l * dim + d] = -1.0 + 2.0 * (r % g) / (g - 1);
  PetscCall(FEGDiscCoordinateTabulate(disc, n, pts, &B, NULL));
  for (PetscInt l = 0; l < n && ok; l++) {
    lexg[l] = -1;
    for (PetscInt v = 0; v < Nv && ok; v++) {
      const PetscReal b = B[l * Nv + v];

      if (PetscAbsReal(b - 1.0) < 1e-12 && lexg[l] < 0) lexg[l] = (int)v;
      else if (PetscAbsReal(b) > 1e-12) ok = PETSC_FALSE;
    }
    if (lexg[l] < 0) ok = PETSC_FALSE;
  }
  PetscCall(PetscFree(B));
  PetscCall(PetscFree(pts));
  if (ok) *G = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coordinate basis at the element's nodes, Bn[i*Nv+v], when every dual basis functional is a point evaluation
   (Lagrange); *Bn = NULL otherwise (moments, or other elements) */
static PetscErrorCode FEGDiscNodeBasis(FEGDisc *disc, PetscReal **Bn)
{
  const PetscInt dim = disc->dim, Nb = disc->Nb;
  PetscDualSpace Q;
  PetscReal     *nodes;

  PetscFunctionBegin;
  *Bn = NULL;
  PetscCall(PetscFEGetDualSpace(disc->fe, &Q));
  PetscCall(PetscMalloc1(Nb * dim, &nodes));
  for (PetscInt i = 0; i < Nb; i++) {
    PetscQuadrature  f;
    PetscInt         qNc, np;
    const PetscReal *pts, *w;

    PetscCall(PetscDualSpaceGetFunctional(Q, i, &f));
    PetscCall(PetscQuadratureGetData(f, NULL, &qNc, &np, &pts, &w));
    if (np != 1 || qNc != 1 || w[0] != 1.0) {
      PetscCall(PetscFree(nodes));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (PetscInt d = 0; d < dim; d++) nodes[i * dim + d] = pts[d];
  }
  PetscCall(FEGDiscCoordinateTabulate(disc, Nb, nodes, Bn, NULL));
  PetscCall(PetscFree(nodes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef PetscErrorCode (*FEGNodeFn)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *);

/* entry ei (element e's basis function i, ei = e*Nb + i) selected by one of the nfn bit arrays */
static inline PetscBool FEGDiscEntrySelected(const FEGDisc *disc, PetscInt nfn, const PetscBT sel[], size_t ei)
{
  for (PetscInt j = 0; j < nfn; j++)
    if (sel[j] && PetscBTLookup(sel[j], disc->lidx[ei])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* a[l] = fn[k](x_l) at the node x_l of every local dof l (from the first cell that has it), k the last function whose
   selection sel[k] holds l; with sel NULL, fn[0] at every dof. With selections (the boundaries) the selected entries
   are found first on the cells' threads, in blocks of elements (the scan reads every element's dofs), then evaluated
   in element order: the functions are called on one thread, each dof once. */
static PetscErrorCode FEGDiscEvaluateAtNodes(FEGDisc *disc, const PetscReal Bn[], PetscReal time, PetscInt nfn, const FEGNodeFn fn[], void *const ctx[], const PetscBT sel[], PetscScalar a[])
{
  const PetscInt dim = disc->dim, nv = disc->Nv, Nb = disc->Nb, Ne = disc->Ne;
  const int      nt = sel ? FEGLoopThreads(Ne, FEGDiscThreads(disc)) : 1;
  PetscBT        done;
  size_t        *cnt, *hit = NULL, nhit;

  PetscFunctionBegin;
  PetscCall(PetscBTCreate(disc->nlocal, &done));
  PetscCall(PetscCalloc1(nt + 1, &cnt));
  if (sel) {
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int b = 0; b < nt; b++)
      for (size_t ei = (size_t)FEGBlockStart(Ne, b, nt) * Nb; ei < (size_t)FEGBlockStart(Ne, b + 1, nt) * Nb; ei++)
        if (FEGDiscEntrySelected(disc, nfn, sel, ei)) cnt[b + 1]++;
    for (int b = 0; b < nt; b++) cnt[b + 1] += cnt[b];
    PetscCall(PetscMalloc1(cnt[nt] + 1, &hit));
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int b = 0; b < nt; b++) {
      size_t k = cnt[b];

      for (size_t ei = (size_t)FEGBlockStart(Ne, b, nt) * Nb; ei < (size_t)FEGBlockStart(Ne, b + 1, nt) * Nb; ei++)
        if (FEGDiscEntrySelected(disc, nfn, sel, ei)) hit[k++] = ei;
    }
    nhit = cnt[nt];
  } else nhit = (size_t)Ne * Nb;
  for (size_t h = 0; h < nhit; h++) {
    const size_t     ei = hit ? hit[h] : h, e = ei / Nb, i = ei % Nb;
    const PetscInt   l = disc->lidx[ei];
    const PetscReal *X = disc->X + e * nv * dim;
    PetscReal        x[3];
    PetscInt         k = sel ? -1 : 0;

    for (PetscInt j = nfn - 1; sel && j >= 0 && k < 0; j--)
      if (sel[j] && PetscBTLookup(sel[j], l)) k = j;
    if (k < 0 || PetscBTLookupSet(done, l)) continue;
    for (PetscInt d = 0; d < dim; d++) {
      x[d] = 0.0;
      for (PetscInt v = 0; v < nv; v++) x[d] += Bn[i * nv + v] * X[v * dim + d];
    }
    PetscCall((*fn[k])(dim, time, x, 1, &a[l], ctx[k]));
  }
  PetscCall(PetscFree(hit));
  PetscCall(PetscFree(cnt));
  PetscCall(PetscBTDestroy(&done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Essential boundary values when each is a point evaluation (Lagrange elements): every constrained dof in the closure of
   a labelled point gets g(x) at its node x, the reference node of its basis function in a cell that has it, mapped by
   the coordinate basis; where boundaries overlap the last one wins. That is what DMPlexInsertBoundaryValues() computes
   for these elements, boundary after boundary, without its per-point projection (7 s at 8M unknowns). *done is false,
   and nothing is written, for any other kind of condition or element (field-valued conditions, moments), which PETSc
   then handles. */
static PetscErrorCode FEGDiscBoundaryValuesNodal(FEGDisc *disc, PetscDS ds, PetscInt nbd, Vec gl, PetscBool *done)
{
  PetscSection lsec;
  PetscInt     pStart, pEnd, *stack = NULL, maxstack = 0;
  PetscReal   *Bn;
  PetscBT      mark, *sel;
  FEGNodeFn   *fns;
  void       **ctxs;
  PetscScalar *g;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  for (PetscInt bd = 0; bd < nbd; bd++) {
    DMBoundaryConditionType type;
    PetscInt                field;
    void (*fn)(void) = NULL;
    DMLabel label    = NULL;

    PetscCall(PetscDSGetBoundary(ds, bd, NULL, &type, NULL, &label, NULL, NULL, &field, NULL, NULL, &fn, NULL, NULL));
    if (type == DM_BC_NATURAL || type == DM_BC_NATURAL_RIEMANN) continue;
    if (type != DM_BC_ESSENTIAL || field != 0 || !label || !fn) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FEGDiscNodeBasis(disc, &Bn));
  if (!Bn) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetLocalSection(disc->dm, &lsec));
  PetscCall(DMPlexGetChart(disc->dm, &pStart, &pEnd));
  /* bit arrays: a stack sized by the boundary, not the mesh */
  PetscCall(PetscBTCreate(pEnd - pStart, &mark));
  PetscCall(PetscCalloc3(nbd, &sel, nbd, &fns, nbd, &ctxs));
  /* the constrained dofs of each essential boundary: its labelled points and their closures */
  for (PetscInt bd = 0; bd < nbd; bd++) {
    DMBoundaryConditionType type;
    DMLabel                 label;
    PetscInt                nval, ns = 0;
    const PetscInt         *vals;
    void (*fn)(void) = NULL;

    PetscCall(PetscDSGetBoundary(ds, bd, NULL, &type, NULL, &label, &nval, &vals, NULL, NULL, NULL, &fn, NULL, &ctxs[bd]));
    if (type != DM_BC_ESSENTIAL) continue;
    fns[bd] = (FEGNodeFn)fn;
    PetscCall(PetscBTCreate(disc->nlocal, &sel[bd]));
    for (PetscInt j = 0; j < nval; j++) {
      IS              is;
      PetscInt        n;
      const PetscInt *pts;

      PetscCall(DMLabelGetStratumIS(label, vals[j], &is));
      if (!is) continue;
      PetscCall(ISGetLocalSize(is, &n));
      PetscCall(ISGetIndices(is, &pts));
      for (PetscInt k = 0; k < n; k++) {
        if (pts[k] < pStart || pts[k] >= pEnd || PetscBTLookupSet(mark, pts[k] - pStart)) continue;
        if (ns == maxstack) {
          maxstack = PetscMax(2 * maxstack, 1024);
          PetscCall(PetscRealloc((size_t)maxstack * sizeof(PetscInt), &stack));
        }
        stack[ns++] = pts[k];
      }
      PetscCall(ISRestoreIndices(is, &pts));
      PetscCall(ISDestroy(&is));
    }
    /* stack[0..ns) grows with the cones of what it holds: afterwards it is the closure */
    for (PetscInt m = 0; m < ns; m++) {
      const PetscInt *cone;
      PetscInt        cs;

      PetscCall(DMPlexGetConeSize(disc->dm, stack[m], &cs));
      PetscCall(DMPlexGetCone(disc->dm, stack[m], &cone));
      for (PetscInt k = 0; k < cs; k++) {
        if (PetscBTLookupSet(mark, cone[k] - pStart)) continue;
        if (ns == maxstack) {
          maxstack *= 2;
          PetscCall(PetscRealloc((size_t)maxstack * sizeof(PetscInt), &stack));
        }
        stack[ns++] = cone[k];
      }
    }
    for (PetscInt k = 0; k < ns; k++) {
      const PetscInt *cind;
      PetscInt        cdof, off;

      PetscCall(PetscBTClear(mark, stack[k] - pStart));
      PetscCall(PetscSectionGetConstraintDof(lsec, stack[k], &cdof));
      if (!cdof) continue;
      PetscCall(PetscSectionGetOffset(lsec, stack[k], &off));
      PetscCall(PetscSectionGetConstraintIndices(lsec, stack[k], &cind));
      for (PetscInt c = 0; c < cdof; c++) PetscCall(PetscBTSet(sel[bd], off + cind[c]));
    }
  }
  PetscCall(VecGetArray(gl, &g));
  PetscCall(FEGDiscEvaluateAtNodes(disc, Bn, 0.0, nbd, fns, ctxs, sel, g));
  PetscCall(VecRestoreArray(gl, &g));
  for (PetscInt bd = 0; bd < nbd; bd++) PetscCall(PetscBTDestroy(&sel[bd]));
  PetscCall(PetscFree3(sel, fns, ctxs));
  PetscCall(PetscFree(stack));
  PetscCall(PetscBTDestroy(&mark));
  PetscCall(PetscFree(Bn));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDiscBoundaryValues - the essential boundary values g of the DM's PetscDS in a local vector (zero elsewhere) and,
  when asked, the elements that carry a non-zero one, which the host right-hand side's lifting -a(g, v) needs; nothing
  is computed when the DS has no boundary conditions, and no element is listed when every value is zero

  Collective

  Output Parameters:
+ nonzero - whether any boundary value is non-zero, or NULL
. nlift   - the number of elements with a non-zero boundary value, or NULL (then lift must be NULL too)
- lift    - those elements (local numbers), PetscFree() it, or NULL: no list is built (the GPU lifts on the device and
            reads no host copy of gl)

  Level: developer
@*/
PetscErrorCode FEGDiscBoundaryValues(FEGDisc *disc, Vec gl, PetscBool *nonzero, PetscInt *nlift, PetscInt **lift)
{
  PetscDS            ds;
  PetscInt           nbd;
  PetscReal          gnorm = 0.0;
  const PetscScalar *gh;

  PetscFunctionBegin;
  PetscCheck(!lift || nlift, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "The list of lifted elements needs its count");
  PetscCall(PetscLogEventBegin(FEG_RHSBoundary, disc->dm, 0, 0, 0));
  if (nlift) *nlift = 0;
  if (lift) *lift = NULL;
  PetscCall(VecZeroEntries(gl));
  PetscCall(DMGetDS(disc->dm, &ds));
  PetscCall(PetscDSGetNumBoundary(ds, &nbd));
  if (nbd) {
    PetscBool done;

    PetscCall(FEGDiscBoundaryValuesNodal(disc, ds, nbd, gl, &done));
    if (!done) PetscCall(DMPlexInsertBoundaryValues(disc->dm, PETSC_TRUE, gl, 0.0, NULL, NULL, NULL));
    PetscCall(VecNorm(gl, NORM_INFINITY, &gnorm));
  }
  if (nonzero) *nonzero = (PetscBool)(gnorm > 0.0);
  if (gnorm > 0.0 && lift) {
    PetscCall(PetscMalloc1(disc->Ne, lift));
    PetscCall(VecGetArrayRead(gl, &gh));
    for (PetscInt e = 0; e < disc->Ne; e++) {
      PetscBool any = PETSC_FALSE;

      for (PetscInt a = 0; a < disc->Nb && !any; a++) any = (PetscBool)(gh[disc->lidx[e * disc->Nb + a]] != 0.0);
      if (any) (*lift)[(*nlift)++] = e;
    }
    PetscCall(VecRestoreArrayRead(gl, &gh));
  }
  PetscCall(PetscLogEventEnd(FEG_RHSBoundary, disc->dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDMProjectFunction - interpolates a function into a DM's fegpu field: for Lagrange elements its value at every
  node, through the element-to-dof map and coordinates the DM's operators share (the same result as
  DMProjectFunction(), which evaluates the dual basis cell by cell and costs microseconds per cell); other elements go
  to DMProjectFunction()

  Collective

  Input Parameters:
+ dm   - the DMPlex with its field (FEGSetUpDiscretization())
. time - the time passed to fn
. fn   - fn(dim, time, x, Nc, u, ctx) sets u[0] at the point x
- ctx  - its context

  Output Parameter:
. u - a global vector of the DM (host or device)

  Level: intermediate

.seealso: `FEGSetUpDiscretization()`, `FEGComputeRHS()`
@*/
PetscErrorCode FEGDMProjectFunction(DM dm, PetscReal time, PetscErrorCode (*fn)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *), void *ctx, Vec u)
{
  FEGDisc       *disc;
  PetscContainer c;
  PetscReal     *Bn;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidHeaderSpecific(u, VEC_CLASSID, 5);
  PetscCheck(fn, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_NULL, "FEGDMProjectFunction() needs a function");
  PetscCall(FEGDMGetDisc(dm, &disc, &c));
  PetscCall(FEGDiscNodeBasis(disc, &Bn));
  if (Bn) {
    Vec          ul;
    PetscScalar *a;
    PetscBool    same;

    /* straight into u where it is the local vector (one process, no constraints) */
    PetscCall(FEGDMSectionsCoincide(dm, &same));
    if (same) ul = u;
    else PetscCall(DMGetLocalVector(dm, &ul));
    PetscCall(VecGetArrayWrite(ul, &a));
    PetscCall(FEGDiscEvaluateAtNodes(disc, Bn, time, 1, &fn, &ctx, NULL, a));
    PetscCall(VecRestoreArrayWrite(ul, &a));
    if (!same) {
      PetscCall(DMLocalToGlobal(dm, ul, INSERT_VALUES, u));
      PetscCall(DMRestoreLocalVector(dm, &ul));
    }
    PetscCall(PetscFree(Bn));
  } else {
    FEGNodeFn funcs[1] = {fn};
    void     *ctxs[1]  = {ctx};

    PetscCall(DMProjectFunction(dm, time, funcs, ctxs, INSERT_ALL_VALUES, u));
  }
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
