/* What fegpu reads and writes of PETSc's private structures (include/fegpu/private/compat.h says why each): sections
   built and read from their arrays, the DM and PetscFE methods fegpu installs, and the PetscPartitioner it
   implements. The only file besides compat.h that includes PETSc's private headers for their structures; both stop the
   build outside the PETSc versions whose layouts they were checked against. */
#include <fegpu/private/fegsysimpl.h>
#include <petsc/private/sectionimpl.h>
#include <petsc/private/dmimpl.h>
#include <petsc/private/petscfeimpl.h>
#include <petsc/private/partitionerimpl.h>
#include <petsc/private/dmpleximpl.h>

/* ------------------------------------------------------------------------------------------------------- sections */
PetscErrorCode FEGSectionGetLayout(PetscSection s, FEGSectionLayout *l)
{
  PetscFunctionBegin;
  PetscCheck(s->setup, PetscObjectComm((PetscObject)s), PETSC_ERR_ARG_WRONGSTATE, "The section is not set up (PetscSectionSetUp())");
  l->pStart  = s->pStart;
  l->pEnd    = s->pEnd;
  l->dof     = s->atlasDof;
  l->off     = s->atlasOff;
  l->bcStart = l->bcEnd = 0;
  l->cdof = l->coff = l->cind = NULL;
  if (s->bc) {
    l->bcStart = s->bc->pStart;
    l->bcEnd   = s->bc->pEnd;
    l->cdof    = s->bc->atlasDof;
    l->coff    = s->bc->atlasOff;
    l->cind    = s->bcIndices;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the point's and the one field's dof arrays of a section whose chart is set, not yet set up: dof[p - pStart] */
PetscErrorCode FEGSectionGetDofArrays(PetscSection s, PetscInt **dof, PetscInt **fdof)
{
  PetscFunctionBegin;
  PetscCheck(!s->setup && s->numFields == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Expected a section of one field, not set up");
  *dof  = s->atlasDof;
  *fdof = s->field[0]->atlasDof;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* off[i] = the sum of the counts before i, where a count is dof[i] - sub[i] (sub NULL: 0) for dof[i] > 0 and 0 otherwise
   (a local section's dofs are never negative); the total, and the largest dof[i]; in nt blocks of consecutive points */
static PetscErrorCode FEGSectionScan(PetscInt nt, PetscInt n, const PetscInt dof[], const PetscInt sub[], PetscInt off[], PetscInt *total, PetscInt *maxdof)
{
  PetscInt *part, *mx;

  PetscFunctionBegin;
  nt = FEGLoopThreads(n, nt);
  PetscCall(PetscCalloc2(nt + 1, &part, nt, &mx));
#pragma omp parallel for num_threads((int)nt) schedule(static, 1)
  for (PetscInt b = 0; b < nt; b++) {
    PetscInt sum = 0, m = 0;

    for (PetscInt i = FEGBlockStart(n, b, nt); i < FEGBlockStart(n, b + 1, nt); i++) {
      sum += dof[i] > 0 ? dof[i] - (sub ? sub[i] : 0) : 0;
      m = PetscMax(m, dof[i]);
    }
    part[b + 1] = sum;
    mx[b]       = m;
  }
  *maxdof = 0;
  for (PetscInt b = 0; b < nt; b++) {
    part[b + 1] += part[b];
    *maxdof = PetscMax(*maxdof, mx[b]);
  }
  *total = part[nt];
#pragma omp parallel for num_threads((int)nt) schedule(static, 1)
  for (PetscInt b = 0; b < nt; b++) {
    PetscInt o = part[b];

    for (PetscInt i = FEGBlockStart(n, b, nt); i < FEGBlockStart(n, b + 1, nt); i++) {
      off[i] = o;
      o += dof[i] > 0 ? dof[i] - (sub ? sub[i] : 0) : 0;
    }
  }
  PetscCall(PetscFree2(part, mx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscSectionSetUpBC(): the constraint section's offsets and the room for the constrained dofs' indices */
static PetscErrorCode FEGSectionSetUpBC(PetscSection s, PetscInt nt)
{
  PetscSection bc = s->bc;
  PetscInt     total, mx;

  PetscFunctionBegin;
  if (!bc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!bc->setup && !bc->perm && bc->pointMajor && bc->includesConstraints && !bc->numFields, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unexpected constraint section");
  PetscCall(FEGSectionScan(nt, bc->pEnd - bc->pStart, bc->atlasDof, NULL, bc->atlasOff, &total, &mx));
  bc->maxDof = mx;
  bc->setup  = PETSC_TRUE;
  PetscCall(PetscMalloc1(total, &s->bcIndices));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PetscSectionSetUp() of a point-major section of one field with the point's dofs, no permutation: the field's offsets
   are the point's */
PetscErrorCode FEGSectionSetUpOneField(PetscSection s, PetscInt nt)
{
  const PetscInt n = s->pEnd - s->pStart;
  PetscSection   f;
  PetscInt       total, mx;

  PetscFunctionBegin;
  PetscCheck(!s->setup && !s->perm && s->pointMajor && s->includesConstraints && s->numFields == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unexpected local section");
  f = s->field[0];
  PetscCall(FEGSectionScan(nt, n, s->atlasDof, NULL, s->atlasOff, &total, &mx));
  s->maxDof = f->maxDof = mx;
  s->setup              = PETSC_TRUE;
  PetscCall(PetscArraycpy(f->atlasOff, s->atlasOff, n));
  PetscCall(FEGSectionSetUpBC(s, nt));
  PetscCall(FEGSectionSetUpBC(f, nt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* g's constraints, those of s (set up, with g's chart): what PetscSectionSetConstraintDof() at each constrained point,
   PetscSectionSetUpBC() and a copy of the indices give (PetscSectionCreateGlobalSection()), copied from s: the same
   counts have the same offsets */
static PetscErrorCode FEGSectionCopyConstraints(PetscSection s, PetscSection g)
{
  PetscSection bc = s->bc;
  PetscInt     n, total;

  PetscFunctionBegin;
  if (!bc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(bc->setup && !g->bc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unexpected constraint sections");
  n     = bc->pEnd - bc->pStart;
  total = n > 0 ? bc->atlasOff[n - 1] + bc->atlasDof[n - 1] : 0;
  if (!total) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc sets no count of 0, so g has no constraint section */
  PetscCall(PetscSectionCreate(PETSC_COMM_SELF, &g->bc));
  PetscCall(PetscSectionSetChart(g->bc, bc->pStart, bc->pEnd));
  PetscCall(PetscArraycpy(g->bc->atlasDof, bc->atlasDof, n));
  PetscCall(PetscArraycpy(g->bc->atlasOff, bc->atlasOff, n));
  g->bc->maxDof = bc->maxDof;
  g->bc->setup  = PETSC_TRUE;
  PetscCall(PetscMalloc1(total, &g->bcIndices));
  PetscCall(PetscArraycpy(g->bcIndices, s->bcIndices, total));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The global section DMGetGlobalSection() would make (PetscSectionCreateGlobalSection() of the local section and the
   point SF, constraints left out, global offsets), from the local section's arrays: PETSc calls about ten functions per
   chart point. Same dofs (-(dof+1) at the point SF's leaves), offsets (in the section's permutation order; -(off+1) with
   the owner's offset at the leaves), constraints and field layout, and the DM's value layout as DMGetGlobalSection() sets
   it. One message (the leaves' offsets) where PETSc sends two: a leaf's dofs are its own, as PETSc checks they are.
   Periodic DMs, several fields, field-major sections and point SFs whose roots are not the chart [0, pEnd) keep PETSc's.
   Called where no global section is set yet and the local one is: not from createlocalsection, which
   DMGetGlobalSection() may call just before it sets its own. Collective. */
PetscErrorCode FEGDMSetGlobalSectionFromLocal(DM dm)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscSection    s    = dm->localSection, gs;
  PetscSF         sf;
  PetscMPIInt     size;
  PetscInt        nroots, nleaves, Nf = 0, pStart = 0, pEnd = 0, n, off = 0, goff = 0, nth, mx;
  const PetscInt *leaves, *pind = NULL;
  PetscBool       ours;
  void (*iso)(void) = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscObjectQueryFunction((PetscObject)dm, "DMGetIsoperiodicPointSF_C", &iso)); /* 3.22's periodic meshes */
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, &leaves, NULL));
  if (s) {
    PetscCall(PetscSectionGetChart(s, &pStart, &pEnd));
    PetscCall(PetscSectionGetNumFields(s, &Nf));
  }
  /* the same choice on every process: the leaves' offsets are one collective message */
  ours = (PetscBool)(s && s->pointMajor && !iso && Nf <= 1 && (nroots < 0 ? size == 1 : pStart == 0 && nroots == pEnd));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ours, 1, MPIU_BOOL, MPI_LAND, comm));
  if (!ours) PetscFunctionReturn(PETSC_SUCCESS);
  if (nroots < 0) nleaves = 0;
  n = pEnd - pStart;
  PetscCall(FEGSetupThreads(comm, &nth));
  PetscCall(PetscSectionCreate(comm, &gs));
  if (Nf > 0) PetscCall(PetscSectionSetNumFields(gs, Nf));
  PetscCall(PetscSectionSetChart(gs, pStart, pEnd));
  gs->includesConstraints = PETSC_FALSE;
  PetscCall(PetscArraycpy(gs->atlasDof, s->atlasDof, n));
  PetscCall(FEGSectionCopyConstraints(s, gs));
  for (PetscInt l = 0; l < nleaves; l++) {
    const PetscInt p = leaves ? leaves[l] : l;

    gs->atlasDof[p] = -(gs->atlasDof[p] + 1);
  }
  if (s->perm) {
    PetscCall(ISGetIndices(s->perm, &pind));
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt q = pind[i], cdof = s->bc ? s->bc->atlasDof[q] : 0;

      gs->atlasOff[q] = off;
      off += gs->atlasDof[q] > 0 ? gs->atlasDof[q] - cdof : 0;
    }
    PetscCall(ISRestoreIndices(s->perm, &pind));
  } else PetscCall(FEGSectionScan(nth, n, gs->atlasDof, s->bc ? s->bc->atlasDof : NULL, gs->atlasOff, &off, &mx));
  if (size > 1) {
    PetscCallMPI(MPI_Scan(&off, &goff, 1, MPIU_INT, MPI_SUM, comm));
    goff -= off;
  }
  if (nroots >= 0 && (size > 1 || nleaves > 0)) { /* the owners' offsets, -(off+1), to the leaves */
    PetscInt *neg;
    PetscInt  nt = FEGLoopThreads(n, nth);

    PetscCall(PetscMalloc1(n, &neg));
#pragma omp parallel for num_threads((int)nt) schedule(static)
    for (PetscInt p = 0; p < n; p++) {
      gs->atlasOff[p] += goff;
      neg[p] = -(gs->atlasOff[p] + 1);
    }
    PetscCall(PetscSFBcastBegin(sf, MPIU_INT, neg, gs->atlasOff, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPIU_INT, neg, gs->atlasOff, MPI_REPLACE));
    PetscCall(PetscFree(neg));
  }
  gs->maxDof = s->maxDof;
  if (Nf == 1) { /* the one field's dofs, -(dof+1) at the leaves, constraints and offsets are the point's */
    PetscSection gf = gs->field[0];
    PetscInt     nc;

    gf->includesConstraints = PETSC_FALSE;
    PetscCall(PetscSectionGetFieldComponents(s, 0, &nc));
    PetscCall(PetscSectionSetFieldComponents(gs, 0, nc));
    PetscCall(PetscArraycpy(gf->atlasDof, s->field[0]->atlasDof, n));
    for (PetscInt l = 0; l < nleaves; l++) {
      const PetscInt p = leaves ? leaves[l] : l;

      gf->atlasDof[p] = -(gf->atlasDof[p] + 1);
    }
    PetscCall(PetscArraycpy(gf->atlasOff, gs->atlasOff, n));
    gf->maxDof = s->field[0]->maxDof;
    PetscCall(FEGSectionCopyConstraints(s->field[0], gf));
  }
  gs->setup = PETSC_TRUE;
  PetscCall(DMSetGlobalSection(dm, gs));
  PetscCall(PetscSectionDestroy(&gs));
  /* DMGetGlobalSection()'s PetscSectionGetValueLayout(): the owned unconstrained dofs */
  PetscCall(PetscLayoutDestroy(&dm->map));
  PetscCall(PetscLayoutCreate(comm, &dm->map));
  PetscCall(PetscLayoutSetLocalSize(dm->map, off));
  PetscCall(PetscLayoutSetBlockSize(dm->map, 1));
  PetscCall(PetscLayoutSetUp(dm->map));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------- DM methods */
/* the greatest common divisor of a and b >= 0 (gcd(a, 0) = a) */
static inline PetscInt FEGGcd(PetscInt a, PetscInt b)
{
  while (b) {
    const PetscInt t = a % b;

    a = b;
    b = t;
  }
  return a;
}

/* The vector DMCreateGlobalVector() of a DMPlex makes (DMCreateGlobalVector_Plex(): DMCreateGlobalVector_Section_Private()
   and the Plex view and load methods), with the same type, layout, block size, DM and methods; test_distmesh's
   test_global_vector compares the two. The block size is the greatest common divisor of the points' unconstrained
   dof counts (where positive), if every process with dofs has the same one, else 1, as PETSc 3.18 to 3.22 take it.
   Two differences in how: the counts are read from the global section's arrays on the setup threads, where PETSc
   calls two functions per chart point on one; and CUDA vectors on several processes are made without the pinned host
   copy that VecSetType(VECMPICUDA) allocates and zeroes at once (FEGDeviceCreateVec()). Collective. */
PetscErrorCode FEGPlexCreateGlobalVector(DM dm, Vec *vec)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)dm);
  PetscSection gs;
  PetscInt     n, nth, nt, *g, *sum, blockSize = 0, localSize = 0, in[2], out[2], bs;
  VecType      vtype;
  PetscBool    lazy;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCheck(!gs->bc || (gs->bc->pStart == gs->pStart && gs->bc->pEnd == gs->pEnd), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The global section's constraints have another chart");
  n = gs->pEnd - gs->pStart;
  PetscCall(FEGSetupThreads(comm, &nth));
  nt = FEGLoopThreads(n, nth);
  PetscCall(PetscMalloc2(nt, &g, nt, &sum));
#pragma omp parallel for num_threads((int)nt) schedule(static, 1)
  for (PetscInt b = 0; b < nt; b++) {
    const PetscInt *dof = gs->atlasDof, *cdof = gs->bc ? gs->bc->atlasDof : NULL;
    PetscInt        d = 0, s = 0;

    for (PetscInt i = FEGBlockStart(n, b, nt); i < FEGBlockStart(n, b + 1, nt); i++) {
      const PetscInt u = dof[i] - (cdof ? cdof[i] : 0);

      if (u > 0) d = FEGGcd(u, d);
      if (dof[i] > 0) s += u;
    }
    g[b]   = d;
    sum[b] = s;
  }
  for (PetscInt b = 0; b < nt; b++) {
    blockSize = FEGGcd(g[b], blockSize);
    localSize += sum[b];
  }
  PetscCall(PetscFree2(g, sum));
  /* -out[0] is the smallest block size of the processes with dofs, out[1] the largest */
  in[0] = blockSize ? -blockSize : -PETSC_MAX_INT;
  in[1] = blockSize ? blockSize : -1;
  PetscCall(MPIU_Allreduce(in, out, 2, MPIU_INT, MPI_MAX, comm));
  bs = out[1] > 0 && -out[0] == out[1] ? out[1] : 1;
  if (!blockSize) blockSize = 1;
  PetscCheck(localSize % blockSize == 0, comm, PETSC_ERR_ARG_WRONG, "Mismatch between block size %" PetscInt_FMT " and local storage size %" PetscInt_FMT, blockSize, localSize);
  PetscCall(DMGetVecType(dm, &vtype));
  PetscCall(FEGDeviceVecIsLazy(comm, vtype, &lazy));
  if (lazy) {
    PetscLayout map;

    PetscCall(PetscLayoutCreateFromSizes(comm, localSize, PETSC_DETERMINE, bs, &map));
    PetscCall(FEGDeviceCreateVec(map, vec));
    PetscCall(PetscLayoutDestroy(&map));
  } else {
    PetscCall(VecCreate(comm, vec));
    PetscCall(VecSetSizes(*vec, localSize, PETSC_DETERMINE));
    PetscCall(VecSetBlockSize(*vec, bs));
    PetscCall(VecSetType(*vec, vtype));
  }
  PetscCall(VecSetDM(*vec, dm));
  PetscCall(VecSetOperation(*vec, VECOP_VIEW, (void (*)(void))VecView_Plex));
  PetscCall(VecSetOperation(*vec, VECOP_VIEWNATIVE, (void (*)(void))VecView_Plex_Native));
  PetscCall(VecSetOperation(*vec, VECOP_LOAD, (void (*)(void))VecLoad_Plex));
  PetscCall(VecSetOperation(*vec, VECOP_LOADNATIVE, (void (*)(void))VecLoad_Plex_Native));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDMHasGlobalSection(DM dm, PetscBool *has)
{
  PetscFunctionBegin;
  *has = (PetscBool)(dm->globalSection != NULL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDMGetSectionOps(DM dm, FEGDMSectionOps *ops)
{
  PetscFunctionBegin;
  ops->createlocalsection = dm->ops->createlocalsection;
  ops->createglobalvector = dm->ops->createglobalvector;
  ops->clone              = dm->ops->clone;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDMSetSectionOps(DM dm, const FEGDMSectionOps *ops)
{
  PetscFunctionBegin;
  dm->ops->createlocalsection = ops->createlocalsection;
  dm->ops->createglobalvector = ops->createglobalvector;
  dm->ops->clone              = ops->clone;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMCreateMatrix() of this DM (a DMPlex has no public setter, as DMShellSetCreateMatrix() is for DMShell) */
PetscErrorCode FEGDMSetCreateMatrix(DM dm, PetscErrorCode (*creatematrix)(DM, Mat *))
{
  PetscFunctionBegin;
  dm->ops->creatematrix = creatematrix;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDMSetHierarchyOps(DM dm, PetscErrorCode (*coarsen)(DM, MPI_Comm, DM *), PetscErrorCode (*interpolation)(DM, DM, Mat *, Vec *))
{
  PetscFunctionBegin;
  dm->ops->coarsen             = coarsen;
  dm->ops->createinterpolation = interpolation;
  dm->ops->coarsenhierarchy    = NULL;
  dm->ops->createinjection     = NULL;
  dm->ops->hascreateinjection  = NULL;
  dm->ops->createrestriction   = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------ PetscFE */
PetscErrorCode FEGFEGetCreateTabulation(PetscFE fe, FEGFECreateTabulationFn *fn)
{
  PetscFunctionBegin;
  *fn = fe->ops->createtabulation;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGFESetCreateTabulation(PetscFE fe, FEGFECreateTabulationFn fn)
{
  PetscFunctionBegin;
  fe->ops->createtabulation = fn;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ----------------------------------------------------------------------------------------------- PetscPartitioner */
PetscErrorCode FEGPartitionerSetImplementation(PetscPartitioner part, void *data, const FEGPartitionerOps *ops)
{
  PetscFunctionBegin;
  part->data           = data;
  part->noGraph        = PETSC_FALSE;
  part->ops->view      = ops->view;
  part->ops->destroy   = ops->destroy;
  part->ops->partition = ops->partition;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGPartitionerGetData(PetscPartitioner part, void **data)
{
  PetscFunctionBegin;
  *data = part->data;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the quality PetscPartitionerView() reports: set (setcut true) or read */
PetscErrorCode FEGPartitionerQuality(PetscPartitioner part, PetscBool set, PetscInt *edgecut, PetscReal *balance)
{
  PetscFunctionBegin;
  if (set) {
    part->edgeCut = *edgecut;
    part->balance = *balance;
  } else {
    *edgecut = part->edgeCut;
    *balance = part->balance;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the partitioner weighs vertices (PetscPartitionerSetUseVertexWeights(), whose getter 3.18 lacks) */
PetscErrorCode FEGPartitionerUsesVertexWeights(PetscPartitioner part, PetscBool *use)
{
  PetscFunctionBegin;
  *use = part->usevwgt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc 3.22's DMPlexGetCellType() fills a per-point cache of the cell types at its first call, one DMLabelGetValue()
   for each chart point (0.3-0.4 s at 8M points, in whichever phase first asks for a cell type); from the strata of the
   cell-type label fegpu's builder has just set (ranges of points), it is a fill. Earlier versions read the label at
   each call and keep no cache. */
PetscErrorCode FEGPlexSetCellTypeCache(DM dm, DMLabel label)
{
#if PETSC_VERSION_GE(3, 22, 0)
  DM_Plex        *mesh = (DM_Plex *)dm->data;
  IS              vis;
  const PetscInt *vals;
  PetscInt        nv, pStart, pEnd;

  PetscFunctionBegin;
  if (mesh->cellTypes || mesh->tr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(PetscMalloc1(pEnd - pStart, &mesh->cellTypes));
  /* unlabelled points: DMLabelGetValue()'s -1, as PETSc's fill stores it */
  for (PetscInt p = 0; p < pEnd - pStart; p++) mesh->cellTypes[p].value_as_uint8 = (uint8_t)-1;
  PetscCall(DMLabelGetValueIS(label, &vis));
  PetscCall(ISGetLocalSize(vis, &nv));
  PetscCall(ISGetIndices(vis, &vals));
  for (PetscInt v = 0; v < nv; v++) {
    IS        is;
    PetscInt  n, first, step;
    PetscBool stride;

    PetscCall(DMLabelGetStratumIS(label, vals[v], &is));
    if (!is) continue;
    PetscCall(ISGetLocalSize(is, &n));
    PetscCall(PetscObjectTypeCompare((PetscObject)is, ISSTRIDE, &stride));
    if (stride) {
      PetscCall(ISStrideGetInfo(is, &first, &step));
      for (PetscInt i = 0; i < n; i++) mesh->cellTypes[first + i * step - pStart].value_as_uint8 = (uint8_t)vals[v];
    } else {
      const PetscInt *pts;

      PetscCall(ISGetIndices(is, &pts));
      for (PetscInt i = 0; i < n; i++) mesh->cellTypes[pts[i] - pStart].value_as_uint8 = (uint8_t)vals[v];
      PetscCall(ISRestoreIndices(is, &pts));
    }
    PetscCall(ISDestroy(&is));
  }
  PetscCall(ISRestoreIndices(vis, &vals));
  PetscCall(ISDestroy(&vis));
#else
  PetscFunctionBegin;
  (void)dm;
  (void)label;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
