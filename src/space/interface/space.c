#include <fegpu/private/fegimpl.h>

/* the table's entry for a cell type, after checking the dimension and the order */
static PetscErrorCode FEGCheckCellAndOrder(MPI_Comm comm, PetscInt dim, DMPolytopeType ct, PetscInt order, const FEGCellInfo **cell)
{
  PetscFunctionBegin;
  PetscCheck(order >= 1 && order <= 8, comm, PETSC_ERR_ARG_OUTOFRANGE, "Polynomial order %" PetscInt_FMT " is not supported: fegpu supports orders 1 to 8", order);
  PetscCall(FEGCellInfoGet(comm, ct, cell));
  PetscCheck(dim == (*cell)->dim, comm, PETSC_ERR_ARG_WRONG, "Cell type %s needs dimension %" PetscInt_FMT ", not %" PetscInt_FMT, DMPolytopeTypes[ct], (*cell)->dim, dim);
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
  const FEGCellInfo *cell;

  PetscFunctionBegin;
  FEGAssertPointer(q, 4);
  PetscCall(FEGCheckCellAndOrder(PETSC_COMM_SELF, dim, ct, order, &cell));
  PetscCall((*cell->quadrature)(dim, order, q));
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
  PetscQuadrature    q;
  const FEGCellInfo *cell;

  PetscFunctionBegin;
  FEGAssertPointer(fe, 6);
  PetscCall(FEGCheckCellAndOrder(comm, dim, ct, order, &cell));
  PetscCheck(!continuous || order <= cell->maxCont, comm, PETSC_ERR_SUP, "Continuous Lagrange %s of order %" PetscInt_FMT " are not available: %s; use discontinuous Lagrange or order %" PetscInt_FMT, cell->plural, order, cell->whyCont, cell->maxCont);
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
  PetscBool      ondevice;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(FEGDMIsOnDevice(dm, &ondevice)); /* CUDA vectors asked of a build without CUDA: a clear error, early */
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
