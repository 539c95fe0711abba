#include <fegpu/private/fegimpl.h>

static PetscErrorCode FEGCheckCellAndOrder(MPI_Comm comm, PetscInt dim, DMPolytopeType ct, PetscInt order)
{
  PetscFunctionBegin;
  PetscCheck(order >= 1 && order <= 8, comm, PETSC_ERR_ARG_OUTOFRANGE, "Polynomial order %" PetscInt_FMT " is not supported: fegpu supports orders 1 to 8", order);
  switch (ct) {
  case DM_POLYTOPE_TRIANGLE:
  case DM_POLYTOPE_QUADRILATERAL:
    PetscCheck(dim == 2, comm, PETSC_ERR_ARG_WRONG, "Cell type %s needs dimension 2, not %" PetscInt_FMT, DMPolytopeTypes[ct], dim);
    break;
  case DM_POLYTOPE_TETRAHEDRON:
  case DM_POLYTOPE_HEXAHEDRON:
  case DM_POLYTOPE_TRI_PRISM:
    PetscCheck(dim == 3, comm, PETSC_ERR_ARG_WRONG, "Cell type %s needs dimension 3, not %" PetscInt_FMT, DMPolytopeTypes[ct], dim);
    break;
  default:
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "Cell type %s is not supported: fegpu supports triangle, quadrilateral, tetrahedron, hexahedron and triangular_prism", DMPolytopeTypes[ct]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateQuadrature - the quadrature fegpu uses for order-p elements: exact for products of two shape functions on
  affine cells (Witherden-Vincent rules of degree 2p on simplices where PETSc has them, p+1 Gauss points per direction
  on quadrilaterals and hexahedra, and their tensor product on prisms, giving N_Q = 6, 18, 48, 80, 150, 231, 336 for
  p = 1..7 as in Table 1 of Kruzel, Banas and Nytko)

  Not Collective

  Input Parameters:
+ dim   - dimension
. ct    - cell type
- order - polynomial order p of the elements

  Output Parameter:
. q - the quadrature

  Level: intermediate
@*/
PetscErrorCode FEGCreateQuadrature(PetscInt dim, DMPolytopeType ct, PetscInt order, PetscQuadrature *q)
{
  PetscFunctionBegin;
  FEGAssertPointer(q, 4);
  PetscCall(FEGCheckCellAndOrder(PETSC_COMM_SELF, dim, ct, order));
  switch (ct) {
  case DM_POLYTOPE_TRIANGLE:
  case DM_POLYTOPE_TETRAHEDRON:
    PetscCall(PetscDTSimplexQuadrature(dim, 2 * order, PETSCDTSIMPLEXQUAD_DEFAULT, q));
    break;
  case DM_POLYTOPE_QUADRILATERAL:
  case DM_POLYTOPE_HEXAHEDRON:
    PetscCall(PetscDTGaussTensorQuadrature(dim, 1, order + 1, -1.0, 1.0, q));
    break;
  case DM_POLYTOPE_TRI_PRISM: {
    PetscQuadrature qt, ql;

    PetscCall(PetscDTSimplexQuadrature(2, 2 * order, PETSCDTSIMPLEXQUAD_DEFAULT, &qt));
    PetscCall(PetscDTGaussTensorQuadrature(1, 1, order + 1, -1.0, 1.0, &ql));
    /* the tensor product insists on equal recorded orders; both are exact to degree 2p at least */
    PetscCall(PetscQuadratureSetOrder(qt, 2 * order));
    PetscCall(PetscQuadratureSetOrder(ql, 2 * order));
    PetscCall(PetscDTTensorQuadratureCreate(qt, ql, q));
    PetscCall(PetscQuadratureDestroy(&qt));
    PetscCall(PetscQuadratureDestroy(&ql));
  } break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateFE - creates a scalar Lagrange PetscFE of the given order on a cell type, continuous or discontinuous, with
  fegpu's quadrature (FEGCreateQuadrature())

  Collective

  Input Parameters:
+ comm       - communicator
. dim        - dimension
. ct         - cell type
. order      - polynomial order, 1 to 8
- continuous - PETSC_FALSE for discontinuous Lagrange (all dofs interior to the cell)

  Output Parameter:
. fe - the element

  Level: beginner
@*/
PetscErrorCode FEGCreateFE(MPI_Comm comm, PetscInt dim, DMPolytopeType ct, PetscInt order, PetscBool continuous, PetscFE *fe)
{
  PetscQuadrature q;

  PetscFunctionBegin;
  FEGAssertPointer(fe, 6);
  PetscCall(FEGCheckCellAndOrder(comm, dim, ct, order));
  PetscCheck(!(continuous && ct == DM_POLYTOPE_TRI_PRISM && order > 1), comm, PETSC_ERR_SUP,
             "Continuous Lagrange prisms of order %" PetscInt_FMT " are not available: PETSc (3.18 to 3.22) builds sections per depth and gives the quadrilateral faces of a prism no dofs, so the space would not be conforming; use discontinuous Lagrange or order 1", order);
  PetscCall(PetscFECreateLagrangeByCell(comm, dim, 1, ct, order, PETSC_DETERMINE, fe));
  if (!continuous) {
    PetscFE         dg;
    PetscSpace      P;
    PetscDualSpace  Q, Qdg;
    PetscQuadrature fq;

    PetscCall(PetscFEGetBasisSpace(*fe, &P));
    PetscCall(PetscFEGetDualSpace(*fe, &Q));
    PetscCall(PetscDualSpaceDuplicate(Q, &Qdg));
    PetscCall(PetscDualSpaceLagrangeSetContinuity(Qdg, PETSC_FALSE));
    PetscCall(PetscDualSpaceSetUp(Qdg));
    PetscCall(PetscFECreate(comm, &dg));
    PetscCall(PetscFESetType(dg, PETSCFEBASIC));
    PetscCall(PetscFESetNumComponents(dg, 1));
    PetscCall(PetscFESetBasisSpace(dg, P));
    PetscCall(PetscFESetDualSpace(dg, Qdg));
    PetscCall(PetscFESetUp(dg));
    PetscCall(PetscFEGetFaceQuadrature(*fe, &fq));
    PetscCall(PetscFESetFaceQuadrature(dg, fq));
    PetscCall(PetscDualSpaceDestroy(&Qdg));
    PetscCall(PetscFEDestroy(fe));
    *fe = dg;
  }
  PetscCall(FEGCreateQuadrature(dim, ct, order, &q));
  PetscCall(PetscFESetQuadrature(*fe, q));
  PetscCall(PetscQuadratureDestroy(&q));
  PetscCall(PetscObjectSetName((PetscObject)*fe, continuous ? "P" : "DP"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGSetUpDiscretization - gives a DMPlex one scalar Lagrange field of the given order (FEGCreateFE()) and creates its PetscDS

  Collective

  Input Parameters:
+ dm         - a DMPlex with one cell type
. order      - polynomial order, 1 to 8
. continuous - PETSC_FALSE for discontinuous Lagrange
- name       - the field's name, or NULL

  Level: beginner
@*/
PetscErrorCode FEGSetUpDiscretization(DM dm, PetscInt order, PetscBool continuous, const char name[])
{
  PetscFE        fe;
  PetscInt       dim, cStart, cEnd;
  DMPolytopeType ct = DM_POLYTOPE_UNKNOWN, ctg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  if (cEnd > cStart) PetscCall(DMPlexGetCellType(dm, cStart, &ct));
  /* ranks without cells still need the cell type */
  PetscCall(MPIU_Allreduce(&ct, &ctg, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)dm)));
  PetscCall(FEGCreateFE(PetscObjectComm((PetscObject)dm), dim, ctg, order, continuous, &fe));
  if (name) PetscCall(PetscObjectSetName((PetscObject)fe, name));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(PetscFEDestroy(&fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}
