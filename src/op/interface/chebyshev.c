/* An approximate inverse of an assembled matrix as a Mat: a fixed number of Chebyshev steps with Jacobi from x = 0, each
   step one pass over the CSR rows, on the host or, with CUDA vectors, on the GPU (FEGChebyApplyDevice) */
#include <fegpu/private/fegopimpl.h>

PetscErrorCode (*FEGChebyApplyDevice)(FEGCheby *, Vec, Vec) = NULL;

static PetscErrorCode FEGChebyDestroy_Private(Mat S)
{
  FEGCheby *c;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &c));
  if (c->devdestroy) PetscCall((*c->devdestroy)(&c->dev));
  PetscCall(PetscFree2(c->c1, c->c2));
  PetscCall(PetscFree3(c->r, c->d[0], c->d[1]));
  PetscCall(VecDestroy(&c->dinv));
  PetscCall(MatDestroy(&c->A));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = S b on the host: r = b, d_0 = D^{-1} b / theta; then x += d_k, r -= A d_k, d_{k+1} = c1 d_k + c2 D^{-1} r */
static PetscErrorCode FEGChebyApplyHost(FEGCheby *c, Vec b, Vec x)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *a, *ba, *di;
  PetscScalar       *xa;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(c->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "The matrix gives no CSR rows (MatGetRowIJ())");
  PetscCall(MatSeqAIJGetArrayRead(c->A, &a));
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArrayRead(c->dinv, &di));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt i = 0; i < n; i++) {
    c->r[i]    = ba[i];
    c->d[0][i] = di[i] * ba[i] / c->theta;
    xa[i]      = 0.0;
  }
  for (PetscInt k = 0; k < c->its; k++) {
    const PetscScalar *d  = c->d[k % 2];
    PetscScalar       *dn = c->d[(k + 1) % 2];

    if (k == c->its - 1) {
      for (PetscInt i = 0; i < n; i++) xa[i] += d[i];
      break;
    }
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar ad = 0.0;

      for (PetscInt p = ia[i]; p < ia[i + 1]; p++) ad += a[p] * d[ja[p]];
      xa[i] += d[i];
      c->r[i] -= ad;
      dn[i] = c->c1[k] * d[i] + c->c2[k] * di[i] * c->r[i];
    }
  }
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscCall(VecRestoreArrayRead(c->dinv, &di));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(MatSeqAIJRestoreArrayRead(c->A, &a));
  PetscCall(MatRestoreRowIJ(c->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGChebyMult_Private(Mat S, Vec b, Vec x)
{
  FEGCheby        *c;
  PetscObjectState state;
  PetscBool        ondevice;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &c));
  /* the diagonal of the matrix's present values */
  PetscCall(PetscObjectStateGet((PetscObject)c->A, &state));
  if (state != c->dstate) {
    PetscCall(MatGetDiagonal(c->A, c->dinv));
    PetscCall(VecReciprocal(c->dinv));
    c->dstate = state;
  }
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &ondevice, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  if (ondevice) {
    PetscCheck(FEGChebyApplyDevice, PETSC_COMM_SELF, PETSC_ERR_SUP, "CUDA vectors, but fegpu was built without CUDA");
    PetscCall((*FEGChebyApplyDevice)(c, b, x));
  } else {
    if (!c->r) {
      PetscInt n;

      PetscCall(VecGetLocalSize(x, &n));
      PetscCall(PetscMalloc3(n, &c->r, n, &c->d[0], n, &c->d[1]));
    }
    PetscCall(FEGChebyApplyHost(c, b, x));
    PetscCall(PetscLogFlops(c->flops));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateChebyshevInverse - an approximate inverse of an assembled symmetric positive definite matrix as a Mat:
  MatMult(S, b, x) runs its steps of Chebyshev iteration with Jacobi for A x = b from x = 0, given bounds of the
  eigenvalues of diag(A)^{-1} A. No step takes an inner product, so none waits for the host, and on the GPU each step is
  one kernel over the matrix's CSR rows

  Collective

  Input Parameters:
+ A    - a MATSEQAIJ or MATSEQAIJCUSPARSE matrix on one process (an addto operator)
. emin - a lower bound of the eigenvalues of diag(A)^{-1} A, positive
. emax - an upper bound, larger than emin
- its  - the number of steps, 1 or more

  Output Parameter:
. S - a MATSHELL with MatMult; it references A, whose values may change between products (its diagonal is read again)

  Level: intermediate

  Notes:
  The error in the energy norm falls by at least 2/(q^its + q^-its), q = (sqrt(k) + 1)/(sqrt(k) - 1), k = emax/emin.
  The Jacobi-scaled mass matrix of P1 triangles has its eigenvalues in [1/2, 2] (Wathen 1987), so 26 steps reach
  1e-12. The product equals KSPSolve() of PETSc's KSPCHEBYSHEV with KSPChebyshevSetEigenvalues(ksp, emax, emin),
  PCJACOBI, a zero initial guess, no norms and its iterations (tests/test_chebyshev.c); PETSc's takes four vector
  operations and a MatMult per step, which bounds short solves by kernel launches rather than by memory traffic.

.seealso: FEGCreateOperator(), KSPCHEBYSHEV
@*/
PetscErrorCode FEGCreateChebyshevInverse(Mat A, PetscReal emin, PetscReal emax, PetscInt its, Mat *S)
{
  FEGCheby   *c;
  PetscMPIInt size;
  PetscBool   aij;
  PetscInt    m, n;
  MatInfo     info;
  VecType     vtype;
  MPI_Comm    comm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveReal(A, emin, 2);
  PetscValidLogicalCollectiveReal(A, emax, 3);
  PetscValidLogicalCollectiveInt(A, its, 4);
  FEGAssertPointer(S, 5);
  comm = PetscObjectComm((PetscObject)A);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &aij, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
  PetscCheck(size == 1 && aij, comm, PETSC_ERR_SUP, "FEGCreateChebyshevInverse() needs a MATSEQAIJ or MATSEQAIJCUSPARSE matrix on one process, not a %s on %d; on several use PETSc's KSPCHEBYSHEV", ((PetscObject)A)->type_name, (int)size);
  PetscCheck(emin > 0.0 && emax > emin && !PetscIsInfOrNanReal(emax), comm, PETSC_ERR_ARG_OUTOFRANGE, "Eigenvalue bounds [%g, %g] are out of range: allowed are 0 < emin < emax", (double)emin, (double)emax);
  PetscCheck(its >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " Chebyshev steps are out of range: allowed are 1 or more", its);
  PetscCall(MatGetSize(A, &m, &n));
  PetscCheck(m == n, comm, PETSC_ERR_ARG_SIZ, "The matrix is %" PetscInt_FMT " x %" PetscInt_FMT ": it must be square", m, n);
  PetscCall(PetscNew(&c));
  PetscCall(PetscObjectReference((PetscObject)A));
  c->A      = A;
  c->its    = its;
  c->theta  = 0.5 * (emax + emin);
  c->dstate = -1;
  /* Saad, Iterative Methods for Sparse Linear Systems, Alg. 12.1: sigma = theta/delta, rho_0 = 1/sigma,
     rho_{k+1} = 1/(2 sigma - rho_k), d_{k+1} = rho_{k+1} rho_k d_k + 2 rho_{k+1}/delta D^{-1} r_{k+1} */
  {
    const PetscReal delta = 0.5 * (emax - emin), sigma = c->theta / delta;
    PetscReal       rho = 1.0 / sigma;

    PetscCall(PetscMalloc2(its, &c->c1, its, &c->c2));
    for (PetscInt k = 0; k < its - 1; k++) {
      const PetscReal rn = 1.0 / (2.0 * sigma - rho);

      c->c1[k] = rn * rho;
      c->c2[k] = 2.0 * rn / delta;
      rho      = rn;
    }
  }
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  c->nnz   = (PetscInt)info.nz_used;
  c->flops = (PetscLogDouble)(its - 1) * (2.0 * c->nnz + 6.0 * n) + 2.0 * n;
  PetscCall(MatCreateVecs(A, &c->dinv, NULL));
  PetscCall(MatCreateShell(comm, n, n, n, n, c, S));
  PetscCall(VecGetType(c->dinv, &vtype));
  PetscCall(MatShellSetVecType(*S, vtype));
  PetscCall(MatShellSetOperation(*S, MATOP_MULT, (void (*)(void))FEGChebyMult_Private));
  PetscCall(MatShellSetOperation(*S, MATOP_DESTROY, (void (*)(void))FEGChebyDestroy_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOperatorGetJacobiBounds - bounds of the eigenvalues of diag(A)^{-1} A for an operator of a symmetric form, from its
  element matrices (Wathen 1987): the assembled Rayleigh quotient x^T A x / x^T diag(A) x is a ratio of sums of the
  elements' quotients, so it lies between the smallest and largest eigenvalue of any D_e^{-1/2} K_e D_e^{-1/2}
  (D_e = diag(K_e), constrained dofs left out); what `FEGCreateChebyshevInverse()` and KSPChebyshevSetEigenvalues() need,
  with no iteration to estimate them

  Collective

  Input Parameter:
. A - an operator from `FEGCreateOperator()` of a symmetric form whose element matrices have positive diagonals

  Output Parameters:
+ emin - the lower bound
- emax - the upper bound

  Level: intermediate

  Note:
  The element matrices are integrated again on the host, one at a time; up to 3 dofs an element's extremes are
  computed in closed form and widened by 1e-6 of their spread. P1 triangles' mass matrices give [1/2, 2], and mass-dominated matrices (an implicit step's M + dt K) tight bounds; where stiffness dominates an element
  the lower bound is loose (Q2 hexahedra, M + K on a 4^3 box: 0.003 against a smallest eigenvalue near 0.1), which
  costs Chebyshev steps, not correctness.

.seealso: FEGCreateChebyshevInverse(), FEGCreateOperator()
@*/
PetscErrorCode FEGOperatorGetJacobiBounds(Mat A, PetscReal *emin, PetscReal *emax)
{
  FEGOp     op;
  PetscReal b[2];

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  FEGAssertPointer(emin, 2);
  FEGAssertPointer(emax, 3);
  PetscCall(FEGOperatorGetOp(A, &op));
  PetscCheck(op, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Mat was not created by FEGCreateOperator() or FEGOpCreateMat()");
  PetscCall(FEGOpElementJacobiBounds(op, &b[0], &b[1]));
  b[0] = -b[0];
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, b, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A)));
  *emin = -b[0];
  *emax = b[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
