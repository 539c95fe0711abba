/* Element matrices and vectors on the host, from the per-point functions of fegpoint.h that the device kernels use */
#include <fegpu/private/fegopimpl.h>
#include <petscblaslapack.h>

/* Ke[a*Nb+b] = int sum_ij C_ij d_i phi_b d_j phi_a (row a: test function, column b: trial function), with C from coeff
   already evaluated on cell e; work holds 2 Nb FEG_MAX_DERIV scalars */
PetscErrorCode FEGIntegrateElementMatrix(FEGDisc *disc, FEGCoeff *coeff, PetscInt e, PetscScalar work[], PetscScalar Ke[])
{
  const PetscInt   Nb = disc->Nb, dim = disc->dim, Nd = dim + 1;
  const PetscReal *T0 = disc->T->T[0], *T1 = disc->T->T[1];
  PetscScalar(*Phi)[4] = (PetscScalar(*)[4])work, (*CPhi)[4] = (PetscScalar(*)[4])(work + 4 * Nb);

  PetscFunctionBeginHot;
  PetscCall(PetscArrayzero(Ke, Nb * Nb));
  for (PetscInt q = 0; q < disc->Nq; q++) {
    const PetscReal *g    = FEGDiscGeometry(disc, e, q);
    const PetscReal  wdet = disc->qweights[q] * g[dim * dim];

    for (PetscInt b = 0; b < Nb; b++) {
      FEGPhysical((int)dim, T0[q * Nb + b], &T1[(q * Nb + b) * dim], g, Phi[b]);
      FEGWeighted((int)Nd, &coeff->C[q * 16], Phi[b], wdet, CPhi[b]);
    }
    for (PetscInt a = 0; a < Nb; a++)
      for (PetscInt b = 0; b < Nb; b++) Ke[a * Nb + b] += FEGDot((int)Nd, Phi[a], CPhi[b]);
  }
  PetscCall(PetscLogFlops((PetscLogDouble)disc->Nq * Nb * (2.0 * Nd * Nd + 2.0 * Nb * Nd)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fe[a] += s (c_0 phi_a + sum_j c_j d_j phi_a) at point q, with c's gradient part taken to the reference cell once
   (invJ c), so that a basis function costs dim + 1 multiply-adds there, not its physical gradient */
static inline void FEGTestAtPoint(const FEGDisc *disc, PetscInt q, const PetscReal invJ[], const PetscScalar c[], PetscScalar s, PetscScalar Fe[])
{
  const PetscInt   Nb = disc->Nb, dim = disc->dim;
  const PetscReal *T0 = disc->T->T[0], *T1 = disc->T->T[1];
  PetscScalar      r0 = s * c[0], rr[3] = {0, 0, 0};

  for (PetscInt r = 0; r < dim; r++) {
    for (PetscInt j = 0; j < dim; j++) rr[r] += invJ[r * dim + j] * c[1 + j];
    rr[r] *= s;
  }
  for (PetscInt a = 0; a < Nb; a++) {
    const PetscReal *t1 = &T1[(q * Nb + a) * dim];
    PetscScalar      f  = r0 * T0[q * Nb + a];

    for (PetscInt r = 0; r < dim; r++) f += rr[r] * t1[r];
    Fe[a] += f;
  }
}

/* Fe[a] = int sum_j D_j d_j phi_a */
PetscErrorCode FEGIntegrateElementVector(FEGDisc *disc, FEGCoeff *coeff, PetscInt e, PetscScalar work[], PetscScalar Fe[])
{
  PetscFunctionBeginHot;
  PetscCall(PetscArrayzero(Fe, disc->Nb));
  for (PetscInt q = 0; q < disc->Nq; q++) {
    const PetscReal *g = FEGDiscGeometry(disc, e, q);

    FEGTestAtPoint(disc, q, g, &coeff->D[q * 4], disc->qweights[q] * g[disc->dim * disc->dim], Fe);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fe[a] -= (Ke g)[a] = int sum_ij C_ij d_i u d_j phi_a with u = sum_c g[c] phi_c, the boundary values' lifting: u and
   its gradient at each point first, so that it costs Nq Nb, not the element matrix's Nq Nb^2 (a Q8 hexahedron on the
   boundary took 0.4 GFLOP) */
PetscErrorCode FEGIntegrateElementLift(FEGDisc *disc, FEGCoeff *coeff, PetscInt e, const PetscScalar g[], PetscScalar Fe[])
{
  const PetscInt   Nb = disc->Nb, dim = disc->dim, Nd = dim + 1;
  const PetscReal *T0 = disc->T->T[0], *T1 = disc->T->T[1];

  PetscFunctionBeginHot;
  for (PetscInt q = 0; q < disc->Nq; q++) {
    const PetscReal *gq = FEGDiscGeometry(disc, e, q), wdet = disc->qweights[q] * gq[dim * dim];
    PetscScalar      u[4] = {0, 0, 0, 0}, ur[3] = {0, 0, 0}, cu[4] = {0, 0, 0, 0};

    /* u and its reference gradient, then the physical one */
    for (PetscInt c = 0; c < Nb; c++) {
      if (g[c] == 0.0) continue;
      u[0] += g[c] * T0[q * Nb + c];
      for (PetscInt r = 0; r < dim; r++) ur[r] += g[c] * T1[(q * Nb + c) * dim + r];
    }
    for (PetscInt c = 0; c < dim; c++)
      for (PetscInt r = 0; r < dim; r++) u[1 + c] += ur[r] * gq[r * dim + c];
    FEGWeighted((int)Nd, &coeff->C[q * 16], u, wdet, cu);
    FEGTestAtPoint(disc, q, gq, cu, -1.0, Fe);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpElementMatrices - every element matrix of an operator's form on the host, Ke[(e*Nb+a)*Nb+b] (row a: test
  function); for operator types that keep or assemble element matrices

  Collective

  Level: developer
@*/
/* into Ke, or with Kf rounded to single precision element by element (one element's matrix in double at a time) */
static PetscErrorCode FEGOpElementMatrices_Private(FEGOp op, PetscScalar Ke[], float Kf[])
{
  FEGDisc     *d = op->disc;
  const size_t n = (size_t)d->Nb * d->Nb;
  FEGCoeff     coeff;
  PetscScalar *work, *K1 = NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Integrate, op, 0, 0, 0));
  PetscCall(FEGCoeffSetUp(d, op->form, &coeff));
  PetscCall(PetscMalloc1(2 * d->Nb * FEG_MAX_DERIV, &work));
  if (Kf) PetscCall(PetscMalloc1(n, &K1));
  for (PetscInt e = 0; e < d->Ne; e++) {
    PetscCall(FEGCoeffEvaluate(d, &coeff, e));
    PetscCall(FEGIntegrateElementMatrix(d, &coeff, e, work, Kf ? K1 : &Ke[e * n]));
    if (Kf)
      for (size_t i = 0; i < n; i++) Kf[e * n + i] = (float)PetscRealPart(K1[i]);
  }
  PetscCall(PetscFree(K1));
  PetscCall(PetscFree(work));
  PetscCall(FEGCoeffDestroy(&coeff));
  PetscCall(PetscLogEventEnd(FEG_Integrate, op, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpElementMatrices(FEGOp op, PetscScalar Ke[])
{
  PetscFunctionBegin;
  PetscCall(FEGOpElementMatrices_Private(op, Ke, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGOpElementMatricesSingle - FEGOpElementMatrices() rounded to single precision, Kf[(e*Nb+a)*Nb+b]: each element
  matrix is integrated in double and rounded once (-feg_op_precision single)

  Collective

  Level: developer
@*/
PetscErrorCode FEGOpElementMatricesSingle(FEGOp op, float Kf[])
{
  PetscFunctionBegin;
  PetscCall(FEGOpElementMatrices_Private(op, NULL, Kf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the extreme eigenvalues of a symmetric m x m matrix S (row-major), m <= 3 in closed form (Smith 1961's trigonometric
   solution for 3), else by LAPACK; lwork holds lw scalars */
static PetscErrorCode FEGSymExtremes(PetscInt m, PetscScalar S[], PetscReal ev[], PetscScalar lwork[], PetscBLASInt lw, PetscReal *lo, PetscReal *hi)
{
  PetscFunctionBegin;
  *lo = *hi = 0.0;
  if (m == 1) *lo = *hi = PetscRealPart(S[0]);
  else if (m == 2) {
    const PetscReal a = PetscRealPart(S[0]), b = PetscRealPart(S[1]), c = PetscRealPart(S[3]);
    const PetscReal h = PetscSqrtReal(0.25 * (a - c) * (a - c) + b * b);

    *lo = 0.5 * (a + c) - h;
    *hi = 0.5 * (a + c) + h;
  } else if (m == 3) {
    const PetscReal a00 = PetscRealPart(S[0]), a01 = PetscRealPart(S[1]), a02 = PetscRealPart(S[2]);
    const PetscReal a11 = PetscRealPart(S[4]), a12 = PetscRealPart(S[5]), a22 = PetscRealPart(S[8]);
    const PetscReal p1 = a01 * a01 + a02 * a02 + a12 * a12, q = (a00 + a11 + a22) / 3.0;
    const PetscReal p2 = (a00 - q) * (a00 - q) + (a11 - q) * (a11 - q) + (a22 - q) * (a22 - q) + 2.0 * p1;

    if (p2 <= 0.0) *lo = *hi = q;
    else {
      const PetscReal p = PetscSqrtReal(p2 / 6.0), b00 = (a00 - q) / p, b11 = (a11 - q) / p, b22 = (a22 - q) / p;
      const PetscReal b01 = a01 / p, b02 = a02 / p, b12 = a12 / p;
      const PetscReal r   = 0.5 * (b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) + b02 * (b01 * b12 - b11 * b02));
      const PetscReal phi = PetscAcosReal(PetscMax(-1.0, PetscMin(1.0, r))) / 3.0;

      /* acos loses half the digits next to a double eigenvalue (r = +-1): widen by far more than that error, so the
         interval still holds the eigenvalues */
      *hi = q + 2.0 * p * PetscCosReal(phi) + 1e-6 * p;
      *lo = q + 2.0 * p * PetscCosReal(phi + 2.0 * PETSC_PI / 3.0) - 1e-6 * p;
    }
  } else {
    PetscBLASInt bm, info;

    PetscCall(PetscBLASIntCast(m, &bm));
    PetscCallBLAS("LAPACKsyev", LAPACKsyev_("N", "U", &bm, S, &bm, ev, lwork, &lw, &info));
    PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK syev failed: %d", (int)info);
    *lo = ev[0];
    *hi = ev[m - 1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what went wrong in a block of elements: the first element with a non-positive diagonal entry or an asymmetric pair */
typedef struct {
  PetscInt  e, kind; /* kind 0: nothing, 1: diagonal, 2: asymmetry */
  PetscReal v[2];
} FEGBoundsFault;

/* the extremes over elements [e0, e1) with this thread's coefficient and work arrays */
static PetscErrorCode FEGJacobiBoundsBlock(FEGOp op, FEGCoeff *coeff, PetscInt e0, PetscInt e1, PetscScalar *work, PetscInt *free, PetscReal *lo, PetscReal *hi, FEGBoundsFault *f)
{
  FEGDisc        *d  = op->disc;
  const PetscInt  Nb = d->Nb;
  const PetscInt *l2g;
  PetscScalar    *K = work + 2 * Nb * FEG_MAX_DERIV, *S = K + Nb * Nb, *lwork = S + Nb * Nb;
  PetscReal      *ev = (PetscReal *)(lwork + 8 * Nb), *sc = ev + Nb;

  PetscFunctionBegin;
  *lo     = PETSC_MAX_REAL;
  *hi     = 0.0;
  f->kind = 0;
  PetscCall(FEGDiscGetLocalToGlobal(d, &l2g));
  for (PetscInt e = e0; e < e1; e++) {
    PetscInt  m    = 0;
    PetscReal kmax = 0.0, l = 0.0, h = 0.0;

    PetscCall(FEGCoeffEvaluate(d, coeff, e));
    PetscCall(FEGIntegrateElementMatrix(d, coeff, e, work, K));
    for (PetscInt a = 0; a < Nb; a++) {
      if (l2g[d->lidx[e * Nb + a]] >= 0) free[m++] = a;
      for (PetscInt b = 0; b < Nb; b++) kmax = PetscMax(kmax, PetscAbsScalar(K[a * Nb + b]));
    }
    for (PetscInt i = 0; i < m; i++) {
      const PetscReal kd = PetscRealPart(K[free[i] * Nb + free[i]]);

      if (!(kd > 0.0)) {
        *f = (FEGBoundsFault){
          e, 1, {kd, 0.0}
        };
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      sc[i] = 1.0 / PetscSqrtReal(kd);
    }
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt j = 0; j < m; j++) {
        const PetscScalar kij = K[free[i] * Nb + free[j]], kji = K[free[j] * Nb + free[i]];

        if (PetscAbsScalar(kij - kji) > 1e-12 * kmax) {
          *f = (FEGBoundsFault){
            e, 2, {PetscRealPart(kij), PetscRealPart(kji)}
          };
          PetscFunctionReturn(PETSC_SUCCESS);
        }
        S[i * m + j] = sc[i] * kij * sc[j];
      }
    if (!m) continue;
    PetscCall(FEGSymExtremes(m, S, ev, lwork, (PetscBLASInt)(8 * Nb), &l, &h));
    *lo = PetscMin(*lo, l);
    *hi = PetscMax(*hi, h);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Wathen's bounds of the eigenvalues of diag(A)^{-1} A over this process's elements: the extremes of each element
   matrix's D_e^{-1/2} K_e D_e^{-1/2} on its unconstrained dofs (D_e = diag(K_e)); the assembled Rayleigh quotient
   x^T A x / x^T D x is a ratio of sums of the elements' and so lies between them. Threads over blocks of elements when
   the coefficient is constant (its evaluation is then a copy; auxiliary fields go through DM work arrays) */
PetscErrorCode FEGOpElementJacobiBounds(FEGOp op, PetscReal *emin, PetscReal *emax)
{
  FEGDisc        *d  = op->disc;
  const PetscInt  Nb = d->Nb, nw = 2 * Nb * FEG_MAX_DERIV + 2 * Nb * Nb + 8 * Nb + 2 * Nb;
  const int       nt = FEGFormConstantC(op->form) ? FEGLoopThreads(d->Ne, d->nthreads) : 1;
  FEGCoeff       *coeff;
  FEGBoundsFault *fault;
  PetscScalar    *work;
  PetscInt       *free;
  PetscReal      *lo, *hi;
  PetscErrorCode *ierr;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Integrate, op, 0, 0, 0));
  PetscCall(FEGDiscSetUpGeometry(d));
  PetscCall(PetscMalloc6(nt, &coeff, nt, &fault, (size_t)nt * nw, &work, (size_t)nt * Nb, &free, nt, &lo, nt, &hi));
  PetscCall(PetscMalloc1(nt, &ierr));
  for (int t = 0; t < nt; t++) PetscCall(FEGCoeffSetUp(d, op->form, &coeff[t]));
#pragma omp parallel for num_threads(nt) schedule(static, 1)
  for (int t = 0; t < nt; t++) ierr[t] = FEGJacobiBoundsBlock(op, &coeff[t], FEGBlockStart(d->Ne, t, nt), FEGBlockStart(d->Ne, t + 1, nt), work + (size_t)t * nw, free + (size_t)t * Nb, &lo[t], &hi[t], &fault[t]);
  *emin = PETSC_MAX_REAL;
  *emax = 0.0;
  for (int t = 0; t < nt; t++) {
    PetscCall(ierr[t]);
    PetscCheck(fault[t].kind != 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Element %" PetscInt_FMT " has the diagonal entry %g: Jacobi bounds need a positive diagonal", fault[t].e, (double)fault[t].v[0]);
    PetscCheck(fault[t].kind != 2, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Element %" PetscInt_FMT "'s matrix is not symmetric (entries %g and %g): Chebyshev bounds need a symmetric form", fault[t].e, (double)fault[t].v[0], (double)fault[t].v[1]);
    *emin = PetscMin(*emin, lo[t]);
    *emax = PetscMax(*emax, hi[t]);
  }
  for (int t = 0; t < nt; t++) PetscCall(FEGCoeffDestroy(&coeff[t]));
  PetscCall(PetscFree6(coeff, fault, work, free, lo, hi));
  PetscCall(PetscFree(ierr));
  PetscCall(PetscLogEventEnd(FEG_Integrate, op, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
