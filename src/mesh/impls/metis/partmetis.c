/* PetscPartitioner "metis": METIS k-way on the cell dual graph, for PETSc builds without ParMETIS (Debian's and the
   CUDA bundle). The distributed graph is gathered on rank 0, partitioned there and the parts sent back, which is fine
   to about 10M cells; beyond that use ParMETIS or PT-Scotch. */
#include <fegpu/private/fegmeshimpl.h>
#include <metis.h>

typedef struct {
  PetscInt nparts; /* of the last partition, whose edge cut and balance the PetscPartitioner keeps */
} FEGPartitioner_Metis;

static PetscErrorCode PetscPartitionerView_FEGMetis(PetscPartitioner part, PetscViewer viewer)
{
  FEGPartitioner_Metis *m;
  PetscBool             ascii;
  PetscInt              edgeCut;
  PetscReal             balance;

  PetscFunctionBegin;
  PetscCall(FEGPartitionerGetData(part, (void **)&m));
  PetscCall(FEGPartitionerQuality(part, PETSC_FALSE, &edgeCut, &balance));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "METIS %d.%d.%d k-way on the cell dual graph, gathered on rank 0\n", METIS_VER_MAJOR, METIS_VER_MINOR, METIS_VER_SUBMINOR));
  if (m->nparts) PetscCall(PetscViewerASCIIPrintf(viewer, "last partition: %" PetscInt_FMT " parts, edge cut %" PetscInt_FMT ", balance %.3f\n", m->nparts, edgeCut, (double)balance));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscPartitionerDestroy_FEGMetis(PetscPartitioner part)
{
  void *m;

  PetscFunctionBegin;
  PetscCall(FEGPartitionerGetData(part, &m));
  PetscCall(PetscFree(m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PetscPartitionerPartition_FEGMetis(PetscPartitioner part, PetscInt nparts, PetscInt numVertices, PetscInt start[], PetscInt adjacency[], PetscSection vertSection, FEG_PARTITIONER_EDGE_SECTION(edgeSection) PetscSection targetSection, PetscSection partSection, IS *partition)
{
  FEGPartitioner_Metis *m;
  MPI_Comm              comm = PetscObjectComm((PetscObject)part);
  PetscMPIInt           size, rank, nv = (PetscMPIInt)numVertices, ne;
  PetscMPIInt          *vcounts = NULL, *vdispls = NULL, *ecounts = NULL, *edispls = NULL;
  PetscInt             *gstart = NULL, *gadj = NULL, *gpart = NULL, *lpart, *points, nvg = 0, neg = 0, edgeCut = 0;
  PetscInt             *deg = NULL, *ldeg, *gw = NULL, *lw = NULL;
  PetscBool             weights;
  PetscReal             balance = 1.0;

  PetscFunctionBegin;
  PetscCall(FEGPartitionerGetData(part, (void **)&m));
  PetscCall(FEGPartitionerUsesVertexWeights(part, &weights));
  weights = (PetscBool)(vertSection && weights);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  (void)targetSection; /* equal parts; METIS' tpwgts would need target weights, which DMPlexDistribute does not set */
  ne = (PetscMPIInt)(numVertices ? start[numVertices] - start[0] : 0);
  /* gather the graph on rank 0: degrees, then adjacency (global vertex numbers) */
  PetscCall(PetscMalloc2(numVertices + 1, &ldeg, numVertices + 1, &lw));
  for (PetscInt v = 0; v < numVertices; v++) {
    ldeg[v] = start[v + 1] - start[v];
    lw[v]   = 1;
    /* the dofs on each cell, as PETSc's own graph partitioners weigh them */
    if (weights) PetscCall(PetscSectionGetDof(vertSection, v, &lw[v]));
    lw[v] = PetscMax(lw[v], 1);
  }
  if (rank == 0) PetscCall(PetscMalloc4(size, &vcounts, size + 1, &vdispls, size, &ecounts, size + 1, &edispls));
  PetscCallMPI(MPI_Gather(&nv, 1, MPI_INT, vcounts, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Gather(&ne, 1, MPI_INT, ecounts, 1, MPI_INT, 0, comm));
  if (rank == 0) {
    vdispls[0] = edispls[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) {
      vdispls[r + 1] = vdispls[r] + vcounts[r];
      edispls[r + 1] = edispls[r] + ecounts[r];
    }
    nvg = vdispls[size];
    neg = edispls[size];
    PetscCall(PetscMalloc5(nvg, &deg, nvg + 1, &gstart, PetscMax(neg, 1), &gadj, PetscMax(nvg, 1), &gpart, PetscMax(nvg, 1), &gw));
  }
  PetscCallMPI(MPI_Gatherv(ldeg, nv, MPIU_INT, deg, vcounts, vdispls, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Gatherv(lw, nv, MPIU_INT, gw, vcounts, vdispls, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Gatherv(numVertices ? adjacency + start[0] : NULL, ne, MPIU_INT, gadj, ecounts, edispls, MPIU_INT, 0, comm));
  if (rank == 0) {
    gstart[0] = 0;
    for (PetscInt v = 0; v < nvg; v++) gstart[v + 1] = gstart[v] + deg[v];
    if (nparts == 1 || nvg == 0) {
      for (PetscInt v = 0; v < nvg; v++) gpart[v] = 0;
    } else {
      idx_t  n = (idx_t)nvg, ncon = 1, np = (idx_t)nparts, objval = 0, opts[METIS_NOPTIONS];
      idx_t *xadj, *adjncy, *where, *vwgt;
      int    status;

      PetscCheck(neg <= (PetscInt)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The dual graph has %" PetscInt_FMT " edges, more than this METIS (32-bit indices) can hold", neg);
      PetscCall(PetscMalloc4(nvg + 1, &xadj, PetscMax(neg, 1), &adjncy, nvg, &where, nvg, &vwgt));
      for (PetscInt v = 0; v <= nvg; v++) xadj[v] = (idx_t)gstart[v];
      for (PetscInt v = 0; v < nvg; v++) vwgt[v] = (idx_t)gw[v];
      for (PetscInt k = 0; k < neg; k++) adjncy[k] = (idx_t)gadj[k];
      METIS_SetDefaultOptions(opts);
      opts[METIS_OPTION_SEED]      = 0; /* the same partition every run */
      opts[METIS_OPTION_NUMBERING] = 0;
      status                       = METIS_PartGraphKway(&n, &ncon, xadj, adjncy, vwgt, NULL, NULL, &np, NULL, NULL, opts, &objval, where);
      PetscCheck(status == METIS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "METIS_PartGraphKway failed (status %d) on %" PetscInt_FMT " cells into %" PetscInt_FMT " parts", status, nvg, nparts);
      for (PetscInt v = 0; v < nvg; v++) gpart[v] = (PetscInt)where[v];
      edgeCut = (PetscInt)objval;
      PetscCall(PetscFree4(xadj, adjncy, where, vwgt));
    }
    {
      PetscInt *cnt, mx = 0;

      PetscCall(PetscCalloc1(nparts, &cnt));
      for (PetscInt v = 0; v < nvg; v++) cnt[gpart[v]] += gw[v];
      for (PetscInt p = 0; p < nparts; p++) mx = PetscMax(mx, cnt[p]);
      {
        PetscInt wsum = 0;

        for (PetscInt v = 0; v < nvg; v++) wsum += gw[v];
        balance = wsum ? (PetscReal)mx * nparts / wsum : 1.0;
      }
      PetscCall(PetscFree(cnt));
    }
  }
  PetscCall(PetscMalloc1(numVertices + 1, &lpart));
  PetscCallMPI(MPI_Scatterv(gpart, vcounts, vdispls, MPIU_INT, lpart, nv, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(&edgeCut, 1, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(&balance, 1, MPIU_REAL, 0, comm));
  m->nparts = nparts;
  PetscCall(FEGPartitionerQuality(part, PETSC_TRUE, &edgeCut, &balance));
  /* PETSc's convention: the count of local vertices per part, and the local vertices sorted by part */
  for (PetscInt v = 0; v < numVertices; v++) PetscCall(PetscSectionAddDof(partSection, lpart[v], 1));
  PetscCall(PetscMalloc1(numVertices, &points));
  for (PetscInt p = 0, i = 0; p < nparts; p++)
    for (PetscInt v = 0; v < numVertices; v++)
      if (lpart[v] == p) points[i++] = v;
  PetscCall(ISCreateGeneral(comm, numVertices, points, PETSC_OWN_POINTER, partition));
  PetscCall(PetscFree(lpart));
  PetscCall(PetscFree2(ldeg, lw));
  if (rank == 0) {
    PetscCall(PetscFree4(vcounts, vdispls, ecounts, edispls));
    PetscCall(PetscFree5(deg, gstart, gadj, gpart, gw));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  FEGPARTITIONERMETIS = "metis" - a PetscPartitioner that partitions the cell dual graph with METIS k-way (registered by
  fegpu, for PETSc builds without ParMETIS): -petscpartitioner_type metis; -petscpartitioner_view shows the edge cut

  Level: intermediate

  Note:
  The graph is gathered on rank 0, which is fine to about 10M cells.
M*/
PetscErrorCode PetscPartitionerCreate_FEGMetis(PetscPartitioner part)
{
  const FEGPartitionerOps ops = {PetscPartitionerView_FEGMetis, PetscPartitionerDestroy_FEGMetis, PetscPartitionerPartition_FEGMetis};
  FEGPartitioner_Metis   *m;

  PetscFunctionBegin;
  PetscCall(PetscNew(&m));
  PetscCall(FEGPartitionerSetImplementation(part, m, &ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}
