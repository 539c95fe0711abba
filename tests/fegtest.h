/* Shared helpers for fegpu's Check tests: meshes, auxiliary fields, and the oracle, PETSc's own DMPlex FEM assembly of
   the same form through PetscDS pointwise functions */
#pragma once

#include <check.h>
#include <unistd.h>
#include <fegpu.h>
#include <petscds.h>
#include <petscsnes.h>
#include <petsc/private/dmimpl.h>  /* PETSc's own global vector method of a DMPlex (fegtest_global_vector()) */
#include <petsc/private/vecimpl.h> /* and the methods of a vector */

#define NW 2 /* components of the test auxiliary field */

/* An operator of a given type on dm through the FEGOp interface, reading the options with the form's prefix */
static inline PetscErrorCode fegtest_operator(DM dm, FEGForm form, FEGOpType type, Mat *A)
{
  FEGOp       op;
  const char *prefix;

  PetscFunctionBegin;
  PetscCall(FEGOpCreate(PetscObjectComm((PetscObject)dm), &op));
  PetscCall(FEGOpSetDM(op, dm));
  PetscCall(FEGOpSetForm(op, form));
  PetscCall(FEGOpSetType(op, type));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)form, &prefix));
  PetscCall(FEGOpSetOptionsPrefix(op, prefix));
  PetscCall(FEGOpSetFromOptions(op));
  PetscCall(FEGOpCreateMat(op, A));
  PetscCall(FEGOpDestroy(&op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What MatView() of an operator prints (ASCII), on every process: through a file, since fegpu's views are ASCII only */
static inline PetscErrorCode fegtest_view_text(Mat A, char *text, size_t len)
{
  PetscViewer v;
  int         pid = (int)getpid();
  char        name[64];
  FILE       *fp;
  size_t      n    = 0;
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, comm));
  PetscCall(PetscSNPrintf(name, sizeof(name), "fegtest-view-%d.txt", pid));
  PetscCall(PetscViewerASCIIOpen(comm, name, &v));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscMemzero(text, len));
  PetscCall(PetscFOpen(PETSC_COMM_SELF, name, "r", &fp));
  if (fp) n = fread(text, 1, len - 1, fp);
  text[n] = 0;
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  PetscCallMPI(MPI_Barrier(comm));
  if (rank == 0) (void)remove(name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fail the current Check test when a PETSc call fails */
/* a PETSc error fails the test; on several processes it ends the run, since the other processes would otherwise wait
   in their next collective call for this one, which has left the test */
#define TCHK(call) \
  do { \
    PetscErrorCode _ierr = (call); \
    if (_ierr != PETSC_SUCCESS) fegtest_abort_if_parallel((int)_ierr, #call); \
    ck_assert_msg(_ierr == PETSC_SUCCESS, "PETSc error %d from %s", (int)_ierr, #call); \
  } while (0)

static inline void fegtest_abort_if_parallel(int ierr, const char *call)
{
  int size, rank;

  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size == 1) return;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  fprintf(stderr, "[%d] PETSc error %d from %s: aborting all %d processes\n", rank, ierr, call, size);
  MPI_Abort(PETSC_COMM_WORLD, ierr);
}

static const DMPolytopeType fegtest_cells[] = {DM_POLYTOPE_TRIANGLE, DM_POLYTOPE_QUADRILATERAL, DM_POLYTOPE_TETRAHEDRON, DM_POLYTOPE_HEXAHEDRON, DM_POLYTOPE_TRI_PRISM};

static inline PetscInt fegtest_dim(DMPolytopeType ct)
{
  return (ct == DM_POLYTOPE_TRIANGLE || ct == DM_POLYTOPE_QUADRILATERAL) ? 2 : 3;
}

/* A non-symmetric full C and a D, and a linear map of the auxiliary field into both */
static const PetscScalar fegtest_C0[16] = {2.0, 0.3, -0.2, 0.1, -0.4, 1.5, 0.2, 0.1, 0.5, -0.1, 1.2, 0.3, 0.2, 0.3, -0.2, 1.1};
static const PetscScalar fegtest_D0[4]  = {1.0, 0.2, -0.3, 0.4};

static inline PetscScalar fegtest_A(PetscInt ij, PetscInt k)
{
  return 0.1 * ((ij * 7 + k * 3) % 5) - 0.15;
}

static inline PetscScalar fegtest_B(PetscInt j, PetscInt k)
{
  return 0.2 * ((j + 2 * k) % 3) - 0.1;
}

/* The x-dependent part of the pointwise terms, as tests give it at the quadrature points: FEGTEST_NQ values w and
   their maps into C and D (entries not set here are zero) */
#define FEGTEST_NQ 5
static inline void fegtest_qvalues(PetscInt dim, const PetscReal x[], PetscScalar w[FEGTEST_NQ])
{
  w[0] = x[0] * x[1];
  w[1] = x[0] * x[0];
  w[2] = x[1];
  w[3] = x[dim - 1] * x[dim - 1];
  w[4] = x[0];
}
static inline void fegtest_qmaps(PetscInt dim, PetscScalar A[16 * FEGTEST_NQ], PetscScalar B[4 * FEGTEST_NQ])
{
  for (PetscInt k = 0; k < 16 * FEGTEST_NQ; k++) A[k] = 0.0;
  for (PetscInt k = 0; k < 4 * FEGTEST_NQ; k++) B[k] = 0.0;
  A[0 * FEGTEST_NQ + 0]               = 1.0; /* C_00 += x0 x1 */
  A[(1 * 4 + 1) * FEGTEST_NQ + 1]     = 0.5; /* C_11 += x0^2 / 2 */
  A[(2 * 4 + 0) * FEGTEST_NQ + 2]     = 0.2; /* C_20 += x1 / 5 */
  A[(dim * 4 + dim) * FEGTEST_NQ + 3] = 0.3;
  B[0 * FEGTEST_NQ + 4]               = 1.0; /* D_0 += x0 - x1 */
  B[0 * FEGTEST_NQ + 2]               = -1.0;
  B[dim * FEGTEST_NQ + 4]             = 0.1;
}
static inline void fegtest_x_terms(PetscInt dim, const PetscReal x[], PetscScalar C[], PetscScalar D[])
{
  PetscScalar w[FEGTEST_NQ], A[16 * FEGTEST_NQ], B[4 * FEGTEST_NQ];

  fegtest_qvalues(dim, x, w);
  fegtest_qmaps(dim, A, B);
  for (PetscInt k = 0; k < FEGTEST_NQ; k++) {
    for (PetscInt ij = 0; ij < 16; ij++) C[ij] += A[ij * FEGTEST_NQ + k] * w[k];
    for (PetscInt j = 0; j < 4; j++) D[j] += B[j * FEGTEST_NQ + k] * w[k];
  }
}

/* Pointwise, x- and grad(w)-dependent part, also written into the oracle's g0..g3 */
static inline void fegtest_pointwise_terms(PetscInt dim, const PetscReal x[], const PetscScalar gradw[], PetscScalar C[], PetscScalar D[])
{
  fegtest_x_terms(dim, x, C, D);
  C[0 * 4 + 1] += 0.3 * gradw[0 * dim + 0];
}

/* the oracle's pointwise flag: none, fegtest_pointwise_terms(), or only its x terms (given at quadrature points) */
#define FEGTEST_XTERMS 2

static inline PetscErrorCode fegtest_pointwise(PetscInt dim, PetscInt Nw, const PetscReal x[], const PetscScalar w[], const PetscScalar gradw[], PetscScalar C[], PetscScalar D[], void *ctx)
{
  fegtest_pointwise_terms(dim, x, gradw, C, D);
  return PETSC_SUCCESS;
}

/* Full C and D at a point, from the constants array laid out by fegtest_set_constants() */
static inline void fegtest_coefficients(PetscInt dim, const PetscScalar a[], const PetscScalar a_x[], const PetscReal x[], const PetscScalar k[], PetscInt pointwise, PetscScalar C[16], PetscScalar D[4])
{
  for (PetscInt ij = 0; ij < 16; ij++) {
    C[ij] = k[ij];
    for (PetscInt c = 0; a && c < NW; c++) C[ij] += k[16 + ij * NW + c] * a[c];
  }
  for (PetscInt j = 0; j < 4; j++) {
    D[j] = k[16 + 16 * NW + j];
    for (PetscInt c = 0; a && c < NW; c++) D[j] += k[20 + 16 * NW + j * NW + c] * a[c];
  }
  if (pointwise == FEGTEST_XTERMS) fegtest_x_terms(dim, x, C, D);
  else if (pointwise) fegtest_pointwise_terms(dim, x, a_x, C, D);
}

#define FEGTEST_NCONST (20 + 20 * NW + 1)

static inline void fegtest_g0(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g0[])
{
  PetscScalar C[16], D[4];

  fegtest_coefficients(dim, NfAux ? a : NULL, NfAux ? a_x : NULL, x, constants, (PetscInt)PetscRealPart(constants[FEGTEST_NCONST - 1]), C, D);
  g0[0] = C[0];
}

/* g1[dg]: test value times trial derivative dg */
static inline void fegtest_g1(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g1[])
{
  PetscScalar C[16], D[4];

  fegtest_coefficients(dim, NfAux ? a : NULL, NfAux ? a_x : NULL, x, constants, (PetscInt)PetscRealPart(constants[FEGTEST_NCONST - 1]), C, D);
  for (PetscInt d = 0; d < dim; d++) g1[d] = C[(d + 1) * 4 + 0];
}

/* g2[df]: test derivative df times trial value */
static inline void fegtest_g2(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g2[])
{
  PetscScalar C[16], D[4];

  fegtest_coefficients(dim, NfAux ? a : NULL, NfAux ? a_x : NULL, x, constants, (PetscInt)PetscRealPart(constants[FEGTEST_NCONST - 1]), C, D);
  for (PetscInt d = 0; d < dim; d++) g2[d] = C[0 * 4 + d + 1];
}

/* g3[df*dim+dg]: test derivative df times trial derivative dg */
static inline void fegtest_g3(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  PetscScalar C[16], D[4];

  fegtest_coefficients(dim, NfAux ? a : NULL, NfAux ? a_x : NULL, x, constants, (PetscInt)PetscRealPart(constants[FEGTEST_NCONST - 1]), C, D);
  for (PetscInt df = 0; df < dim; df++)
    for (PetscInt dg = 0; dg < dim; dg++) g3[df * dim + dg] = C[(dg + 1) * 4 + df + 1];
}

/* Residual of a(u,v) - b(v): f0 = sum_i C_i0 d_i u - D_0, f1[d] = sum_i C_i,d+1 d_i u - D_d+1 */
static inline void fegtest_f0(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f0[])
{
  PetscScalar C[16], D[4];

  fegtest_coefficients(dim, NfAux ? a : NULL, NfAux ? a_x : NULL, x, constants, (PetscInt)PetscRealPart(constants[FEGTEST_NCONST - 1]), C, D);
  f0[0] = C[0] * u[0] - D[0];
  for (PetscInt d = 0; d < dim; d++) f0[0] += C[(d + 1) * 4] * u_x[d];
}

static inline void fegtest_f1(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar f1[])
{
  PetscScalar C[16], D[4];

  fegtest_coefficients(dim, NfAux ? a : NULL, NfAux ? a_x : NULL, x, constants, (PetscInt)PetscRealPart(constants[FEGTEST_NCONST - 1]), C, D);
  for (PetscInt d = 0; d < dim; d++) {
    f1[d] = C[0 * 4 + d + 1] * u[0] - D[d + 1];
    for (PetscInt e = 0; e < dim; e++) f1[d] += C[(e + 1) * 4 + d + 1] * u_x[e];
  }
}

static inline PetscErrorCode fegtest_auxfunc(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 1.0 + 0.5 * PetscSinReal(2.0 * x[0]) * x[1];
  u[1] = x[0] * x[0] - 0.3 * x[1] + (dim == 3 ? 0.2 * x[2] : 0.0);
  return PETSC_SUCCESS;
}

static inline PetscErrorCode fegtest_bcfunc(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 1.0 + x[0] - 2.0 * x[1] + x[0] * x[1];
  return PETSC_SUCCESS;
}

/* The manufactured solution of the convergence tests, u = prod_d sin(k_d x_d + s_d), with its first and second
   derivatives */
static const PetscReal fegtest_kk[3] = {1.3, 0.9, 1.1}, fegtest_ss[3] = {0.3, 0.2, 0.1};

static inline PetscErrorCode fegtest_exact(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 1.0;
  for (PetscInt d = 0; d < dim; d++) u[0] *= PetscSinReal(fegtest_kk[d] * x[d] + fegtest_ss[d]);
  return PETSC_SUCCESS;
}

static inline void fegtest_sines(PetscInt dim, const PetscReal x[], PetscReal *u, PetscReal du[3], PetscReal d2u[3][3])
{
  PetscReal sn[3], cs[3];

  *u = 1.0;
  for (PetscInt d = 0; d < dim; d++) {
    sn[d] = PetscSinReal(fegtest_kk[d] * x[d] + fegtest_ss[d]);
    cs[d] = PetscCosReal(fegtest_kk[d] * x[d] + fegtest_ss[d]);
    *u *= sn[d];
  }
  for (PetscInt i = 0; i < dim; i++) {
    du[i] = fegtest_kk[i] * cs[i];
    for (PetscInt d = 0; d < dim; d++)
      if (d != i) du[i] *= sn[d];
    for (PetscInt j = 0; j < dim; j++) {
      if (i == j) d2u[i][j] = -fegtest_kk[i] * fegtest_kk[i] * *u;
      else {
        d2u[i][j] = fegtest_kk[i] * fegtest_kk[j] * cs[i] * cs[j];
        for (PetscInt d = 0; d < dim; d++)
          if (d != i && d != j) d2u[i][j] *= sn[d];
      }
    }
  }
}

/* f = C00 u + sum_i (C_i0 - C_0i) d_i u - sum_ij C_ij d_i d_j u: the strong form of a(u,v) with constant C */
static inline PetscScalar fegtest_source(PetscInt dim, const PetscScalar C[16], const PetscReal x[])
{
  PetscReal   u, du[3], d2u[3][3];
  PetscScalar f;

  fegtest_sines(dim, x, &u, du, d2u);
  f = C[0] * u;
  for (PetscInt i = 0; i < dim; i++) {
    f += (C[(i + 1) * 4] - C[i + 1]) * du[i];
    for (PetscInt j = 0; j < dim; j++) f -= C[(i + 1) * 4 + j + 1] * d2u[i][j];
  }
  return f;
}

/* An essential condition with values from fn on the boundary the mesh builders mark ("marker" 1) */
typedef PetscErrorCode (*fegtest_fn)(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *);
static inline PetscErrorCode fegtest_wall(DM dm, fegtest_fn fn)
{
  DMLabel  label;
  PetscInt id = 1;

  PetscFunctionBegin;
  PetscCall(DMGetLabel(dm, "marker", &label));
  PetscCall(DMAddBoundary(dm, DM_BC_ESSENTIAL, "wall", label, 1, &id, 0, 0, NULL, (void (*)(void))fn, NULL, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegpu's global vector of dm (DMCreateGlobalVector() of a DM FEGDMSetUpSection() set up) against PETSc's of the same
   DM (the method of a new DMPlex, DMCreateGlobalVector_Plex()): type, sizes, block size, DM, methods and zero entries.
   what: "" when they agree, else what differs; *hostcopy: whether fegpu's vector has a host array at once (the array
   at the start of a native vector's data, VECHEADER). Collective. */
static inline PetscErrorCode fegtest_global_vector(DM dm, char what[], size_t len, PetscBool *hostcopy)
{
  DM        plex, vdm[2];
  Vec       v[2];
  PetscInt  n[2], N[2], bs[2];
  PetscReal nrm[2];
  PetscBool sametype, sameops;
  VecType   type[2];

  PetscFunctionBegin;
  PetscCall(DMCreateGlobalVector(dm, &v[0]));
  *hostcopy = (PetscBool)(v[0]->petscnative && *(PetscScalar **)v[0]->data);
  PetscCall(DMPlexCreate(PetscObjectComm((PetscObject)dm), &plex));
  PetscCall((*plex->ops->createglobalvector)(dm, &v[1]));
  PetscCall(DMDestroy(&plex));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecGetType(v[k], &type[k]));
    PetscCall(VecGetLocalSize(v[k], &n[k]));
    PetscCall(VecGetSize(v[k], &N[k]));
    PetscCall(VecGetBlockSize(v[k], &bs[k]));
    PetscCall(VecGetDM(v[k], &vdm[k]));
    PetscCall(VecNorm(v[k], NORM_INFINITY, &nrm[k]));
  }
  PetscCall(PetscStrcmp(type[0], type[1], &sametype));
  sameops = (PetscBool)!memcmp(v[0]->ops, v[1]->ops, sizeof(struct _VecOps));
  what[0] = 0;
  if (!sametype || n[0] != n[1] || N[0] != N[1] || bs[0] != bs[1] || vdm[0] != dm || vdm[1] != dm || !sameops || nrm[0] != 0.0)
    PetscCall(PetscSNPrintf(what, len, "fegpu's/PETSc's global vector: type %s/%s, %d/%d local and %d/%d global entries, block size %d/%d, %s DM, %s methods, norm %g", type[0], type[1], (int)n[0], (int)n[1], (int)N[0], (int)N[1], (int)bs[0], (int)bs[1], vdm[0] == dm ? "the" : "not the", sameops ? "the same" : "other", (double)nrm[0]));
  PetscCall(VecDestroy(&v[0]));
  PetscCall(VecDestroy(&v[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Faces a side for a box of the order: with walls at least 3 free nodes a direction (27 unknowns in 3-D), so that
   comparisons see entries off the diagonal and on both sides of a non-symmetric form, not a 1x1 matrix */
static inline PetscInt fegtest_faces(PetscInt order, PetscBool bc, PetscInt n)
{
  return bc && n * order < 4 ? (4 + order - 1) / order : n;
}

/* Walls for the continuous cases that compare two operators: at odd orders, none at even ones, so that entries
   between boundary dofs are compared too */
static inline PetscBool fegtest_walls(PetscBool cont, PetscInt order)
{
  return (PetscBool)(cont && order % 2);
}

/* A box mesh of one cell type, faces[] cells a side and perturbed by perturb, with a Lagrange field, optionally an
   essential condition on the boundary */
static inline PetscErrorCode fegtest_box(MPI_Comm comm, DMPolytopeType ct, const PetscInt faces[], PetscReal perturb, PetscInt order, PetscBool cont, PetscBool bc, DM *dm)
{
  PetscFunctionBegin;
  PetscCall(FEGCreateBoxMesh(comm, ct, faces, NULL, NULL, perturb, dm));
  PetscCall(FEGSetUpDiscretization(*dm, order, cont, "u"));
  if (bc) PetscCall(fegtest_wall(*dm, fegtest_bcfunc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The box perturbed by 0.2 with n faces a side (more where walls would leave too few unknowns, fegtest_faces()) */
static inline PetscErrorCode fegtest_setup(MPI_Comm comm, DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool bc, PetscInt n, DM *dm)
{
  PetscInt faces[3];

  PetscFunctionBegin;
  faces[0] = faces[1] = faces[2] = fegtest_faces(order, bc, n);
  PetscCall(fegtest_box(comm, ct, faces, 0.2, order, cont, bc, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -div(K grad u) + u = 1 with the DM's boundary data, through FEGDMSetForm(): a KSP with CG and the given PC (and,
   when pmat is not NULL, -feg_op_pmat) on the DM's operator of type, options set under prefix and cleared after the
   solve. Returns a copy of the solution and the KSP, for the caller to ask what it used and to destroy. */
static inline PetscErrorCode fegtest_dm_solve(DM dm, const char *prefix, const char *type, const char *pmat, const char *pc, Vec *sol, KSP *ksp)
{
  const PetscScalar  C[16] = {1.0, 0, 0, 0, 0, 1.0, 0.3, 0.1, 0, 0.3, 2.0, 0.2, 0, 0.1, 0.2, 1.5}, D[4] = {1, 0, 0, 0};
  const char        *names[3]  = {"feg_op_type", "feg_op_pmat", "pc_type"};
  const char        *values[3] = {type, pmat, pc};
  char               opt[3][64];
  FEGForm            form;
  Vec                u;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  for (int i = 0; i < 3; i++) {
    PetscCall(PetscSNPrintf(opt[i], sizeof(opt[i]), "-%s%s", prefix, names[i]));
    if (values[i]) PetscCall(PetscOptionsSetValue(NULL, opt[i], values[i]));
  }
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, C, D));
  PetscCall(FEGFormSetOptionsPrefix(form, prefix));
  PetscCall(FEGDMSetForm(dm, form));
  PetscCall(FEGFormDestroy(&form));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetDM(*ksp, dm));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPSetTolerances(*ksp, 1e-12, 1e-50, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSolve(*ksp, NULL, NULL));
  for (int i = 0; i < 3; i++) PetscCall(PetscOptionsClearValue(NULL, opt[i]));
  PetscCall(KSPGetConvergedReason(*ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s with PC %s did not converge: %s", type, pc, KSPConvergedReasons[reason]);
  PetscCall(KSPGetSolution(*ksp, &u));
  PetscCall(VecDuplicate(u, sol));
  PetscCall(VecCopy(u, *sol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator of type (NULL: the default, addto) of m(u, v), plus grad u . grad v when stiff, on a box of 6 cells a
   side perturbed by 0.2, with vectors of type vt */
static inline PetscErrorCode fegtest_massstiff_operator(DMPolytopeType ct, PetscInt order, PetscBool stiff, const char *type, VecType vt, DM *dm, Mat *A)
{
  const PetscScalar s     = stiff ? 1.0 : 0.0;
  const PetscScalar C[16] = {1.0, 0, 0, 0, 0, s, 0, 0, 0, 0, s, 0, 0, 0, 0, s};
  FEGForm           form;

  PetscFunctionBegin;
  PetscCall(fegtest_box(PETSC_COMM_WORLD, ct, (PetscInt[]){6, 6, 6}, 0.2, order, PETSC_TRUE, PETSC_FALSE, dm));
  PetscCall(DMSetVecType(*dm, vt));
  PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
  PetscCall(FEGFormSetConstant(form, C, NULL));
  PetscCall(FEGFormSetOptionsPrefix(form, "ms_"));
  if (type) PetscCall(PetscOptionsSetValue(NULL, "-ms_feg_op_type", type));
  PetscCall(FEGCreateOperator(*dm, form, A));
  PetscCall(PetscOptionsClearValue(NULL, "-ms_feg_op_type"));
  PetscCall(FEGFormDestroy(&form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p-multigrid's level options under the KSP prefix mg_ (set), or their removal: Chebyshev-Jacobi smoothing, one GAMG
   V-cycle on the order-1 level; the levels are PCMG's default for a DM with a form, one per order */
static inline PetscErrorCode fegtest_pmg_options(PetscBool set)
{
  const char *opts[][2] = {
    {"-mg_mg_levels_ksp_type",        "chebyshev"},
    {"-mg_mg_levels_pc_type",         "jacobi"   },
    {"-mg_mg_levels_esteig_ksp_type", "cg"       },
    {"-mg_mg_coarse_pc_type",         "gamg"     },
    {"-mg_mg_coarse_ksp_type",        "preonly"  }
  };

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
    if (set) PetscCall(PetscOptionsSetValue(NULL, opts[i][0], opts[i][1]));
    else PetscCall(PetscOptionsClearValue(NULL, opts[i][0]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A P1 (Q1) continuous field with NW components on a clone of dm, using dm's quadrature */
static inline PetscErrorCode fegtest_aux(DM dm, DM *auxdm, Vec *aux)
{
  PetscFE        fe, auxfe;
  PetscInt       dim, cStart;
  DMPolytopeType ct;
  PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fegtest_auxfunc};

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, NULL));
  PetscCall(DMPlexGetCellType(dm, cStart, &ct));
  PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
  PetscCall(PetscFECreateLagrangeByCell(PetscObjectComm((PetscObject)dm), dim, NW, ct, 1, PETSC_DETERMINE, &auxfe));
  {
    PetscQuadrature q;

    PetscCall(PetscFEGetQuadrature(fe, &q));
    PetscCall(PetscFESetQuadrature(auxfe, q));
  }
  PetscCall(DMClone(dm, auxdm));
  PetscCall(DMSetField(*auxdm, 0, NULL, (PetscObject)auxfe));
  PetscCall(DMCreateDS(*auxdm));
  PetscCall(PetscFEDestroy(&auxfe));
  PetscCall(DMCreateGlobalVector(*auxdm, aux));
  PetscCall(DMProjectFunction(*auxdm, 0.0, funcs, NULL, INSERT_ALL_VALUES, *aux));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fegpu form matching the oracle: constant C0/D0, linear map of w, and (optionally) the pointwise terms */
static inline PetscErrorCode fegtest_form(MPI_Comm comm, DM auxdm, Vec aux, PetscBool pointwise, FEGForm *form)
{
  PetscScalar A[16 * NW], B[4 * NW];

  PetscFunctionBegin;
  for (PetscInt ij = 0; ij < 16; ij++)
    for (PetscInt k = 0; k < NW; k++) A[ij * NW + k] = fegtest_A(ij, k);
  for (PetscInt j = 0; j < 4; j++)
    for (PetscInt k = 0; k < NW; k++) B[j * NW + k] = fegtest_B(j, k);
  PetscCall(FEGFormCreate(comm, form));
  PetscCall(FEGFormSetConstant(*form, fegtest_C0, fegtest_D0));
  if (auxdm) {
    PetscCall(FEGFormSetAuxiliaryField(*form, auxdm, aux));
    PetscCall(FEGFormSetLinearCoefficient(*form, NW, A, B));
  }
  if (pointwise) PetscCall(FEGFormSetPointwiseCoefficient(*form, fegtest_pointwise, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegtest_qvalues() at every quadrature point of dm's cells, for FEGFormSetQuadratureCoefficient() (filled through
   host arrays: on the GPU the kernels still read the vector from the device) */
static inline PetscErrorCode fegtest_qpoint_values(DM dm, Vec *W)
{
  Vec                X;
  const PetscScalar *x;
  PetscScalar       *w;
  PetscInt           n, dim;

  PetscFunctionBegin;
  PetscCall(DMGetCoordinateDim(dm, &dim));
  PetscCall(FEGDMCreateQuadratureCoordinates(dm, &X));
  PetscCall(FEGDMCreateQuadratureVec(dm, FEGTEST_NQ, W));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayWrite(*W, &w));
  for (PetscInt p = 0; p < n / dim; p++) {
    PetscReal xp[3];

    for (PetscInt k = 0; k < dim; k++) xp[k] = PetscRealPart(x[p * dim + k]);
    fegtest_qvalues(dim, xp, &w[p * FEGTEST_NQ]);
  }
  PetscCall(VecRestoreArrayWrite(*W, &w));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecDestroy(&X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Forms that select each matfree kernel and stored-pair set */
typedef enum {
  FORM_POINTWISE, /* pointwise x-dependent terms and a P1 field: C varies within cells (qp, sumfact) */
  FORM_CONSTANT,  /* the non-symmetric constant C0 (all pairs) */
  FORM_CELLWISE,  /* C0 plus a linear map of a piecewise-constant field: C constant per cell, non-symmetric */
  FORM_SYMMETRIC, /* symmetric C with value-gradient terms */
  FORM_MASSSTIFF, /* mass plus anisotropic diffusion */
  FORM_POISSON,   /* anisotropic diffusion only */
  FORM_MASS,      /* the mass term only */
  NFORMS,
  FORM_LINEAR,  /* C0 plus a linear map of a P1 field (not in the loops above) */
  FORM_QPOINTS, /* FORM_LINEAR plus fegtest_x_terms() given at the quadrature points (not in the loops above) */
  FORM_LAPLACE  /* the Laplacian, C 1.7 times the identity on the gradients (the computed geometry's shortcut) */
} test_form;
static inline const char *fegtest_form_name(int kind)
{
  static const char *const names[] = {"pointwise", "constant", "cellwise", "symmetric", "mass+stiffness", "poisson", "mass", "-", "linear", "quadrature-point", "laplace"};
  return names[kind];
}

static inline PetscErrorCode fegtest_make_form(DM dm, test_form kind, DM *auxdm, Vec *aux, FEGForm *form)
{
  PetscScalar C[16] = {0}, D[4] = {1.0, 0, 0, 0};

  PetscFunctionBegin;
  *auxdm = NULL;
  *aux   = NULL;
  if (kind == FORM_POINTWISE) {
    PetscCall(fegtest_aux(dm, auxdm, aux));
    PetscCall(fegtest_form(PetscObjectComm((PetscObject)dm), *auxdm, *aux, PETSC_TRUE, form));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (kind == FORM_LINEAR || kind == FORM_QPOINTS) {
    PetscCall(fegtest_aux(dm, auxdm, aux));
    PetscCall(fegtest_form(PetscObjectComm((PetscObject)dm), *auxdm, *aux, PETSC_FALSE, form));
    if (kind == FORM_QPOINTS) {
      Vec         W;
      PetscScalar A[16 * FEGTEST_NQ], B[4 * FEGTEST_NQ];
      PetscInt    dim;

      PetscCall(DMGetCoordinateDim(dm, &dim));
      PetscCall(fegtest_qpoint_values(dm, &W));
      fegtest_qmaps(dim, A, B);
      PetscCall(FEGFormSetQuadratureCoefficient(*form, W, FEGTEST_NQ, A, B));
      PetscCall(VecDestroy(&W));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (kind == FORM_CONSTANT) {
    PetscCall(fegtest_form(PetscObjectComm((PetscObject)dm), NULL, NULL, PETSC_FALSE, form));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (kind == FORM_CELLWISE) {
    PetscFE        fe0, fe;
    PetscInt       dim, cStart;
    DMPolytopeType ct;
    PetscErrorCode (*funcs[1])(PetscInt, PetscReal, const PetscReal[], PetscInt, PetscScalar *, void *) = {fegtest_auxfunc};
    PetscQuadrature q;

    PetscCall(DMGetDimension(dm, &dim));
    PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, NULL));
    PetscCall(DMPlexGetCellType(dm, cStart, &ct));
    PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
    PetscCall(PetscFECreateLagrangeByCell(PetscObjectComm((PetscObject)dm), dim, NW, ct, 0, PETSC_DETERMINE, &fe0));
    PetscCall(PetscFEGetQuadrature(fe, &q));
    PetscCall(PetscFESetQuadrature(fe0, q));
    PetscCall(DMClone(dm, auxdm));
    PetscCall(DMSetField(*auxdm, 0, NULL, (PetscObject)fe0));
    PetscCall(DMCreateDS(*auxdm));
    PetscCall(PetscFEDestroy(&fe0));
    PetscCall(DMCreateGlobalVector(*auxdm, aux));
    PetscCall(DMProjectFunction(*auxdm, 0.0, funcs, NULL, INSERT_ALL_VALUES, *aux));
    PetscCall(fegtest_form(PetscObjectComm((PetscObject)dm), *auxdm, *aux, PETSC_FALSE, form));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (kind == FORM_LAPLACE) {
    for (PetscInt i = 1; i < 4; i++) C[i * 4 + i] = 1.7;
  } else if (kind != FORM_MASS) {
    for (PetscInt i = 1; i < 4; i++) C[i * 4 + i] = 1.0 + 0.25 * i;
    C[1 * 4 + 2] = C[2 * 4 + 1] = 0.3;
    C[2 * 4 + 3] = C[3 * 4 + 2] = -0.2;
  }
  if (kind != FORM_POISSON && kind != FORM_LAPLACE) C[0] = 2.5;
  if (kind == FORM_SYMMETRIC) {
    C[0 * 4 + 1] = C[1 * 4 + 0] = 0.4;
    C[0 * 4 + 3] = C[3 * 4 + 0] = -0.3;
  }
  PetscCall(FEGFormCreate(PetscObjectComm((PetscObject)dm), form));
  PetscCall(FEGFormSetConstant(*form, C, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's own assembly of the same form on dm (whose DS gets the pointwise functions); J and/or F may be NULL.
   F = a(g, v) - b(v) on the free dofs, g the boundary values */
static inline PetscErrorCode fegtest_oracle(DM dm, DM auxdm, Vec aux, PetscInt pointwise, Mat *J, Vec *F)
{
  PetscDS     ds;
  PetscScalar k[FEGTEST_NCONST] = {0};
  Vec         u, auxl = NULL;

  PetscFunctionBegin;
  for (PetscInt ij = 0; ij < 16; ij++) k[ij] = fegtest_C0[ij];
  for (PetscInt j = 0; j < 4; j++) k[16 + 16 * NW + j] = fegtest_D0[j];
  if (auxdm) {
    for (PetscInt ij = 0; ij < 16; ij++)
      for (PetscInt c = 0; c < NW; c++) k[16 + ij * NW + c] = fegtest_A(ij, c);
    for (PetscInt j = 0; j < 4; j++)
      for (PetscInt c = 0; c < NW; c++) k[20 + 16 * NW + j * NW + c] = fegtest_B(j, c);
    PetscCall(DMCreateLocalVector(auxdm, &auxl));
    PetscCall(DMGlobalToLocal(auxdm, aux, INSERT_VALUES, auxl));
    PetscCall(DMSetAuxiliaryVec(dm, NULL, 0, 0, auxl));
    PetscCall(VecDestroy(&auxl));
  }
  k[FEGTEST_NCONST - 1] = (PetscScalar)pointwise;
  PetscCall(DMGetDS(dm, &ds));
  PetscCall(PetscDSSetConstants(ds, FEGTEST_NCONST, k));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, fegtest_g0, fegtest_g1, fegtest_g2, fegtest_g3));
  PetscCall(PetscDSSetResidual(ds, 0, fegtest_f0, fegtest_f1));
  /* PETSc's FEM callbacks take local vectors; u is zero except for the boundary values */
  PetscCall(DMCreateLocalVector(dm, &u));
  PetscCall(VecZeroEntries(u));
  PetscCall(DMPlexInsertBoundaryValues(dm, PETSC_TRUE, u, 0.0, NULL, NULL, NULL));
  if (J) {
    PetscCall(DMCreateMatrix(dm, J));
    PetscCall(DMPlexSNESComputeJacobianFEM(dm, u, *J, *J, NULL));
    PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  }
  if (F) {
    Vec Fl;

    PetscCall(DMCreateLocalVector(dm, &Fl));
    PetscCall(VecZeroEntries(Fl));
    PetscCall(DMPlexSNESComputeResidualFEM(dm, u, Fl, NULL));
    PetscCall(DMCreateGlobalVector(dm, F));
    PetscCall(VecZeroEntries(*F));
    PetscCall(DMLocalToGlobal(dm, Fl, ADD_VALUES, *F));
    PetscCall(VecDestroy(&Fl));
  }
  PetscCall(VecDestroy(&u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's Jacobian with whatever pointwise functions and auxiliary vector dm's DS has now */
static inline PetscErrorCode fegtest_oracle_jacobian(DM dm, Mat *J)
{
  Vec u;

  PetscFunctionBegin;
  PetscCall(DMCreateLocalVector(dm, &u));
  PetscCall(VecZeroEntries(u));
  PetscCall(DMCreateMatrix(dm, J));
  PetscCall(DMPlexSNESComputeJacobianFEM(dm, u, *J, *J, NULL));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(VecDestroy(&u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode fegtest_velocity(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  u[0] = 1.0 + x[1] * x[1];
  u[1] = -0.5 + x[0];
  if (dim == 3) u[2] = 0.3 * x[0] * x[1];
  return PETSC_SUCCESS;
}

/* ||A - B||_F / ||B||_F */
static inline PetscErrorCode fegtest_matdiff(Mat A, Mat B, PetscReal *rel)
{
  Mat       D;
  PetscReal nd, nb;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &D));
  PetscCall(MatAXPY(D, -1.0, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nb));
  *rel = nd / nb;
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u = its iterations of CG with Jacobi on A u = b from a zero guess, the iterate itself (no convergence test):
   comparisons of two operators' iterates */
static inline PetscErrorCode fegtest_cg_iterates(Mat A, Vec b, PetscInt its, Vec u)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-30, 1e-30, PETSC_DEFAULT, its));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||x - y|| / ||y|| */
static inline PetscErrorCode fegtest_vecdiff(Vec x, Vec y, PetscReal *rel)
{
  Vec       d;
  PetscReal nd, ny;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(y, &d));
  PetscCall(VecWAXPY(d, -1.0, x, y));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(y, NORM_2, &ny));
  *rel = ny > 0 ? nd / ny : nd;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest relative difference of operator A[1] from A[0] over products, transposed products, added products and
   diagonals, on x[g] and z[g] (the same values in each operator's layout) */
static inline PetscErrorCode fegtest_opdiff(Mat A[2], Vec x[2], Vec z[2], PetscReal *err)
{
  Vec y[2];

  PetscFunctionBegin;
  *err = 0.0;
  for (int g = 0; g < 2; g++) PetscCall(VecDuplicate(x[g], &y[g]));
  for (int op = 0; op < 4; op++) {
    PetscReal r;

    for (int g = 0; g < 2; g++) {
      if (op == 0) PetscCall(MatMult(A[g], x[g], y[g]));
      else if (op == 1) PetscCall(MatMultTranspose(A[g], x[g], y[g]));
      else if (op == 2) PetscCall(MatMultAdd(A[g], x[g], z[g], y[g]));
      else PetscCall(MatGetDiagonal(A[g], y[g]));
    }
    PetscCall(fegtest_vecdiff(y[1], y[0], &r));
    *err = PetscMax(*err, r);
  }
  for (int g = 0; g < 2; g++) PetscCall(VecDestroy(&y[g]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Captures the first message of a PETSc error, so tests can check what the user is told */
typedef struct {
  char           msg[4096];
  PetscErrorCode code;
} fegtest_err;

static inline PetscErrorCode fegtest_errhandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  fegtest_err *e = (fegtest_err *)ctx;

  if (p == PETSC_ERROR_INITIAL && mess) {
    PetscStrncpy(e->msg, mess, sizeof(e->msg));
    e->code = n;
  }
  return n;
}

/* call must fail with the error code ecode and a message containing etext */
#define EXPECT_ERROR(call, ecode, etext) \
  do { \
    PetscErrorCode _e; \
    fegtest_err    _err = {"", 0}; \
    TCHK(PetscPushErrorHandler(fegtest_errhandler, &_err)); \
    _e = (call); \
    TCHK(PetscPopErrorHandler()); \
    ck_assert_msg(_e == (ecode), "%s returned %d, expected %d (message: %s)", #call, (int)_e, (int)(ecode), _err.msg); \
    ck_assert_msg(strstr(_err.msg, etext) != NULL, "message of %s lacks '%s': %s", #call, etext, _err.msg); \
  } while (0)

/* Runs a suite in-process (no fork: MPI) and returns the number of failures over all ranks */
static inline int fegtest_run(Suite *s)
{
  SRunner *sr = srunner_create(s);
  int      nf, nfall = 0;

  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  (void)MPI_Allreduce(&nf, &nfall, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  return nfall;
}

/* main() of a test program: PETSc, a suite filled by add, run in-process, failures over all ranks */
static inline int fegtest_main(int argc, char **argv, const char *name, void (*add)(Suite *))
{
  Suite *s;
  int    nf;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  s = suite_create(name);
  add(s);
  nf = fegtest_run(s);
  PetscCall(PetscFinalize());
  return nf ? 1 : 0;
}
