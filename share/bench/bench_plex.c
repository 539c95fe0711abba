static const char help[] = "fegpu's replacements of PETSc routines against PETSc's own, on one process at about 1M cells:\n"
                           "  interpolation of a cell list (FEGPlexCreateFromCellList() / DMPlexCreateFromCellListPetsc() interpolated),\n"
                           "  label completion (FEGPlexLabelComplete() / DMPlexLabelComplete()), uniform refinement (FEGMeshRefine() /\n"
                           "  DMRefine()), the local and global sections of a P2 field (FEGDMSetUpSection() / DMCreateLocalSection(),\n"
                           "  FEGDMSetUpGlobalSection() / DMGetGlobalSection()) and its global vector (DMCreateGlobalVector() of each),\n"
                           "  every cell's closure indices (FEGPlexGetClosureIndicesBulk() / DMPlexGetClosureIndices()) and the\n"
                           "  tabulation of tensor elements (FEGCreateFE() / PetscFECreateLagrange()).\n"
                           "  -cell <tet,hex>  -n <cubes per side, default 55 for tet (998k cells), 100 for hex (1M)>  -reps <3>\n"
                           "  -csv file: one line per routine, appended (routine,cell,cells,threads,petsc_s,fegpu_s,factor)\n";

/* Each pair runs on the same input, reps times, the fastest of each kept; the factor is PETSc's time over fegpu's. */
#include <fegpu/private/fegspaceimpl.h>

typedef struct {
  const char *name;
  double      tp, tf; /* fastest PETSc and fegpu times */
} Row;

static PetscErrorCode Now(double *t)
{
  PetscLogDouble s;

  PetscFunctionBegin;
  PetscCall(PetscTime(&s));
  *t = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cell list of an n^3 box of the cell type, vertex coordinates on the unit cube */
static PetscErrorCode BoxList(const FEGCellInfo *cell, PetscInt n, PetscInt *nc, PetscInt *nv, PetscInt **cells, PetscReal **coords)
{
  const PetscInt per = cell->boxCells * cell->nverts;

  PetscFunctionBegin;
  *nc = n * n * n * cell->boxCells;
  *nv = (n + 1) * (n + 1) * (n + 1);
  PetscCall(PetscMalloc1((size_t)*nc * cell->nverts, cells));
  PetscCall(PetscMalloc1((size_t)*nv * 3, coords));
  for (PetscInt k = 0; k <= n; k++)
    for (PetscInt j = 0; j <= n; j++)
      for (PetscInt i = 0; i <= n; i++) {
        const size_t v = ((size_t)k * (n + 1) + j) * (n + 1) + i;

        (*coords)[3 * v]     = (PetscReal)i / n;
        (*coords)[3 * v + 1] = (PetscReal)j / n;
        (*coords)[3 * v + 2] = (PetscReal)k / n;
      }
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        PetscInt corner[8];

        for (PetscInt b = 0; b < 8; b++) corner[b] = (i + (b & 1)) + (n + 1) * ((j + ((b >> 1) & 1)) + (n + 1) * (k + ((b >> 2) & 1)));
        (*cell->boxSplit)(corner, &(*cells)[((size_t)(k * n + j) * n + i) * per]);
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a copy of dm's topology and coordinates with a P2 field on it, fegpu's sections or PETSc's */
static PetscErrorCode WithField(DM dm, PetscBool fegsection, DM *fdm)
{
  PetscFE        fe;
  PetscInt       dim;
  DMPolytopeType ct;

  PetscFunctionBegin;
  PetscCall(DMClone(dm, fdm));
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetCellType(dm, 0, &ct));
  PetscCall(FEGCreateFE(PETSC_COMM_SELF, dim, ct, 2, PETSC_TRUE, &fe));
  PetscCall(DMSetField(*fdm, 0, NULL, (PetscObject)fe));
  PetscCall(DMCreateDS(*fdm));
  PetscCall(PetscFEDestroy(&fe));
  if (fegsection) PetscCall(FEGDMSetUpSection(*fdm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char               cname[16] = "hex", csv[PETSC_MAX_PATH_LEN] = "";
  PetscInt           n = -1, reps = 3, nc, nv, *cells, nt, cStart, cEnd, ncl = 0, order = 8;
  PetscReal         *coords;
  const FEGCellInfo *cell;
  DMPolytopeType     ct;
  Row                row[10];
  PetscInt           nrow = 0;
  DM                 dm, coarse;
  PetscBool          set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_plex options", NULL);
  PetscCall(PetscOptionsString("-cell", "Cell type: tet or hex", NULL, cname, cname, sizeof(cname), NULL));
  PetscCall(PetscOptionsInt("-n", "Cubes per side of the box", NULL, n, &n, &set));
  PetscCall(PetscOptionsInt("-reps", "Repetitions of each routine (the fastest is kept)", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-order", "Order of the tensor elements tabulated", NULL, order, &order, NULL));
  PetscCall(PetscOptionsString("-csv", "Append the results to this CSV file", NULL, csv, csv, sizeof(csv), NULL));
  PetscOptionsEnd();
  {
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "bench_plex runs on one process, not %d: it times serial routines", (int)size);
  }
  if (!strcmp(cname, "tet")) ct = DM_POLYTOPE_TETRAHEDRON;
  else if (!strcmp(cname, "hex")) ct = DM_POLYTOPE_HEXAHEDRON;
  else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-cell %s is not supported: allowed are tet, hex", cname);
  if (n < 0) n = ct == DM_POLYTOPE_TETRAHEDRON ? 55 : 100;
  PetscCheck(n >= 2 && n <= 400, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT " must be from 2 to 400", n);
  PetscCheck(reps >= 1 && reps <= 100, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be from 1 to 100", reps);
  PetscCheck(order >= 1 && order <= 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-order %" PetscInt_FMT " must be from 1 to 8", order);
  PetscCall(FEGCellInfoGet(PETSC_COMM_WORLD, ct, &cell));
  PetscCall(FEGSetupThreads(PETSC_COMM_WORLD, &nt));
  PetscCall(BoxList(cell, n, &nc, &nv, &cells, &coords));
  for (PetscInt i = 0; i < 10; i++) row[i].tp = row[i].tf = PETSC_MAX_REAL;

  /* interpolation of a cell list */
  row[nrow].name = "interpolation";
  for (PetscInt r = 0; r < reps; r++) {
    double t0, t1, t2;
    DM     a, b;

    PetscCall(Now(&t0));
    PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_SELF, 3, nc, nv, cell->nverts, PETSC_TRUE, cells, 3, coords, &a));
    PetscCall(Now(&t1));
    PetscCall(FEGPlexCreateFromCellList(PETSC_COMM_SELF, cell, nc, nv, cells, coords, NULL, &b));
    PetscCall(Now(&t2));
    row[nrow].tp = PetscMin(row[nrow].tp, t1 - t0);
    row[nrow].tf = PetscMin(row[nrow].tf, t2 - t1);
    PetscCall(DMDestroy(&a));
    if (r < reps - 1) PetscCall(DMDestroy(&b));
    else dm = b;
  }
  nrow++;

  /* label completion of the boundary faces (a Gmsh mesh's marker), then of the completed label again (what a
     discretization's boundary conditions ask of a box mesh's marker) */
  row[nrow].name     = "label completion";
  row[nrow + 1].name = "label (complete)";
  for (PetscInt r = 0; r < reps; r++) {
    double  t0, t1, t2;
    DMLabel a, b;

    PetscCall(DMLabelCreate(PETSC_COMM_SELF, "a", &a));
    PetscCall(DMPlexMarkBoundaryFaces(dm, 1, a));
    PetscCall(DMLabelDuplicate(a, &b));
    PetscCall(Now(&t0));
    PetscCall(DMPlexLabelComplete(dm, a));
    PetscCall(Now(&t1));
    PetscCall(FEGPlexLabelComplete(dm, b));
    PetscCall(Now(&t2));
    row[nrow].tp = PetscMin(row[nrow].tp, t1 - t0);
    row[nrow].tf = PetscMin(row[nrow].tf, t2 - t1);
    PetscCall(Now(&t0));
    PetscCall(DMPlexLabelComplete(dm, a));
    PetscCall(Now(&t1));
    PetscCall(FEGPlexLabelComplete(dm, b));
    PetscCall(Now(&t2));
    row[nrow + 1].tp = PetscMin(row[nrow + 1].tp, t1 - t0);
    row[nrow + 1].tf = PetscMin(row[nrow + 1].tf, t2 - t1);
    PetscCall(DMLabelDestroy(&a));
    PetscCall(DMLabelDestroy(&b));
  }
  nrow += 2;

  /* the local and the global section of a P2 field, and the closure indices of every cell */
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  row[nrow].name     = "local section";
  row[nrow + 1].name = "global section";
  row[nrow + 2].name = "closure indices";
  row[nrow + 3].name = "global vector";
  for (PetscInt r = 0; r < reps; r++) {
    double       t0, t1, t2;
    DM           a, b;
    PetscSection sa, sb, ga;
    PetscInt    *ia, *ib, na, nb;

    PetscCall(WithField(dm, PETSC_FALSE, &a));
    PetscCall(WithField(dm, PETSC_TRUE, &b));
    PetscCall(Now(&t0));
    PetscCall(DMGetLocalSection(a, &sa));
    PetscCall(Now(&t1));
    PetscCall(DMGetLocalSection(b, &sb));
    PetscCall(Now(&t2));
    row[nrow].tp = PetscMin(row[nrow].tp, t1 - t0);
    row[nrow].tf = PetscMin(row[nrow].tf, t2 - t1);
    PetscCall(Now(&t0));
    PetscCall(DMGetGlobalSection(a, &ga));
    PetscCall(Now(&t1));
    PetscCall(FEGDMSetUpGlobalSection(b));
    PetscCall(Now(&t2));
    row[nrow + 1].tp = PetscMin(row[nrow + 1].tp, t1 - t0);
    row[nrow + 1].tf = PetscMin(row[nrow + 1].tf, t2 - t1);
    {
      Vec va, vb;

      PetscCall(Now(&t0));
      PetscCall(DMCreateGlobalVector(a, &va));
      PetscCall(Now(&t1));
      PetscCall(DMCreateGlobalVector(b, &vb));
      PetscCall(Now(&t2));
      row[nrow + 3].tp = PetscMin(row[nrow + 3].tp, t1 - t0);
      row[nrow + 3].tf = PetscMin(row[nrow + 3].tf, t2 - t1);
      {
        PetscInt na, nb, ba, bb;

        PetscCall(VecGetLocalSize(va, &na));
        PetscCall(VecGetLocalSize(vb, &nb));
        PetscCall(VecGetBlockSize(va, &ba));
        PetscCall(VecGetBlockSize(vb, &bb));
        PetscCheck(na == nb && ba == bb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Global vectors of %" PetscInt_FMT " and %" PetscInt_FMT " entries, block sizes %" PetscInt_FMT " and %" PetscInt_FMT " (PETSc's, fegpu's)", na, nb, ba, bb);
      }
      PetscCall(VecDestroy(&va));
      PetscCall(VecDestroy(&vb));
    }
    /* the closure of cell 0 gives the count per cell (one cell type) */
    PetscCall(DMPlexGetClosureIndices(a, sa, sa, cStart, PETSC_TRUE, &na, &ia, NULL, NULL));
    PetscCall(DMPlexRestoreClosureIndices(a, sa, sa, cStart, PETSC_TRUE, &na, &ia, NULL, NULL));
    PetscCall(PetscMalloc1((size_t)(cEnd - cStart) * na, &ib));
    PetscCall(Now(&t0));
    for (PetscInt c = cStart; c < cEnd; c++) {
      PetscCall(DMPlexGetClosureIndices(a, sa, sa, c, PETSC_TRUE, &nb, &ia, NULL, NULL));
      PetscCall(PetscArraycpy(ib + (size_t)(c - cStart) * na, ia, na));
      PetscCall(DMPlexRestoreClosureIndices(a, sa, sa, c, PETSC_TRUE, &nb, &ia, NULL, NULL));
    }
    PetscCall(Now(&t1));
    PetscCall(FEGPlexGetClosureBulk(b, cStart, cEnd, 1,
                                    (FEGClosureTarget[]){
                                      {b, sb, na, ib, NULL, NULL}
    },
                                    nt, &ncl));
    PetscCall(Now(&t2));
    row[nrow + 2].tp = PetscMin(row[nrow + 2].tp, t1 - t0);
    row[nrow + 2].tf = PetscMin(row[nrow + 2].tf, t2 - t1);
    PetscCall(PetscFree(ib));
    PetscCall(DMDestroy(&a));
    PetscCall(DMDestroy(&b));
  }
  nrow += 4;

  /* uniform refinement of a box with an eighth of the cells, to the same size */
  PetscCall(PetscFree(cells));
  PetscCall(PetscFree(coords));
  PetscCall(BoxList(cell, n / 2, &nc, &nv, &cells, &coords));
  PetscCall(FEGPlexCreateFromCellList(PETSC_COMM_SELF, cell, nc, nv, cells, coords, "marker", &coarse));
  row[nrow].name = "refinement";
  for (PetscInt r = 0; r < reps; r++) {
    double t0, t1, t2;
    DM     a, b;

    PetscCall(Now(&t0));
    PetscCall(DMRefine(coarse, PETSC_COMM_SELF, &a));
    PetscCall(Now(&t1));
    PetscCall(FEGMeshRefine(coarse, &b));
    PetscCall(Now(&t2));
    row[nrow].tp = PetscMin(row[nrow].tp, t1 - t0);
    row[nrow].tf = PetscMin(row[nrow].tf, t2 - t1);
    PetscCall(DMDestroy(&a));
    PetscCall(DMDestroy(&b));
  }
  nrow++;
  PetscCall(DMDestroy(&coarse));

  /* the tabulation of a tensor element at its quadrature points (DMCreateDS() tabulates at these and the faces') */
  row[nrow].name = "tensor tabulation";
  for (PetscInt r = 0; r < reps; r++) {
    double           t0, t1, t2;
    PetscFE          a, b;
    PetscQuadrature  q;
    PetscInt         np;
    const PetscReal *pts;
    PetscTabulation  Ta, Tb;

    PetscCall(FEGCreateQuadrature(3, DM_POLYTOPE_HEXAHEDRON, order, &q));
    PetscCall(PetscQuadratureGetData(q, NULL, NULL, &np, &pts, NULL));
    PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, PETSC_FALSE, order, PETSC_DETERMINE, &a));
    PetscCall(FEGCreateFE(PETSC_COMM_SELF, 3, DM_POLYTOPE_HEXAHEDRON, order, PETSC_TRUE, &b));
    PetscCall(Now(&t0));
    PetscCall(PetscFECreateTabulation(a, 1, np, pts, 1, &Ta));
    PetscCall(Now(&t1));
    PetscCall(PetscFECreateTabulation(b, 1, np, pts, 1, &Tb));
    PetscCall(Now(&t2));
    row[nrow].tp = PetscMin(row[nrow].tp, t1 - t0);
    row[nrow].tf = PetscMin(row[nrow].tf, t2 - t1);
    PetscCall(PetscTabulationDestroy(&Ta));
    PetscCall(PetscTabulationDestroy(&Tb));
    PetscCall(PetscFEDestroy(&a));
    PetscCall(PetscFEDestroy(&b));
    PetscCall(PetscQuadratureDestroy(&q));
  }
  nrow++;

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fegpu bench_plex: %s, %" PetscInt_FMT " cells (refinement: from %" PetscInt_FMT "), %" PetscInt_FMT " setup threads, fastest of %" PetscInt_FMT "; tabulation: Q%" PetscInt_FMT "\n", cname, cEnd - cStart, nc, nt, reps, order));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-18s %12s %12s %8s\n", "routine", "PETSc s", "fegpu s", "factor"));
  for (PetscInt i = 0; i < nrow; i++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-18s %12.4g %12.4g %8.2f\n", row[i].name, row[i].tp, row[i].tf, row[i].tp / row[i].tf));
  if (csv[0]) {
    FILE     *f;
    PetscBool exists;

    PetscCall(PetscTestFile(csv, 'r', &exists));
    PetscCall(PetscFOpen(PETSC_COMM_WORLD, csv, "a", &f));
    if (!exists) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "routine,cell,cells,threads,petsc_s,fegpu_s,factor\n"));
    for (PetscInt i = 0; i < nrow; i++) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "%s,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%.6g,%.6g,%.4g\n", row[i].name, cname, cEnd - cStart, nt, row[i].tp, row[i].tf, row[i].tp / row[i].tf));
    PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  }
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFree(cells));
  PetscCall(PetscFree(coords));
  PetscCall(PetscFinalize());
  return 0;
}
