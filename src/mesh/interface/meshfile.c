/* Mesh files. PETSc's Gmsh reader (3.18 to at least 3.22) stores a high-order cell's coordinate nodes in the order of
   Gmsh's vertex list, but reorders the cell's vertices (tetrahedra and prisms are inverted to PETSc's orientation and
   interpolation builds the closure from faces). The coordinate map then parametrises the cell with its vertices in a
   different order from the field's closure: the geometry (volumes, operators) is right but every field is evaluated at
   rotated points, so DMProjectFunction(), boundary values and L2 errors are wrong on curved tetrahedra and prisms.
   fegpu reads the file once more with straight cells, whose vertex coordinates sit on the vertices, finds each cell's
   vertex permutation by matching positions, and permutes the cell's coordinate nodes to the closure's order. */
#include <fegpu/private/fegmeshimpl.h>

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
  PetscCall(PetscOptionsPush(opts));
  PetscCall(DMPlexCreateFromFile(comm, file, "fegpu", PETSC_TRUE, &dms));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
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

/* Reads a mesh file with PETSc, repairing what fegpu knows to be wrong in PETSc's reading of it */
PetscErrorCode FEGMeshReadFile_Private(MPI_Comm comm, const char file[], DM *dm)
{
  size_t    len;
  PetscBool msh = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(DMPlexCreateFromFile(comm, file, "fegpu", PETSC_TRUE, dm));
  PetscCall(PetscStrlen(file, &len));
  if (len > 4) PetscCall(PetscStrcmp(file + len - 4, ".msh", &msh));
  if (msh) PetscCall(FEGGmshRepairHighOrder(*dm, file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Distributes a mesh over its communicator with the partitioner the options ask for (-petscpartitioner_type, with the
   given prefix): fegpu's "metis" among them, once the package is initialised; with ghostLast each process's cells that
   touch a ghost point then go last (FEGMeshReorder() none; a caller that reorders afterwards gets that from its own
   reordering) */
PetscErrorCode FEGMeshDistribute_Private(DM *dm, const char prefix[], PetscBool ghostLast)
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
  /* the cells that touch a ghost point last: the GPU operators apply the others while the halo moves */
  if (ghostLast) {
    PetscCall(FEGMeshReorder(*dm, FEG_REORDER_NONE, &dmDist));
    PetscCall(DMDestroy(dm));
    *dm = dmDist;
  }
  /* distributed once: DMSetFromOptions() must not partition it again (it would by default) */
  PetscCall(DMPlexDistributeSetDefault(*dm, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
