/* A local section with each point's dofs by its cell type. PETSc (3.18 to 3.22) gives every point of one depth the
   same number of dofs and the same orientation symmetries, which is right for every cell whose faces are alike but not
   for prisms: their triangular and quadrilateral faces carry (p-1)(p-2)/2 and (p-1)^2 interior dofs. */
#include <fegpu/private/fegspaceimpl.h>
#include <petsc/private/dmimpl.h>
#include <petsc/private/sectionimpl.h>
#include <petscsf.h>

/* Sections of millions of points (8M at BP3's 8M Q2 unknowns) are built here from their arrays, on the setup threads,
   setting what PETSc's calls would set: those calls per point and PETSc's serial set-up loops were 0.46-0.57 s of the
   0.72-0.82 s those sections took on the H100's host (share/bench/setup run 55). */

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
static PetscErrorCode FEGSectionSetUpOneField(PetscSection s, PetscInt nt)
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

/* the number of dofs and a point of the reference cell for every cell type in the element's closure */
static PetscErrorCode FEGDualSpaceDofsByType(PetscDualSpace Q, PetscInt dof[], PetscInt rep[])
{
  DM           K;
  PetscSection ksec;
  PetscInt     ncl, *cl = NULL;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < DM_NUM_POLYTOPES; t++) dof[t] = rep[t] = -1;
  PetscCall(PetscDualSpaceGetDM(Q, &K));
  PetscCall(PetscDualSpaceGetSection(Q, &ksec));
  PetscCall(DMPlexGetTransitiveClosure(K, 0, PETSC_TRUE, &ncl, &cl));
  for (PetscInt r = 0; r < ncl; r++) {
    const PetscInt kp = cl[2 * r];
    DMPolytopeType kt;
    PetscInt       n;

    PetscCall(DMPlexGetCellType(K, kp, &kt));
    PetscCall(PetscSectionGetDof(ksec, kp, &n));
    PetscCheck(dof[kt] < 0 || dof[kt] == n, PETSC_COMM_SELF, PETSC_ERR_SUP, "The element's dual space has %" PetscInt_FMT " and %" PetscInt_FMT " dofs on two %s points of its reference cell", dof[kt], n, DMPolytopeTypes[kt]);
    dof[kt] = n;
    if (rep[kt] < 0) rep[kt] = kp;
  }
  PetscCall(DMPlexRestoreTransitiveClosure(K, 0, PETSC_TRUE, &ncl, &cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's own DMPlex methods, which FEGDMSetUpSection() replaces on a DM and its clones (the same for every DMPlex) */
static PetscErrorCode (*FEGPlexCreateLocalSection)(DM)        = NULL;
static PetscErrorCode (*FEGPlexClone)(DM, DM *)               = NULL;
static PetscErrorCode (*FEGPlexCreateGlobalVector)(DM, Vec *) = NULL;

/* whether the element's dual space gives points of one depth different dofs (prisms of order >= 2), which PETSc's
   per-depth section cannot hold */
static PetscErrorCode FEGDualSpaceDofsDifferByType(PetscDualSpace Q, const PetscInt dof[], PetscBool *differ)
{
  DM       K;
  PetscInt depth;

  PetscFunctionBegin;
  *differ = PETSC_FALSE;
  PetscCall(PetscDualSpaceGetDM(Q, &K));
  PetscCall(DMPlexGetDepth(K, &depth));
  for (PetscInt d = 0; d <= depth; d++) {
    PetscInt n = -1;

    for (PetscInt t = 0; t < DM_NUM_POLYTOPES; t++) {
      if (dof[t] < 0 || DMPolytopeTypeGetDim((DMPolytopeType)t) != d) continue;
      if (n >= 0 && n != dof[t]) *differ = PETSC_TRUE;
      n = dof[t];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the dm->ops->createlocalsection FEGDMSetUpSection() installs: DMCreateLocalSection_Plex()'s work with dofs and
   symmetries by cell type (one scalar PetscFE field, essential conditions on the closure of their labelled points),
   the dofs set stratum by stratum; PETSc's own for other fields and mixed meshes, where its per-depth dofs are right */
static PetscErrorCode FEGDMCreateLocalSectionByType(DM dm)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscObject     obj  = NULL;
  PetscClassId    id   = 0;
  PetscFE         fe;
  PetscDualSpace  Q;
  PetscSection    s;
  PetscSectionSym sym;
  DMLabel         ctLabel;
  PetscDS         ds;
  PetscInt        Nf, Nc, numBd, pStart, pEnd, cStart, cEnd, maxc = 0, *idx, *con = NULL, ncon = 0, mcon = 0, nth;
  PetscInt        dof[DM_NUM_POLYTOPES], rep[DM_NUM_POLYTOPES];
  PetscBool       differ = PETSC_FALSE;
  const char     *name;

  PetscFunctionBegin;
  PetscCall(DMGetNumFields(dm, &Nf));
  for (PetscInt f = Nf - 1; f >= 0; f--) { /* field 0's tables last */
    PetscBool d = PETSC_FALSE;

    PetscCall(DMGetField(dm, f, NULL, &obj));
    PetscCall(PetscObjectGetClassId(obj, &id));
    if (id != PETSCFE_CLASSID) continue;
    PetscCall(PetscFEGetDualSpace((PetscFE)obj, &Q));
    PetscCall(FEGDualSpaceDofsByType(Q, dof, rep));
    PetscCall(FEGDualSpaceDofsDifferByType(Q, dof, &d));
    differ = (PetscBool)(differ || d);
  }
  /* PETSc's section where it is right and fegpu's does not apply: several fields, vector fields, mixed meshes */
  Nc = 0;
  if (Nf == 1 && id == PETSCFE_CLASSID) PetscCall(PetscFEGetNumComponents((PetscFE)obj, &Nc));
  /* several components only with every dof on the cells (discontinuous): no symmetries to interleave */
  if (Nc > 1)
    for (PetscInt t = 0; t < DM_NUM_POLYTOPES; t++)
      if (dof[t] > 0 && rep[t] != 0) Nc = 0;
  if (!differ && Nc < 1) {
    PetscCall((*FEGPlexCreateLocalSection)(dm));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(Nf == 1 && id == PETSCFE_CLASSID, comm, PETSC_ERR_SUP, "The DM has %" PetscInt_FMT " fields; fegpu's section by cell type (FEGDMSetUpSection(), needed for continuous prisms of order >= 2) is for one scalar PetscFE field", Nf);
  PetscCheck(Nc >= 1, comm, PETSC_ERR_SUP, "The field has several components and dofs on faces or edges; fegpu's section by cell type (FEGDMSetUpSection(), needed for continuous prisms of order >= 2) is for scalar or discontinuous fields");
  fe = (PetscFE)obj;
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetCellTypeLabel(dm, &ctLabel));
  PetscCall(FEGSetupThreads(comm, &nth));
  {
    PetscInt covered = 0;

    /* every point's type in the element's reference cell: else a mixed mesh */
    for (PetscInt t = 0; t < DM_NUM_POLYTOPES; t++) {
      PetscInt n;

      PetscCall(DMLabelGetStratumSize(ctLabel, t, &n));
      if (dof[t] >= 0) covered += n;
    }
    if (!differ && covered != pEnd - pStart) {
      PetscCall((*FEGPlexCreateLocalSection)(dm));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCheck(covered == pEnd - pStart, comm, PETSC_ERR_SUP, "The mesh has points of a type the element's reference cell does not have (mixed meshes are not supported)");
  }

  PetscCall(PetscSectionCreate(comm, &s));
  PetscCall(PetscSectionSetNumFields(s, 1));
  PetscCall(PetscSectionSetFieldComponents(s, 0, Nc));
  PetscCall(PetscObjectGetName((PetscObject)fe, &name));
  if (name) PetscCall(PetscSectionSetFieldName(s, 0, name));
  PetscCall(PetscSectionSetChart(s, pStart, pEnd));
  /* by the cell-type strata, not a label lookup per point (PETSc's section takes one, 0.2 s at 545k triangles); the
     point's and the field's dofs stored as PetscSectionSetDof() and PetscSectionSetFieldDof() store them */
  for (PetscInt t = 0; t < DM_NUM_POLYTOPES; t++) {
    IS              is;
    const PetscInt *pts;
    PetscInt        n, *adof = s->atlasDof - pStart, *fdof = s->field[0]->atlasDof - pStart, bad = -1;
    const PetscInt  d = dof[t];

    if (d <= 0) continue;
    PetscCall(DMLabelGetStratumIS(ctLabel, t, &is));
    if (!is) continue;
    PetscCall(ISGetLocalSize(is, &n));
    PetscCall(ISGetIndices(is, &pts));
#pragma omp parallel for num_threads(FEGLoopThreads(n, nth)) schedule(static) reduction(max : bad)
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt p = pts[i];

      if (p < pStart || p >= pEnd) bad = PetscMax(bad, p);
      else adof[p] = fdof[p] = d;
    }
    PetscCall(ISRestoreIndices(is, &pts));
    PetscCall(ISDestroy(&is));
    PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point %" PetscInt_FMT " of the cell-type label is outside the chart [%" PetscInt_FMT ", %" PetscInt_FMT ")", bad, pStart, pEnd);
  }

  /* every dof of a labelled point of an essential condition is constrained, after the label is completed with the
     closure of its points (as DMCreateLocalSection_Plex() does with PETSc's DMPlexLabelComplete()) */
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSGetNumBoundary(ds, &numBd));
  for (PetscInt bd = 0; bd < numBd; bd++) {
    DMBoundaryConditionType type;
    DMLabel                 label;
    const PetscInt         *vals;
    PetscInt                nval;

    PetscCall(PetscDSGetBoundary(ds, bd, NULL, &type, NULL, &label, &nval, &vals, NULL, NULL, NULL, NULL, NULL, NULL));
    if (!label || !(type & DM_BC_ESSENTIAL)) continue;
    PetscCall(FEGPlexLabelComplete(dm, label));
    for (PetscInt v = 0; v < nval; v++) {
      IS              is;
      const PetscInt *pts;
      PetscInt        n;

      PetscCall(DMLabelGetStratumIS(label, vals[v], &is));
      if (!is) continue;
      PetscCall(ISGetLocalSize(is, &n));
      PetscCall(ISGetIndices(is, &pts));
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt p = pts[i];
        PetscInt       d;

        if (p < pStart || p >= pEnd || (p >= cStart && p < cEnd)) continue; /* PETSc leaves cells unconstrained too */
        PetscCall(PetscSectionGetDof(s, p, &d));
        if (!d) continue;
        PetscCall(PetscSectionSetConstraintDof(s, p, d));
        PetscCall(PetscSectionSetFieldConstraintDof(s, p, 0, d));
        maxc = PetscMax(maxc, d);
        if (ncon == mcon) {
          mcon = PetscMax(2 * mcon, 1024);
          PetscCall(PetscRealloc(mcon * sizeof(PetscInt), &con));
        }
        con[ncon++] = p;
      }
      PetscCall(ISRestoreIndices(is, &pts));
      PetscCall(ISDestroy(&is));
    }
  }
  PetscCall(FEGSectionSetUpOneField(s, nth));
  PetscCall(PetscMalloc1(maxc, &idx));
  for (PetscInt i = 0; i < maxc; i++) idx[i] = i;
  /* the constrained points only (a point of two conditions is set twice, the same way) */
  for (PetscInt i = 0; i < ncon; i++) {
    PetscCall(PetscSectionSetConstraintIndices(s, con[i], idx));
    PetscCall(PetscSectionSetFieldConstraintIndices(s, con[i], 0, idx));
  }
  PetscCall(PetscFree(idx));
  PetscCall(PetscFree(con));

  /* the interior dofs of an edge or face seen by a cell at orientation o are permuted by the symmetry of that point's
     own dual space, found through the cell-type label */
  PetscCall(DMPlexGetCellTypeLabel(dm, &ctLabel));
  PetscCall(PetscSectionSymCreateLabel(comm, ctLabel, &sym));
  for (PetscInt t = 0; t < DM_NUM_POLYTOPES; t++) {
    PetscDualSpace       psp;
    const PetscInt    ***perms = NULL;
    const PetscScalar ***flips = NULL;
    PetscInt             nf;
    PetscBool            has;

    if (rep[t] < 0 || dof[t] < 2 || !rep[t]) continue; /* rep 0 is the cell itself, seen at orientation 0 only */
    PetscCall(DMLabelHasStratum(ctLabel, t, &has));
    if (!has) continue; /* a process without such points (none of its cells, say) */
    PetscCall(PetscDualSpaceGetPointSubspace(Q, rep[t], &psp));
    if (!psp) continue;
    PetscCall(PetscDualSpaceGetSymmetries(psp, &perms, &flips));
    if (!(perms && perms[0]) && !(flips && flips[0])) continue;
    /* the arrays of a point's own symmetries are indexed by its orientations, -nf to nf - 1 */
    nf = FEGPolytopeTypeGetNumArrangements((DMPolytopeType)t) / 2;
    PetscCall(PetscSectionSymLabelSetStratum(sym, t, dof[t], -nf, nf, PETSC_COPY_VALUES, perms && perms[0] ? &perms[0][-nf] : NULL, flips && flips[0] ? &flips[0][-nf] : NULL));
  }
  PetscCall(PetscSectionSetFieldSym(s, 0, sym));
  PetscCall(PetscSectionSymDestroy(&sym));
  PetscCall(DMSetLocalSection(dm, s));
  PetscCall(PetscSectionDestroy(&s));
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
   point SF, constraints left out, global offsets), on one process without shared points, from the local section's
   arrays: PETSc's calls about ten functions per chart point (80 ms at 545k triangles on the H100's host, 0.25 s at
   998k tetrahedra on the CI VM; share/bench/setup runs 37 and 40). Same dofs, offsets (in the section's permutation
   order), constraints and field layout, and the DM's value layout as DMGetGlobalSection() sets it. Periodic DMs,
   several processes or fields and field-major sections keep PETSc's. Called where no global section is set yet and the local
   one is: not from createlocalsection, which DMGetGlobalSection() may call just before it sets its own. */
static PetscErrorCode FEGDMSetGlobalSectionSerial(DM dm)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);
  PetscSection    s    = dm->localSection, gs;
  PetscSF         sf;
  PetscMPIInt     size;
  PetscInt        nroots, nleaves, Nf, pStart, pEnd, n, off = 0;
  const PetscInt *pind = NULL;
  void (*iso)(void)    = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1 || !s || !s->pointMajor) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectQueryFunction((PetscObject)dm, "DMGetIsoperiodicPointSF_C", &iso)); /* 3.22's periodic meshes */
  if (iso) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, NULL, NULL));
  PetscCall(PetscSectionGetChart(s, &pStart, &pEnd));
  if (nroots >= 0 && (nleaves > 0 || nroots < pEnd)) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc's checks and says */
  PetscCall(PetscSectionGetNumFields(s, &Nf));
  if (Nf > 1) PetscFunctionReturn(PETSC_SUCCESS); /* fegpu's DMs have one field; the tests compare those */
  n = pEnd - pStart;
  PetscCall(PetscSectionCreate(comm, &gs));
  if (Nf > 0) PetscCall(PetscSectionSetNumFields(gs, Nf));
  PetscCall(PetscSectionSetChart(gs, pStart, pEnd));
  gs->includesConstraints = PETSC_FALSE;
  PetscCall(PetscArraycpy(gs->atlasDof, s->atlasDof, n));
  PetscCall(FEGSectionCopyConstraints(s, gs));
  if (s->perm) {
    PetscCall(ISGetIndices(s->perm, &pind));
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt q = pind[i], cdof = s->bc ? s->bc->atlasDof[q] : 0;

      gs->atlasOff[q] = off;
      off += gs->atlasDof[q] > 0 ? gs->atlasDof[q] - cdof : 0;
    }
    PetscCall(ISRestoreIndices(s->perm, &pind));
  } else {
    PetscInt nth, mx;

    PetscCall(FEGSetupThreads(comm, &nth));
    PetscCall(FEGSectionScan(nth, n, gs->atlasDof, s->bc ? s->bc->atlasDof : NULL, gs->atlasOff, &off, &mx));
  }
  gs->maxDof = s->maxDof;
  if (Nf == 1) { /* the one field's dofs and constraints are the point's, and so are its offsets */
    PetscSection gf = gs->field[0];
    PetscInt     nc;

    gf->includesConstraints = PETSC_FALSE;
    PetscCall(PetscSectionGetFieldComponents(s, 0, &nc));
    PetscCall(PetscSectionSetFieldComponents(gs, 0, nc));
    PetscCall(PetscArraycpy(gf->atlasDof, s->field[0]->atlasDof, n));
    PetscCall(PetscArraycpy(gf->atlasOff, gs->atlasOff, n));
    gf->maxDof = s->field[0]->maxDof;
    PetscCall(FEGSectionCopyConstraints(s->field[0], gf));
  }
  gs->setup = PETSC_TRUE;
  PetscCall(DMSetGlobalSection(dm, gs));
  PetscCall(PetscSectionDestroy(&gs));
  /* DMGetGlobalSection()'s PetscSectionGetValueLayout(): the unconstrained dofs */
  PetscCall(PetscLayoutDestroy(&dm->map));
  PetscCall(PetscLayoutCreate(comm, &dm->map));
  PetscCall(PetscLayoutSetLocalSize(dm->map, off));
  PetscCall(PetscLayoutSetBlockSize(dm->map, 1));
  PetscCall(PetscLayoutSetUp(dm->map));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gives a DM with fegpu's sections (FEGDMSetUpSection()) its global section now, built from the local section's arrays
   on one process (what DMGetGlobalSection() would build, several times faster); nothing when it has one, and PETSc's
   later on several processes or periodic meshes */
PetscErrorCode FEGDMSetUpGlobalSection(DM dm)
{
  PetscSection s;

  PetscFunctionBegin;
  if (dm->globalSection || dm->ops->createlocalsection != FEGDMCreateLocalSectionByType) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetLocalSection(dm, &s)); /* made now if it is not yet (DMSetLocalSection() leaves no global section) */
  PetscCall(FEGDMSetGlobalSectionSerial(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the dm->ops->createglobalvector FEGDMSetUpSection() installs: the global section first (most programs' first need
   of it), then PETSc's */
static PetscErrorCode FEGDMCreateGlobalVectorSection(DM dm, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(FEGDMSetUpGlobalSection(dm));
  PetscCall((*FEGPlexCreateGlobalVector)(dm, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a clone builds its section the same way (DMClone_Plex() gives it PETSc's methods) */
static PetscErrorCode FEGDMCloneByType(DM dm, DM *newdm)
{
  PetscFunctionBegin;
  PetscCall((*FEGPlexClone)(dm, newdm));
  (*newdm)->ops->createlocalsection = FEGDMCreateLocalSectionByType;
  (*newdm)->ops->createglobalvector = FEGDMCreateGlobalVectorSection;
  (*newdm)->ops->clone              = FEGDMCloneByType;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMSetUpSection - makes a DMPlex build its local section with each point's dofs and orientation symmetries taken
  from its own cell type, which continuous Lagrange fields on prisms of order 2 and higher need

  Logically Collective

  Input Parameter:
. dm - a DMPlex

  Level: intermediate

  Notes:
  PETSc (3.18 to 3.22) gives all points of one depth the dofs of one of them, so the quadrilateral faces of a prism get
  the triangular faces' count and the space is not conforming. After this call DMGetLocalSection() builds the section
  by cell type when it is next needed (any section the DM holds is dropped), with essential boundary conditions
  constrained as PETSc constrains them, for one scalar PetscFE field; PETSc's own assembly, projection and output then
  work on it. It is also several times faster than PETSc's (0.2 s for 545k triangles, which looks up each point's cell
  type in a label), so FEGSetUpDiscretization() calls it for every mesh. Several fields, vector fields and mixed
  meshes get PETSc's section where that is right, an error where it is not (prisms). DMClone() passes this on.

.seealso: FEGSetUpDiscretization()
@*/
PetscErrorCode FEGDMSetUpSection(DM dm)
{
  PetscBool isplex;
  PetscInt  nth;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isplex, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "FEGDMSetUpSection() needs a DMPlex, not a %s", ((PetscObject)dm)->type_name);
  PetscCall(FEGSetupThreads(PetscObjectComm((PetscObject)dm), &nth)); /* collective the first time: here, not in the section's build */
  if (dm->ops->createlocalsection != FEGDMCreateLocalSectionByType) {
    FEGPlexCreateLocalSection   = dm->ops->createlocalsection;
    FEGPlexClone                = dm->ops->clone;
    FEGPlexCreateGlobalVector   = dm->ops->createglobalvector;
    dm->ops->createlocalsection = FEGDMCreateLocalSectionByType;
    dm->ops->createglobalvector = FEGDMCreateGlobalVectorSection;
    dm->ops->clone              = FEGDMCloneByType;
  }
  PetscCall(DMSetLocalSection(dm, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
