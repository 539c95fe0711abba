/* The facts about each cell type fegpu supports, in one table */
#include <fegpu/private/fegmeshimpl.h>

/* exact for products of two shape functions on affine cells: Witherden-Vincent (PETSc's default) rules of degree 2p */
static PetscErrorCode FEGQuadratureSimplex(PetscInt dim, PetscInt order, PetscQuadrature *q)
{
  PetscFunctionBegin;
  PetscCall(PetscDTSimplexQuadrature(dim, 2 * order, PETSCDTSIMPLEXQUAD_DEFAULT, q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p+1 Gauss points per direction */
static PetscErrorCode FEGQuadratureGauss(PetscInt dim, PetscInt order, PetscQuadrature *q)
{
  PetscFunctionBegin;
  PetscCall(PetscDTGaussTensorQuadrature(dim, 1, order + 1, -1.0, 1.0, q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the triangle rule times the Gauss rule, giving N_Q = 6, 18, 48, 80, 150, 231, 336 for p = 1..7 (Krużel et al.,
   Table 1) */
static PetscErrorCode FEGQuadraturePrism(PetscInt dim, PetscInt order, PetscQuadrature *q)
{
  PetscQuadrature qt, ql;

  PetscFunctionBegin;
  PetscCall(PetscDTSimplexQuadrature(2, 2 * order, PETSCDTSIMPLEXQUAD_DEFAULT, &qt));
  PetscCall(PetscDTGaussTensorQuadrature(1, 1, order + 1, -1.0, 1.0, &ql));
  /* the tensor product insists on equal recorded orders; both are exact to degree 2p at least */
  PetscCall(PetscQuadratureSetOrder(qt, 2 * order));
  PetscCall(PetscQuadratureSetOrder(ql, 2 * order));
  PetscCall(PetscDTTensorQuadratureCreate(qt, ql, q));
  PetscCall(PetscQuadratureDestroy(&qt));
  PetscCall(PetscQuadratureDestroy(&ql));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const FEGCellInfo FEGCellInfos[] = {
  {DM_POLYTOPE_TRIANGLE,      "tri",   "triangles",      2, 3, PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, FEGQuadratureSimplex, 2, FEGBoxSplitTriangle,      DM_POLYTOPE_TRIANGLE,         {3, {2, 2, 2}, {0, 1, 1, 2, 2, 0}},                                                                4, {{0x01, 0x03, 0x05}, {0x03, 0x02, 0x06}, {0x05, 0x06, 0x04}, {0x03, 0x06, 0x05}}                                                                                                                                                                                                                                                                                                                                },
  {DM_POLYTOPE_QUADRILATERAL, "quad",  "quadrilaterals", 2, 4, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE, FEGQuadratureGauss,   1, FEGBoxSplitQuadrilateral, DM_POLYTOPE_QUADRILATERAL,    {4, {2, 2, 2, 2}, {0, 1, 1, 2, 2, 3, 3, 0}},                                                       4, {{0x01, 0x03, 0x0f, 0x09}, {0x03, 0x02, 0x06, 0x0f}, {0x0f, 0x06, 0x04, 0x0c}, {0x09, 0x0f, 0x0c, 0x08}}                                                                                                                                                                                                                                                                                                        },
  {DM_POLYTOPE_TETRAHEDRON,   "tet",   "tetrahedra",     3, 4, PETSC_TRUE,  PETSC_FALSE, PETSC_FALSE, FEGQuadratureSimplex, 6, FEGBoxSplitTetrahedron,   DM_POLYTOPE_TETRAHEDRON,      {4, {3, 3, 3, 3}, {0, 1, 2, 0, 3, 1, 0, 2, 3, 2, 1, 3}},                                           8, {{0x01, 0x03, 0x05, 0x09}, {0x03, 0x02, 0x06, 0x0a}, {0x05, 0x06, 0x04, 0x0c}, {0x09, 0x0a, 0x0c, 0x08}, {0x05, 0x09, 0x03, 0x0c}, {0x0a, 0x06, 0x03, 0x0c}, {0x0c, 0x03, 0x05, 0x06}, {0x0c, 0x03, 0x0a, 0x09}}                                                                                                                                                                                                },
  {DM_POLYTOPE_HEXAHEDRON,    "hex",   "hexahedra",      3, 8, PETSC_FALSE, PETSC_TRUE,  PETSC_FALSE, FEGQuadratureGauss,   1, FEGBoxSplitHexahedron,    DM_POLYTOPE_HEXAHEDRON,       {6, {4, 4, 4, 4, 4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 0, 3, 5, 4, 2, 1, 7, 6, 3, 2, 6, 5, 0, 4, 7, 1}}, 8, {{0x01, 0x03, 0x0f, 0x09, 0x11, 0x39, 0xff, 0x93}, {0x03, 0x02, 0x06, 0x0f, 0x93, 0xff, 0xc6, 0x82}, {0x0f, 0x06, 0x04, 0x0c, 0xff, 0x6c, 0x44, 0xc6}, {0x09, 0x0f, 0x0c, 0x08, 0x39, 0x28, 0x6c, 0xff}, {0x11, 0x93, 0xff, 0x39, 0x10, 0x30, 0xf0, 0x90}, {0x39, 0xff, 0x6c, 0x28, 0x30, 0x20, 0x60, 0xf0}, {0xff, 0xc6, 0x44, 0x6c, 0xf0, 0x60, 0x40, 0xc0}, {0x93, 0x82, 0xc6, 0xff, 0x90, 0xf0, 0xc0, 0x80}}},
  {DM_POLYTOPE_TRI_PRISM,     "prism", "prisms",         3, 6, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE,  FEGQuadraturePrism,   2, FEGBoxSplitPrism,         DM_POLYTOPE_TRI_PRISM_TENSOR, {5, {3, 3, 4, 4, 4}, {0, 1, 2, 3, 4, 5, 0, 2, 4, 3, 2, 1, 5, 4, 1, 0, 3, 5}},                      8, {{0x01, 0x03, 0x05, 0x09, 0x1d, 0x2b}, {0x05, 0x06, 0x04, 0x1d, 0x14, 0x36}, {0x03, 0x02, 0x06, 0x2b, 0x36, 0x22}, {0x05, 0x03, 0x06, 0x1d, 0x36, 0x2b}, {0x09, 0x2b, 0x1d, 0x08, 0x18, 0x28}, {0x1d, 0x36, 0x14, 0x18, 0x10, 0x30}, {0x2b, 0x22, 0x36, 0x28, 0x30, 0x20}, {0x1d, 0x2b, 0x36, 0x18, 0x30, 0x28}}                                                                                                }
};
const PetscInt    FEGNumCellInfos = (PetscInt)(sizeof(FEGCellInfos) / sizeof(FEGCellInfos[0]));
const char *const FEGCellNames[]  = {"tri", "quad", "tet", "hex", "prism", "FEGCellType", "FEG_CELL_", NULL};

/* The table's entry for a cell type, or an error naming the supported ones */
PetscErrorCode FEGCellInfoGet(MPI_Comm comm, DMPolytopeType ct, const FEGCellInfo **info)
{
  PetscFunctionBegin;
  *info = NULL;
  for (PetscInt i = 0; i < FEGNumCellInfos; i++)
    if (FEGCellInfos[i].ct == ct) *info = &FEGCellInfos[i];
  PetscCheck(*info, comm, PETSC_ERR_ARG_WRONG, "Cell type %s is not supported: fegpu supports triangle, quadrilateral, tetrahedron, hexahedron and triangular_prism", ct >= 0 && ct < DM_NUM_POLYTOPES ? DMPolytopeTypes[ct] : "unknown");
  PetscFunctionReturn(PETSC_SUCCESS);
}
