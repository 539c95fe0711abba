/* A distributed operator equals the serial one: MatMult of a fixed (interpolated) vector and the right-hand side,
   compared entry by entry (the dofs matched by the positions of their Lagrange nodes), for every strategy, cell type
   and order 1 to 3; the distributed mesh is also renumbered (FEGMeshReorder(), none, metis and sfc in turn) and its
   operators visit the cells in another order (FEGDMSetElementOrder(), none, metis and sfc in turn), which must change
   nothing but the numbering. The form has values given at the quadrature points, which stay in the DM's cell order
   whatever the element order: the quadrature coordinates with an element order equal those without.
   fegtest: nsize 1 2 3 4 */
#include "fegtest.h"

static PetscErrorCode fx(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = PetscSinReal(3.0 * x[0] + 0.5) * PetscCosReal(2.0 * x[1]) + (dim == 3 ? x[2] * x[2] : 0.0);
  return PETSC_SUCCESS;
}

static PetscErrorCode fcoord(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = x[*(PetscInt *)ctx];
  return PETSC_SUCCESS;
}

/* one dof: its node's position, A x and b there */
typedef struct {
  PetscReal x[3], y, b;
} dof_entry;

static int cmp_entry(const void *a, const void *b)
{
  const dof_entry *p = (const dof_entry *)a, *q = (const dof_entry *)b;

  for (int d = 0; d < 3; d++) {
    const PetscReal u = PetscFloorReal(p->x[d] * 1e9 + 0.5), v = PetscFloorReal(q->x[d] * 1e9 + 0.5);

    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

/* every process gets all the entries of the vectors v[0..4] (x0, x1, x2, A x, b), sorted by position */
static PetscErrorCode gather_sorted(Vec v[5], dof_entry **e, PetscInt *n)
{
  PetscFunctionBegin;
  PetscCall(VecGetSize(v[0], n));
  PetscCall(PetscMalloc1(*n, e));
  for (int k = 0; k < 5; k++) {
    VecScatter         sc;
    Vec                all;
    const PetscScalar *a;

    PetscCall(VecScatterCreateToAll(v[k], &sc, &all));
    PetscCall(VecScatterBegin(sc, v[k], all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, v[k], all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(all, &a));
    for (PetscInt i = 0; i < *n; i++) {
      if (k < 3) (*e)[i].x[k] = PetscRealPart(a[i]);
      else if (k == 3) (*e)[i].y = PetscRealPart(a[i]);
      else (*e)[i].b = PetscRealPart(a[i]);
    }
    PetscCall(VecRestoreArrayRead(all, &a));
    PetscCall(VecDestroy(&all));
    PetscCall(VecScatterDestroy(&sc));
  }
  qsort(*e, (size_t)*n, sizeof(dof_entry), cmp_entry);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A x and b on comm, every entry with its node's position, sorted by position */
/* the quadrature coordinates with the element order eorder equal those with none */
static PetscErrorCode check_qpoints(DM dm, FEGReorderType eorder)
{
  Vec       X0, X;
  PetscReal d;

  PetscFunctionBegin;
  PetscCall(FEGDMSetElementOrder(dm, FEG_REORDER_NONE));
  PetscCall(FEGDMCreateQuadratureCoordinates(dm, &X0));
  PetscCall(FEGDMSetElementOrder(dm, eorder));
  PetscCall(FEGDMCreateQuadratureCoordinates(dm, &X));
  PetscCall(VecAXPY(X, -1.0, X0));
  PetscCall(VecNorm(X, NORM_INFINITY, &d));
  PetscCheck(d == 0.0, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB, "With element order %s the quadrature coordinates differ from the cell order's by %g", FEGReorderTypes[eorder], (double)d);
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode entries(MPI_Comm comm, DMPolytopeType ct, PetscInt order, PetscBool cont, FEGOpType s, FEGReorderType reorder, FEGReorderType eorder, dof_entry **e, PetscInt *n)
{
  DM       dm, auxdm;
  Vec      aux, x, y, b, v[5];
  FEGForm  form;
  Mat      A;
  PetscInt dim;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fx};
  PetscErrorCode (*coord[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fcoord};

  PetscFunctionBegin;
  {
    const PetscInt faces[3] = {3, 3, 3};
    DM             rdm;

    PetscCall(FEGCreateBoxMesh(comm, ct, faces, NULL, NULL, 0.2, &dm));
    PetscCall(PetscOptionsSetValue(NULL, "-feg_mesh_reorder_part_size", "5"));
    PetscCall(FEGMeshReorder(dm, reorder, &rdm));
    PetscCall(PetscOptionsClearValue(NULL, "-feg_mesh_reorder_part_size"));
    PetscCall(DMDestroy(&dm));
    dm = rdm;
    PetscCall(FEGSetUpDiscretization(dm, order, cont, "u"));
    if (cont) PetscCall(fegtest_wall(dm, fegtest_bcfunc));
    PetscCall(check_qpoints(dm, eorder));
  }
  {
    PetscInt cStart, cEnd, nmin, nloc;

    /* the comparison means nothing unless every process really holds part of the mesh */
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
    nloc = cEnd - cStart;
    PetscCall(MPIU_Allreduce(&nloc, &nmin, 1, MPIU_INT, MPI_MIN, comm));
    PetscCheck(nmin > 0, comm, PETSC_ERR_PLIB, "A process holds no cells after distribution");
  }
  PetscCall(fegtest_aux(dm, &auxdm, &aux));
  PetscCall(fegtest_form(comm, auxdm, aux, PETSC_TRUE, &form));
  {
    Vec         W;
    PetscScalar A[16 * FEGTEST_NQ], B[4 * FEGTEST_NQ];

    PetscCall(DMGetDimension(dm, &dim));
    PetscCall(fegtest_qpoint_values(dm, &W));
    fegtest_qmaps(dim, A, B);
    PetscCall(FEGFormSetQuadratureCoefficient(form, W, FEGTEST_NQ, A, B));
    PetscCall(VecDestroy(&W));
  }
  PetscCall(fegtest_operator(dm, form, s, &A));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(DMProjectFunction(dm, 0.0, funcs, NULL, INSERT_VALUES, x));
  PetscCall(MatMult(A, x, y));
  PetscCall(FEGComputeRHS(dm, form, b));
  /* the positions of the dofs' nodes: the interpolants of the coordinate functions (the third is 0 in 2-D) */
  PetscCall(DMGetDimension(dm, &dim));
  for (PetscInt d = 0; d < 3; d++) {
    void *ctx[1] = {&d};

    PetscCall(VecDuplicate(x, &v[d]));
    if (d < dim) PetscCall(DMProjectFunction(dm, 0.0, coord, ctx, INSERT_VALUES, v[d]));
  }
  v[3] = y;
  v[4] = b;
  PetscCall(gather_sorted(v, e, n));
  for (PetscInt d = 0; d < 3; d++) PetscCall(VecDestroy(&v[d]));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&aux));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(DMDestroy(&auxdm));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* case i: cell type i / 9, strategy (i / 3) % 3, order i % 3 + 1 */
START_TEST(test_parallel_equals_serial)
{
  const FEGOpType      types[3] = {FEGOPADDTO, FEGOPLMA, FEGOPMATFREE};
  const DMPolytopeType ct       = fegtest_cells[_i / 9];
  const FEGOpType      s        = types[(_i / 3) % 3];
  const PetscInt       order    = _i % 3 + 1;
  const FEGReorderType reorder  = (FEGReorderType)((_i + _i / 3) % 3);                    /* each strategy and order meets all three */
  const FEGReorderType eorder   = (FEGReorderType)((_i / 3 + 2 * (_i % 3) + _i / 9) % 3); /* and each element order */
  const PetscBool      cont     = PETSC_TRUE;
  dof_entry           *ep, *es;
  PetscInt             np, ns, where = -1;
  PetscReal            ymax = 0.0, bmax = 0.0, err = 0.0, pos = 0.0;

  TCHK(entries(PETSC_COMM_WORLD, ct, order, cont, s, reorder, eorder, &ep, &np));
  TCHK(entries(PETSC_COMM_SELF, ct, order, cont, s, FEG_REORDER_NONE, FEG_REORDER_NONE, &es, &ns));
  ck_assert_msg(np == ns, "%s P%d %s: %d distributed unknowns, %d serial", DMPolytopeTypes[ct], (int)order, s, (int)np, (int)ns);
  for (PetscInt i = 0; i < ns; i++) {
    ymax = PetscMax(ymax, PetscAbsReal(es[i].y));
    bmax = PetscMax(bmax, PetscAbsReal(es[i].b));
  }
  for (PetscInt i = 0; i < ns; i++) {
    const PetscReal e = PetscMax(PetscAbsReal(ep[i].y - es[i].y) / ymax, PetscAbsReal(ep[i].b - es[i].b) / bmax);

    for (int d = 0; d < 3; d++) pos = PetscMax(pos, PetscAbsReal(ep[i].x[d] - es[i].x[d]));
    if (e > err) {
      err   = e;
      where = i;
    }
  }
  ck_assert_msg(pos < 1e-10, "%s P%d %s: the distributed and serial dofs do not sit at the same nodes (%g apart)", DMPolytopeTypes[ct], (int)order, s, (double)pos);
  ck_assert_msg(err < 1e-12, "%s P%d %s, reordered by %s, element order %s: distributed and serial A x or b differ by %g (relative to the largest entry) at the node (%g, %g, %g)", DMPolytopeTypes[ct], (int)order, s, FEGReorderTypes[reorder], FEGReorderTypes[eorder], (double)err,
                where >= 0 ? (double)es[where].x[0] : 0.0, where >= 0 ? (double)es[where].x[1] : 0.0, where >= 0 ? (double)es[where].x[2] : 0.0);
  TCHK(PetscFree(ep));
  TCHK(PetscFree(es));
}
END_TEST

static void add_tests(Suite *s)
{
  TCase *tc;

  tc = tcase_create("distributed");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_parallel_equals_serial, 0, 5 * 3 * 3);
  suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
  return fegtest_main(argc, argv, "parallel", add_tests);
}
