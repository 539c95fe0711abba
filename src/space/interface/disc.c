#include <fegpu/private/fegimpl.h>

/* Reads everything an operator needs from the DM's PetscFE field, section and coordinate field */
PetscErrorCode FEGDiscCreate(DM dm, FEGDisc *disc)
{
  PetscInt        Nf, Nc, cdim, n;
  PetscObject     obj;
  PetscClassId    id;
  PetscBool       isplex;
  PetscQuadrature quad;
  PetscSpace      P;
  PetscDualSpace  Q;
  DMField         cf;
  PetscSection    lsec, gsec;
  MPI_Comm        comm = PetscObjectComm((PetscObject)dm);

  PetscFunctionBegin;
  PetscCall(PetscMemzero(disc, sizeof(*disc)));
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isplex, comm, PETSC_ERR_ARG_WRONG, "fegpu needs a DMPlex, not a %s", ((PetscObject)dm)->type_name);
  PetscCall(PetscLogEventBegin(FEG_Setup, dm, 0, 0, 0));
  disc->dm = dm;
  PetscCall(DMGetDimension(dm, &disc->dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(cdim == disc->dim, comm, PETSC_ERR_SUP, "Coordinate dimension %" PetscInt_FMT " differs from the mesh dimension %" PetscInt_FMT ": manifolds are not supported", cdim, disc->dim);
  PetscCall(DMGetNumFields(dm, &Nf));
  PetscCheck(Nf == 1, comm, PETSC_ERR_ARG_WRONG, "The DM has %" PetscInt_FMT " fields; fegpu needs exactly one scalar PetscFE field (FEGSetUpDiscretization() or DMSetField() and DMCreateDS())", Nf);
  PetscCall(DMGetField(dm, 0, NULL, &obj));
  PetscCall(PetscObjectGetClassId(obj, &id));
  PetscCheck(id == PETSCFE_CLASSID, comm, PETSC_ERR_ARG_WRONG, "The DM's field is not a PetscFE");
  disc->fe = (PetscFE)obj;
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
    PetscCall(MPIU_Allreduce(&ct, &ctg, 1, MPI_INT, MPI_MIN, comm));
    PetscCheck(ctg == DM_POLYTOPE_TRIANGLE || ctg == DM_POLYTOPE_QUADRILATERAL || ctg == DM_POLYTOPE_TETRAHEDRON || ctg == DM_POLYTOPE_HEXAHEDRON || ctg == DM_POLYTOPE_TRI_PRISM, comm, PETSC_ERR_SUP, "Cell type %s is not supported: fegpu supports triangle, quadrilateral, tetrahedron, hexahedron and triangular_prism", DMPolytopeTypes[ctg]);
    disc->ct = ctg;
  }

  PetscCall(ISCreateStride(PETSC_COMM_SELF, disc->Ne, disc->cStart, 1, &disc->cellIS));
  PetscCall(DMGetCoordinateField(dm, &cf));
  if (disc->Ne) {
    const PetscInt Np = disc->Nq;

    PetscCall(DMFieldCreateFEGeom(cf, disc->cellIS, quad, PETSC_FALSE, &disc->geom));
    PetscCheck(disc->geom->numPoints == 1 || disc->geom->numPoints == Np, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Geometry has %" PetscInt_FMT " points, expected 1 or %" PetscInt_FMT, disc->geom->numPoints, Np);
    for (PetscInt i = 0; i < disc->Ne * disc->geom->numPoints; i++)
      PetscCheck(disc->geom->detJ[i] > 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Cell %" PetscInt_FMT " has Jacobian determinant %g <= 0 at a quadrature point: the mesh has an inverted or degenerate cell", disc->cStart + i / disc->geom->numPoints, (double)disc->geom->detJ[i]);
    /* quadrature points in real space, for pointwise coefficients */
    PetscCall(PetscMalloc1(disc->Ne * Np * disc->dim, &disc->xq));
    PetscCall(DMFieldEvaluateFE(cf, disc->cellIS, quad, PETSC_REAL, disc->xq, NULL, NULL));
  }

  PetscCall(DMGetLocalSection(dm, &lsec));
  PetscCall(DMGetGlobalSection(dm, &gsec));
  PetscCall(PetscSectionGetStorageSize(lsec, &disc->nlocal));
  PetscCall(PetscSectionGetConstrainedStorageSize(gsec, &disc->nglobal));
  PetscCall(PetscMalloc1(disc->Ne * disc->Nb, &disc->lidx));
  for (PetscInt e = 0; e < disc->Ne; e++) {
    PetscInt *idx = NULL;

    PetscCall(DMPlexGetClosureIndices(dm, lsec, lsec, disc->cStart + e, PETSC_TRUE, &n, &idx, NULL, NULL));
    PetscCheck(n == disc->Nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cell %" PetscInt_FMT " has %" PetscInt_FMT " closure dofs but the element has %" PetscInt_FMT, disc->cStart + e, n, disc->Nb);
    /* constrained dofs come back as -(offset+1); the local vector keeps them, DMLocalToGlobal drops them */
    for (PetscInt i = 0; i < n; i++) disc->lidx[e * disc->Nb + i] = idx[i] >= 0 ? idx[i] : -(idx[i] + 1);
    PetscCall(DMPlexRestoreClosureIndices(dm, lsec, lsec, disc->cStart + e, PETSC_TRUE, &n, &idx, NULL, NULL));
  }
  disc->bytes = (PetscLogDouble)disc->Ne * disc->Nb * sizeof(PetscInt);
  if (disc->geom) disc->bytes += (PetscLogDouble)disc->Ne * disc->geom->numPoints * (2 * disc->dim * disc->dim + 1) * sizeof(PetscReal);
  PetscCall(PetscLogEventEnd(FEG_Setup, dm, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGDiscDestroy(FEGDisc *disc)
{
  PetscFunctionBegin;
  if (disc->geom) PetscCall(PetscFEGeomDestroy(&disc->geom));
  PetscCall(ISDestroy(&disc->cellIS));
  PetscCall(PetscFree(disc->lidx));
  PetscCall(PetscFree(disc->xq));
  PetscFunctionReturn(PETSC_SUCCESS);
}
