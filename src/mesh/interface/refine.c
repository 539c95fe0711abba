/* Uniform (regular) refinement of a mesh, written directly: the refined cells come from a table per cell type (cell.c)
   applied to each coarse cell's closure, the interpolated DMPlex from FEGPlexCreateFromCellList(), and every label's
   points from their parents; on several processes each refines its part and the point SF follows from the coarse one
   (FEGRefinePointSF()), with no step larger than the process's part. Faster than PETSc's DMRefine() (DMPlexTransform's
   regular refinement) on one process, with threads or on one (share/bench/bench_plex; the factors are in
   share/doc/performance.md). test_space's test_refine checks it against DMRefine(): the same vertices, cells, faces,
   edges and labels, points numbered differently. */
#include <fegpu/private/fegmeshimpl.h>
#include <petscdmplextransform.h>
#include <petscsf.h>
#include <petscbt.h>

/* the closure of a cell has at most 27 points (hexahedron) */
#define FEG_REFINE_MAXCL 32

/* Why fegpu cannot refine dm itself (why[0] = 0 if it can; collective, the same answer on every process: a process whose
   own part passes says so when another's does not); info: the cell type's table entry. On several processes the parts
   must be linked by a point SF (DMPlexDistribute()'s, a box built in blocks) or not at all; a process may have no
   cells. */
static PetscErrorCode FEGMeshRefineCheck(DM dm, const FEGCellInfo **info, char why[], size_t len)
{
  MPI_Comm            comm = PetscObjectComm((PetscObject)dm);
  PetscBool           isplex, uniform, localized, has;
  PetscMPIInt         size;
  PetscInt            dim, cdim, depth, cStart = 0, cEnd = 0, vStart, vEnd, n, nroots;
  int                 ct = -1, gct, fail;
  DMLabel             ctl;
  const PetscReal    *L = NULL;
  PetscSection        cs;
  PetscSF             sf;
  Vec                 X;
  const char         *prefix;
  DMPlexTransformType trType;

  PetscFunctionBegin;
  why[0] = 0;
  *info  = NULL;
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  if (!isplex) {
    PetscCall(PetscSNPrintf(why, len, "it is not a DMPLEX"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMPlexGetRefinementUniform(dm, &uniform));
  PetscCall(DMPlexGetTransformType(dm, &trType));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)dm, &prefix));
  PetscCall(PetscOptionsHasName(((PetscObject)dm)->options, prefix, "-dm_plex_transform_type", &has));
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(DMGetCoordinatesLocalized(dm, &localized));
  PetscCall(DMGetPeriodicity(dm, NULL, NULL, &L));
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, NULL, NULL, NULL));
  PetscCall(DMPlexGetChart(dm, &n, NULL));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  if (!uniform) PetscCall(PetscSNPrintf(why, len, "the refinement is not uniform"));
  else if ((trType && strcmp(trType, DMPLEXREFINEREGULAR)) || has) PetscCall(PetscSNPrintf(why, len, "a transform type other than the regular refinement may be chosen"));
  else if ((dim != 2 && dim != 3) || depth != dim) PetscCall(PetscSNPrintf(why, len, "the mesh is not an interpolated mesh of dimension 2 or 3"));
  else if (cdim != dim) PetscCall(PetscSNPrintf(why, len, "its coordinates have %d components in dimension %d", (int)cdim, (int)dim));
  else if (localized || L) PetscCall(PetscSNPrintf(why, len, "it is periodic"));
  else if (!X) PetscCall(PetscSNPrintf(why, len, "it has no coordinates"));
  else if (n != 0) PetscCall(PetscSNPrintf(why, len, "its chart starts at %d, not 0", (int)n));
  else if (nroots >= 0 && size > 1) {
    PetscInt pEnd;

    PetscCall(DMPlexGetChart(dm, NULL, &pEnd));
    if (nroots != pEnd) PetscCall(PetscSNPrintf(why, len, "its point SF has %d roots for %d points", (int)nroots, (int)pEnd));
  }
  /* one of fegpu's cell types, the same on every process (those without cells take the others') */
  if (!why[0] && cEnd > cStart) {
    DMPolytopeType cct;

    PetscCall(DMPlexGetCellType(dm, cStart, &cct));
    ct = (int)cct;
  }
  PetscCallMPI(MPI_Allreduce(&ct, &gct, 1, MPI_INT, MPI_MAX, comm));
  if (!why[0] && gct < 0) PetscCall(PetscSNPrintf(why, len, "it has no cells"));
  if (!why[0]) {
    for (PetscInt i = 0; i < FEGNumCellInfos; i++)
      if ((int)FEGCellInfos[i].ct == gct) *info = &FEGCellInfos[i];
    PetscCall(DMPlexGetCellTypeLabel(dm, &ctl));
    PetscCall(DMLabelGetStratumSize(ctl, (DMPolytopeType)gct, &n));
    if (!*info) PetscCall(PetscSNPrintf(why, len, "its cells are %s, not one of fegpu's types", DMPolytopeTypes[gct]));
    else if (n != cEnd - cStart) PetscCall(PetscSNPrintf(why, len, "its cells are not all %s", DMPolytopeTypes[gct]));
  }
  /* straight cells: coordinates on the vertices only */
  if (!why[0]) {
    FEGSectionLayout l;

    PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
    PetscCall(DMGetCoordinateSection(dm, &cs));
    PetscCall(FEGSectionGetLayout(cs, &l));
    for (PetscInt p = l.pStart; p < l.pEnd; p++) {
      const PetscInt d = l.dof[p - l.pStart];

      if ((p >= vStart && p < vEnd && d != cdim) || ((p < vStart || p >= vEnd) && d)) {
        PetscCall(PetscSNPrintf(why, len, "its coordinates are not one point per vertex (point %d has %d)", (int)p, (int)d));
        break;
      }
    }
    if (!why[0] && vEnd > vStart && (l.pStart > vStart || l.pEnd < vEnd)) PetscCall(PetscSNPrintf(why, len, "some vertices have no coordinates"));
  }
  fail = why[0] ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, comm));
  if (fail && !why[0]) PetscCall(PetscSNPrintf(why, len, "another process's part of it cannot be"));
  if (why[0]) *info = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the distinct vertices below point p (at most 8), through the raw cone arrays; thread-safe */
static inline PetscInt FEGVerticesBelow(const FEGSectionLayout *cl, const PetscInt *cones, PetscInt vStart, PetscInt vEnd, PetscInt p, PetscInt vert[])
{
  PetscInt q[128], nq = 1, nv = 0; /* a hexahedron reaches 1 + 6 + 24 + 48 points */

  q[0] = p;
  for (PetscInt i = 0; i < nq; i++) {
    const PetscInt r = q[i];

    if (r >= vStart && r < vEnd) {
      PetscInt k = 0;

      while (k < nv && vert[k] != r) k++;
      if (k == nv) {
        if (nv == 8) return -1;
        vert[nv++] = r;
      }
      continue;
    }
    for (PetscInt k = 0, o = cl->off[r - cl->pStart], s = cl->dof[r - cl->pStart]; k < s; k++) {
      if (nq == 128) return -1;
      q[nq++] = cones[o + k];
    }
  }
  return nv;
}

/* The mask of closure point i of a cell: its vertices among the cell's (bit j: the cell's j-th vertex in closure order) */
static inline PetscBool FEGClosureMasks(const FEGSectionLayout *cl, const PetscInt *cones, PetscInt vStart, PetscInt vEnd, PetscInt ncl, const PetscInt pts[], unsigned char mask[])
{
  PetscInt lv[8], nlv = 0;

  for (PetscInt i = 0; i < ncl; i++)
    if (pts[i] >= vStart && pts[i] < vEnd) {
      if (nlv == 8) return PETSC_FALSE;
      lv[nlv++] = pts[i];
    }
  for (PetscInt i = 0; i < ncl; i++) {
    PetscInt vert[8], n = FEGVerticesBelow(cl, cones, vStart, vEnd, pts[i], vert);

    if (n < 0) return PETSC_FALSE;
    mask[i] = 0;
    for (PetscInt k = 0; k < n; k++) {
      PetscInt j = 0;

      while (j < nlv && lv[j] != vert[k]) j++;
      if (j == nlv) return PETSC_FALSE;
      mask[i] |= (unsigned char)(1u << j);
    }
  }
  return PETSC_TRUE;
}

static inline PetscInt FEGMaskFind(PetscInt ncl, const unsigned char mask[], unsigned char m)
{
  for (PetscInt i = 0; i < ncl; i++)
    if (mask[i] == m) return i;
  return -1;
}

/* Every label of dm but the depth and cell types, on rdm: a fine point has the values of the coarse point it came from
   (par[q]), as PETSc's refinement gives them */
static PetscErrorCode FEGRefineLabels(DM dm, DM rdm, PetscInt pEnd, PetscInt qEnd, const PetscInt par[])
{
  PetscInt       nl, *off, *kids, *fill;
  unsigned char *mark;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(pEnd + 1, &off, pEnd, &fill));
  PetscCall(PetscMalloc1(qEnd, &kids));
  PetscCall(PetscCalloc1(qEnd, &mark));
  for (PetscInt q = 0; q < qEnd; q++) off[par[q] + 1]++;
  for (PetscInt p = 0; p < pEnd; p++) off[p + 1] += off[p];
  for (PetscInt q = 0; q < qEnd; q++) kids[off[par[q]] + fill[par[q]]++] = q;
  PetscCall(DMGetNumLabels(dm, &nl));
  for (PetscInt l = 0; l < nl; l++) {
    const char     *name;
    DMLabel         label, rlabel;
    IS              vis;
    const PetscInt *vals;
    PetscInt        nv, def;
    PetscBool       skip;

    PetscCall(DMGetLabelName(dm, l, &name));
    PetscCall(PetscStrcmp(name, "depth", &skip));
    if (!skip) PetscCall(PetscStrcmp(name, "celltype", &skip));
    if (skip) continue;
    PetscCall(DMGetLabelByNum(dm, l, &label));
    PetscCall(DMCreateLabel(rdm, name));
    PetscCall(DMGetLabel(rdm, name, &rlabel));
    PetscCall(DMLabelGetDefaultValue(label, &def));
    PetscCall(DMLabelSetDefaultValue(rlabel, def));
    PetscCall(DMLabelGetValueIS(label, &vis));
    PetscCall(ISGetLocalSize(vis, &nv));
    PetscCall(ISGetIndices(vis, &vals));
    for (PetscInt v = 0; v < nv; v++) {
      IS              pis, ris;
      const PetscInt *pts;
      PetscInt        np, nk = 0, *fine;

      PetscCall(DMLabelGetStratumIS(label, vals[v], &pis));
      if (!pis) continue;
      PetscCall(ISGetLocalSize(pis, &np));
      PetscCall(ISGetIndices(pis, &pts));
      for (PetscInt i = 0; i < np; i++)
        if (pts[i] >= 0 && pts[i] < pEnd) nk += off[pts[i] + 1] - off[pts[i]];
      PetscCall(PetscMalloc1(nk, &fine));
      nk = 0;
      for (PetscInt i = 0; i < np; i++)
        if (pts[i] >= 0 && pts[i] < pEnd)
          for (PetscInt k = off[pts[i]]; k < off[pts[i] + 1]; k++) fine[nk++] = kids[k];
      PetscCall(ISRestoreIndices(pis, &pts));
      PetscCall(ISDestroy(&pis));
      if (8 * nk > qEnd) { /* a large stratum (all cells, say): in order by a pass over the fine points, not a sort */
        for (PetscInt k = 0; k < nk; k++) mark[fine[k]] = 1;
        nk = 0;
        for (PetscInt q = 0; q < qEnd; q++)
          if (mark[q]) {
            mark[q]    = 0;
            fine[nk++] = q;
          }
      } else PetscCall(PetscSortInt(nk, fine));
      PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nk, fine, PETSC_OWN_POINTER, &ris));
      PetscCall(ISSetInfo(ris, IS_SORTED, IS_LOCAL, PETSC_TRUE, PETSC_TRUE));
      PetscCall(DMLabelSetStratumIS(rlabel, vals[v], ris));
      PetscCall(ISDestroy(&ris));
    }
    PetscCall(ISRestoreIndices(vis, &vals));
    PetscCall(ISDestroy(&vis));
  }
  PetscCall(PetscFree2(off, fill));
  PetscCall(PetscFree(kids));
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What DMRefine_Plex() sets on the refined mesh besides its points and labels */
static PetscErrorCode FEGMeshRefineCopy(DM dm, DM rdm)
{
  DM          cdm, rcdm;
  MatType     mt;
  VecType     vt;
  PetscBool   dist;
  const char *name, *prefix;

  PetscFunctionBegin;
  PetscCall(DMGetMatType(dm, &mt));
  PetscCall(DMSetMatType(rdm, mt));
  PetscCall(DMGetVecType(dm, &vt));
  PetscCall(DMSetVecType(rdm, vt));
  PetscCall(DMCopyDisc(dm, rdm));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetCoordinateDM(rdm, &rcdm));
  PetscCall(DMCopyDisc(cdm, rcdm));
  PetscCall(DMPlexDistributeGetDefault(dm, &dist));
  PetscCall(DMPlexDistributeSetDefault(rdm, dist));
  PetscCall(PetscObjectGetName((PetscObject)dm, &name));
  PetscCall(PetscObjectSetName((PetscObject)rdm, name));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)dm, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)rdm, prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the n (at most 8) vertices v in lexicographic order of their coordinates: a new vertex is their average taken in this
   order, so it is the same to the bit whatever the numbering (one process or several, each side of a shared point) */
static inline void FEGSortByCoordinates(PetscInt n, PetscInt v[], const PetscScalar x[], const FEGSectionLayout *xl, PetscInt dim)
{
  for (PetscInt i = 1; i < n; i++) {
    const PetscInt w = v[i];
    PetscInt       j = i - 1;

    for (; j >= 0; j--) {
      const PetscScalar *a = x + xl->off[v[j] - xl->pStart], *b = x + xl->off[w - xl->pStart];
      PetscInt           d = 0;

      while (d < dim && PetscRealPart(a[d]) == PetscRealPart(b[d])) d++;
      if (d == dim || PetscRealPart(a[d]) < PetscRealPart(b[d])) break;
      v[j + 1] = v[j];
    }
    v[j + 1] = w;
  }
}

/* a refined point inside a shared coarse point p, named by the coarse global numbers of its vertices' parents */
typedef struct {
  PetscInt p, n, g[4], q; /* coarse parent, vertices (1 to 4), their parents' numbers sorted (-1 padded), fine point */
} FEGRefineChild;

static int FEGRefineChildCompare(const void *a, const void *b)
{
  const FEGRefineChild *x = (const FEGRefineChild *)a, *y = (const FEGRefineChild *)b;

  if (x->p != y->p) return x->p < y->p ? -1 : 1;
  if (x->n != y->n) return x->n < y->n ? -1 : 1;
  for (PetscInt k = 0; k < 4; k++)
    if (x->g[k] != y->g[k]) return x->g[k] < y->g[k] ? -1 : 1;
  return 0;
}

/* The refined mesh's point SF from the coarse one's (collective). A refined point is shared when the coarse point it
   comes from (par) is, and owned by that point's owner, which refines it alike: the same children, told apart by their
   vertices' parents (PETSc's global point numbers, DMPlexCreatePointNumbering()), so both sides list each shared
   point's children in the same order. The owners' lists of
   refined points reach the leaves through one PetscSF over them; then the shared cones are turned to their owners'
   order, as each process interpolated its part alone. The arrays are of this process's points: nothing has the global
   mesh's size. */
static PetscErrorCode FEGRefinePointSF(DM dm, DM rdm, const PetscInt par[], const PetscInt vpar[])
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  PetscSF            csf, ssf;
  PetscInt           pEnd, nleaves, qvStart, qvEnd, qEnd, nc = 0, nslots = 0, nlc = 0, *lof, *rinfo, *linfo, *slotq, *lq, *lrank, *perm, *ilocal;
  const PetscInt    *cil, *degree, *rcones, *gnum;
  const PetscSFNode *cir;
  PetscSFNode       *sremote, *iremote;
  FEGRefineChild    *ch;
  FEGSectionLayout   rcl;
  PetscSection       cs;
  IS                 gis;

  PetscFunctionBegin;
  PetscCall(DMPlexGetChart(dm, NULL, &pEnd));
  PetscCall(DMPlexCreatePointNumbering(dm, &gis)); /* -(g+1) where another process owns the point */
  PetscCall(ISGetIndices(gis, &gnum));
  PetscCall(DMGetPointSF(dm, &csf));
  PetscCall(PetscSFGetGraph(csf, NULL, &nleaves, &cil, &cir));
  PetscCall(PetscSFComputeDegreeBegin(csf, &degree));
  PetscCall(PetscSFComputeDegreeEnd(csf, &degree));
  PetscCall(PetscMalloc1(pEnd + 1, &lof));
  for (PetscInt p = 0; p < pEnd; p++) lof[p] = -1;
  for (PetscInt l = 0; l < nleaves; l++) lof[cil ? cil[l] : l] = l;
  PetscCall(DMPlexGetDepthStratum(rdm, 0, &qvStart, &qvEnd));
  PetscCall(DMPlexGetChart(rdm, NULL, &qEnd));
  PetscCall(DMPlexGetConeSection(rdm, &cs));
  PetscCall(FEGSectionGetLayout(cs, &rcl));
  PetscCall(DMPlexGetCones(rdm, (PetscInt **)&rcones));
  /* the children of shared coarse points, each named by its vertices' parents, grouped by parent in a common order */
  for (PetscInt q = 0; q < qEnd; q++)
    if (lof[par[q]] >= 0 || degree[par[q]] > 0) nc++;
  PetscCall(PetscMalloc1(nc + 1, &ch));
  nc = 0;
  for (PetscInt q = 0; q < qEnd; q++) {
    const PetscInt p = par[q];
    PetscInt       vert[8], n;

    if (lof[p] < 0 && !degree[p]) continue;
    n = FEGVerticesBelow(&rcl, rcones, qvStart, qvEnd, q, vert);
    PetscCheck(n >= 1 && n <= 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Refined point %" PetscInt_FMT " of shared coarse point %" PetscInt_FMT " has %" PetscInt_FMT " vertices", q, p, n);
    ch[nc].p = p;
    ch[nc].n = n;
    ch[nc].q = q;
    for (PetscInt k = 0; k < 4; k++) {
      const PetscInt g = k < n ? gnum[vpar[vert[k] - qvStart]] : -1;

      ch[nc].g[k] = k < n ? (g < 0 ? -(g + 1) : g) : -1;
    }
    PetscCall(PetscSortInt(n, ch[nc].g));
    nc++;
  }
  PetscCall(ISRestoreIndices(gis, &gnum));
  PetscCall(ISDestroy(&gis));
  qsort(ch, (size_t)nc, sizeof(*ch), FEGRefineChildCompare);
  /* the owned shared points' children are the roots (slots), their (first slot, count) sent to the leaves */
  PetscCall(PetscMalloc2(2 * pEnd + 1, &rinfo, 2 * pEnd + 1, &linfo));
  for (PetscInt p = 0; p < 2 * pEnd; p++) rinfo[p] = linfo[p] = -1;
  PetscCall(PetscMalloc1(nc + 1, &slotq));
  for (PetscInt i = 0, j; i < nc; i = j) {
    for (j = i; j < nc && ch[j].p == ch[i].p; j++) {
      if (j > i) PetscCheck(FEGRefineChildCompare(&ch[j - 1], &ch[j]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Refined points %" PetscInt_FMT " and %" PetscInt_FMT " of coarse point %" PetscInt_FMT " have the same vertices", ch[j - 1].q, ch[j].q, ch[i].p);
    }
    if (lof[ch[i].p] >= 0) {
      nlc += j - i;
      continue;
    }
    rinfo[2 * ch[i].p]     = nslots;
    rinfo[2 * ch[i].p + 1] = j - i;
    for (PetscInt k = i; k < j; k++) slotq[nslots++] = ch[k].q;
  }
  PetscCall(PetscSFBcastBegin(csf, MPIU_2INT, rinfo, linfo, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(csf, MPIU_2INT, rinfo, linfo, MPI_REPLACE));
  /* each leaf child: the slot of the same child at the owner */
  PetscCall(PetscMalloc1(nlc + 1, &sremote));
  PetscCall(PetscMalloc3(nlc + 1, &lq, nlc + 1, &lrank, nlc + 1, &perm));
  nlc = 0;
  for (PetscInt i = 0, j; i < nc; i = j) {
    const PetscInt p = ch[i].p, l = lof[p];

    for (j = i; j < nc && ch[j].p == p; j++) continue;
    if (l < 0) continue;
    PetscCheck(linfo[2 * p + 1] == j - i, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Coarse point %" PetscInt_FMT " has %" PetscInt_FMT " refined points here and %" PetscInt_FMT " on its owner, process %" PetscInt_FMT, p, j - i, linfo[2 * p + 1], cir[l].rank);
    for (PetscInt k = i; k < j; k++) {
      sremote[nlc].rank  = cir[l].rank;
      sremote[nlc].index = linfo[2 * p] + k - i;
      lq[nlc]            = ch[k].q;
      lrank[nlc]         = cir[l].rank;
      nlc++;
    }
  }
  PetscCall(PetscFree2(rinfo, linfo));
  PetscCall(PetscFree(ch));
  PetscCall(PetscFree(lof));
  PetscCall(PetscSFCreate(comm, &ssf));
  PetscCall(PetscSFSetGraph(ssf, nslots, nlc, NULL, PETSC_OWN_POINTER, sremote, PETSC_OWN_POINTER));
  {
    PetscInt *rq;

    PetscCall(PetscMalloc1(nlc + 1, &rq));
    PetscCall(PetscSFBcastBegin(ssf, MPIU_INT, slotq, rq, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(ssf, MPIU_INT, slotq, rq, MPI_REPLACE));
    PetscCall(PetscSFDestroy(&ssf));
    /* the refined SF's leaves sorted by point, as the coarse one's */
    for (PetscInt i = 0; i < nlc; i++) perm[i] = i;
    PetscCall(PetscSortIntWithPermutation(nlc, lq, perm));
    PetscCall(PetscMalloc1(nlc + 1, &ilocal));
    PetscCall(PetscMalloc1(nlc + 1, &iremote));
    for (PetscInt i = 0; i < nlc; i++) {
      ilocal[i]        = lq[perm[i]];
      iremote[i].rank  = lrank[perm[i]];
      iremote[i].index = rq[perm[i]];
    }
    PetscCall(PetscFree(rq));
  }
  PetscCall(PetscFree(slotq));
  PetscCall(PetscFree3(lq, lrank, perm));
  PetscCall(PetscInfo(rdm, "Refined point SF: %" PetscInt_FMT " shared points owned here, %" PetscInt_FMT " owned elsewhere\n", nslots, nlc));
  PetscCall(FEGPlexSetPartsSF(rdm, nlc, ilocal, iremote));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGMeshRefine_Private(DM dm, const FEGCellInfo *info, DM *rdm)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  const PetscInt     dim = info->dim, nch = info->refineChildren, nvc = info->nverts;
  PetscInt           cStart, cEnd, vStart, vEnd, pEnd, nc, nvf = 0, ncl = 0, nthreads, bad = -1, *newv, *vpar, *pts, *cells, *par, nroots;
  PetscInt           qcStart, qcEnd, qvStart, qvEnd, qEnd;
  unsigned char     *mask;
  PetscReal         *fx;
  const PetscScalar *x;
  const PetscInt    *cones, *rcones;
  FEGSectionLayout   cl, xl, rcl;
  PetscSection       sec, cs;
  Vec                X;
  int                nth;
  PetscMPIInt        size;
  PetscSF            sf;
  PetscBool          dist;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_PlexRefine, dm, 0, 0, 0));
  PetscCall(FEGSetupThreads(comm, &nthreads));
  /* parts linked by a point SF: the refined mesh gets one from the coarse one (FEGRefinePointSF()) */
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, &nroots, NULL, NULL, NULL));
  dist = (PetscBool)(size > 1 && nroots >= 0);
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetChart(dm, NULL, &pEnd));
  nc  = cEnd - cStart;
  nth = FEGLoopThreads((PetscInt64)nc * nch, nthreads);
  PetscCall(DMPlexGetConeSection(dm, &cs));
  PetscCall(FEGSectionGetLayout(cs, &cl));
  PetscCall(DMPlexGetCones(dm, (PetscInt **)&cones));
  /* a vertex of the refined mesh for every vertex, edge, quadrilateral and hexahedron: vertices first, then the new
     ones by parent */
  PetscCall(PetscMalloc2(pEnd, &newv, pEnd, &vpar));
  for (PetscInt p = 0; p < pEnd; p++) newv[p] = -1;
  {
    PetscInt eStart, eEnd, fStart, fEnd;

    /* by depth and cone size, not per-point cell-type lookups: edges, quadrilateral faces (3D), and the cells if they
       are quadrilaterals or hexahedra */
    PetscCall(DMPlexGetDepthStratum(dm, 1, &eStart, &eEnd));
    for (PetscInt e = eStart; e < eEnd; e++) newv[e] = 0;
    if (dim == 3) {
      PetscCall(DMPlexGetDepthStratum(dm, 2, &fStart, &fEnd));
      for (PetscInt f = fStart; f < fEnd; f++)
        if (cl.dof[f - cl.pStart] == 4) newv[f] = 0;
    }
    if (info->ct == DM_POLYTOPE_QUADRILATERAL || info->ct == DM_POLYTOPE_HEXAHEDRON)
      for (PetscInt c = cStart; c < cEnd; c++) newv[c] = 0;
  }
  for (PetscInt v = vStart; v < vEnd; v++) {
    newv[v]     = nvf;
    vpar[nvf++] = v;
  }
  for (PetscInt p = 0; p < pEnd; p++)
    if (!(p >= vStart && p < vEnd) && newv[p] == 0) {
      newv[p]     = nvf;
      vpar[nvf++] = p;
    }
  /* coordinates: the vertices', and the averages of the vertices of the new ones' parents */
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(DMGetCoordinateSection(dm, &sec));
  PetscCall(FEGSectionGetLayout(sec, &xl));
  PetscCall(PetscMalloc1(nvf * dim, &fx));
  PetscCall(VecGetArrayRead(X, &x));
#pragma omp parallel for num_threads(nth) schedule(static) reduction(max : bad)
  for (PetscInt w = 0; w < nvf; w++) {
    PetscInt vert[8], n = FEGVerticesBelow(&cl, cones, vStart, vEnd, vpar[w], vert);

    if (n <= 0) {
      bad = PetscMax(bad, vpar[w]);
      continue;
    }
    FEGSortByCoordinates(n, vert, x, &xl, dim);
    for (PetscInt d = 0; d < dim; d++) {
      PetscReal s = 0;

      for (PetscInt k = 0; k < n; k++) s += PetscRealPart(x[xl.off[vert[k] - xl.pStart] + d]);
      fx[w * dim + d] = s / n;
    }
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCheck(bad < 0, comm, PETSC_ERR_PLIB, "Point %" PetscInt_FMT ": more than 8 vertices below it or none", bad);
  /* every cell's closure in PETSc's order (a section of one index per point gives the points themselves), and each
     closure point's vertices as a mask over the cell's vertices */
  if (nc) {
    PetscInt *cl0 = NULL, n0 = 0;

    PetscCall(DMPlexGetTransitiveClosure(dm, cStart, PETSC_TRUE, &n0, &cl0));
    ncl = n0;
    PetscCall(DMPlexRestoreTransitiveClosure(dm, cStart, PETSC_TRUE, &n0, &cl0));
  }
  PetscCheck(ncl <= FEG_REFINE_MAXCL, comm, PETSC_ERR_PLIB, "A cell's closure has %" PetscInt_FMT " points", ncl);
  PetscCall(PetscSectionCreate(PETSC_COMM_SELF, &sec));
  PetscCall(PetscSectionSetChart(sec, 0, pEnd));
  for (PetscInt p = 0; p < pEnd; p++) PetscCall(PetscSectionSetDof(sec, p, 1));
  PetscCall(PetscSectionSetUp(sec));
  PetscCall(PetscMalloc3(nc * ncl, &pts, nc * ncl, &mask, nc * nch * nvc, &cells));
  if (nc) {
    FEGClosureTarget t = {dm, sec, ncl, pts, NULL, NULL};

    PetscCall(FEGPlexGetClosureBulk(dm, cStart, cEnd, 1, &t, nthreads, NULL));
  }
  PetscCall(PetscSectionDestroy(&sec));
#pragma omp parallel for num_threads(nth) schedule(static) reduction(max : bad)
  for (PetscInt c = 0; c < nc; c++) {
    const PetscInt *cp = pts + c * ncl;
    unsigned char  *cm = mask + c * ncl;

    if (!FEGClosureMasks(&cl, cones, vStart, vEnd, ncl, cp, cm)) {
      bad = PetscMax(bad, cStart + c);
      continue;
    }
    for (PetscInt j = 0; j < nch; j++)
      for (PetscInt i = 0; i < nvc; i++) {
        const PetscInt k = FEGMaskFind(ncl, cm, info->refine[j][i]);

        if (k < 0 || newv[cp[k]] < 0) {
          bad                            = PetscMax(bad, cStart + c);
          cells[(c * nch + j) * nvc + i] = 0;
        } else cells[(c * nch + j) * nvc + i] = newv[cp[k]];
      }
  }
  PetscCheck(bad < 0, comm, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT ": its closure does not have the points of a %s's refinement", bad, DMPolytopeTypes[info->ct]);
  PetscCall(PetscLogEventEnd(FEG_PlexRefine, dm, 0, 0, 0));
  PetscCall(FEGPlexCreateFromCellList(comm, info, nc * nch, nvf, cells, fx, NULL, rdm));
  PetscCall(PetscLogEventBegin(FEG_PlexRefine, dm, 0, 0, 0));
  PetscCall(PetscFree(fx));
  /* the coarse point each fine point comes from: cells and vertices by construction; faces and edges are the coarse
     closure point of a cell that has them whose vertices are the union of theirs */
  PetscCall(DMPlexGetHeightStratum(*rdm, 0, &qcStart, &qcEnd));
  PetscCall(DMPlexGetDepthStratum(*rdm, 0, &qvStart, &qvEnd));
  PetscCall(DMPlexGetChart(*rdm, NULL, &qEnd));
  PetscCheck(qcStart == 0 && qcEnd == nc * nch && qvStart == qcEnd && qvEnd == qvStart + nvf, comm, PETSC_ERR_PLIB, "Unexpected layout of the refined mesh");
  PetscCall(DMPlexGetConeSection(*rdm, &cs));
  PetscCall(FEGSectionGetLayout(cs, &rcl));
  PetscCall(DMPlexGetCones(*rdm, (PetscInt **)&rcones));
  PetscCall(PetscMalloc1(qEnd, &par));
  for (PetscInt q = 0; q < qcEnd; q++) par[q] = cStart + q / nch;
  for (PetscInt w = 0; w < nvf; w++) par[qvEnd - nvf + w] = vpar[w];
  /* a cell that has each face, and (3D) a face that has each edge: the last one listed */
  for (PetscInt q = 0; q < qcEnd; q++)
    for (PetscInt k = 0, o = rcl.off[q - rcl.pStart]; k < rcl.dof[q - rcl.pStart]; k++) par[rcones[o + k]] = -1 - q;
  if (dim == 3)
    for (PetscInt q = qvEnd; q < qEnd; q++)
      if (par[q] < 0 && rcl.dof[q - rcl.pStart] > 2)
        for (PetscInt k = 0, o = rcl.off[q - rcl.pStart]; k < rcl.dof[q - rcl.pStart]; k++) par[rcones[o + k]] = par[q];
#pragma omp parallel for num_threads(nth) schedule(static) reduction(max : bad)
  for (PetscInt q = qvEnd; q < qEnd; q++) {
    const PetscInt       c  = (-1 - par[q]) / nch;
    const PetscInt      *cp = pts + c * ncl;
    const unsigned char *cm = mask + c * ncl;
    PetscInt             vert[8], n;
    unsigned             u = 0;

    n = par[q] < 0 ? FEGVerticesBelow(&rcl, rcones, qvStart, qvEnd, q, vert) : -1;
    for (PetscInt k = 0; k < n; k++) {
      const PetscInt p = vpar[vert[k] - qvStart];
      PetscInt       i = 0;

      while (i < ncl && cp[i] != p) i++;
      if (i == ncl) {
        n = -1;
        break;
      }
      u |= cm[i];
    }
    {
      const PetscInt i = n > 0 ? FEGMaskFind(ncl, cm, (unsigned char)u) : -1;

      if (i < 0) bad = PetscMax(bad, q);
      else par[q] = cp[i];
    }
  }
  PetscCheck(bad < 0, comm, PETSC_ERR_PLIB, "Refined point %" PetscInt_FMT ": no coarse point it comes from", bad);
  PetscCall(FEGRefineLabels(dm, *rdm, pEnd, qEnd, par));
  PetscCall(FEGMeshRefineCopy(dm, *rdm));
  if (dist) PetscCall(FEGRefinePointSF(dm, *rdm, par, vpar));
  PetscCall(PetscFree(par));
  PetscCall(PetscFree3(pts, mask, cells));
  PetscCall(PetscFree2(newv, vpar));
  PetscCall(PetscLogEventEnd(FEG_PlexRefine, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGMeshRefine - refines a mesh uniformly (every triangle and quadrilateral into 4, every tetrahedron, hexahedron and
  prism into 8), giving the mesh PETSc's regular refinement gives (the same cells, vertex orders and labels; points
  numbered differently) in a fraction of its time, on one process or on a distributed mesh

  Collective

  Input Parameter:
. dm - an interpolated DMPLEX, cells of one of fegpu's types, straight (vertex) coordinates; on several processes its
       parts linked by a point SF (DMPlexDistribute()'s, or a box built in blocks) or not at all

  Output Parameter:
. rdm - the refined mesh: its cells are the coarse cells' children in order (cell c's are 4c..4c+3 or 8c..8c+7), its
        vertices the coarse vertices, then one per coarse edge, quadrilateral and hexahedron; every label but the depth
        and cell types gives a point the values of the coarse point it comes from. On several processes a refined point
        is shared when the point it comes from is, with the same owner, and shared cones list their points in the
        owner's order

  Note:
  FEGCreateMeshFromOptions() refines this way for -dm_refine, also after distribution (-feg_mesh_fast_refine false
  gives PETSc's DMPlexTransform instead); periodic meshes, -dm_refine_hierarchy and transform types other than the
  regular refinement are left to PETSc, and curved meshes refine through FEGCreateMeshFromOptions(). The fine mesh is not linked to the coarse one
  (no DMSetCoarseDM(), no regular-refinement flag): interpolation between them goes through PETSc's general path.

  Level: intermediate

.seealso: FEGCreateMeshFromOptions(), DMRefine()
@*/
PetscErrorCode FEGMeshRefine(DM dm, DM *rdm)
{
  const FEGCellInfo *info;
  char               why[160];

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  FEGAssertPointer(rdm, 2);
  PetscCall(FEGInitializePackage());
  PetscCall(FEGMeshRefineCheck(dm, &info, why, sizeof(why)));
  PetscCheck(!why[0], PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "FEGMeshRefine() cannot refine this mesh: %s; DMRefine() can", why);
  PetscCall(FEGMeshRefine_Private(dm, info, rdm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The degree of dm's coordinate space when it is a PetscFE of degree 2 or more (curved cells), else 0 */
static PetscErrorCode FEGMeshCurvedOrder(DM dm, PetscFE *fe, PetscInt *order)
{
  DM           cdm;
  PetscInt     nf, deg;
  PetscObject  obj;
  PetscClassId id;
  PetscSpace   sp;

  PetscFunctionBegin;
  *order = 0;
  if (fe) *fe = NULL;
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetNumFields(cdm, &nf));
  if (!nf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetField(cdm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  if (id != PETSCFE_CLASSID) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFEGetBasisSpace((PetscFE)obj, &sp));
  PetscCall(PetscSpaceGetDegree(sp, &deg, NULL));
  if (deg < 2) PetscFunctionReturn(PETSC_SUCCESS);
  *order = deg;
  if (fe) *fe = (PetscFE)obj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's reference cell of type ct: its vertices in closure order, ref[k dim + d] (at most 8) */
static PetscErrorCode FEGReferenceVertices(DMPolytopeType ct, PetscInt dim, PetscInt *nv, PetscReal ref[])
{
  DM           rdm;
  Vec          X;
  PetscSection sec;
  PetscScalar *v = NULL;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(DMPlexCreateReferenceCell(PETSC_COMM_SELF, ct, &rdm));
  PetscCall(DMGetCoordinatesLocal(rdm, &X));
  PetscCall(DMGetCoordinateSection(rdm, &sec));
  PetscCall(DMPlexVecGetClosure(rdm, sec, X, 0, &n, &v));
  PetscCheck(n <= 8 * dim && n % dim == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Reference cell with %" PetscInt_FMT " coordinates", n);
  for (PetscInt k = 0; k < n; k++) ref[k] = PetscRealPart(v[k]);
  PetscCall(DMPlexVecRestoreClosure(rdm, sec, X, 0, &n, &v));
  PetscCall(DMDestroy(&rdm));
  *nv = n / dim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A coordinate DM like cdm with the space fe, and a local coordinate vector of its size to fill */
static PetscErrorCode FEGCoordinateSpaceCreate(DM cdm, PetscFE fe, PetscInt cdim, DM *ncdm, PetscSection *nsec, Vec *X)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(DMClone(cdm, ncdm));
  PetscCall(DMSetField(*ncdm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(*ncdm));
  PetscCall(DMGetLocalSection(*ncdm, nsec));
  PetscCall(PetscSectionGetStorageSize(*nsec, &n));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, X));
  PetscCall(VecSetBlockSize(*X, cdim));
  PetscCall(PetscObjectSetName((PetscObject)*X, "coordinates"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dm's coordinates on its vertices only, in a space of order 1: each cell's map of order k (fe, closure values cx, nb
   per cell; info the cell type's table entry) evaluated at the reference cell's vertices, process by process. The vertex values are not read from the
   section: PETSc's Gmsh reader gives curved tetrahedra a discontinuous coordinate space, with every node on the cell;
   and PETSc's DMProjectCoordinates() into the lower space, through the global coordinates, gave wrong values on a
   distributed, renumbered mesh with PETSc 3.18. */
static PetscErrorCode FEGMeshStraighten(DM dm, const FEGCellInfo *info, PetscFE fe, PetscInt nb, const PetscScalar cx[])
{
  DM              cdm, ncdm;
  PetscFE         fe1;
  PetscSection    nsec;
  Vec             Xn;
  PetscInt        cStart, cEnd, vStart, vEnd, dim, cdim, nrv;
  PetscScalar    *xn;
  PetscReal       ref[24];
  PetscTabulation T;

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  /* the reference cell's vertices in closure order, and the map's basis there */
  PetscCall(FEGReferenceVertices(info->ct, dim, &nrv, ref));
  PetscCall(PetscFECreateTabulation(fe, 1, nrv, ref, 0, &T));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, cdim, info->simplex, 1, PETSC_DETERMINE, &fe1));
  PetscCall(FEGCoordinateSpaceCreate(cdm, fe1, cdim, &ncdm, &nsec, &Xn));
  PetscCall(VecGetArrayWrite(Xn, &xn));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt *cl = NULL, ncl, k = 0;

    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt i = 0; i < ncl; i++) {
      const PetscInt v = cl[2 * i];
      PetscInt       off;

      if (v < vStart || v >= vEnd) continue;
      PetscCheck(k < nrv, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has more vertices than its reference cell", c);
      PetscCall(PetscSectionGetOffset(nsec, v, &off));
      for (PetscInt d = 0; d < cdim; d++) {
        PetscScalar x = 0;

        for (PetscInt b = 0; b < nb; b++) x += T->T[0][(k * nb + b) * cdim + d] * cx[(size_t)(c - cStart) * nb + b];
        xn[off + d] = x;
      }
      k++;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
  }
  PetscCall(VecRestoreArrayWrite(Xn, &xn));
  PetscCall(DMSetCoordinateDM(dm, ncdm));
  PetscCall(DMSetCoordinatesLocal(dm, Xn));
  PetscCall(VecDestroy(&Xn));
  PetscCall(DMDestroy(&ncdm));
  PetscCall(PetscFEDestroy(&fe1));
  PetscCall(PetscTabulationDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The centre of the vertices in mask m (bit q: vertex q of the cell's closure order) of n vertices x[q nc + c] */
static inline void FEGMaskCentre(unsigned m, PetscInt n, PetscInt nc, const PetscReal x[], PetscReal c[])
{
  PetscInt cnt = 0;

  for (PetscInt d = 0; d < nc; d++) c[d] = 0;
  for (PetscInt q = 0; q < n; q++)
    if (m & (1u << q)) {
      cnt++;
      for (PetscInt d = 0; d < nc; d++) c[d] += x[q * nc + d];
    }
  for (PetscInt d = 0; d < nc; d++) c[d] /= cnt;
}

/* One uniform refinement of a mesh with curved cells (coordinates of order k >= 2), keeping its geometry: the cells are
   refined with straight coordinates (fegpu's refinement, else DMRefine()), and the refined mesh gets the
   coarse coordinate space, each of its nodes placed by its coarse cell's map of order k: a refined cell's vertices are
   centres of its straight coarse cell's vertex sets (so their reference coordinates are known), its nodes interpolated between them in that reference
   space, and the coarse map evaluated there. The children of a regular refinement are affine (simplices) or axis-aligned
   (tensor cells) in their parent's reference space, so the geometry is kept exactly; PETSc's DMRefine() (3.18 to 3.22)
   keeps the coordinate space but gives the refined mesh vertex coordinates only. Both refinements number the children
   of coarse cell c as c n + j, child j's vertices as the cell table's refine[j] says (the table follows DMRefine()),
   which is checked: every refined vertex must be the centre the table names. */
static PetscErrorCode FEGMeshRefineCurved(DM *dm, PetscBool fast)
{
  DM                 coarse = *dm, fine = NULL, ccdm, fcdm, ncdm;
  PetscFE            cfe, fe1;
  PetscDualSpace     Q;
  PetscInt           order, dim, cdim, cStart, cEnd, fcStart, fcEnd, nbc, nch, nv, n, bad = -1, nthreads;
  PetscInt          *comp, *idx;
  const PetscInt     chunk = 65536;
  PetscScalar       *cx, *xk;
  const PetscScalar *x1;
  PetscReal         *nodes, *xi, *vreal, refv[24], *preal;
  PetscSection       csec, fsec, nsec, csec1;
  Vec                Xc, X1, Xk, Xc1;
  PetscTabulation    T1 = NULL, *Tc;
  DMPolytopeType     ct = DM_POLYTOPE_UNKNOWN;
  const FEGCellInfo *info, *rinfo;
  char               why[160];

  PetscFunctionBegin;
  PetscCall(FEGSetupThreads(PetscObjectComm((PetscObject)coarse), &nthreads));
  PetscCall(FEGMeshCurvedOrder(coarse, &cfe, &order));
  PetscCall(PetscObjectReference((PetscObject)cfe));
  PetscCall(DMGetDimension(coarse, &dim));
  PetscCall(DMGetCoordinateDim(coarse, &cdim));
  PetscCall(DMPlexGetHeightStratum(coarse, 0, &cStart, &cEnd));
  if (cEnd > cStart) PetscCall(DMPlexGetCellType(coarse, cStart, &ct));
  PetscCall(FEGCellInfoGet(PETSC_COMM_SELF, ct, &info));
  /* the coarse cells' coordinates of order k, before the mesh gets straight ones */
  PetscCall(DMGetCoordinateDM(coarse, &ccdm));
  PetscCall(DMGetCoordinatesLocal(coarse, &Xc));
  PetscCall(DMGetLocalSection(ccdm, &csec));
  /* the space's dimension counts every component: nbc closure values per cell, basis function b for value b */
  PetscCall(PetscFEGetDimension(cfe, &nbc));
  PetscCall(PetscMalloc1((size_t)(cEnd - cStart) * nbc + 1, &cx));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscScalar *v = NULL;

    PetscCall(DMPlexVecGetClosure(ccdm, csec, Xc, c, &n, &v));
    PetscCheck(n == nbc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " coordinate values, its space %" PetscInt_FMT, c, n, nbc);
    PetscCall(PetscArraycpy(cx + (size_t)(c - cStart) * nbc, v, n));
    PetscCall(DMPlexVecRestoreClosure(ccdm, csec, Xc, c, &n, &v));
  }
  /* straight, refined */
  PetscCall(FEGMeshStraighten(coarse, info, cfe, nbc, cx));
  PetscCall(FEGMeshRefineCheck(coarse, &rinfo, why, sizeof(why)));
  if (fast && !why[0]) PetscCall(FEGMeshRefine_Private(coarse, rinfo, &fine));
  else {
    PetscCall(DMRefine(coarse, PetscObjectComm((PetscObject)coarse), &fine));
    PetscCall(FEGMeshRefineCopy(coarse, fine));
  }
  PetscCall(DMPlexGetHeightStratum(fine, 0, &fcStart, &fcEnd));
  nch = cEnd > cStart ? (fcEnd - fcStart) / (cEnd - cStart) : 0;
  PetscCheck(nch * (cEnd - cStart) == fcEnd - fcStart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The refined mesh has %" PetscInt_FMT " cells for %" PetscInt_FMT " coarse ones, not a multiple", fcEnd - fcStart, cEnd - cStart);
  /* the space's nodes (one point evaluation of one component per dof, in closure order) and the straight cell's vertex
     basis there */
  PetscCall(PetscFEGetDualSpace(cfe, &Q));
  PetscCall(PetscMalloc3(nbc * dim, &nodes, nbc, &comp, nbc * dim, &xi));
  for (PetscInt i = 0; i < nbc; i++) {
    PetscQuadrature  f;
    PetscInt         np, nc;
    const PetscReal *pts, *w;

    PetscCall(PetscDualSpaceGetFunctional(Q, i, &f));
    PetscCall(PetscQuadratureGetData(f, NULL, &nc, &np, &pts, &w));
    PetscCheck(np == 1 && nc == cdim, PETSC_COMM_SELF, PETSC_ERR_SUP, "The coordinate space's dof %" PetscInt_FMT " is not a point evaluation of one component (%" PetscInt_FMT " points, %" PetscInt_FMT " components)", i, np, nc);
    for (PetscInt d = 0; d < dim; d++) nodes[i * dim + d] = pts[d];
    comp[i] = 0;
    for (PetscInt d = 0; d < nc; d++)
      if (PetscAbsReal(w[d]) > PetscAbsReal(w[comp[i]])) comp[i] = d;
  }
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, dim, 1, info->simplex, 1, PETSC_DETERMINE, &fe1));
  PetscCall(PetscFEGetDimension(fe1, &nv));
  PetscCall(FEGReferenceVertices(ct, dim, &n, refv));
  PetscCheck(n == nv, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Reference cell with %" PetscInt_FMT " vertices, its vertex basis %" PetscInt_FMT, n, nv);
  PetscCheck(info->refineChildren == nch, PETSC_COMM_SELF, PETSC_ERR_SUP, "Curved %s cells: fegpu knows no regular refinement into %" PetscInt_FMT " children", DMPolytopeTypes[ct], nch);
  PetscCall(DMGetCoordinateSection(coarse, &csec1));
  PetscCall(DMGetCoordinatesLocal(coarse, &Xc1));
  PetscCall(PetscFECreateTabulation(fe1, 1, nbc, nodes, 0, &T1));
  /* child j's vertices in its parent's reference space, its nodes there, and the coarse space's basis at those nodes:
     the same for every parent, so tabulated once per child */
  PetscCall(PetscCalloc1(nch, &Tc));
  for (PetscInt j = 0; j < nch; j++) {
    PetscReal vr[24];

    for (PetscInt k = 0; k < nv; k++) FEGMaskCentre(info->refine[j][k], nv, dim, refv, &vr[k * dim]);
    for (PetscInt i = 0; i < nbc; i++)
      for (PetscInt d = 0; d < dim; d++) {
        PetscReal x = 0;

        for (PetscInt k = 0; k < nv; k++) x += T1->T[0][i * nv + k] * vr[k * dim + d];
        xi[i * dim + d] = x;
      }
    PetscCall(PetscFECreateTabulation(cfe, 1, nbc, xi, 0, &Tc[j]));
  }
  /* the refined mesh's coordinate DM of the coarse space, filled cell by cell */
  PetscCall(DMGetCoordinateDM(fine, &fcdm));
  PetscCall(DMGetCoordinateSection(fine, &fsec));
  PetscCall(DMGetCoordinatesLocal(fine, &X1));
  PetscCall(FEGCoordinateSpaceCreate(fcdm, cfe, cdim, &ncdm, &nsec, &Xk));
  /* the straight parents' vertices, all at once */
  {
    FEGClosureTarget t = {NULL};

    PetscCall(PetscMalloc1((size_t)(cEnd - cStart) * nv * cdim + 1, &preal));
    PetscCall(DMGetCoordinateDM(coarse, &t.dm));
    t.sec = csec1;
    t.n   = nv * cdim;
    PetscCall(VecGetArrayRead(Xc1, &t.vals));
    t.x = preal;
    PetscCall(FEGPlexGetClosureBulk(coarse, cStart, cEnd, 1, &t, nthreads, NULL));
    PetscCall(VecRestoreArrayRead(Xc1, &t.vals));
  }
  /* the refined cells in chunks: their straight vertices and where their nodes go, read in bulk (DMPlexVecGetClosure()
     and DMPlexVecSetClosure() cell by cell took 10 us a cell) */
  PetscCall(PetscMalloc2((size_t)chunk * nv * cdim, &vreal, (size_t)chunk * nbc, &idx));
  PetscCall(VecGetArrayRead(X1, &x1));
  PetscCall(VecGetArrayWrite(Xk, &xk));
  for (PetscInt f0 = fcStart; f0 < fcEnd; f0 += chunk) {
    const PetscInt   f1   = PetscMin(f0 + chunk, fcEnd);
    FEGClosureTarget t[2] = {
      {fcdm, fsec, nv * cdim, NULL, x1,   vreal},
      {ncdm, nsec, nbc,       idx,  NULL, NULL }
    };

    PetscCall(FEGPlexGetClosureBulk(fine, f0, f1, 2, t, nthreads, NULL));
    for (PetscInt f = f0; f < f1; f++) {
      const PetscInt   c = cStart + (f - fcStart) / nch, j = (f - fcStart) % nch;
      const PetscReal *vr = vreal + (size_t)(f - f0) * nv * cdim, *pr = preal + (size_t)(c - cStart) * nv * cdim;
      PetscReal        scale = 0;

      /* the refined cell's vertices are centres of its parent's vertex sets (the refinement table); the straight ones
         must be those centres */
      for (PetscInt k = 0; k < nv * cdim; k++) scale = PetscMax(scale, PetscAbsReal(pr[k] - pr[k % cdim]));
      for (PetscInt k = 0; k < nv; k++) {
        PetscReal x[3];

        FEGMaskCentre(info->refine[j][k], nv, cdim, pr, x);
        for (PetscInt d = 0; d < cdim; d++)
          if (PetscAbsReal(x[d] - vr[k * cdim + d]) > 1e-10 * scale) bad = f;
      }
      /* the parent's map at the child's nodes */
      for (PetscInt i = 0; i < nbc; i++) {
        PetscReal x = 0;

        for (PetscInt b = 0; b < nbc; b++) x += Tc[j]->T[0][(i * nbc + b) * cdim + comp[i]] * cx[(size_t)(c - cStart) * nbc + b];
        xk[idx[(size_t)(f - f0) * nbc + i]] = x;
      }
    }
  }
  PetscCall(VecRestoreArrayRead(X1, &x1));
  PetscCall(VecRestoreArrayWrite(Xk, &xk));
  PetscCall(PetscFree2(vreal, idx));
  PetscCall(PetscFree(preal));
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Refined cell %" PetscInt_FMT " does not lie in coarse cell %" PetscInt_FMT ", which the refinement's numbering makes its parent", bad, cStart + (bad - fcStart) / PetscMax(nch, 1));
  PetscCall(DMSetCoordinateDM(fine, ncdm));
  PetscCall(DMSetCoordinatesLocal(fine, Xk));
  PetscCall(VecDestroy(&Xk));
  PetscCall(DMDestroy(&ncdm));
  for (PetscInt j = 0; j < nch; j++) PetscCall(PetscTabulationDestroy(&Tc[j]));
  PetscCall(PetscFree(Tc));
  PetscCall(PetscTabulationDestroy(&T1));
  PetscCall(PetscFEDestroy(&fe1));
  PetscCall(PetscFree3(nodes, comp, xi));
  PetscCall(PetscFree(cx));
  PetscCall(PetscFEDestroy(&cfe));
  PetscCall(DMDestroy(dm));
  *dm = fine;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -dm_refine k (with dm's prefix): curved cells are refined by fegpu on any number of processes
   (FEGMeshRefineCurved()); otherwise with fast, fegpu refines as long as FEGMeshRefine() applies and
   DMSetFromOptions(), which comes next, is left the rest (-dm_refine set to it until
   FEGMeshRefineFromOptionsEnd_Private() puts k back) */
PetscErrorCode FEGMeshRefineFromOptions_Private(DM *dm, PetscBool fast, PetscInt *k)
{
  const FEGCellInfo *info;
  char               why[160], name[256], prefix[256] = "";
  const char        *pre;
  PetscOptions       options;
  PetscInt           n = 0, done = 0, order;
  PetscBool          set, hier;

  PetscFunctionBegin;
  *k = -1;
  /* a copy: the DM that owns the prefix is replaced below */
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)*dm, &pre));
  if (pre) PetscCall(PetscStrncpy(prefix, pre, sizeof(prefix)));
  PetscCall(PetscObjectGetOptions((PetscObject)*dm, &options));
  PetscCall(PetscOptionsGetInt(options, prefix, "-dm_refine", &n, &set));
  PetscCall(PetscOptionsHasName(options, prefix, "-dm_refine_hierarchy", &hier));
  if (!set || hier || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGMeshCurvedOrder(*dm, NULL, &order));
  if (order) {
    PetscBool uniform, other;

    /* curved cells, regular refinement: fegpu keeps the geometry, on any number of processes */
    PetscCall(DMPlexGetRefinementUniform(*dm, &uniform));
    PetscCall(PetscOptionsHasName(options, prefix, "-dm_plex_transform_type", &other));
    PetscCheck(uniform && !other, PetscObjectComm((PetscObject)*dm), PETSC_ERR_SUP, "Only the uniform regular refinement keeps the geometry of curved cells (coordinates of order %" PetscInt_FMT "): drop -dm_plex_transform_type and non-uniform refinement, or read the mesh with straight cells (-dm_plex_gmsh_highorder false)", order);
    for (; done < n; done++) PetscCall(FEGMeshRefineCurved(dm, fast));
  } else if (!fast) PetscFunctionReturn(PETSC_SUCCESS);
  for (; done < n; done++) {
    DM rdm;

    PetscCall(FEGMeshRefineCheck(*dm, &info, why, sizeof(why)));
    if (why[0]) break;
    PetscCall(FEGMeshRefine_Private(*dm, info, &rdm));
    PetscCall(DMDestroy(dm));
    *dm = rdm;
  }
  if (done < n) PetscCall(PetscInfo(*dm, "fegpu refined the mesh %" PetscInt_FMT " times, PETSc refines it %" PetscInt_FMT " more: %s\n", done, n - done, why));
  if (!done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%sdm_refine", prefix));
  PetscCall(PetscSNPrintf(why, sizeof(why), "%" PetscInt_FMT, n - done));
  PetscCall(PetscOptionsSetValue(options, name, why));
  *k = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGMeshRefineFromOptionsEnd_Private(DM dm, PetscInt k)
{
  char         name[256], val[32];
  const char  *prefix;
  PetscOptions options;

  PetscFunctionBegin;
  if (k < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)dm, &prefix));
  PetscCall(PetscObjectGetOptions((PetscObject)dm, &options));
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%sdm_refine", prefix ? prefix : ""));
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, k));
  PetscCall(PetscOptionsSetValue(options, name, val));
  PetscFunctionReturn(PETSC_SUCCESS);
}
