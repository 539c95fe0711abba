/* A local section with each point's dofs by its cell type. PETSc (3.18 to 3.22) gives every point of one depth the
   same number of dofs and the same orientation symmetries, which is right for every cell whose faces are alike but not
   for prisms: their triangular and quadrilateral faces carry (p-1)(p-2)/2 and (p-1)^2 interior dofs. */
#include <fegpu/private/fegspaceimpl.h>
#include <petscds.h>
#include <petscsf.h>

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
static FEGDMSectionOps FEGPlexSectionOps = {NULL, NULL, NULL};

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

/* the createlocalsection FEGDMSetUpSection() installs: DMCreateLocalSection_Plex()'s work with dofs and
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
    PetscCall((*FEGPlexSectionOps.createlocalsection)(dm));
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
      PetscCall((*FEGPlexSectionOps.createlocalsection)(dm));
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
  /* by the cell-type strata, not a label lookup per point (PETSc's section takes one); the point's and the field's
     dofs stored as PetscSectionSetDof() and PetscSectionSetFieldDof() store them */
  for (PetscInt t = 0; t < DM_NUM_POLYTOPES; t++) {
    IS              is;
    const PetscInt *pts;
    PetscInt        n, *adof, *fdof, bad = -1;
    const PetscInt  d = dof[t];

    if (d <= 0) continue;
    PetscCall(DMLabelGetStratumIS(ctLabel, t, &is));
    if (!is) continue;
    PetscCall(ISGetLocalSize(is, &n));
    PetscCall(ISGetIndices(is, &pts));
    PetscCall(FEGSectionGetDofArrays(s, &adof, &fdof));
    adof -= pStart;
    fdof -= pStart;
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

/* gives a DM with fegpu's sections (FEGDMSetUpSection()) its global section now, built from the local section's arrays
   (what DMGetGlobalSection() would build, several times faster, on one process or several); nothing when it has one,
   and PETSc's later on periodic meshes. Collective. */
PetscErrorCode FEGDMSetUpGlobalSection(DM dm)
{
  PetscSection    s;
  FEGDMSectionOps ops;
  PetscBool       has;

  PetscFunctionBegin;
  PetscCall(FEGDMHasGlobalSection(dm, &has));
  PetscCall(FEGDMGetSectionOps(dm, &ops));
  if (has || ops.createlocalsection != FEGDMCreateLocalSectionByType) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetLocalSection(dm, &s)); /* made now if it is not yet (DMSetLocalSection() leaves no global section) */
  PetscCall(FEGDMSetGlobalSectionFromLocal(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDMCreateGlobalVectorSection(DM, Vec *);
static PetscErrorCode FEGDMCloneByType(DM, DM *);

/* the methods FEGDMSetUpSection() installs on a DM */
static const FEGDMSectionOps FEGSectionByTypeOps = {FEGDMCreateLocalSectionByType, FEGDMCreateGlobalVectorSection, FEGDMCloneByType};

/* the createglobalvector FEGDMSetUpSection() installs: the global section first (most programs' first need
   of it), then PETSc's vector, made as FEGPlexCreateGlobalVector() says */
static PetscErrorCode FEGDMCreateGlobalVectorSection(DM dm, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(FEGDMSetUpGlobalSection(dm));
  PetscCall(FEGPlexCreateGlobalVector(dm, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a clone builds its section the same way (DMClone_Plex() gives it PETSc's methods) */
static PetscErrorCode FEGDMCloneByType(DM dm, DM *newdm)
{
  PetscFunctionBegin;
  PetscCall((*FEGPlexSectionOps.clone)(dm, newdm));
  PetscCall(FEGDMSetSectionOps(*newdm, &FEGSectionByTypeOps));
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
  work on it. Several fields, vector fields and mixed meshes get PETSc's section where that is right, an error where it
  is not (prisms). DMClone() passes this on.

  It is also faster than PETSc's DMCreateLocalSection(), which looks up each point's cell type in a label: 1.3-3.4x
  for a P2 field on one process at about 1M cells with PETSc 3.22 (26-48x with PETSc 3.18), and the global section
  (FEGDMSetUpGlobalSection(), built from the local one's arrays) 4-6x faster than DMGetGlobalSection()'s
  (share/bench/bench_plex; the factors are in share/doc/performance.md). On several processes the global section is
  fegpu's too, with the owners' offsets sent to the shared points in one message. DMCreateGlobalVector() gives PETSc's
  vector, its block size found on the setup threads, and with CUDA vectors on several processes without the pinned
  host copy PETSc 3.22 allocates and zeroes at once (the host copy is made when first asked for). So
  FEGSetUpDiscretization() calls it for every mesh. test_space's test_section_same checks both sections against
  PETSc's, point by point, test_distmesh's test_global_section the global section of distributed meshes and
  test_global_vector the vector.

.seealso: FEGSetUpDiscretization()
@*/
PetscErrorCode FEGDMSetUpSection(DM dm)
{
  PetscBool       isplex;
  PetscInt        nth;
  FEGDMSectionOps ops;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isplex, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "FEGDMSetUpSection() needs a DMPlex, not a %s", ((PetscObject)dm)->type_name);
  PetscCall(FEGSetupThreads(PetscObjectComm((PetscObject)dm), &nth)); /* collective the first time: here, not in the section's build */
  PetscCall(FEGDMGetSectionOps(dm, &ops));
  if (ops.createlocalsection != FEGDMCreateLocalSectionByType) {
    FEGPlexSectionOps = ops;
    PetscCall(FEGDMSetSectionOps(dm, &FEGSectionByTypeOps));
  }
  PetscCall(DMSetLocalSection(dm, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGDMAddBoundary - DMAddBoundary() with fegpu's label completion: adds a boundary condition to the DM's PetscDS, after
  completing its label with the closure of its points

  Collective

  Input Parameters:
+ dm       - the DM
. type     - the type of condition, as for DMAddBoundary()
. name     - the condition's name
. label    - the label of the boundary points, completed in place
. Nv       - the number of label values
. values   - the label values of the boundary
. field    - the field the condition constrains
. Nc       - the number of constrained components (0 for all)
. comps    - the constrained components, or NULL
. bcFunc   - the boundary values' function
. bcFunc_t - its time derivative, or NULL
- ctx      - the functions' context

  Output Parameter:
. bd - the condition's number in the PetscDS, or NULL

  Level: intermediate

  Notes:
  The same arguments and the same result as DMAddBoundary(), which completes the label of a PetscFE field with
  PETSc's DMPlexLabelComplete() each time: a walk over every labelled point's closure and, on several processes, a
  gather and redistribution of the label over the point SF, whatever the label. This one uses FEGPlexLabelComplete(),
  which checks the label and completes it only where something lacks; the labels of fegpu's meshes are complete
  already. The difference grows with the mesh and the processes (share/doc/performance.md); test_distmesh's
  test_add_boundary checks that both give the same label, section and condition.

.seealso: FEGSetUpDiscretization(), FEGPlexLabelComplete()
@*/
PetscErrorCode FEGDMAddBoundary(DM dm, DMBoundaryConditionType type, const char name[], DMLabel label, PetscInt Nv, const PetscInt values[], PetscInt field, PetscInt Nc, const PetscInt comps[], void (*bcFunc)(void), void (*bcFunc_t)(void), void *ctx, PetscInt *bd)
{
  PetscDS ds;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  if (label) PetscValidHeaderSpecific(label, DMLABEL_CLASSID, 4);
  PetscCall(DMGetDS(dm, &ds));
  if (label) {
    PetscObject  obj;
    PetscClassId id;

    PetscCall(DMGetField(dm, field, NULL, &obj));
    PetscCall(PetscObjectGetClassId(obj, &id));
    if (id == PETSCFE_CLASSID) {
      DM plex;

      PetscCall(DMConvert(dm, DMPLEX, &plex));
      if (plex) PetscCall(FEGPlexLabelComplete(plex, label));
      PetscCall(DMDestroy(&plex));
    }
  }
  PetscCall(PetscDSAddBoundary(ds, type, name, label, Nv, values, field, Nc, comps, bcFunc, bcFunc_t, ctx, bd));
  PetscFunctionReturn(PETSC_SUCCESS);
}
