/* Mesh files. PETSc's Gmsh reader (3.18 to at least 3.22) stores a high-order cell's coordinate nodes in the order of
   Gmsh's vertex list, but reorders the cell's vertices (tetrahedra and prisms are inverted to PETSc's orientation and
   interpolation builds the closure from faces). The coordinate map then parametrises the cell with its vertices in a
   different order from the field's closure: the geometry (volumes, operators) is right but every field is evaluated at
   rotated points, so DMProjectFunction(), boundary values and L2 errors are wrong on curved tetrahedra and prisms.
   fegpu reads the file once more with straight cells, whose vertex coordinates sit on the vertices, finds each cell's
   vertex permutation by matching positions, and permutes the cell's coordinate nodes to the closure's order. */
#include <fegpu/private/fegmeshimpl.h>
#include <ctype.h>

#define FEG_MAX_PERMS 48 /* vertex permutations of one cell type that can occur: the hexahedron's 48 symmetries */

/* The affine map of the reference cell that sends reference vertex m to reference vertex perm[m]; NULL if none */
static PetscErrorCode FEGRefAffineMap(PetscInt dim, PetscInt nv, const PetscReal rv[], const PetscInt perm[], PetscReal A[], PetscBool *ok)
{
  PetscInt  sel[4], ns = 0;
  PetscReal M[4][5];

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  /* d + 1 affinely independent vertices, greedily */
  for (PetscInt m = 0; m < nv && ns <= dim; m++) {
    PetscReal E[3][3] = {{0}}, det = 1.0;

    sel[ns] = m;
    if (ns == 0) {
      ns++;
      continue;
    }
    /* the candidate edges from vertex sel[0] must have full rank ns; check by Gram determinant */
    for (PetscInt a = 0; a < ns; a++)
      for (PetscInt b = 0; b < ns; b++)
        for (PetscInt d = 0; d < dim; d++) E[a][b] += (rv[sel[a + 1] * dim + d] - rv[sel[0] * dim + d]) * (rv[sel[b + 1] * dim + d] - rv[sel[0] * dim + d]);
    if (ns == 2) det = E[0][0] * E[1][1] - E[0][1] * E[1][0];
    else if (ns == 3) det = E[0][0] * (E[1][1] * E[2][2] - E[1][2] * E[2][1]) - E[0][1] * (E[1][0] * E[2][2] - E[1][2] * E[2][0]) + E[0][2] * (E[1][0] * E[2][1] - E[1][1] * E[2][0]);
    else det = E[0][0];
    if (PetscAbsReal(det) > 1e-8) ns++;
  }
  if (ns != dim + 1) PetscFunctionReturn(PETSC_SUCCESS);
  /* solve [r 1] (A row d) = r'_d for each output coordinate d by Gaussian elimination with partial pivoting */
  for (PetscInt o = 0; o < dim; o++) {
    for (PetscInt i = 0; i <= dim; i++) {
      for (PetscInt j = 0; j < dim; j++) M[i][j] = rv[sel[i] * dim + j];
      M[i][dim]     = 1.0;
      M[i][dim + 1] = rv[perm[sel[i]] * dim + o];
    }
    for (PetscInt k = 0; k <= dim; k++) {
      PetscInt p = k;

      for (PetscInt i = k + 1; i <= dim; i++)
        if (PetscAbsReal(M[i][k]) > PetscAbsReal(M[p][k])) p = i;
      if (PetscAbsReal(M[p][k]) < 1e-12) PetscFunctionReturn(PETSC_SUCCESS);
      for (PetscInt j = 0; j <= dim + 1; j++) {
        PetscReal t = M[k][j];

        M[k][j] = M[p][j];
        M[p][j] = t;
      }
      for (PetscInt i = 0; i <= dim; i++) {
        if (i == k) continue;
        PetscReal f = M[i][k] / M[k][k];

        for (PetscInt j = k; j <= dim + 1; j++) M[i][j] -= f * M[k][j];
      }
    }
    for (PetscInt j = 0; j <= dim; j++) A[o * (dim + 1) + j] = M[j][dim + 1] / M[j][j];
  }
  /* it must be a symmetry of the reference cell: every vertex lands on its image */
  for (PetscInt m = 0; m < nv; m++)
    for (PetscInt o = 0; o < dim; o++) {
      PetscReal y = A[o * (dim + 1) + dim];

      for (PetscInt j = 0; j < dim; j++) y += A[o * (dim + 1) + j] * rv[m * dim + j];
      if (PetscAbsReal(y - rv[perm[m] * dim + o]) > 1e-10) PetscFunctionReturn(PETSC_SUCCESS);
    }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGGmshRepairHighOrder(DM dm, const char file[])
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  DM                 cdm, dms, cdms, rdm, crdm;
  PetscInt           nf, dim, cdim, cStart, cEnd, np, nv = 0, nperm = 0, cached[FEG_MAX_PERMS][8], *nodeperm, vnode[8], nfixed = 0;
  PetscObject        obj;
  PetscClassId       id;
  PetscDualSpace     Q;
  PetscQuadrature    allp;
  const PetscReal   *pts;
  PetscReal          rv[8 * 3];
  PetscSection       cs;
  Vec                X, Xs, Xr;
  PetscErrorCode     ierr;
  PetscScalar       *x, *node;
  const PetscScalar *xs;
  DMPolytopeType     ct;
  PetscOptions       opts;

  PetscFunctionBegin;
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetNumFields(cdm, &nf));
  if (!nf) PetscFunctionReturn(PETSC_SUCCESS); /* straight cells: coordinates live on the vertices */
  PetscCall(DMGetField(cdm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  if (id != PETSCFE_CLASSID) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetCellCoordinateDM(dm, &rdm));
  PetscCheck(!rdm, comm, PETSC_ERR_SUP, "Periodic high-order Gmsh meshes are not supported by fegpu (%s); read it with -dm_plex_gmsh_highorder false", file);
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(PetscFEGetDualSpace((PetscFE)obj, &Q));
  if (cEnd > cStart) {
    DM             qdm;
    DMPolytopeType qct, mct;

    /* PETSc (3.18 to 3.22) gives high-order prisms a tetrahedral coordinate space and drops the other nodes */
    PetscCall(PetscDualSpaceGetDM(Q, &qdm));
    PetscCall(DMPlexGetCellType(qdm, 0, &qct));
    PetscCall(DMPlexGetCellType(dm, cStart, &mct));
    PetscCheck(qct == mct, PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc read the high-order %s cells of %s with a %s coordinate space, which cannot represent them; read the file with straight cells (-dm_plex_gmsh_highorder false) or use tetrahedra or hexahedra", DMPolytopeTypes[mct], file, DMPolytopeTypes[qct]);
  }
  PetscCall(PetscDualSpaceGetAllData(Q, &allp, NULL));
  PetscCall(PetscQuadratureGetData(allp, NULL, NULL, &np, &pts, NULL));
  PetscCall(DMGetLocalSection(cdm, &cs));
  {
    PetscInt  dof;
    PetscBool closure = PETSC_FALSE;

    /* a continuous coordinate space (quadrilaterals, hexahedra) goes through the closure, which orders it right; the
       discontinuous one PETSc uses for simplices keeps every node on the cell, in the order the reader wrote. Decided
       together: what follows is collective, and processes without cells cannot tell (np 2 on a curved hexahedral
       file hung here) */
    if (cEnd > cStart) {
      PetscCall(PetscSectionGetDof(cs, cStart, &dof));
      closure = (PetscBool)(dof != np * cdim);
    }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &closure, 1, MPIU_BOOL, MPI_LOR, comm));
    if (closure) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc2(FEG_MAX_PERMS * np, &nodeperm, np * cdim, &node)); /* node i of permutation s: nodeperm[s * np + i] */

  /* the same file with straight cells: same points, vertex coordinates on the vertices */
  {
    char *all;

    /* the user's options (hybrid prisms, periodicity, space dimension) with straight cells on top */
    PetscCall(PetscOptionsCreate(&opts));
    PetscCall(PetscOptionsGetAll(NULL, &all));
    PetscCall(PetscOptionsInsertString(opts, all));
    PetscCall(PetscFree(all));
    PetscCall(PetscOptionsSetValue(opts, "-dm_plex_gmsh_highorder", "false"));
  }
  /* the options are popped whether or not the read succeeds, so that an error leaves the caller's in place */
  PetscCall(PetscOptionsPush(opts));
  ierr = DMPlexCreateFromFile(comm, file, "fegpu", PETSC_TRUE, &dms);
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  PetscCall(ierr);
  {
    PetscInt c0, c1;

    PetscCall(DMPlexGetHeightStratum(dms, 0, &c0, &c1));
    PetscCheck(c0 == cStart && c1 == cEnd, comm, PETSC_ERR_PLIB, "Reading %s with straight cells gave cells [%" PetscInt_FMT ", %" PetscInt_FMT ") instead of [%" PetscInt_FMT ", %" PetscInt_FMT ")", file, c0, c1, cStart, cEnd);
  }
  PetscCall(DMGetCoordinateDM(dms, &cdms));
  PetscCall(DMGetCoordinatesLocal(dms, &Xs));
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(VecGetArray(X, &x));
  PetscCall(VecGetArrayRead(Xs, &xs));
  ct = DM_POLYTOPE_UNKNOWN;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscScalar   *vx = NULL;
    PetscInt       nvx, off, dof, perm[8], slot;
    DMPolytopeType cct;
    PetscBool      ident = PETSC_TRUE;

    PetscCall(DMPlexGetCellType(dm, c, &cct));
    if (cct != ct) {
      /* reference vertices of this cell type in closure order, and which coordinate node sits on each */
      const PetscScalar *r;
      PetscScalar       *rc = NULL;
      PetscInt           nrc;

      PetscCheck(ct == DM_POLYTOPE_UNKNOWN, comm, PETSC_ERR_SUP, "Mixed cell types in the high-order Gmsh file %s (%s and %s) are not supported", file, DMPolytopeTypes[ct], DMPolytopeTypes[cct]);
      ct = cct;
      PetscCall(DMPlexCreateReferenceCell(PETSC_COMM_SELF, ct, &rdm));
      PetscCall(DMGetCoordinatesLocal(rdm, &Xr));
      PetscCall(DMGetCoordinateDM(rdm, &crdm));
      PetscCall(DMPlexVecGetClosure(crdm, NULL, Xr, 0, &nrc, &rc));
      nv = nrc / dim;
      PetscCheck(nv <= 8, comm, PETSC_ERR_SUP, "Cell type %s has %" PetscInt_FMT " vertices", DMPolytopeTypes[ct], nv);
      PetscCall(VecGetArrayRead(Xr, &r));
      for (PetscInt i = 0; i < nrc; i++) rv[i] = PetscRealPart(rc[i]);
      PetscCall(VecRestoreArrayRead(Xr, &r));
      PetscCall(DMPlexVecRestoreClosure(crdm, NULL, Xr, 0, &nrc, &rc));
      PetscCall(DMDestroy(&rdm));
      for (PetscInt m = 0; m < nv; m++) {
        vnode[m] = -1;
        for (PetscInt j = 0; j < np && vnode[m] < 0; j++) {
          PetscReal d = 0;

          for (PetscInt k = 0; k < dim; k++) d = PetscMax(d, PetscAbsReal(pts[j * dim + k] - rv[m * dim + k]));
          if (d < 1e-10) vnode[m] = j;
        }
        PetscCheck(vnode[m] >= 0, comm, PETSC_ERR_SUP, "The coordinate space of %s has no node on vertex %" PetscInt_FMT " of the %s", file, m, DMPolytopeTypes[ct]);
      }
    }
    PetscCall(PetscSectionGetOffset(cs, c, &off));
    PetscCall(PetscSectionGetDof(cs, c, &dof));
    PetscCheck(dof == np * cdim, comm, PETSC_ERR_SUP, "Cell %" PetscInt_FMT " of %s has %" PetscInt_FMT " coordinate values, expected %" PetscInt_FMT " nodes x %" PetscInt_FMT, c, file, dof, np, cdim);
    PetscCall(DMPlexVecGetClosure(cdms, NULL, Xs, c, &nvx, &vx));
    PetscCheck(nvx == nv * cdim, comm, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " of %s has %" PetscInt_FMT " vertex coordinates, expected %" PetscInt_FMT, c, file, nvx, nv * cdim);
    /* perm[m]: the Gmsh-order vertex (coordinate node on reference vertex perm[m]) that is closure vertex m */
    for (PetscInt m = 0; m < nv; m++) {
      perm[m] = -1;
      for (PetscInt k = 0; k < nv && perm[m] < 0; k++) {
        PetscBool same = PETSC_TRUE;

        for (PetscInt d = 0; d < cdim; d++) same = (PetscBool)(same && x[off + vnode[k] * cdim + d] == vx[m * cdim + d]);
        if (same) perm[m] = k;
      }
      PetscCheck(perm[m] >= 0, comm, PETSC_ERR_FILE_UNEXPECTED, "Cell %" PetscInt_FMT " of the high-order Gmsh file %s: no coordinate node lies on its vertex %" PetscInt_FMT, c, file, m);
      if (perm[m] != m) ident = PETSC_FALSE;
    }
    PetscCall(DMPlexVecRestoreClosure(cdms, NULL, Xs, c, &nvx, &vx));
    if (ident) continue;
    for (slot = 0; slot < nperm; slot++) {
      PetscBool same = PETSC_TRUE;

      for (PetscInt m = 0; m < nv; m++) same = (PetscBool)(same && cached[slot][m] == perm[m]);
      if (same) break;
    }
    if (slot == nperm) {
      PetscReal A[12];
      PetscBool ok;

      PetscCheck(nperm < FEG_MAX_PERMS, comm, PETSC_ERR_PLIB, "More than %d vertex permutations in %s", FEG_MAX_PERMS, file);
      PetscCall(FEGRefAffineMap(dim, nv, rv, perm, A, &ok));
      PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "Cell %" PetscInt_FMT " of the high-order Gmsh file %s: its vertex order is not a symmetry of the %s", c, file, DMPolytopeTypes[ct]);
      /* node i of the closure-ordered cell is the stored node at A(xi_i) */
      for (PetscInt i = 0; i < np; i++) {
        PetscReal y[3];

        nodeperm[slot * np + i] = -1;
        for (PetscInt o = 0; o < dim; o++) {
          y[o] = A[o * (dim + 1) + dim];
          for (PetscInt j = 0; j < dim; j++) y[o] += A[o * (dim + 1) + j] * pts[i * dim + j];
        }
        for (PetscInt j = 0; j < np && nodeperm[slot * np + i] < 0; j++) {
          PetscReal d = 0;

          for (PetscInt o = 0; o < dim; o++) d = PetscMax(d, PetscAbsReal(pts[j * dim + o] - y[o]));
          if (d < 1e-10) nodeperm[slot * np + i] = j;
        }
        PetscCheck(nodeperm[slot * np + i] >= 0, comm, PETSC_ERR_PLIB, "The coordinate nodes of %s are not symmetric under a vertex permutation of the %s", file, DMPolytopeTypes[ct]);
      }
      for (PetscInt m = 0; m < nv; m++) cached[slot][m] = perm[m];
      nperm++;
    }
    for (PetscInt i = 0; i < np * cdim; i++) node[i] = x[off + i];
    for (PetscInt i = 0; i < np; i++)
      for (PetscInt d = 0; d < cdim; d++) x[off + i * cdim + d] = node[nodeperm[slot * np + i] * cdim + d];
    nfixed++;
  }
  PetscCall(VecRestoreArrayRead(Xs, &xs));
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(DMDestroy(&dms));
  PetscCall(PetscFree2(nodeperm, node));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nfixed, 1, MPIU_INT, MPI_SUM, comm));
  if (nfixed) {
    /* the local vector was changed in place: make the global one (and any cached geometry) follow */
    PetscCall(PetscObjectReference((PetscObject)X));
    PetscCall(DMSetCoordinatesLocal(dm, X));
    PetscCall(VecDestroy(&X));
  }
  PetscCall(PetscInfo(dm, "%s: %" PetscInt_FMT " high-order cells given their closure's vertex order\n", file, nfixed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Nodes of the Gmsh element types PETSc reads (0: not checked here; PETSc names an unsupported type itself) */
static int FEGGmshTypeNodes(long type)
{
  static const int n[37] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1, 8, 20, 15, 13, 0, 10, 0, 0, 0, 0, 4, 0, 0, 20, 0, 0, 0, 0, 0, 0, 16};

  return type > 0 && type < 37 ? n[type] : 0;
}

/* A line of the file in a growing buffer (lines of any length) */
static PetscErrorCode FEGReadLine(FILE *fp, char **buf, size_t *cap, PetscBool *eof)
{
  size_t len = 0;

  PetscFunctionBegin;
  *eof = PETSC_TRUE;
  if (!*buf) {
    *cap = 256;
    PetscCall(PetscMalloc1(*cap, buf));
  }
  (*buf)[0] = 0;
  while (fgets(*buf + len, (int)(*cap - len), fp)) {
    *eof = PETSC_FALSE;
    len += strlen(*buf + len);
    if (len && (*buf)[len - 1] == '\n') break;
    if (len + 1 < *cap) break; /* the last line, without a newline */
    PetscCall(PetscRealloc(2 * *cap, buf));
    *cap *= 2;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adds v to a growing array */
static PetscErrorCode FEGPush(PetscInt v, PetscInt **a, PetscInt *n, PetscInt *max)
{
  PetscFunctionBegin;
  if (*n == *max) {
    *max = PetscMax(1024, 2 * *max);
    PetscCall(PetscRealloc(*max * sizeof(PetscInt), a));
  }
  (*a)[(*n)++] = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The structure of an ASCII Gmsh file (2.2 or 4.1) that PETSc's reader (3.18 to 3.22) trusts: the counts of its
   sections and entity blocks, the entity dimensions and tag ranges, and that every node an element names exists and
   an element of a known type names as many nodes as its type has, none twice. PETSc dereferences what these promise and crashes
   or hangs when they lie, so this reads the file once, line by line, before PETSc does (from fp's start). Binary files
   are left to PETSc. */
static PetscErrorCode FEGGmshCheckCells(FILE *fp, PetscBool v4, char **problem)
{
  enum {
    NONE,
    ENTITIES,
    PHYSICAL,
    NODES,
    ELEMENTS
  } sec          = NONE;
  char     *line = NULL, msg[256];
  size_t    cap  = 0;
  PetscBool eof, header = PETSC_FALSE;
  PetscInt *tags = NULL, ntags = 0, maxtags = 0, *ents = NULL, nents = 0, maxents = 0, *enodes = NULL, nenodes = 0, maxenodes = 0;
  long      lineno = 0, type = 0, blocks = 0, blocksSeen = 0, count = 0, seen = 0, blockLeft = 0, tagsLeft = 0, coordsLeft = 0, minTag = 0, maxTag = 0, entLeft[4] = {0, 0, 0, 0};
  int       entDim = 0;

  PetscFunctionBegin;
  *problem = NULL;
  msg[0]   = 0;
  rewind(fp);
  while (!msg[0]) {
    const char *what = sec == NODES ? "$Nodes" : "$Elements";
    char       *p, *q;

    PetscCall(FEGReadLine(fp, &line, &cap, &eof));
    if (eof) break;
    lineno++;
    if (line[0] == '$') {
      /* a section that fegpu follows ends with its own $End line, and everything it promised was there */
      if (sec != NONE) {
        const char *name = sec == ENTITIES ? "Entities" : (sec == PHYSICAL ? "PhysicalNames" : what + 1);
        size_t      n    = strlen(name);

        if (strncmp(line, "$End", 4) || strncmp(line + 4, name, n) || (line[4 + n] && !isspace((unsigned char)line[4 + n]))) PetscCall(PetscSNPrintf(msg, sizeof(msg), "its $%s section is followed by line %ld, not by $End%s", name, lineno, name));
        else if (header) PetscCall(PetscSNPrintf(msg, sizeof(msg), "its $%s section has no count line", name));
        else if ((sec == NODES || sec == ELEMENTS) && (seen != count || (v4 && (blocksSeen != blocks || blockLeft || tagsLeft || coordsLeft))))
          PetscCall(PetscSNPrintf(msg, sizeof(msg), "its %s section promises %ld entries%s but holds %ld (line %ld)", what, count, v4 ? " in its blocks" : "", seen, lineno));
        else if (sec == PHYSICAL && seen != count) PetscCall(PetscSNPrintf(msg, sizeof(msg), "its $PhysicalNames section promises %ld names but holds %ld (line %ld)", count, seen, lineno));
        else if (sec == ENTITIES && (entLeft[0] || entLeft[1] || entLeft[2] || entLeft[3])) PetscCall(PetscSNPrintf(msg, sizeof(msg), "its $Entities section holds fewer entities than its counts say (line %ld)", lineno));
        if (msg[0]) break;
        if (sec == ENTITIES) PetscCall(PetscSortRemoveDupsInt(&nents, ents)); /* searched by every entity block */
        sec = NONE;
        continue;
      }
      sec = !strncmp(line, "$Entities", 9) ? ENTITIES : (!strncmp(line, "$PhysicalNames", 14) ? PHYSICAL : (!strncmp(line, "$Nodes", 6) ? NODES : (!strncmp(line, "$Elements", 9) ? ELEMENTS : NONE)));
      if (sec == ELEMENTS) PetscCall(PetscSortRemoveDupsInt(&ntags, tags)); /* PETSc reports repeated tags itself */
      if (sec == ENTITIES && nents) PetscCall(PetscSNPrintf(msg, sizeof(msg), "it has two $Entities sections (line %ld)", lineno));
      header = (PetscBool)(sec != NONE);
      blocks = blocksSeen = count = seen = blockLeft = tagsLeft = coordsLeft = 0;
      continue;
    }
    if (sec == NONE) continue;
    if (header) { /* the section's count line */
      long a[4];
      int  n = sscanf(line, "%ld %ld %ld %ld", &a[0], &a[1], &a[2], &a[3]);

      header = PETSC_FALSE;
      if (sec == ENTITIES) {
        if (n != 4 || a[0] < 0 || a[1] < 0 || a[2] < 0 || a[3] < 0) PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld does not give the counts of its $Entities section", lineno));
        for (int d = 0; d < 4; d++) entLeft[d] = a[d];
        entDim = 0;
      } else if (!v4 || sec == PHYSICAL) {
        if (n < 1 || a[0] < 0) PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld does not give the count of its %s section", lineno, sec == PHYSICAL ? "$PhysicalNames" : what));
        count = a[0];
      } else {
        if (n != 4 || a[0] < 0 || a[1] < 0 || a[2] > a[3]) PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld does not give the block count, entry count and tag range of its %s section", lineno, what));
        blocks = a[0];
        count  = a[1];
        minTag = a[2];
        maxTag = a[3];
      }
      continue;
    }
    if (sec == ENTITIES) { /* 4.1: one line per entity, its tag first, points before curves, surfaces, volumes */
      long tag;

      while (entDim < 4 && !entLeft[entDim]) entDim++;
      tag = strtol(line, &q, 10);
      if (entDim == 4 || q == line) PetscCall(PetscSNPrintf(msg, sizeof(msg), "its $Entities section holds more lines than its counts say (line %ld)", lineno));
      else {
        PetscCall(FEGPush((PetscInt)(4 * tag + entDim), &ents, &nents, &maxents));
        entLeft[entDim]--;
      }
      continue;
    }
    if (sec == PHYSICAL) { /* dimension, tag, "name" */
      char *open = strchr(line, '"'), *close = open ? strchr(open + 1, '"') : NULL;
      long  d, t;

      seen++;
      if (sscanf(line, "%ld %ld", &d, &t) != 2 || !close) PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld of its $PhysicalNames section is not a dimension, a tag and a quoted name", lineno));
      continue;
    }
    if (v4 && !blockLeft && !tagsLeft && !coordsLeft) { /* 4.1: an entity block's header: dim, tag, parametric or type, count */
      long     a[4];
      PetscInt loc = 0;

      if (sscanf(line, "%ld %ld %ld %ld", &a[0], &a[1], &a[2], &a[3]) != 4 || a[3] < 0 || a[0] < 0 || a[0] > 3) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld is not the header of an entity block (a dimension 0 to 3, a tag, %s, a count)", lineno, sec == NODES ? "parametric 0 or 1" : "a type"));
        break;
      }
      if (++blocksSeen > blocks) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "its %s section holds more entity blocks than the %ld it promises (line %ld)", what, blocks, lineno));
        break;
      }
      if (nents) PetscCall(PetscFindInt((PetscInt)(4 * a[1] + a[0]), nents, ents, &loc));
      if (loc < 0) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "the entity block of line %ld names entity %ld of dimension %ld, which the $Entities section does not hold", lineno, a[1], a[0]));
        break;
      }
      if (sec == NODES) tagsLeft = coordsLeft = a[3];
      else {
        blockLeft = a[3];
        type      = a[2];
      }
      continue;
    }
    p = line;
    if (sec == NODES) {
      long tag;

      if (v4 && !tagsLeft) { /* a coordinate line of a 4.1 block: x y z (and parametric coordinates) */
        double x[3];

        coordsLeft--;
        if (sscanf(p, "%lf %lf %lf", &x[0], &x[1], &x[2]) != 3) {
          PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld of its $Nodes section does not give three coordinates", lineno));
          break;
        }
        continue;
      }
      if (!v4) { /* 2.2: tag x y z */
        double x[3];
        long   t;
        char   extra[2];

        if (sscanf(p, "%ld %lf %lf %lf %1s", &t, &x[0], &x[1], &x[2], extra) != 4) {
          PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld of its $Nodes section is not a node number and three coordinates", lineno));
          break;
        }
      }
      tag = strtol(p, &q, 10);
      if (q == p) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld of its $Nodes section does not start with a node number", lineno));
        break;
      }
      if (v4 && (tag < minTag || tag > maxTag)) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "node %ld (line %ld) is outside the tag range %ld to %ld its $Nodes section gives", tag, lineno, minTag, maxTag));
        break;
      }
      PetscCall(FEGPush((PetscInt)tag, &tags, &ntags, &maxtags));
      seen++;
      if (v4) tagsLeft--;
      continue;
    }
    /* an element: 2.2 "tag type ntags tags... nodes...", 4.1 "tag nodes..." (the type is the block's) */
    {
      long etag = strtol(p, &q, 10), nt = 0;

      if (q == p) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "line %ld of its $Elements section does not start with an element number", lineno));
        break;
      }
      p = q;
      seen++;
      if (v4 && (etag < minTag || etag > maxTag)) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "element %ld (line %ld) is outside the tag range %ld to %ld its $Elements section gives", etag, lineno, minTag, maxTag));
        break;
      }
      if (!v4) {
        type = strtol(p, &q, 10);
        p    = q;
        nt   = strtol(p, &q, 10);
        p    = q;
        for (long t = 0; t < nt; t++) {
          (void)strtol(p, &q, 10);
          p = q;
        }
      } else blockLeft--;
      for (;;) {
        long     node = strtol(p, &q, 10);
        PetscInt loc;

        if (q == p) break;
        p = q;
        PetscCall(FEGPush((PetscInt)node, &enodes, &nenodes, &maxenodes));
        PetscCall(PetscFindInt((PetscInt)node, ntags, tags, &loc));
        if (loc < 0) {
          PetscCall(PetscSNPrintf(msg, sizeof(msg), "element %ld (line %ld) names node %ld, which the $Nodes section does not hold", etag, lineno, node));
          break;
        }
      }
      /* a cell that names a node twice reads, and breaks the topology built on it */
      if (!msg[0]) {
        const PetscInt nn = nenodes;

        PetscCall(PetscSortRemoveDupsInt(&nenodes, enodes));
        if (nenodes != nn) PetscCall(PetscSNPrintf(msg, sizeof(msg), "element %ld (line %ld) names a node more than once", etag, lineno));
        else if (FEGGmshTypeNodes(type) && nn != FEGGmshTypeNodes(type))
          PetscCall(PetscSNPrintf(msg, sizeof(msg), "element %ld (line %ld) of Gmsh type %ld names %" PetscInt_FMT " nodes, but that type has %d", etag, lineno, type, nn, FEGGmshTypeNodes(type)));
      }
      nenodes = 0;
    }
  }
  if (!msg[0] && sec != NONE) PetscCall(PetscSNPrintf(msg, sizeof(msg), "the file ends inside a section"));
  PetscCall(PetscFree(line));
  PetscCall(PetscFree(tags));
  PetscCall(PetscFree(ents));
  PetscCall(PetscFree(enodes));
  if (msg[0]) PetscCall(PetscStrallocpy(msg, problem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What is wrong with a Gmsh file that PETSc's reader would stop on without naming the file, or crash, hang or read
   wrongly on (first process, which is the one PETSc reads with): NULL if nothing, else an allocated sentence. The
   header and the last line first; then, for ASCII files, the whole file once (FEGGmshCheckCells()). */
static PetscErrorCode FEGGmshCheckFile(const char file[], char **problem)
{
  FILE  *fp;
  char   line[256], tail[257];
  double version;
  int    type, dsize;
  long   size, n;

  PetscFunctionBegin;
  *problem = NULL;
  fp       = fopen(file, "rb");
  if (!fp) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc's open names the file */
  if (fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) size = -1;
  if (size == 0) PetscCall(PetscStrallocpy("the file is empty", problem));
  else if (!fgets(line, sizeof(line), fp) || strncmp(line, "$MeshFormat", 11)) PetscCall(PetscStrallocpy("it is not a Gmsh file: its first line is not $MeshFormat", problem));
  else if (!fgets(line, sizeof(line), fp) || sscanf(line, "%lf %d %d", &version, &type, &dsize) != 3) PetscCall(PetscStrallocpy("its $MeshFormat section does not give a version, a file type and a data size", problem));
  else if (PetscAbsReal(version - 2.2) > 1e-9 && PetscAbsReal(version - 4.1) > 1e-9) {
    char msg[160];

    PetscCall(PetscSNPrintf(msg, sizeof(msg), "Gmsh format version %.1f is not supported: PETSc reads versions 2.2 and 4.1 (gmsh -format msh22 or msh41)", version));
    PetscCall(PetscStrallocpy(msg, problem));
  } else if (size > 0) {
    /* a complete file ends with the $End line of its last section */
    n = size < 256 ? size : 256;
    if (!fseek(fp, size - n, SEEK_SET) && (long)fread(tail, 1, (size_t)n, fp) == n) {
      char *last;

      tail[n] = 0;
      while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' ' || tail[n - 1] == '\t' || tail[n - 1] == 0)) tail[--n] = 0;
      last = strrchr(tail, '\n');
      last = last ? last + 1 : tail;
      if (strncmp(last, "$End", 4)) PetscCall(PetscStrallocpy("the file is cut short: its last line is not the $End line of a section", problem));
    }
    if (!*problem && type == 0) PetscCall(FEGGmshCheckCells(fp, (PetscBool)(version > 3.0), problem));
  }
  (void)fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Catches the first error's code and message of a call, so that the caller can say which file it was reading */
typedef struct {
  PetscErrorCode code;
  char          *msg;
} FEGCaught;

static PetscErrorCode FEGCatchError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  FEGCaught *c = (FEGCaught *)ctx;

  if (p == PETSC_ERROR_INITIAL && !c->msg) {
    c->code = n;
    if (PetscStrallocpy(mess ? mess : "", &c->msg)) c->msg = NULL;
  }
  return n;
}

/* PETSc's reading of the file, its topology checked before anything is built on it, and fegpu's repairs */
static PetscErrorCode FEGMeshReadFileChecked(MPI_Comm comm, const char file[], PetscBool msh, DM *dm)
{
  PetscFunctionBegin;
  PetscCall(DMPlexCreateFromFile(comm, file, "fegpu", PETSC_TRUE, dm));
  /* what a corrupt cell list can still give: supports that do not match cones, cells with too few vertices (PETSc's
     DMPlexCheckFaces() as well would double the cost of the read and caught nothing more in the fuzz test's cases) */
  PetscCall(PetscLogEventBegin(FEG_MeshFileCheck, *dm, 0, 0, 0));
  PetscCall(DMPlexCheckSymmetry(*dm));
  PetscCall(DMPlexCheckSkeleton(*dm, 0));
  PetscCall(PetscLogEventEnd(FEG_MeshFileCheck, *dm, 0, 0, 0));
  if (msh) PetscCall(FEGGmshRepairHighOrder(*dm, file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads a mesh file with PETSc, repairing what fegpu knows to be wrong in PETSc's reading of it; every error names the
   file and says what is wrong with it */
PetscErrorCode FEGMeshReadFile_Private(MPI_Comm comm, const char file[], DM *dm)
{
  size_t         len;
  PetscBool      msh = PETSC_FALSE;
  PetscMPIInt    rank;
  char          *problem = NULL;
  int            plen    = 0;
  FEGCaught      caught  = {PETSC_SUCCESS, NULL};
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(file, &len));
  if (len > 4) PetscCall(PetscStrcmp(file + len - 4, ".msh", &msh));
  if (len > 3) {
    PetscBool h5;

    PetscCall(PetscStrcmp(file + len - 3, ".h5", &h5));
    PetscCheck(!h5 || PetscDefined(HAVE_HDF5), comm, PETSC_ERR_SUP, "The mesh file %s is HDF5, but this PETSc was built without HDF5: configure PETSc --download-hdf5, or use a Gmsh file", file);
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (msh) {
    /* what the first process finds, every process reports */
    PetscCall(PetscLogEventBegin(FEG_MeshFileCheck, 0, 0, 0, 0));
    if (rank == 0) PetscCall(FEGGmshCheckFile(file, &problem));
    PetscCall(PetscLogEventEnd(FEG_MeshFileCheck, 0, 0, 0, 0));
    if (problem) plen = (int)strlen(problem) + 1;
    PetscCallMPI(MPI_Bcast(&plen, 1, MPI_INT, 0, comm));
    if (plen && rank) PetscCall(PetscMalloc1(plen, &problem));
    if (plen) PetscCallMPI(MPI_Bcast(problem, plen, MPI_CHAR, 0, comm));
    PetscCheck(!plen, comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot read the mesh file %s: %s", file, problem);
  }
  PetscCall(PetscPushErrorHandler(FEGCatchError, &caught));
  ierr = FEGMeshReadFileChecked(comm, file, msh, dm);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *what = caught.msg ? caught.msg : "(no message)";
    PetscBool   cut, bad, open;

    PetscCall(PetscStrbeginswith(what, "Insufficient data", &cut));
    PetscCall(PetscStrbeginswith(what, "Conversion error", &bad));
    open = (PetscBool)(ierr == PETSC_ERR_FILE_OPEN);
    /* caught.msg is lost with the error, as the objects of a failed PETSc call are */
    SETERRQ(comm, ierr, "Cannot %s the mesh file %s: %s%s%s", open ? "open" : "read", file, cut ? "it ends early or a section holds fewer entries than its count says (" : (bad ? "a number in it cannot be read (" : ""), what, cut || bad ? ")" : "");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Distributes a mesh over its communicator with the partitioner the options ask for (-petscpartitioner_type, with the
   given prefix): fegpu's "metis" among them, once the package is initialised. The mesh is not renumbered: the
   operators apply the cells that touch a ghost point last by their own element order (FEGDMSetElementOrder()) */
PetscErrorCode FEGMeshDistribute_Private(DM *dm, const char prefix[])
{
  PetscPartitioner part;
  PetscMPIInt      size;
  DM               dmDist = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)*dm), &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FEGInitializePackage());
  PetscCall(DMPlexGetPartitioner(*dm, &part));
  if (prefix) PetscCall(PetscObjectSetOptionsPrefix((PetscObject)part, prefix));
  PetscCall(PetscPartitionerSetFromOptions(part));
  PetscCall(DMPlexDistribute(*dm, 0, NULL, &dmDist));
  if (dmDist) {
    PetscCall(DMDestroy(dm));
    *dm = dmDist;
  }
  /* distributed once: DMSetFromOptions() must not partition it again (it would by default) */
  PetscCall(DMPlexDistributeSetDefault(*dm, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
