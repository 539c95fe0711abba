/* Cell ordering for locality: each process renumbers its own cells (METIS parts or a Hilbert curve), then every lower
   dimensional point in the order the new cells first reach it, so that the dofs of neighbouring elements sit close in
   the vectors the operators gather from and scatter to. On several processes the cells that touch a ghost point go
   last (with "none" that is all that changes), so the elements that read only owned dofs form a prefix, which the GPU
   apply runs while the halo moves (-feg_op_halo_overlap). */
#include <fegpu/private/fegmeshimpl.h>
#include <petscsf.h>

const char *const FEGReorderTypes[] = {"none", "metis", "sfc", "FEGReorderType", "FEG_REORDER_", NULL};

/* the cell orderings: perm[i] = the local cell (from cStart) that goes to position i */
static PetscErrorCode (*const FEGCellOrderings[])(DM, PetscInt, PetscInt[]) = {NULL, FEGMeshOrderCells_Metis, FEGMeshOrderCells_SFC};

/* The point SF of the permuted mesh: leaves and their roots renumbered (DMPlexPermute() leaves the SF out) */
static PetscErrorCode FEGPermutePointSF(DM dm, const PetscInt perm[], DM pdm)
{
  PetscSF            sf, sfNew;
  const PetscInt    *ilocal;
  const PetscSFNode *iremote;
  PetscInt           nroots, nleaves, pStart, pEnd, *rperm, *leafOf, *ilocalNew, n = 0;
  PetscSFNode       *iremoteNew;

  PetscFunctionBegin;
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &ilocal, &iremote));
  if (nroots < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(PetscMalloc2(pEnd - pStart, &rperm, pEnd - pStart, &leafOf));
  /* the new number of each leaf's root, from its owner */
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, perm, rperm, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, perm, rperm, MPI_REPLACE));
  for (PetscInt p = pStart; p < pEnd; p++) leafOf[p - pStart] = -1;
  for (PetscInt l = 0; l < nleaves; l++) leafOf[perm[ilocal ? ilocal[l] : l] - pStart] = l;
  PetscCall(PetscMalloc1(nleaves, &ilocalNew));
  PetscCall(PetscMalloc1(nleaves, &iremoteNew));
  /* leaves sorted by their new local number, as DMPlexDistribute() leaves them */
  for (PetscInt q = pStart; q < pEnd; q++) {
    const PetscInt l = leafOf[q - pStart];

    if (l < 0) continue;
    ilocalNew[n]        = q;
    iremoteNew[n].rank  = iremote[l].rank;
    iremoteNew[n].index = rperm[(ilocal ? ilocal[l] : l) - pStart];
    n++;
  }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)dm), &sfNew));
  PetscCall(PetscSFSetGraph(sfNew, nroots, nleaves, ilocalNew, PETSC_OWN_POINTER, iremoteNew, PETSC_OWN_POINTER));
  PetscCall(DMSetPointSF(pdm, sfNew));
  PetscCall(PetscSFDestroy(&sfNew));
  PetscCall(PetscFree2(rperm, leafOf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every point but the cells numbered within its depth stratum in the order the new cells (cperm) reach it, one closure
   per cell; points no cell reaches keep their relative order at the end; within a stratum cell types keep separate
   ranges. perm holds the cells' new numbers and -1 elsewhere on entry. */
static PetscErrorCode FEGMeshNumberByCells(DM dm, PetscInt cStart, PetscInt nc, const PetscInt cperm[], PetscInt perm[])
{
  PetscInt        pStart, pEnd, depth, *dstart, *dend, *order;
  DMPolytopeType *ptype;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(PetscMalloc4(depth + 1, &dstart, depth + 1, &dend, pEnd - pStart, &order, pEnd - pStart, &ptype));
  for (PetscInt d = 0; d <= depth; d++) PetscCall(DMPlexGetDepthStratum(dm, d, &dstart[d], &dend[d]));
  {
    PetscInt *fill;

    PetscCall(PetscMalloc1(depth + 1, &fill));
    for (PetscInt d = 0; d <= depth; d++) fill[d] = dstart[d];
    for (PetscInt i = 0; i < nc; i++) {
      PetscInt *cl = NULL, ncl;

      PetscCall(DMPlexGetTransitiveClosure(dm, cStart + cperm[i], PETSC_TRUE, &ncl, &cl));
      for (PetscInt k = 0; k < ncl; k++) {
        const PetscInt q = cl[2 * k];
        PetscInt       d = 0;

        if (perm[q - pStart] != -1) continue; /* a cell, or reached before */
        while (q < dstart[d] || q >= dend[d]) d++;
        perm[q - pStart]          = -2; /* reached */
        order[fill[d]++ - pStart] = q;
      }
      PetscCall(DMPlexRestoreTransitiveClosure(dm, cStart + cperm[i], PETSC_TRUE, &ncl, &cl));
    }
    for (PetscInt d = 0; d < depth; d++)
      for (PetscInt p = dstart[d]; p < dend[d]; p++)
        if (perm[p - pStart] == -1) order[fill[d]++ - pStart] = p;
    PetscCall(PetscFree(fill));
  }
  for (PetscInt d = 0; d < depth; d++) {
    PetscInt rank[DM_NUM_POLYTOPES], cnt[DM_NUM_POLYTOPES + 1], nt = 0;

    /* types ranked by their first appearance in the original stratum, then a stable counting sort */
    for (PetscInt t = 0; t < DM_NUM_POLYTOPES; t++) rank[t] = -1;
    for (PetscInt t = 0; t <= DM_NUM_POLYTOPES; t++) cnt[t] = 0;
    for (PetscInt p = dstart[d]; p < dend[d]; p++) {
      PetscCall(DMPlexGetCellType(dm, p, &ptype[p - pStart]));
      if (rank[ptype[p - pStart]] < 0) rank[ptype[p - pStart]] = nt++;
      cnt[rank[ptype[p - pStart]] + 1]++;
    }
    for (PetscInt t = 0; t < nt; t++) cnt[t + 1] += cnt[t];
    for (PetscInt k = dstart[d]; k < dend[d]; k++) {
      const PetscInt q = order[k - pStart];

      perm[q - pStart] = dstart[d] + cnt[rank[ptype[q - pStart]]]++;
    }
  }
  PetscCall(PetscFree4(dstart, dend, order, ptype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt FEGReorderPartSizeId = -1;

/* The order of a process's cells that fegpu's operators apply them in: the locality ordering type (none keeps the
   mesh's), then the cells that touch a ghost point (a leaf of the point SF, found from the leaves' stars, so the cost
   goes with the halo, not the mesh) moved last, in their order. order[i] = the cell (from cStart) at position i; nint,
   if given, the cells that touch none. One cell type (the caller's check). */
PetscErrorCode FEGMeshCellOrder(DM dm, FEGReorderType type, PetscInt *nint, PetscInt order[])
{
  PetscInt        cStart, cEnd, nc, nleaves, ni = 0, nb = 0;
  const PetscInt *ilocal;
  PetscBool      *touches; /* per cell (from cStart): it touches a ghost point */
  PetscSF         sf;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  nc = cEnd - cStart;
  if (type == FEG_REORDER_NONE || nc == 0)
    for (PetscInt i = 0; i < nc; i++) order[i] = i;
  else PetscCall((*FEGCellOrderings[type])(dm, nc, order));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &ilocal, NULL));
  if (size == 1 || nleaves <= 0) {
    if (nint) *nint = nc;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscCalloc1(nc, &touches));
  for (PetscInt l = 0; l < nleaves; l++) {
    PetscInt *st = NULL, nst;

    PetscCall(DMPlexGetTransitiveClosure(dm, ilocal ? ilocal[l] : l, PETSC_FALSE, &nst, &st));
    for (PetscInt k = 0; k < nst; k++)
      if (st[2 * k] >= cStart && st[2 * k] < cEnd) touches[st[2 * k] - cStart] = PETSC_TRUE;
    PetscCall(DMPlexRestoreTransitiveClosure(dm, ilocal ? ilocal[l] : l, PETSC_FALSE, &nst, &st));
  }
  {
    PetscInt *tmp;

    PetscCall(PetscMalloc1(nc, &tmp));
    for (PetscInt i = 0; i < nc; i++) {
      if (touches[order[i]]) tmp[nb++] = order[i];
      else order[ni++] = order[i];
    }
    for (PetscInt k = 0; k < nb; k++) order[ni + k] = tmp[k];
    PetscCall(PetscFree(tmp));
  }
  PetscCall(PetscFree(touches));
  if (nint) *nint = ni;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGMeshSetReorderPartSize - the cells per METIS part of `FEGMeshReorder()` with `FEG_REORDER_METIS` on this DM

  Logically Collective

  Input Parameters:
+ dm - the DMPlex to be reordered
- n  - cells per part, at least 1 (default 256)

  Options Database Key:
. -feg_mesh_reorder_part_size <n> - the same, for meshes of `FEGCreateMeshFromOptions()`

  Level: advanced

.seealso: FEGMeshGetReorderPartSize(), FEGMeshReorder()
@*/
PetscErrorCode FEGMeshSetReorderPartSize(DM dm, PetscInt n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidLogicalCollectiveInt(dm, n, 2);
  PetscCheck(n >= 1, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "Cells per METIS part %" PetscInt_FMT " must be at least 1", n);
  if (FEGReorderPartSizeId < 0) PetscCall(PetscObjectComposedDataRegister(&FEGReorderPartSizeId));
  PetscCall(PetscObjectComposedDataSetInt((PetscObject)dm, FEGReorderPartSizeId, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGMeshGetReorderPartSize - see `FEGMeshSetReorderPartSize()`

  Not Collective

  Level: advanced
@*/
PetscErrorCode FEGMeshGetReorderPartSize(DM dm, PetscInt *n)
{
  PetscBool set = PETSC_FALSE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(n, 2);
  *n = 256;
  if (FEGReorderPartSizeId >= 0) PetscCall(PetscObjectComposedDataGetInt((PetscObject)dm, FEGReorderPartSizeId, *n, set));
  if (!set) *n = 256;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGMeshReorder - renumbers the cells of each process for locality (METIS parts or a Hilbert space-filling curve), and
  the faces, edges and vertices in the order the renumbered cells reach them

  Collective

  Input Parameters:
+ dm   - a DMPlex without a discretization yet (the section is not permuted with it)
- type - FEG_REORDER_NONE (on several processes only the cells that touch a ghost point move to the end; a mesh of
         several cell types is left as it is), FEG_REORDER_METIS or FEG_REORDER_SFC

  Output Parameter:
. rdm - the renumbered mesh (a new reference to dm for FEG_REORDER_NONE on one process)

  Notes:
  METIS parts have `FEGMeshSetReorderPartSize()` cells (default 256).

  Each process orders only its own cells; on several processes the cells that touch a ghost point come last, so that
  the GPU operators can apply the others while ghost values move (-feg_op_halo_overlap). Labels, coordinates (cellwise ones
  too) and the point SF follow the new numbering. FEGCreateMeshFromOptions() applies it with -feg_mesh_reorder. The
  operators need none of this for the overlap: they order their elements themselves (`FEGDMSetElementOrder()`), which
  also gives them a locality order without renumbering the DM; renumbering also places the dofs of neighbouring cells
  close together in the vectors.

  Level: intermediate

.seealso: FEGCreateMeshFromOptions(), FEGDMSetElementOrder()
@*/
PetscErrorCode FEGMeshReorder(DM dm, FEGReorderType type, DM *rdm)
{
  PetscInt       cStart, cEnd, pStart, pEnd, nc, *cperm, *perm, nf;
  PetscMPIInt    size;
  IS             is;
  PetscLogDouble t0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(rdm, 3);
  PetscCheck(type >= FEG_REORDER_NONE && type <= FEG_REORDER_SFC, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_OUTOFRANGE, "Unknown reordering %d: use none, metis or sfc", (int)type);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  if (type == FEG_REORDER_NONE && size == 1) {
    PetscCall(PetscObjectReference((PetscObject)dm));
    *rdm = dm;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DMGetNumFields(dm, &nf));
  PetscCheck(!nf, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "Reorder the mesh before it gets a discretization (its section would be left behind)");
  PetscCall(PetscTime(&t0));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  nc = cEnd - cStart;
  {
    DMPolytopeType ct0   = DM_POLYTOPE_UNKNOWN, ct;
    PetscBool      mixed = PETSC_FALSE;

    for (PetscInt c = cStart; c < cEnd && !mixed; c++) {
      PetscCall(DMPlexGetCellType(dm, c, &ct));
      if (c == cStart) ct0 = ct;
      mixed = (PetscBool)(ct != ct0);
      PetscCheck(!mixed || type == FEG_REORDER_NONE, PETSC_COMM_SELF, PETSC_ERR_SUP, "Reordering needs cells of one type; cell %" PetscInt_FMT " is a %s, cell %" PetscInt_FMT " a %s", cStart, DMPolytopeTypes[ct0], c, DMPolytopeTypes[ct]);
    }
    /* none leaves a mesh of several cell types as it is (fegpu's operators refuse it anyway) */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &mixed, 1, MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)dm)));
    if (mixed) {
      PetscCall(PetscObjectReference((PetscObject)dm));
      *rdm = dm;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(PetscMalloc2(nc, &cperm, pEnd - pStart, &perm));
  PetscCall(FEGMeshCellOrder(dm, type, NULL, cperm));
  /* none moves only cells; the others number the lower-dimensional points after the cells */
  for (PetscInt p = pStart; p < pEnd; p++) perm[p - pStart] = type == FEG_REORDER_NONE ? p : -1;
  for (PetscInt i = 0; i < nc; i++) perm[cStart + cperm[i] - pStart] = cStart + i;
  if (type != FEG_REORDER_NONE) PetscCall(FEGMeshNumberByCells(dm, cStart, nc, cperm, perm));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, pEnd - pStart, perm, PETSC_USE_POINTER, &is));
  PetscCall(DMPlexPermute(dm, is, rdm));
  PetscCall(ISDestroy(&is));
  PetscCall(FEGPermutePointSF(dm, perm, *rdm));
  {
    DM       cdm, cdmNew;
    PetscInt nf;

    /* DMPlexPermute() keeps the coordinates but not their discretization (curved meshes) */
    PetscCall(DMGetCoordinateDM(dm, &cdm));
    PetscCall(DMGetCoordinateDM(*rdm, &cdmNew));
    PetscCall(DMGetNumFields(cdm, &nf));
    if (nf) PetscCall(DMCopyDisc(cdm, cdmNew));
  }
  PetscCall(DMPlexDistributeSetDefault(*rdm, PETSC_FALSE));
  PetscCall(PetscFree2(cperm, perm));
  {
    PetscLogDouble t1;

    PetscCall(PetscTime(&t1));
    PetscCall(PetscInfo(dm, "Reordered %" PetscInt_FMT " cells by %s in %g s\n", nc, FEGReorderTypes[type], t1 - t0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
