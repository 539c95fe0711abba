#include <fegpu/private/fegspaceimpl.h>

/* the table's entry for a cell type, after checking the dimension and the order */
static PetscErrorCode FEGCheckCellAndOrder(MPI_Comm comm, PetscInt dim, DMPolytopeType ct, PetscInt order, const FEGCellInfo **cell)
{
  PetscFunctionBegin;
  PetscCheck(order >= 1 && order <= 8, comm, PETSC_ERR_ARG_OUTOFRANGE, "Polynomial order %" PetscInt_FMT " is not supported: fegpu supports orders 1 to 8", order);
  PetscCall(FEGCellInfoGet(comm, ct, cell));
  PetscCheck(dim == (*cell)->dim, comm, PETSC_ERR_ARG_WRONG, "Cell type %s needs dimension %" PetscInt_FMT ", not %" PetscInt_FMT, DMPolytopeTypes[ct], (*cell)->dim, dim);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tabulation of tensor-product Lagrange elements (quadrilaterals, hexahedra) from their 1D factors. PETSc's
   PetscFECreateTabulation_Basic() multiplies the prime basis by the inverse Vandermonde matrix, a dense product of
   (points x Nb) by (Nb x Nb) per derivative. Each basis function is the product of the 1D Lagrange polynomials through
   its node's coordinates, which is what PETSc computes, in O(points x Nb x dim): a Q8 hexahedron at its quadrature
   points 80-100x faster than PetscFECreateTabulation() (share/bench/bench_plex, share/doc/performance.md;
   test_space's test_tensor_tabulation checks it against PETSc's). */
typedef struct {
  PetscInt  dim, n; /* n = p + 1 nodes per direction */
  PetscReal x[16];  /* the 1D nodes, increasing */
  PetscInt *ix;     /* ix[b dim + d]: the index along d of basis function b's node */
  PetscErrorCode (*orig)(PetscFE, PetscInt, const PetscReal *, PetscInt, PetscTabulation);
} FEGTensorBasis;

static PetscErrorCode FEGTensorBasisDestroy(void *ctx)
{
  FEGTensorBasis *tb = (FEGTensorBasis *)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree(tb->ix));
  PetscCall(PetscFree(tb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGTensorTabulation(PetscFE fe, PetscInt npoints, const PetscReal points[], PetscInt K, PetscTabulation T)
{
  PetscContainer  c;
  FEGTensorBasis *tb;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)fe, "FEGTensorBasis", (PetscObject *)&c));
  PetscCheck(c, PetscObjectComm((PetscObject)fe), PETSC_ERR_PLIB, "A tensor element without its 1D factors");
  PetscCall(PetscContainerGetPointer(c, (void **)&tb));
  if (K > 2 || T->Nc != 1 || T->cdim != tb->dim) {
    PetscCall((*tb->orig)(fe, npoints, points, K, T));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    const PetscInt dim = tb->dim, n = tb->n, Nb = T->Nb;
    PetscReal      L[3][16][3];

    for (PetscInt p = 0; p < npoints; p++) {
      for (PetscInt d = 0; d < dim; d++)
        for (PetscInt i = 0; i < n; i++) FEGLagrange1D(n, tb->x, i, points[p * dim + d], L[d][i]);
      for (PetscInt b = 0; b < Nb; b++) {
        const PetscInt *ix = tb->ix + b * dim;
        PetscReal       v  = 1.0;

        for (PetscInt d = 0; d < dim; d++) v *= L[d][ix[d]][0];
        T->T[0][p * Nb + b] = v;
        if (K >= 1)
          for (PetscInt d = 0; d < dim; d++) {
            PetscReal g = 1.0;

            for (PetscInt e = 0; e < dim; e++) g *= L[e][ix[e]][e == d ? 1 : 0];
            T->T[1][(p * Nb + b) * dim + d] = g;
          }
        if (K >= 2)
          for (PetscInt d = 0; d < dim; d++)
            for (PetscInt f = 0; f < dim; f++) {
              PetscReal h = 1.0;

              for (PetscInt e = 0; e < dim; e++) h *= L[e][ix[e]][(e == d) + (e == f)];
              T->T[2][((p * Nb + b) * dim + d) * dim + f] = h;
            }
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGTensorNodes - the 1D nodes of a quadrilateral or hexahedral element whose functionals are point evaluations on a
  tensor grid: the n distinct node coordinates, sorted, and the index along each direction of each basis function's
  node; *ok = PETSC_FALSE (nothing else set) if the element is not such

  Not Collective

  Input Parameters:
+ Q   - the element's dual space
. dim - 2 or 3
- n   - nodes per direction (order + 1), at most 16

  Output Parameters:
+ nodes - nodes[0..n-1]
. ix    - ix[b dim + d], the index in nodes of basis function b's node coordinate d (n^dim x dim entries)
- ok    - whether the element is a tensor grid of n nodes per direction

  Level: developer
@*/
PetscErrorCode FEGTensorNodes(PetscDualSpace Q, PetscInt dim, PetscInt n, PetscReal nodes[], PetscInt ix[], PetscBool *ok)
{
  PetscInt Nb, nx = 0;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(PetscDualSpaceGetDimension(Q, &Nb));
  if (Nb != (dim == 2 ? n * n : n * n * n) || n > 16) PetscFunctionReturn(PETSC_SUCCESS);
  /* the distinct node coordinates (the same along every direction) */
  for (PetscInt b = 0; b < Nb; b++) {
    PetscQuadrature  f;
    const PetscReal *pt;
    PetscInt         np, nc;

    PetscCall(PetscDualSpaceGetFunctional(Q, b, &f));
    PetscCall(PetscQuadratureGetData(f, NULL, &nc, &np, &pt, NULL));
    if (np != 1 || nc != 1) PetscFunctionReturn(PETSC_SUCCESS);
    for (PetscInt d = 0; d < dim; d++) {
      PetscInt k = 0;

      while (k < nx && PetscAbsReal(nodes[k] - pt[d]) > 1e-12) k++;
      if (k == nx) {
        if (nx == n) PetscFunctionReturn(PETSC_SUCCESS);
        nodes[nx++] = pt[d];
      }
    }
  }
  if (nx != n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSortReal(n, nodes));
  for (PetscInt b = 0; b < Nb; b++) {
    PetscQuadrature  f;
    const PetscReal *pt;

    PetscCall(PetscDualSpaceGetFunctional(Q, b, &f));
    PetscCall(PetscQuadratureGetData(f, NULL, NULL, NULL, &pt, NULL));
    for (PetscInt d = 0; d < dim; d++) {
      PetscInt k = 0;

      while (PetscAbsReal(nodes[k] - pt[d]) > 1e-12) k++;
      ix[b * dim + d] = k;
    }
  }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fe tabulates through FEGTensorTabulation() if its dual space is point evaluation at a tensor grid of nodes */
static PetscErrorCode FEGUseTensorTabulation(PetscFE fe, PetscInt dim, PetscInt order)
{
  PetscDualSpace  Q;
  FEGTensorBasis *tb;
  PetscContainer  c;
  PetscInt        Nb, n = order + 1;
  PetscBool       ok;

  PetscFunctionBegin;
  if (n > 16) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFEGetDualSpace(fe, &Q));
  PetscCall(PetscDualSpaceGetDimension(Q, &Nb));
  PetscCall(PetscNew(&tb));
  PetscCall(PetscMalloc1(Nb * dim, &tb->ix));
  tb->dim = dim;
  tb->n   = n;
  PetscCall(FEGTensorNodes(Q, dim, n, tb->x, tb->ix, &ok));
  if (!ok) {
    PetscCall(FEGTensorBasisDestroy(tb));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FEGFEGetCreateTabulation(fe, &tb->orig));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, tb));
  PetscCall(PetscContainerSetUserDestroy(c, FEGTensorBasisDestroy));
  PetscCall(PetscObjectCompose((PetscObject)fe, "FEGTensorBasis", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(FEGFESetCreateTabulation(fe, FEGTensorTabulation));
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

const char *const FEGNodeTypes[] = {"equispaced", "gll", "gll_collocated", "FEGNodeType", "FEG_NODES_", NULL};

static PetscInt FEGNodeTypeId = -1;

/* the node family FEGCreateFEWithNodes() gave the element; *set false for an element made otherwise */
PetscErrorCode FEGFEGetNodeType(PetscFE fe, FEGNodeType *nodes, PetscBool *set)
{
  PetscInt v = 0;

  PetscFunctionBegin;
  *set = PETSC_FALSE;
  if (FEGNodeTypeId >= 0) PetscCall(PetscObjectComposedDataGetInt((PetscObject)fe, FEGNodeTypeId, v, *set));
  if (*set) *nodes = (FEGNodeType)v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateFE - creates a scalar Lagrange PetscFE of the given order on a cell type, continuous or discontinuous, with
  PETSc's default nodes and fegpu's quadrature (FEGCreateQuadrature())

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

.seealso: FEGCreateFEWithNodes()
@*/
PetscErrorCode FEGCreateFE(MPI_Comm comm, PetscInt dim, DMPolytopeType ct, PetscInt order, PetscBool continuous, PetscFE *fe)
{
  PetscFunctionBegin;
  FEGAssertPointer(fe, 6);
  PetscCall(FEGCreateFEWithNodes(comm, dim, ct, order, continuous, FEG_NODES_EQUISPACED, fe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateFEWithNodes - creates a scalar Lagrange PetscFE as FEGCreateFE() does, on a chosen node family

  Collective

  Input Parameters:
+ comm       - communicator
. dim        - dimension
. ct         - cell type
. order      - polynomial order, 1 to 8
. continuous - PETSC_FALSE for discontinuous Lagrange (all dofs interior to the cell)
- nodes      - FEG_NODES_EQUISPACED (PETSc's default), FEG_NODES_GLL (Gauss-Lobatto-Legendre nodes, fegpu's quadrature)
               or FEG_NODES_GLL_COLLOCATED (GLL nodes and the order+1 point GLL rule per direction on them: the mass
               matrix is diagonal and matfree sum factorisation needs no interpolation, as in the CEED benchmark BP5)

  Output Parameter:
. fe - the element

  Level: intermediate

  Note:
  GLL nodes exist for quadrilaterals and hexahedra. The collocated rule is exact for polynomials of degree 2 order - 1
  per direction, so it integrates the mass term inexactly (the spectral element method's choice).

.seealso: FEGCreateFE(), FEGSetUpDiscretization()
@*/
PetscErrorCode FEGCreateFEWithNodes(MPI_Comm comm, PetscInt dim, DMPolytopeType ct, PetscInt order, PetscBool continuous, FEGNodeType nodes, PetscFE *fe)
{
  PetscQuadrature    q;
  const FEGCellInfo *cell;

  PetscFunctionBegin;
  FEGAssertPointer(fe, 7);
  PetscCall(FEGCheckCellAndOrder(comm, dim, ct, order, &cell));
  PetscCheck(nodes >= FEG_NODES_EQUISPACED && nodes <= FEG_NODES_GLL_COLLOCATED, comm, PETSC_ERR_ARG_OUTOFRANGE, "Node type %d is not one of FEG_NODES_EQUISPACED, FEG_NODES_GLL, FEG_NODES_GLL_COLLOCATED", (int)nodes);
  PetscCheck(nodes == FEG_NODES_EQUISPACED || cell->tensor, comm, PETSC_ERR_SUP, "Node type %s needs quadrilaterals or hexahedra, not %s; use equispaced", FEGNodeTypes[nodes], cell->plural);
  PetscCall(PetscFECreateLagrangeByCell(comm, dim, 1, ct, order, PETSC_DETERMINE, fe));
  if (!continuous || nodes != FEG_NODES_EQUISPACED) {
    PetscFE         fe2;
    PetscSpace      P;
    PetscDualSpace  Q, Q2;
    PetscQuadrature fq;

    /* the same space with the dual space changed: its continuity, or its nodes (GLL: the Gauss-Jacobi family with
       end points and exponent 0) */
    PetscCall(PetscFEGetBasisSpace(*fe, &P));
    PetscCall(PetscFEGetDualSpace(*fe, &Q));
    PetscCall(PetscDualSpaceDuplicate(Q, &Q2));
    PetscCall(PetscDualSpaceLagrangeSetContinuity(Q2, continuous));
    if (nodes != FEG_NODES_EQUISPACED) PetscCall(PetscDualSpaceLagrangeSetNodeType(Q2, PETSCDTNODES_GAUSSJACOBI, PETSC_TRUE, 0.0));
    PetscCall(PetscDualSpaceSetUp(Q2));
    PetscCall(PetscFECreate(comm, &fe2));
    PetscCall(PetscFESetType(fe2, PETSCFEBASIC));
    PetscCall(PetscFESetNumComponents(fe2, 1));
    PetscCall(PetscFESetBasisSpace(fe2, P));
    PetscCall(PetscFESetDualSpace(fe2, Q2));
    PetscCall(PetscFESetUp(fe2));
    PetscCall(PetscFEGetFaceQuadrature(*fe, &fq));
    PetscCall(PetscFESetFaceQuadrature(fe2, fq));
    PetscCall(PetscDualSpaceDestroy(&Q2));
    PetscCall(PetscFEDestroy(fe));
    *fe = fe2;
  }
  if (nodes == FEG_NODES_GLL_COLLOCATED) {
    PetscQuadrature q1, q2;
    PetscReal      *x, *w;

    PetscCall(PetscMalloc1(order + 1, &x));
    PetscCall(PetscMalloc1(order + 1, &w));
    PetscCall(PetscDTGaussLobattoLegendreQuadrature(order + 1, PETSCGAUSSLOBATTOLEGENDRE_VIA_LINEAR_ALGEBRA, x, w));
    PetscCall(PetscQuadratureCreate(PETSC_COMM_SELF, &q1));
    PetscCall(PetscQuadratureSetData(q1, 1, 1, order + 1, x, w)); /* takes x and w */
    PetscCall(PetscDTTensorQuadratureCreate(q1, q1, &q2));
    if (dim == 3) PetscCall(PetscDTTensorQuadratureCreate(q2, q1, &q));
    else PetscCall(PetscObjectReference((PetscObject)(q = q2)));
    PetscCall(PetscQuadratureDestroy(&q1));
    PetscCall(PetscQuadratureDestroy(&q2));
  } else PetscCall(FEGCreateQuadrature(dim, ct, order, &q));
  if (cell->tensor) PetscCall(FEGUseTensorTabulation(*fe, dim, order));
  PetscCall(PetscFESetQuadrature(*fe, q));
  PetscCall(PetscQuadratureDestroy(&q));
  PetscCall(PetscObjectSetName((PetscObject)*fe, continuous ? "P" : "DP"));
  if (FEGNodeTypeId < 0) PetscCall(PetscObjectComposedDataRegister(&FEGNodeTypeId));
  PetscCall(PetscObjectComposedDataSetInt((PetscObject)*fe, FEGNodeTypeId, (PetscInt)nodes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGSetUpDiscretization - gives a DMPlex one scalar Lagrange field of the given order (FEGCreateFEWithNodes()) and
  creates its PetscDS

  Collective

  Input Parameters:
+ dm         - a DMPlex with one cell type
. order      - polynomial order, 1 to 8
. continuous - PETSC_FALSE for discontinuous Lagrange
- name       - the field's name, or NULL

  Options Database Key:
. -feg_fe_nodes <equispaced,gll,gll_collocated> - the node family (under the DM's options prefix)

  Level: beginner

  Note:
  The DM gets fegpu's section by cell type (FEGDMSetUpSection()), which continuous prisms of order 2 and higher need and
  which is PETSc's section, built faster, for every other space.

.seealso: FEGCreateFEWithNodes(), FEGDMSetUpSection()
@*/
PetscErrorCode FEGSetUpDiscretization(DM dm, PetscInt order, PetscBool continuous, const char name[])
{
  FEGNodeType nodes = FEG_NODES_EQUISPACED;
  const char *prefix;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)dm, &prefix));
  PetscCall(PetscOptionsGetEnum(((PetscObject)dm)->options, prefix, "-feg_fe_nodes", FEGNodeTypes, (PetscEnum *)&nodes, NULL));
  PetscCall(FEGSetUpDiscretizationWithNodes(dm, order, continuous, nodes, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGSetUpDiscretization() on the given node family */
PetscErrorCode FEGSetUpDiscretizationWithNodes(DM dm, PetscInt order, PetscBool continuous, FEGNodeType nodes, const char name[])
{
  PetscFE        fe;
  PetscInt       dim, cStart, cEnd;
  DMPolytopeType ct = DM_POLYTOPE_UNKNOWN, ctg;
  PetscBool      ondevice;

  PetscFunctionBegin;
  PetscCall(FEGDMIsOnDevice(dm, &ondevice)); /* CUDA vectors asked of a build without CUDA: a clear error, early */
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  if (cEnd > cStart) PetscCall(DMPlexGetCellType(dm, cStart, &ct));
  /* ranks without cells still need the cell type */
  PetscCall(MPIU_Allreduce(&ct, &ctg, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)dm)));
  PetscCall(FEGCreateFEWithNodes(PetscObjectComm((PetscObject)dm), dim, ctg, order, continuous, nodes, &fe));
  if (name) PetscCall(PetscObjectSetName((PetscObject)fe, name));
  PetscCall(DMSetField(dm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(dm));
  PetscCall(PetscFEDestroy(&fe));
  /* continuous prisms of order >= 2 need it; every other space gets the same section as PETSc's, faster */
  PetscCall(FEGDMSetUpSection(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
