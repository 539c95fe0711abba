/* Cell ordering by METIS parts: the process's own cell dual graph (cells that share a face) cut into parts of about
   FEGMeshSetReorderPartSize() cells, the cells of a part numbered together, so that elements processed side by side on the
   GPU gather and scatter mostly the same dofs */
#include <fegpu/private/fegmeshimpl.h>
#include <metis.h>

PetscErrorCode FEGMeshOrderCells_Metis(DM dm, PetscInt nc, PetscInt perm[])
{
  PetscInt cStart, cEnd, fStart, fEnd, psize, nparts, *cnt, *pair, npair = 0;
  idx_t   *xadj, *adjncy, *where, *fill;

  PetscFunctionBegin;
  PetscCall(FEGMeshGetReorderPartSize(dm, &psize));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetHeightStratum(dm, 1, &fStart, &fEnd));
  nparts = (nc + psize - 1) / psize;
  for (PetscInt i = 0; i < nc; i++) perm[i] = i;
  if (nparts < 2) PetscFunctionReturn(PETSC_SUCCESS);
  /* the dual graph through the faces with two local cells: their cell pairs, read from the mesh once, then CSR */
  PetscCall(PetscMalloc4(nc + 1, &xadj, nc, &where, nc, &fill, 2 * (fEnd - fStart), &pair));
  for (PetscInt f = fStart; f < fEnd; f++) {
    const PetscInt *supp;
    PetscInt        ns;

    PetscCall(DMPlexGetSupportSize(dm, f, &ns));
    if (ns != 2) continue;
    PetscCall(DMPlexGetSupport(dm, f, &supp));
    pair[2 * npair]     = supp[0] - cStart;
    pair[2 * npair + 1] = supp[1] - cStart;
    npair++;
  }
  PetscCall(PetscArrayzero(xadj, nc + 1));
  for (PetscInt k = 0; k < 2 * npair; k++) xadj[pair[k] + 1]++;
  for (PetscInt c = 0; c < nc; c++) xadj[c + 1] += xadj[c];
  PetscCheck(xadj[nc] <= (PetscInt)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The dual graph has %" PetscInt_FMT " edges, more than this METIS (32-bit indices) can hold", (PetscInt)xadj[nc]);
  PetscCall(PetscMalloc1(PetscMax(xadj[nc], 1), &adjncy));
  for (PetscInt c = 0; c < nc; c++) fill[c] = xadj[c];
  for (PetscInt k = 0; k < npair; k++) {
    adjncy[fill[pair[2 * k]]++]     = (idx_t)pair[2 * k + 1];
    adjncy[fill[pair[2 * k + 1]]++] = (idx_t)pair[2 * k];
  }
  {
    idx_t n = (idx_t)nc, ncon = 1, np = (idx_t)nparts, objval = 0, opts[METIS_NOPTIONS];
    int   status;

    METIS_SetDefaultOptions(opts);
    opts[METIS_OPTION_SEED]      = 0; /* the same order every run */
    opts[METIS_OPTION_NUMBERING] = 0;
    status                       = METIS_PartGraphKway(&n, &ncon, xadj, adjncy, NULL, NULL, NULL, &np, NULL, NULL, opts, &objval, where);
    PetscCheck(status == METIS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "METIS_PartGraphKway failed (status %d) ordering %" PetscInt_FMT " cells in %" PetscInt_FMT " parts", status, nc, nparts);
  }
  /* cells by part, in their old order inside a part */
  PetscCall(PetscCalloc1(nparts + 1, &cnt));
  for (PetscInt c = 0; c < nc; c++) cnt[where[c] + 1]++;
  for (PetscInt p = 0; p < nparts; p++) cnt[p + 1] += cnt[p];
  for (PetscInt c = 0; c < nc; c++) perm[cnt[where[c]]++] = c;
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree(adjncy));
  PetscCall(PetscFree4(xadj, where, fill, pair));
  PetscFunctionReturn(PETSC_SUCCESS);
}
