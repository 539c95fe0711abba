/* matfree on the host. Nothing is stored but what the action needs beyond the reference element:
   - qp: at every quadrature point the (dim+1)x(dim+1) tensor Chat = w detJ T^T C T (T = diag(1, invJ^T)) seen by the
     reference values and gradients R: A_e x_e = sum_q R_q^T Chat_q R_q x_e. Any cell, order and coefficient.
   - refop (affine simplices, C constant per cell): A_e = sum_(r,s) G_rs M^rs with the reference operators
     M^rs_ab = sum_q w_q R_r(b) R_s(a) and per-element factors G = detJ T^T C T, only the pairs the form needs, and
     for symmetric forms M^rs + M^sr merged (Swirydowicz et al.'s stiffness-action kernel, 004). On the GPU also as
     batched GEMMs over all elements (Modave et al., 003) and as one fused kernel on the FP64 tensor cores (mma).
   - sumfact (quadrilaterals, hexahedra with tensor Gauss or GLL quadrature): values and gradients at the quadrature points
     by 1D contractions, the stored pairs of Chat per quadrature point, and the transposed contractions back.
   The point-level arithmetic is fegpoint.h's, shared with the GPU kernels (matfreecuda.c), which are tested against
   these host versions. */
#include "matfree.h"
#include "nodal.h"

const char *const FEGMatFreeKernels[]    = {"auto", "qp", "refop", "gemm", "mma", "sumfact", "FEGMatFreeKernel", "FEG_MATFREE_", NULL};
const char *const FEGMatFreeGeometries[] = {"auto", "stored", "computed", "FEGMatFreeGeometry", "FEG_MATFREE_GEOMETRY_", NULL};

/* R(q, r, b): reference value (r = 0) or gradient component r-1 of basis function b at quadrature point q */
static inline PetscReal FEGRef(const FEGDisc *d, PetscInt q, PetscInt r, PetscInt b)
{
  return d->R[q * (d->dim + 1) + r + (size_t)b * d->Nq * (d->dim + 1)];
}

/* ------------------------------------------------------------------------------------------------------------ qp */
static PetscErrorCode FEGElemApply_QP(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  const FEGDisc       *d  = op->disc;
  const PetscInt       Nb = d->Nb, Nd = d->dim + 1, KK = d->Nq * Nd;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) ye[a] = 0.0;
  for (PetscInt q = 0; q < d->Nq; q++) {
    PetscScalar u[4], v[4];

    /* interpolate to the quadrature point, apply the pointwise tensor, integrate back */
    FEGInterpolateRef((int)Nd, (int)Nb, d->R + q * Nd, KK, xe, u);
    FEGQPPointApply((int)Nd, &mf->Cq[((size_t)e * d->Nq + q) * Nd * Nd], 1, u, v, transpose);
    FEGIntegrateRef((int)Nd, (int)Nb, d->R + q * Nd, KK, v, ye);
  }
  PetscCall(PetscLogFlops((PetscLogDouble)d->Nq * (4.0 * Nb * Nd + 2.0 * Nd * Nd)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemDiag_QP(FEGOp op, PetscInt e, PetscScalar de[])
{
  const FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  const FEGDisc       *d  = op->disc;
  const PetscInt       Nb = d->Nb, Nd = d->dim + 1, KK = d->Nq * Nd;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) {
    de[a] = 0.0;
    for (PetscInt q = 0; q < d->Nq; q++) de[a] += FEGQPPointDiag((int)Nd, &mf->Cq[((size_t)e * d->Nq + q) * Nd * Nd], 1, d->R + q * Nd + (size_t)a * KK, 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --------------------------------------------------------------------------------------------------------- refop */
static PetscErrorCode FEGElemApply_RefOp(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  const PetscInt       Nb = op->disc->Nb;
  const PetscScalar   *G  = &mf->G[e * mf->npairs];

  PetscFunctionBeginHot;
  if (mf->factored && mf->frank) {
    /* diffusion kinds, factored (FEGMatFreeFactorRefOps): u_s = C_s x, z_q = sum_s G_qs u_s, y = g_0 M x + sum_q C_q^T z_q */
    const PetscInt dim = op->disc->dim, k = mf->frank, vv = mf->kind == FEG_MF_VVGG_SYM;
    PetscScalar   *u = mf->fwork, *z = mf->fwork + dim * k;

    for (PetscInt t = 0; t < dim * k; t++) {
      u[t] = 0.0;
      for (PetscInt b = 0; b < Nb; b++) u[t] += mf->Cf[t * Nb + b] * xe[b];
    }
    for (PetscInt q = 0; q < dim; q++)
      for (PetscInt i = 0; i < k; i++) {
        z[q * k + i] = 0.0;
        for (PetscInt s = 0; s < dim; s++) z[q * k + i] += G[FEGMFSymPairIndex((int)dim, (int)vv, (int)q + 1, (int)s + 1)] * u[s * k + i];
      }
    for (PetscInt a = 0; a < Nb; a++) {
      PetscScalar v = 0.0;

      for (PetscInt t = 0; t < dim * k; t++) v += mf->Cf[t * Nb + a] * z[t];
      if (vv)
        for (PetscInt b = 0; b < Nb; b++) v += G[0] * mf->Op[b * Nb + a] * xe[b];
      ye[a] = v;
    }
    PetscCall(PetscLogFlops(2.0 * (2.0 * dim * k * Nb + dim * dim * k + (vv ? Nb * (Nb + 1) : 0))));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt a = 0; a < Nb; a++) ye[a] = 0.0;
  for (PetscInt m = 0; m < mf->npairs; m++) {
    const PetscReal  *Om = &mf->Op[(size_t)m * Nb * Nb];
    const PetscScalar g  = G[transpose ? mf->tperm[m] : m];

    for (PetscInt b = 0; b < Nb; b++) {
      const PetscScalar gx = g * xe[b];

      for (PetscInt a = 0; a < Nb; a++) ye[a] += Om[b * Nb + a] * gx;
    }
  }
  PetscCall(PetscLogFlops(2.0 * mf->npairs * Nb * (Nb + 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemDiag_RefOp(FEGOp op, PetscInt e, PetscScalar de[])
{
  const FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  const PetscInt       Nb = op->disc->Nb;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) de[a] = FEGRefOpDiagEntry((int)mf->npairs, &mf->G[e * mf->npairs], mf->Op, (int)Nb, (int)Nb, (int)a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reference operators of the stored pairs: M^rs, or M^rs + M^sr (= M^rs + (M^rs)^T) for symmetric kinds */
static PetscErrorCode FEGMatFreeBuildRefOps(FEGDisc *d, FEGOp_MatFree *mf)
{
  const PetscInt Nb = d->Nb;
  PetscReal     *T;

  PetscFunctionBegin;
  PetscCall(PetscFree(mf->Op));
  PetscCall(PetscFree(mf->Cf)); /* factored again from these by FEGMatFreeSelect() */
  mf->frank = 0;
  PetscCall(PetscMalloc1((size_t)mf->npairs * Nb * Nb, &mf->Op));
  PetscCall(PetscMalloc1((size_t)Nb * Nb, &T));
  for (PetscInt m = 0; m < mf->npairs; m++) {
    const PetscInt r = mf->pr[m], s = mf->ps[m];
    PetscReal     *Om = &mf->Op[(size_t)m * Nb * Nb];

    /* Om[b*Nb+a] = sum_q w_q R_r(b) R_s(a), plus R_s(b) R_r(a) for the symmetric kinds' off-diagonal pairs */
    PetscCall(FEGDiscRefTensor(d, s, r, Om));
    if (mf->kind != FEG_MF_FULL && r != s) {
      PetscCall(FEGDiscRefTensor(d, r, s, T));
      for (PetscInt k = 0; k < Nb * Nb; k++) Om[k] += T[k];
    }
  }
  PetscCall(PetscFree(T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gradient pairs of the diffusion kinds factored, M^rs = C_r^T C_s, with C_s = Q^T W^(1/2) R_s (k x Nb) and the k
   columns of Q an orthonormal basis of the span of the weighted reference derivatives W^(1/2) R_s b (k = dim P_(N-1),
   found by Gram-Schmidt, twice). The refop kernels (host, GPU per thread, GPU mma) then apply u_s = C_s x,
   z_r = sum_s G_rs u_s, y = sum_r C_r^T z_r: 2 dim k Nb + dim^2 k FMAs instead of dim (dim+1)/2 Nb^2 (376 instead of
   700 at P2, 3D). Kinds with value-gradient pairs, and rules with a negative weight, are not factored (frank = 0).
   Computed once after FEGMatFreeBuildRefOps() unless -feg_op_matfree_factored 0. */
static PetscErrorCode FEGMatFreeFactorRefOps(FEGOp op)
{
  FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  FEGDisc       *d  = op->disc;
  const PetscInt Nb = d->Nb, Nq = d->Nq, dim = d->dim, nc = dim * Nb;
  PetscReal     *Q, *v, *Rw, nmax = 0.0, err = 0.0, omax = 0.0;
  PetscInt       k = 0;

  PetscFunctionBegin;
  if (mf->Cf || (mf->kind != FEG_MF_GG_SYM && mf->kind != FEG_MF_VVGG_SYM)) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt q = 0; q < Nq; q++)
    if (d->qweights[q] < 0.0) PetscFunctionReturn(PETSC_SUCCESS);
  /* Rw[c*Nq+q] = W^(1/2) R_s b at point q, column c = s*Nb+b */
  PetscCall(PetscMalloc3((size_t)Nq * nc, &Q, Nq, &v, (size_t)Nq * nc, &Rw));
  for (PetscInt c = 0; c < nc; c++) {
    PetscReal n2 = 0.0;

    for (PetscInt q = 0; q < Nq; q++) {
      Rw[c * Nq + q] = PetscSqrtReal(d->qweights[q]) * FEGRef(d, q, 1 + c / Nb, c % Nb);
      n2 += PetscSqr(Rw[c * Nq + q]);
    }
    nmax = PetscMax(nmax, PetscSqrtReal(n2));
  }
  for (PetscInt c = 0; c < nc && k < Nq; c++) {
    PetscCall(PetscArraycpy(v, &Rw[c * Nq], Nq));
    FEGOrthoAppend(Nq, Q, &k, v, 1e-10 * nmax);
  }
  PetscCall(PetscCalloc1((size_t)dim * k * Nb, &mf->Cf));
  PetscCall(PetscFree(mf->fwork));
  PetscCall(PetscMalloc1(2 * dim * k, &mf->fwork));
  /* C_s = Q^T W^(1/2) R_s */
  for (PetscInt i = 0; i < k; i++)
    for (PetscInt c = 0; c < nc; c++) {
      PetscReal t = 0.0;

      for (PetscInt q = 0; q < Nq; q++) t += Q[i * Nq + q] * Rw[c * Nq + q];
      mf->Cf[((c / Nb) * k + i) * Nb + c % Nb] = t;
    }
  PetscCall(PetscFree3(Q, v, Rw));
  /* the factors reproduce every stored gradient operator (M^rs + M^sr for r < s) */
  for (PetscInt m = 0; m < mf->npairs; m++) {
    const PetscInt r = mf->pr[m] - 1, s = mf->ps[m] - 1;

    if (r < 0) continue;
    for (PetscInt b = 0; b < Nb; b++)
      for (PetscInt a = 0; a < Nb; a++) {
        PetscReal t = 0.0;

        for (PetscInt i = 0; i < k; i++) t += mf->Cf[(r * k + i) * Nb + b] * mf->Cf[(s * k + i) * Nb + a] + (r != s ? mf->Cf[(s * k + i) * Nb + b] * mf->Cf[(r * k + i) * Nb + a] : 0.0);
        err  = PetscMax(err, PetscAbsReal(t - mf->Op[(m * Nb + b) * Nb + a]));
        omax = PetscMax(omax, PetscAbsReal(mf->Op[(m * Nb + b) * Nb + a]));
      }
  }
  PetscCheck(err <= 1e-12 * omax, PETSC_COMM_SELF, PETSC_ERR_PLIB, "matfree: the factored gradient operators (rank %" PetscInt_FMT ") differ from the reference operators by %g (largest entry %g)", k, (double)err, (double)omax);
  mf->frank = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------- sumfact */
/* out[(i0*NO+i)*inner+i1] (+)= sum_a M[i*NA+a] in[(i0*NA+a)*inner+i1] for one element */
static inline void FEGContract1(const PetscScalar *in, PetscScalar *out, const PetscReal *M, PetscInt n0, PetscInt NA, PetscInt NO, PetscInt inner, PetscBool add)
{
  /* loops over the output's indices (a division and a remainder per output cost more than its few products) */
  for (int i0 = 0, rr = 0; i0 < (int)n0; i0++)
    for (int i = 0; i < (int)NO; i++)
      for (int i1 = 0; i1 < (int)inner; i1++, rr++) out[rr] = FEGContractAt(in, M, (int)NA, (int)inner, i0, i, i1, add ? out[rr] : 0.0);
}

static PetscErrorCode FEGElemApply_SumFact(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  const PetscInt       P = mf->P, Q = mf->Q, dim = op->disc->dim, Nq = op->disc->Nq, Nb = op->disc->Nb;
  const PetscReal     *B = mf->B1, *D = mf->D1, *Bt = mf->Bt, *Dt = mf->Dt;
  const PetscInt       n = dim == 2 ? PetscMax(P, Q) * PetscMax(P, Q) : PetscMax(P, Q) * PetscMax(P, Q) * PetscMax(P, Q);
  PetscScalar         *U = mf->work, *T[5], *V[4];
  const PetscScalar   *c = mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED ? mf->cwork : &mf->Cl[(size_t)e * mf->npairs * Nq];

  PetscFunctionBeginHot;
  if (mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED) PetscCall(FEGMatFreeElementPairs(op, e, mf->cwork));
  for (PetscInt k = 0; k < 5; k++) T[k] = U + (1 + k) * n;
  for (PetscInt k = 0; k < 4; k++) V[k] = U + (6 + k) * n;
  for (PetscInt l = 0; l < Nb; l++) U[l] = xe[mf->lex[l]];
  if (dim == 2) {
    /* (y, x) layout: x first, then y; V[1] = d/dxi, V[2] = d/deta */
    FEGContract1(U, T[0], B, P, P, Q, 1, PETSC_FALSE);
    FEGContract1(U, T[1], D, P, P, Q, 1, PETSC_FALSE);
    FEGContract1(T[0], V[0], B, 1, P, Q, Q, PETSC_FALSE);
    FEGContract1(T[0], V[2], D, 1, P, Q, Q, PETSC_FALSE);
    FEGContract1(T[1], V[1], B, 1, P, Q, Q, PETSC_FALSE);
  } else {
    FEGContract1(U, T[0], B, P * P, P, Q, 1, PETSC_FALSE);
    FEGContract1(U, T[1], D, P * P, P, Q, 1, PETSC_FALSE);
    FEGContract1(T[0], T[2], B, P, P, Q, Q, PETSC_FALSE);
    FEGContract1(T[0], T[3], D, P, P, Q, Q, PETSC_FALSE);
    FEGContract1(T[1], T[4], B, P, P, Q, Q, PETSC_FALSE);
    FEGContract1(T[2], V[0], B, 1, P, Q, Q * Q, PETSC_FALSE);
    FEGContract1(T[2], V[3], D, 1, P, Q, Q * Q, PETSC_FALSE);
    FEGContract1(T[3], V[2], B, 1, P, Q, Q * Q, PETSC_FALSE);
    FEGContract1(T[4], V[1], B, 1, P, Q, Q * Q, PETSC_FALSE);
  }
  for (PetscInt l = 0; l < Nq; l++) {
    PetscScalar u[4], v[4] = {0, 0, 0, 0};

    for (PetscInt r = 0; r <= dim; r++) u[r] = V[r][l];
    FEGMFPointApply((int)dim, mf->kind, c + l, Nq, u, v, transpose);
    for (PetscInt r = 0; r <= dim; r++) V[r][l] = v[r];
  }
  if (dim == 2) {
    FEGContract1(V[0], T[0], Bt, 1, Q, P, Q, PETSC_FALSE);
    FEGContract1(V[2], T[0], Dt, 1, Q, P, Q, PETSC_TRUE);
    FEGContract1(V[1], T[1], Bt, 1, Q, P, Q, PETSC_FALSE);
    FEGContract1(T[0], U, Bt, P, Q, P, 1, PETSC_FALSE);
    FEGContract1(T[1], U, Dt, P, Q, P, 1, PETSC_TRUE);
  } else {
    FEGContract1(V[0], T[2], Bt, 1, Q, P, Q * Q, PETSC_FALSE);
    FEGContract1(V[3], T[2], Dt, 1, Q, P, Q * Q, PETSC_TRUE);
    FEGContract1(V[2], T[3], Bt, 1, Q, P, Q * Q, PETSC_FALSE);
    FEGContract1(V[1], T[4], Bt, 1, Q, P, Q * Q, PETSC_FALSE);
    FEGContract1(T[2], T[0], Bt, P, Q, P, Q, PETSC_FALSE);
    FEGContract1(T[3], T[0], Dt, P, Q, P, Q, PETSC_TRUE);
    FEGContract1(T[4], T[1], Bt, P, Q, P, Q, PETSC_FALSE);
    FEGContract1(T[0], U, Bt, P * P, Q, P, 1, PETSC_FALSE);
    FEGContract1(T[1], U, Dt, P * P, Q, P, 1, PETSC_TRUE);
  }
  for (PetscInt l = 0; l < Nb; l++) ye[mf->lex[l]] = U[l];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemDiag_SumFact(FEGOp op, PetscInt e, PetscScalar de[])
{
  const FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  const PetscInt       Nq = op->disc->Nq;
  const PetscScalar   *c  = mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED ? mf->cwork : &mf->Cl[(size_t)e * mf->npairs * Nq];

  PetscFunctionBeginHot;
  if (mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED) PetscCall(FEGMatFreeElementPairs(op, e, mf->cwork));
  for (PetscInt l = 0; l < op->disc->Nb; l++) de[mf->lex[l]] = FEGSumFactDiagEntry((int)op->disc->dim, mf->kind, (int)mf->P, (int)mf->Q, mf->B1, mf->D1, NULL, c, Nq, (int)l);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tensor structure of a quadrilateral or hexahedral space, or *ok = PETSC_FALSE with the reason: the quadrature
   must be a tensor Gauss or Gauss-Lobatto-Legendre rule and the basis the tensor product of the 1D Lagrange basis on
   the element's own 1D nodes (any node family; checked against the element's tabulation). When the rule's
   points are the nodes (GLL nodes and rule, Q = P) the space is collocated: B1 is the identity and the kernels skip it */
static PetscErrorCode FEGMatFreeTensorSetUp(FEGDisc *d, FEGOp_MatFree *mf, PetscBool *ok, const char **why)
{
  const PetscInt dim = d->dim;
  PetscInt       P = d->order + 1, Q = 1, Nn = 1, *ix;
  PetscReal     *gx, *gw, *nodes;
  PetscDualSpace dsp;

  PetscFunctionBegin;
  *ok  = PETSC_FALSE;
  *why = NULL;
  if (!d->cell->tensor) {
    *why = "sum factorisation needs quadrilaterals or hexahedra";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  while (Q * Q * (dim == 3 ? Q : 1) < d->Nq) Q++;
  if (Q * Q * (dim == 3 ? Q : 1) != d->Nq || Q > 10 || P > 10) {
    *why = "the quadrature is not a tensor rule of at most 10 points per direction";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt c = 0; c < dim; c++) Nn *= P;
  PetscCheck(Nn == d->Nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Tensor element of order %" PetscInt_FMT " has %" PetscInt_FMT " dofs, expected %" PetscInt_FMT, d->order, d->Nb, Nn);
  PetscCall(PetscMalloc3(Q, &gx, Q, &gw, P, &nodes));
  PetscCall(PetscMalloc2(d->Nb, &mf->lex, d->Nq, &mf->qlex));
  /* each quadrature point is (gx[i], gx[j], gx[k]) with weight gw[i] gw[j] gw[k], for the Gauss or the GLL rule */
  for (PetscInt rule = 0; rule < 2 && !*ok; rule++) {
    if (rule == 0) PetscCall(PetscDTGaussQuadrature(Q, -1.0, 1.0, gx, gw));
    else if (Q >= 2) PetscCall(PetscDTGaussLobattoLegendreQuadrature(Q, PETSCGAUSSLOBATTOLEGENDRE_VIA_LINEAR_ALGEBRA, gx, gw));
    else break;
    mf->gll = (PetscBool)(rule == 1);
    *ok     = PETSC_TRUE;
    for (PetscInt l = 0; l < d->Nq; l++) mf->qlex[l] = -1;
    for (PetscInt q = 0; q < d->Nq && *ok; q++) {
      PetscInt  l = 0, stride = 1;
      PetscReal w = 1.0;

      for (PetscInt c = 0; c < dim && *ok; c++) {
        PetscInt i = 0;

        while (i < Q && PetscAbsReal(d->qpoints[q * dim + c] - gx[i]) > 1e-12) i++;
        if (i == Q) *ok = PETSC_FALSE;
        else {
          l += i * stride;
          w *= gw[i];
          stride *= Q;
        }
      }
      if (*ok && (PetscAbsReal(w - d->qweights[q]) > 1e-12 || mf->qlex[l] >= 0)) *ok = PETSC_FALSE;
      if (*ok) mf->qlex[l] = q;
    }
  }
  if (!*ok) {
    *why = "the quadrature is not a tensor Gauss or Gauss-Lobatto-Legendre rule";
    PetscCall(PetscFree3(gx, gw, nodes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the element's nodes (its functionals must be point evaluations) on a tensor grid, and its 1D nodes */
  PetscCall(PetscMalloc1(d->Nb * dim, &ix));
  PetscCall(PetscFEGetDualSpace(d->fe, &dsp));
  PetscCall(FEGTensorNodes(dsp, dim, P, nodes, ix, ok));
  PetscCall(PetscMalloc6(Q * P, &mf->B1, Q * P, &mf->D1, Q * P, &mf->Bt, Q * P, &mf->Dt, Q * Q, &mf->Gq, Q, &mf->W1));
  mf->colloc = (PetscBool)(*ok && Q == P);
  for (PetscInt i = 0; i < Q && *ok; i++) {
    if (mf->colloc && PetscAbsReal(gx[i] - nodes[i]) > 1e-12) mf->colloc = PETSC_FALSE;
    for (PetscInt a = 0; a < P; a++) {
      PetscReal v[3];

      FEGLagrange1D(P, nodes, a, gx[i], v);
      mf->B1[i * P + a] = mf->Bt[a * Q + i] = v[0];
      mf->D1[i * P + a] = mf->Dt[a * Q + i] = v[1];
    }
  }
  /* the derivatives at the points of the Lagrange functions of the points: for Q >= P they give the gradient from the
     values at the points exactly (the GPU's hexahedral kernel interpolates once and differentiates there) */
  for (PetscInt i = 0; i < Q; i++) {
    mf->W1[i] = gw[i];
    for (PetscInt j = 0; j < Q; j++) {
      PetscReal v[3];

      FEGLagrange1D(Q, gx, j, gx[i], v);
      mf->Gq[i * Q + j] = v[1];
    }
  }
  /* collocated: the interpolation is exactly the identity, which the kernels skip */
  if (mf->colloc)
    for (PetscInt i = 0; i < Q; i++)
      for (PetscInt a = 0; a < P; a++) mf->B1[i * P + a] = mf->Bt[a * Q + i] = (PetscReal)(i == a);
  /* the element's basis functions are the Lagrange functions of its nodes (point functionals): basis function lex[l]
     belongs to lexicographic node l. Read from the dual space, not by tabulating the element at its nodes, which at
     order 8 costs PETSc a (Nb x Nb x Nb) dgemm */
  for (PetscInt l = 0; l < Nn; l++) mf->lex[l] = -1;
  for (PetscInt b = 0; b < d->Nb && *ok; b++) {
    PetscInt l = 0, stride = 1;

    for (PetscInt c = 0; c < dim; c++, stride *= P) l += ix[b * dim + c] * stride;
    if (*ok && mf->lex[l] >= 0) *ok = PETSC_FALSE;
    if (*ok) mf->lex[l] = b;
  }
  /* and the element's own tables equal the tensor products (PETSc's, from a Vandermonde inverse, carry errors of 1e-12
     at order 8: a different structure would differ by O(1)) */
  for (PetscInt lq = 0; lq < d->Nq && *ok; lq++)
    for (PetscInt l = 0; l < Nn && *ok; l++) {
      const PetscInt q = mf->qlex[lq], b = mf->lex[l];

      for (PetscInt r = 0; r <= dim && *ok; r++) {
        PetscReal v = 1.0;

        for (PetscInt c = 0, ic = lq, ac = l; c < dim; c++, ic /= Q, ac /= P) v *= (c == r - 1 ? mf->D1 : mf->B1)[(ic % Q) * P + ac % P];
        if (PetscAbsReal(v - FEGRef(d, q, r, b)) > 1e-9 * (1.0 + PetscAbsReal(v))) *ok = PETSC_FALSE;
      }
    }
  if (!*ok) {
    *why       = "the basis is not the tensor product of a 1D Lagrange basis";
    mf->colloc = PETSC_FALSE;
  }
  mf->P = P;
  mf->Q = Q;
  PetscCall(PetscMalloc1(10 * (dim == 2 ? PetscMax(P, Q) * PetscMax(P, Q) : PetscMax(P, Q) * PetscMax(P, Q) * PetscMax(P, Q)), &mf->work));
  PetscCall(PetscFree(ix));
  PetscCall(PetscFree3(gx, gw, nodes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Computed geometry for sum factorisation: whether the cells' coordinate nodes are the tensor product of G 1D nodes
   (FEGDiscCoordinateTensor()), with the 1D basis of those nodes at the rule's 1D points (gB, gD), checked against the
   coordinate basis the stored geometry is made from at every quadrature point; else geoWhy says why not. Once per
   operator, after FEGMatFreeTensorSetUp() */
static PetscErrorCode FEGMatFreeGeometrySetUp(FEGDisc *d, FEGOp_MatFree *mf)
{
  const PetscInt dim = d->dim, Q = mf->Q, Nv = d->Nv;
  PetscInt       G;
  PetscReal      nodes[3], err = 0.0;

  PetscFunctionBegin;
  mf->geoFound = PETSC_TRUE;
  PetscCall(FEGDiscCoordinateTensor(d, &G, mf->lexg));
  if (!G) {
    mf->geoWhy = "the cells' coordinate nodes are not the tensor product of 2 or 3 nodes per direction (straight or second-order quadrilaterals and hexahedra)";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt p = 0; p < G; p++) nodes[p] = -1.0 + 2.0 * p / (G - 1);
  PetscCall(PetscMalloc2(Q * G, &mf->gB, Q * G, &mf->gD));
  for (PetscInt i = 0; i < Q; i++) {
    const PetscReal x = d->qpoints[mf->qlex[i] * dim]; /* lexicographic point i lies on the x axis of the rule */

    for (PetscInt p = 0; p < G; p++) {
      PetscReal v[3];

      FEGLagrange1D(G, nodes, p, x, v);
      mf->gB[i * G + p] = v[0];
      mf->gD[i * G + p] = v[1];
    }
  }
  /* the tensor form against the coordinate basis at every point */
  for (PetscInt l = 0; l < d->Nq; l++) {
    const PetscInt a[3] = {l % Q, (l / Q) % Q, l / (Q * Q)};

    for (PetscInt g = 0; g < Nv; g++) {
      const PetscInt p[3] = {g % G, (g / G) % G, g / (G * G)};

      for (PetscInt j = 0; j < dim; j++) {
        PetscReal t = 1.0;

        for (PetscInt k = 0; k < dim; k++) t *= (k == j ? mf->gD : mf->gB)[a[k] * G + p[k]];
        err = PetscMax(err, PetscAbsReal(t - d->Gc[(mf->qlex[l] * Nv + mf->lexg[g]) * dim + j]));
      }
    }
  }
  if (err > 1e-10) {
    mf->geoWhy = "the coordinate basis is not the tensor product of its 1D Lagrange basis";
    PetscCall(PetscFree2(mf->gB, mf->gD));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  mf->geoG = G;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* c[m*Nq+l]: the stored pairs of element e at its lexicographic points, computed from its coordinate nodes as the
   GPU's kernels compute them (the host's computed geometry, and the reference the tests compare with) */
PetscErrorCode FEGMatFreeElementPairs(FEGOp op, PetscInt e, PetscScalar c[])
{
  const FEGOp_MatFree *mf  = (FEGOp_MatFree *)op->data;
  const FEGDisc       *d   = op->disc;
  const PetscInt       dim = d->dim, Q = mf->Q, Nq = d->Nq;
  double               J[9], p[FEG_MF_MAXPAIRS];

  PetscFunctionBeginHot;
  for (PetscInt l = 0; l < Nq; l++) {
    const int    a[3] = {(int)(l % Q), (int)((l / Q) % Q), (int)(l / (Q * Q))};
    const double w    = d->qweights[mf->qlex[l]];

    FEGTensorJacobian((int)dim, (int)mf->geoG, d->X + (size_t)e * d->Nv * dim, mf->lexg, mf->gB, mf->gD, a, J);
    (void)FEGMFPairsFromJacobian((int)dim, mf->kind, mf->iso, mf->Cc, J, w, p);
    for (PetscInt m = 0; m < mf->npairs; m++) c[m * Nq + l] = p[m];
  }
  PetscCall(PetscLogFlops((PetscLogDouble)Nq * (2.0 * dim * dim * d->Nv + 60.0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The geometry sum factorisation uses: computed where asked for (an error naming why it cannot be) or, under auto
   where the implementation computes it (caps), wherever it can be, the cells are not affine (affine hexahedra store
   one value per pair and element, which is less to read than the coordinates) and the form has gradients (the mass
   kind stores one value per point); else stored. C's shape is read at every assembly (the form may change) */
static PetscErrorCode FEGMatFreeSelectGeometry(FEGOp op, const FEGMatFreeCaps *caps)
{
  FEGOp_MatFree *mf   = (FEGOp_MatFree *)op->data;
  FEGDisc       *d    = op->disc;
  MPI_Comm       comm = PetscObjectComm((PetscObject)op);
  const char    *why  = NULL;

  PetscFunctionBegin;
  mf->geometry = FEG_MATFREE_GEOMETRY_STORED;
  PetscCheck(mf->georequest != FEG_MATFREE_GEOMETRY_COMPUTED || mf->kernel == FEG_MATFREE_SUMFACT, comm, PETSC_ERR_SUP, "-feg_op_matfree_geometry computed needs the sumfact kernel (quadrilaterals, hexahedra), not %s; use stored or auto", FEGMatFreeKernels[mf->kernel]);
  if (mf->kernel != FEG_MATFREE_SUMFACT || mf->georequest == FEG_MATFREE_GEOMETRY_STORED) PetscFunctionReturn(PETSC_SUCCESS);
  if (!mf->geoFound) PetscCall(FEGMatFreeGeometrySetUp(d, mf));
  if (mf->geoWhy) why = mf->geoWhy;
  else if (!FEGFormConstantC(op->form)) why = "the coefficient is not the same everywhere (a pointwise function, an auxiliary field or quadrature-point values)";
  PetscCheck(!why || mf->georequest != FEG_MATFREE_GEOMETRY_COMPUTED, comm, PETSC_ERR_SUP, "-feg_op_matfree_geometry computed cannot be used: %s; use stored or auto", why);
  /* auto keeps the mass kind's one value per point stored: reading it was faster than computing det J at every order
     (bp1 on perturbed, Kershaw-deformed and curved boxes, H200, share/doc/performance.md) */
  if (why || (mf->georequest == FEG_MATFREE_GEOMETRY_AUTO && (d->affine || !caps->geoAuto || mf->kind == FEG_MF_VV))) PetscFunctionReturn(PETSC_SUCCESS);
  mf->geometry = FEG_MATFREE_GEOMETRY_COMPUTED;
  mf->iso      = PETSC_TRUE;
  for (PetscInt k = 0; k < 16; k++) mf->Cc[k] = PetscRealPart(op->form->C0[k]);
  for (PetscInt i = 0; i <= d->dim; i++)
    for (PetscInt j = 0; j <= d->dim; j++)
      if ((i == j && i > 0 && mf->Cc[i * 5] != mf->Cc[5]) || (i != j && mf->Cc[i * 4 + j] != 0.0)) mf->iso = PETSC_FALSE;
  PetscCall(PetscFree(mf->cwork));
  PetscCall(PetscMalloc1((size_t)mf->npairs * d->Nq, &mf->cwork));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------ choosing */
/* the host element kernels of each kernel choice; gemm and mma have none (the kernel choice refuses them on the host) */
static const struct {
  FEGElemApplyFn apply;
  FEGElemDiagFn  diag;
} FEGMatFreeHost[] = {
  [FEG_MATFREE_QP] = {FEGElemApply_QP,      FEGElemDiag_QP     },
    [FEG_MATFREE_REFOP] = {FEGElemApply_RefOp,   FEGElemDiag_RefOp  },
    [FEG_MATFREE_GEMM] = {FEGElemApply_RefOp,   FEGElemDiag_RefOp  },
    [FEG_MATFREE_MMA] = {FEGElemApply_RefOp,   FEGElemDiag_RefOp  },
    [FEG_MATFREE_SUMFACT] = {FEGElemApply_SumFact, FEGElemDiag_SumFact}
};

/* Kernel for this form and discretization: the requested one, with an error naming why it cannot be used, or under
   auto the cheapest that applies where the operator runs (caps) */
PetscErrorCode FEGMatFreeSelect(FEGOp op, const FEGMatFreeCaps *caps)
{
  FEGOp_MatFree   *mf = (FEGOp_MatFree *)op->data;
  FEGDisc         *d  = op->disc;
  PetscBool        sym, vv, vg, gv, gg, cellconst;
  MPI_Comm         comm = PetscObjectComm((PetscObject)op);
  int              pr[16], ps[16];
  FEGMatFreeKernel k = mf->request;
  PetscBool        isref;

  PetscFunctionBegin;
  PetscCall(FEGFormIsSymmetric(op->form, &sym));
  PetscCall(FEGFormBlockPattern(op->form, &vv, &vg, &gv, &gg));
  PetscCall(FEGFormCellwiseConstant(op->form, &cellconst));
  if (!mf->structureFound) {
    mf->opKind = -1;
    if (mf->request == FEG_MATFREE_AUTO || mf->request == FEG_MATFREE_SUMFACT) PetscCall(FEGMatFreeTensorSetUp(d, mf, &mf->tensor, &mf->tensorWhy));
    if (mf->tensor && (mf->P < caps->sfPmin || mf->P > caps->sfPmax || (caps->sfQP1 && mf->Q != mf->P && mf->Q != mf->P + 1))) {
      mf->tensor    = PETSC_FALSE;
      mf->tensorWhy = caps->sfWhy;
    }
    mf->structureFound = PETSC_TRUE;
  }
  if (k == FEG_MATFREE_AUTO) {
    if (d->affine && d->cell->simplex && cellconst) {
      k = FEG_MATFREE_REFOP;
      if (caps->gemm && d->dim == 3 && caps->mmaFromNb && d->Nb >= caps->mmaFromNb) k = FEG_MATFREE_MMA;
    } else if (mf->tensor) k = FEG_MATFREE_SUMFACT;
    else k = FEG_MATFREE_QP;
  }
  PetscCheck(k != FEG_MATFREE_SUMFACT || mf->tensor, comm, PETSC_ERR_SUP, "-feg_op_matfree_kernel sumfact cannot be used on %s cells of order %" PetscInt_FMT " with %" PetscInt_FMT " quadrature points: %s; use qp or auto", DMPolytopeTypes[d->ct], d->order, d->Nq, mf->tensorWhy);
  isref = FEGMatFreeIsRefOp(k);
  PetscCheck(!isref || (d->affine && d->cell->simplex), comm, PETSC_ERR_SUP, "-feg_op_matfree_kernel %s needs affine simplices (triangles, tetrahedra with straight edges), not %s cells%s; use qp, sumfact or auto", FEGMatFreeKernels[k], DMPolytopeTypes[d->ct],
             d->cell->simplex ? " with curved edges" : "");
  PetscCheck(!isref || cellconst, comm, PETSC_ERR_SUP, "-feg_op_matfree_kernel %s needs a coefficient constant on each cell (no pointwise function, auxiliary fields piecewise constant); use qp or auto", FEGMatFreeKernels[k]);
  PetscCheck((k != FEG_MATFREE_GEMM && k != FEG_MATFREE_MMA) || caps->gemm, comm, PETSC_ERR_SUP, "-feg_op_matfree_kernel %s is a GPU kernel (%s): it needs CUDA vectors (-dm_vec_type cuda); on the host use refop or auto", FEGMatFreeKernels[k], k == FEG_MATFREE_GEMM ? "cuBLAS" : "FP64 tensor cores");
  mf->kernel = k;
  mf->kind   = FEGMFKindOf(sym, vv, vg, gv, gg);
  mf->npairs = FEGMFPairs((int)d->dim, mf->kind, pr, ps);
  for (PetscInt m = 0; m < mf->npairs; m++) {
    mf->pr[m] = pr[m];
    mf->ps[m] = ps[m];
  }
  for (PetscInt m = 0; m < mf->npairs; m++) {
    mf->tperm[m] = m;
    if (mf->kind == FEG_MF_FULL)
      for (PetscInt n = 0; n < mf->npairs; n++)
        if (pr[n] == ps[m] && ps[n] == pr[m]) mf->tperm[m] = n;
  }
  if (isref && mf->opKind != mf->kind) {
    PetscCall(FEGMatFreeBuildRefOps(d, mf));
    mf->opKind = mf->kind;
  }
  if (isref && mf->factored) PetscCall(FEGMatFreeFactorRefOps(op));
  PetscCall(FEGMatFreeSelectGeometry(op, caps));
  mf->elemApply = FEGMatFreeHost[k].apply;
  mf->elemDiag  = FEGMatFreeHost[k].diag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the operators are those of P2 Lagrange on PETSc's reference triangle or tetrahedron for a diffusion kind,
   as nodal.h's tables give them (the GPU's per-thread refop then applies them with the tables as compile-time
   constants): the basis must be nodal at the canonical nodes, perm[c] = the basis function of canonical node c, and
   every stored operator must equal the tables' to 1e-12 of its largest entry. */
PetscErrorCode FEGMatFreeNodalP2(FEGOp op, PetscBool *found, PetscInt perm[])
{
  FEGOp_MatFree  *mf  = (FEGOp_MatFree *)op->data;
  FEGDisc        *d   = op->disc;
  const PetscInt  dim = d->dim, Nb = d->Nb;
  PetscInt        inv[10];
  PetscReal       pts[30] = {0}, err = 0.0, omax = 0.0;
  PetscTabulation T;

  PetscFunctionBegin;
  *found = PETSC_FALSE;
  if (!mf->Op || (mf->kind != FEG_MF_GG_SYM && mf->kind != FEG_MF_VVGG_SYM) || d->order != 2 || (d->ct != DM_POLYTOPE_TRIANGLE && d->ct != DM_POLYTOPE_TETRAHEDRON) || Nb != FEGP2Dofs((int)dim)) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt c = 0; c < Nb; c++) {
    int i = (int)c, j = (int)c;

    if (c > dim) FEGP2Edge((int)dim, (int)(c - dim - 1), &i, &j);
    for (PetscInt s = 0; s < dim; s++) pts[c * dim + s] = 0.5 * ((i == s + 1 ? 1.0 : -1.0) + (j == s + 1 ? 1.0 : -1.0));
  }
  PetscCall(PetscFECreateTabulation(d->fe, 1, Nb, pts, 0, &T));
  for (PetscInt b = 0; b < Nb; b++) inv[b] = -1;
  for (PetscInt c = 0; c < Nb; c++) {
    perm[c] = -1;
    for (PetscInt b = 0; b < Nb; b++) {
      const PetscReal v = T->T[0][c * Nb + b];

      if (PetscAbsReal(v - 1.0) < 1e-10 && perm[c] < 0 && inv[b] < 0) {
        perm[c] = b;
        inv[b]  = c;
      } else if (PetscAbsReal(v) > 1e-10) perm[c] = Nb; /* not nodal here */
    }
  }
  PetscCall(PetscTabulationDestroy(&T));
  for (PetscInt c = 0; c < Nb; c++)
    if (perm[c] < 0 || perm[c] >= Nb) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt m = 0; m < mf->npairs; m++) {
    const int r = (int)mf->pr[m] - 1, s = (int)mf->ps[m] - 1;

    if ((r < 0) != (s < 0)) PetscFunctionReturn(PETSC_SUCCESS);
    for (PetscInt b = 0; b < Nb; b++)
      for (PetscInt a = 0; a < Nb; a++) {
        const int ca = (int)inv[a], cb = (int)inv[b];
        PetscReal t = 0.0;

        if (r < 0) t = FEGP2RefMassScale((int)dim) * FEGP2RefMassInt((int)dim, ca, cb);
        else
          for (int v = 0; v <= dim; v++)
            for (int w = 0; w <= dim; w++) {
              const PetscReal m1 = FEGP1RefMassScale((int)dim) * (v == w ? 2.0 : 1.0);

              t += m1 * FEGP2NodalD((int)dim, r, v, cb) * FEGP2NodalD((int)dim, s, w, ca);
              if (r != s) t += m1 * FEGP2NodalD((int)dim, s, v, cb) * FEGP2NodalD((int)dim, r, w, ca);
            }
        err  = PetscMax(err, PetscAbsReal(t - mf->Op[(m * Nb + b) * Nb + a]));
        omax = PetscMax(omax, PetscAbsReal(mf->Op[(m * Nb + b) * Nb + a]));
      }
  }
  PetscCall(PetscInfo(op, "P2 nodal tables against the reference operators: largest difference %g (largest entry %g)\n", (double)err, (double)omax));
  *found = (PetscBool)(err <= 1e-12 * omax);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the tiling values FEGOpMatFreeSetTiling() accepts */
/* the values FEGOpMatFreeSetGemmWorkspace() and -feg_op_matfree_gemm_mb accept */
static PetscErrorCode FEGMatFreeCheckGemmWorkspace(MPI_Comm comm, PetscInt mb)
{
  PetscFunctionBegin;
  PetscCheck(mb >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "GEMM work space (-feg_op_matfree_gemm_mb) %" PetscInt_FMT " MB must be at least 1", mb);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGMatFreeCheckTiling(MPI_Comm comm, PetscInt ne, PetscInt nb, PetscInt nr)
{
  PetscFunctionBegin;
  PetscCheck(nr == 0 || nr == 1 || nr == 2 || nr == 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "Rows per thread (-feg_op_matfree_nr) %" PetscInt_FMT " is not supported: allowed are 0 (tuned), 1, 2 (refop and mma), 4 (mma)", nr);
  PetscCheck(ne >= 0 && ne <= 8 && (ne & (ne - 1)) == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Elements per thread (-feg_op_matfree_ne) %" PetscInt_FMT " is not supported: allowed are 0 (tuned), 1, 2, 4, 8", ne);
  PetscCheck(nb >= 0 && nb <= 256, comm, PETSC_ERR_ARG_OUTOFRANGE, "Element groups per block (-feg_op_matfree_nb) %" PetscInt_FMT " must be 0 (tuned) or 1 to 256 (threads per block = dofs per element x nb, at most 1024)", nb);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpSetFromOptions_MatFree(FEGOp op, PetscOptionItems *PetscOptionsObject)
{
  FEGOp_MatFree *mf   = (FEGOp_MatFree *)op->data;
  MPI_Comm       comm = PetscObjectComm((PetscObject)op);

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "fegpu matfree operator");
  PetscCall(PetscOptionsDeprecated("-feg_matfree_kernel", "-feg_op_matfree_kernel", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_matfree_ne", "-feg_op_matfree_ne", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_matfree_nb", "-feg_op_matfree_nb", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_matfree_nr", "-feg_op_matfree_nr", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_matfree_nodal", "-feg_op_matfree_nodal", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_matfree_factored", "-feg_op_matfree_factored", "0.3", NULL));
  PetscCall(PetscOptionsDeprecated("-feg_matfree_gemm_mb", "-feg_op_matfree_gemm_mb", "0.3", NULL));
  PetscCall(PetscOptionsEnum("-feg_op_matfree_kernel", "matfree: quadrature-point tensors, reference operators (affine simplices), their batched-GEMM and tensor-core forms (GPU), or sum factorisation (quadrilaterals, hexahedra)", "FEGOpMatFreeSetKernel", FEGMatFreeKernels,
                             (PetscEnum)mf->request, (PetscEnum *)&mf->request, NULL));
  PetscCall(PetscOptionsEnum("-feg_op_matfree_geometry", "matfree sumfact: the geometry at the quadrature points stored, or computed in the kernel from the cells' coordinate nodes (auto: computed on the GPU for forms with gradients on non-affine cells)", "FEGOpMatFreeSetGeometry", FEGMatFreeGeometries,
                             (PetscEnum)mf->georequest, (PetscEnum *)&mf->georequest, NULL));
  PetscCall(PetscOptionsInt("-feg_op_matfree_ne", "GPU refop: elements per thread (1, 2, 4, 8); GPU mma: 8-element tiles per warp (2, 4, 8; factored: 1, 2) (0: tuned per order)", "FEGOpMatFreeSetTiling", mf->ne, &mf->ne, NULL));
  PetscCall(PetscOptionsInt("-feg_op_matfree_nb", "GPU refop: element groups per thread block; GPU mma: warps across the elements of a block (factored: element tile groups per block); GPU sumfact: elements per thread block (0: tuned per order)", "FEGOpMatFreeSetTiling", mf->nb, &mf->nb, NULL));
  PetscCall(PetscOptionsInt("-feg_op_matfree_nr", "GPU refop: rows per thread, 1 or 2; GPU mma: 8-row tiles per warp, 1, 2 or 4, with the operators unfactored (0: tuned per order)", "FEGOpMatFreeSetTiling", mf->nr, &mf->nr, NULL));
  PetscCall(PetscOptionsBool("-feg_op_matfree_nodal", "GPU refop, one thread per element, P2 triangles and tetrahedra, diffusion forms: factor through the P1 nodal values of the derivatives, the reference tables compiled in (needs -feg_op_matfree_factored)", "FEGOpMatFreeSetNodal", mf->nodal, &mf->nodal, NULL));
  PetscCall(PetscOptionsBool("-feg_op_matfree_factored", "refop (host, GPU one thread per element) and GPU mma: apply the gradient operators of diffusion forms factored, M^rs = C_r^T C_s (fewer operations)", "FEGOpMatFreeSetFactored", mf->factored, &mf->factored, NULL));
  PetscCall(PetscOptionsInt("-feg_op_matfree_gemm_mb", "GPU gemm: work space (MB) per chunk of elements; small enough for the L2 cache keeps the GEMM output there", "FEGOpMatFreeSetGemmWorkspace", mf->gemmMB, &mf->gemmMB, NULL));
  PetscCall(FEGScatterSetFromOptions(PetscOptionsObject, &mf->scatter));
  PetscOptionsHeadEnd();
  PetscCall(FEGMatFreeCheckTiling(comm, mf->ne, mf->nb, mf->nr));
  PetscCall(FEGMatFreeCheckGemmWorkspace(comm, mf->gemmMB));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host runs every kernel but gemm and mma, sum factorisation up to 10 nodes per direction and any tensor Gauss or GLL
   rule; it keeps sumfact's geometry stored under auto (computing it at every action was 2 to 5 times slower there:
   bench_matfree -mode bp3 -perturb 0.2 on one core, orders 1-3) */
static const FEGMatFreeCaps FEGMatFreeHostCaps = {PETSC_FALSE, 0, 1, 10, PETSC_FALSE, NULL, PETSC_FALSE};

/* What the kernel needs from the coefficients and the geometry: Chat at every quadrature point (qp), per-element
   factors (refop), the stored pairs at the lexicographic quadrature points (sumfact) */
static PetscErrorCode FEGOpAssemble_MatFree(FEGOp op, Mat A)
{
  FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;
  FEGDisc       *d  = op->disc;
  FEGCoeff       coeff;
  const PetscInt Nd = d->dim + 1, Nq = d->Nq, dim = d->dim;
  PetscScalar    Ch[4][4];

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Integrate, op, 0, 0, 0));
  PetscCall(FEGMatFreeSelect(op, &FEGMatFreeHostCaps));
  PetscCall(PetscFree(mf->Cq));
  PetscCall(PetscFree(mf->G));
  PetscCall(PetscFree(mf->Cl));
  if (mf->kernel == FEG_MATFREE_QP) PetscCall(PetscMalloc1((size_t)d->Ne * Nq * Nd * Nd, &mf->Cq));
  else if (mf->kernel == FEG_MATFREE_REFOP) PetscCall(PetscMalloc1((size_t)d->Ne * mf->npairs, &mf->G));
  else if (mf->geometry == FEG_MATFREE_GEOMETRY_STORED) PetscCall(PetscMalloc1((size_t)d->Ne * mf->npairs * Nq, &mf->Cl));
  PetscCall(FEGCoeffSetUp(d, op->form, &coeff));
  /* computed geometry: nothing to store, the pairs come from the coordinate nodes at each action */
  for (PetscInt e = 0; e < (mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED ? 0 : d->Ne); e++) {
    PetscCall(FEGCoeffEvaluate(d, &coeff, e));
    if (mf->kernel == FEG_MATFREE_QP) {
      for (PetscInt q = 0; q < Nq; q++) {
        const PetscReal *g  = FEGDiscGeometry(d, e, q);
        PetscScalar     *cq = &mf->Cq[((size_t)e * Nq + q) * Nd * Nd];

        FEGChat((int)dim, &coeff.C[q * 16], g, d->qweights[q] * g[dim * dim], Ch);
        for (PetscInt r = 0; r < Nd; r++)
          for (PetscInt s = 0; s < Nd; s++) cq[r * Nd + s] = Ch[r][s];
      }
    } else if (mf->kernel == FEG_MATFREE_REFOP) {
      const PetscReal *g = FEGDiscGeometry(d, e, 0);

      FEGChat((int)dim, &coeff.C[0], g, g[dim * dim], Ch);
      for (PetscInt m = 0; m < mf->npairs; m++) mf->G[e * mf->npairs + m] = Ch[mf->pr[m]][mf->ps[m]];
    } else {
      for (PetscInt l = 0; l < Nq; l++) {
        const PetscInt   q = mf->qlex[l];
        const PetscReal *g = FEGDiscGeometry(d, e, q);

        FEGChat((int)dim, &coeff.C[q * 16], g, d->qweights[q] * g[dim * dim], Ch);
        for (PetscInt m = 0; m < mf->npairs; m++) mf->Cl[((size_t)e * mf->npairs + m) * Nq + l] = Ch[mf->pr[m]][mf->ps[m]];
      }
    }
  }
  PetscCall(FEGCoeffDestroy(&coeff));
  op->bytes  = (PetscLogDouble)d->Ne * (mf->Cq ? Nq * Nd * Nd : (mf->G ? mf->npairs : (mf->Cl ? mf->npairs * Nq : d->Nv * dim))) * sizeof(PetscScalar);
  op->stores = "matfree data";
  PetscCall(PetscLogEventEnd(FEG_Integrate, op, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the stored tensors or factors and one index per element dof */
static PetscErrorCode FEGOpApplyBytes_MatFree(FEGOp op, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = op->bytes + (PetscLogDouble)op->disc->Ne * op->disc->Nb * sizeof(PetscInt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApply_MatFree(FEGOp op, Vec x, Vec y, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(FEGOpApplyElementLocal(op, ((FEGOp_MatFree *)op->data)->elemApply, x, y, PETSC_FALSE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpApplyTranspose_MatFree(FEGOp op, Vec x, Vec y, PetscBool add)
{
  PetscFunctionBegin;
  PetscCall(FEGOpApplyElementLocal(op, ((FEGOp_MatFree *)op->data)->elemApply, x, y, PETSC_TRUE, add));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpGetDiagonal_MatFree(FEGOp op, Vec diag)
{
  PetscFunctionBegin;
  PetscCall(FEGOpDiagonalElementLocal(op, ((FEGOp_MatFree *)op->data)->elemDiag, diag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The kernel, what it stores, and the bytes per unknown one action reads beyond the vectors */
PetscErrorCode FEGOpView_MatFree(FEGOp op, PetscViewer viewer)
{
  FEGDisc             *d       = op->disc;
  const FEGOp_MatFree *mf      = (FEGOp_MatFree *)op->data;
  const char          *kinds[] = {"symmetric gradient-gradient", "symmetric mass and gradient-gradient", "symmetric", "all", "mass"};
  PetscLogDouble       per     = 0, sum;
  PetscInt             ndof;

  PetscFunctionBegin;
  if (!op->nassembled) PetscFunctionReturn(PETSC_SUCCESS);
  switch (mf->kernel) {
  case FEG_MATFREE_QP:
    per = (PetscLogDouble)d->Nq * (d->dim + 1) * (d->dim + 1);
    PetscCall(PetscViewerASCIIPrintf(viewer, "matfree kernel: qp (partial assembly: %" PetscInt_FMT " Chat entries at each of %" PetscInt_FMT " quadrature points)\n", (d->dim + 1) * (d->dim + 1), d->Nq));
    break;
  case FEG_MATFREE_REFOP:
  case FEG_MATFREE_GEMM:
  case FEG_MATFREE_MMA:
    per = (PetscLogDouble)mf->npairs;
    PetscCall(PetscViewerASCIIPrintf(viewer, "matfree kernel: %s (%" PetscInt_FMT " reference operators of %" PetscInt_FMT "x%" PetscInt_FMT ", %s pairs, %" PetscInt_FMT " factors per element)\n", mf->kernel == FEG_MATFREE_GEMM ? "gemm (cuBLAS DGEMM of the stacked reference operators, then the element-wise combination)" : (mf->kernel == FEG_MATFREE_MMA ? "mma (refop fused on the FP64 tensor cores)" : "refop"), mf->npairs, d->Nb, d->Nb, kinds[mf->kind], mf->npairs));
    break;
  default:
    per = mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED ? (PetscLogDouble)d->Nv * d->dim : (PetscLogDouble)d->Nq * mf->npairs;
    PetscCall(PetscViewerASCIIPrintf(viewer, "matfree kernel: sumfact (%" PetscInt_FMT " nodes and %" PetscInt_FMT " %s points per direction%s, %" PetscInt_FMT " %s Chat entries per quadrature point)\n", mf->P, mf->Q, mf->gll ? "Gauss-Lobatto-Legendre" : "Gauss", mf->colloc ? ", collocated" : "", mf->npairs, kinds[mf->kind]));
    if (mf->geometry == FEG_MATFREE_GEOMETRY_COMPUTED)
      PetscCall(PetscViewerASCIIPrintf(viewer, "matfree geometry: computed in the kernel from each cell's %" PetscInt_FMT " coordinate nodes (%" PetscInt_FMT " per direction)%s\n", d->Nv, mf->geoG, mf->iso ? ", C a multiple of the identity on the gradients" : ""));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "matfree geometry: stored%s\n", mf->georequest == FEG_MATFREE_GEOMETRY_AUTO ? (mf->geoWhy ? " (cannot be computed: the coordinates are not a tensor product)" : (!FEGFormConstantC(op->form) ? " (cannot be computed: the coefficient varies)" : (d->affine ? " (affine cells)" : (mf->kind == FEG_MF_VV ? " (mass only: one value per point)" : " (auto on the host)")))) : " (as asked)"));
  }
  per = (per * sizeof(PetscScalar) + (PetscLogDouble)d->Nb * sizeof(int)) * d->Ne;
  PetscCall(MPIU_Allreduce(&per, &sum, 1, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)op)));
  PetscCall(MPIU_Allreduce(&d->nglobal, &ndof, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)op)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "matfree data read per action: %.1f bytes per unknown (coefficient-geometry data and 32-bit dof indices)\n", ndof ? sum / ndof : 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------- matfree's own settings */
static PetscErrorCode FEGOpMatFreeSetKernel_MatFree(FEGOp op, FEGMatFreeKernel kernel)
{
  PetscFunctionBegin;
  ((FEGOp_MatFree *)op->data)->request = kernel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeSetGeometry_MatFree(FEGOp op, FEGMatFreeGeometry geometry)
{
  PetscFunctionBegin;
  ((FEGOp_MatFree *)op->data)->georequest = geometry;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the geometry in use once assembled, else the one asked for */
static PetscErrorCode FEGOpMatFreeGetGeometry_MatFree(FEGOp op, FEGMatFreeGeometry *geometry)
{
  FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;

  PetscFunctionBegin;
  *geometry = op->nassembled ? mf->geometry : mf->georequest;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernel in use once assembled, else the one asked for */
static PetscErrorCode FEGOpMatFreeGetKernel_MatFree(FEGOp op, FEGMatFreeKernel *kernel)
{
  FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;

  PetscFunctionBegin;
  *kernel = op->nassembled ? mf->kernel : mf->request;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeSetFactored_MatFree(FEGOp op, PetscBool flg)
{
  PetscFunctionBegin;
  ((FEGOp_MatFree *)op->data)->factored = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeGetFactored_MatFree(FEGOp op, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((FEGOp_MatFree *)op->data)->factored;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeSetNodal_MatFree(FEGOp op, PetscBool flg)
{
  PetscFunctionBegin;
  ((FEGOp_MatFree *)op->data)->nodal = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeGetNodal_MatFree(FEGOp op, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = ((FEGOp_MatFree *)op->data)->nodal;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeSetTiling_MatFree(FEGOp op, PetscInt ne, PetscInt nb, PetscInt nr)
{
  FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;

  PetscFunctionBegin;
  mf->ne = ne;
  mf->nb = nb;
  mf->nr = nr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeGetTiling_MatFree(FEGOp op, PetscInt *ne, PetscInt *nb, PetscInt *nr)
{
  FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;

  PetscFunctionBegin;
  if (ne) *ne = mf->ne;
  if (nb) *nb = mf->nb;
  if (nr) *nr = mf->nr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeSetGemmWorkspace_MatFree(FEGOp op, PetscInt mb)
{
  PetscFunctionBegin;
  ((FEGOp_MatFree *)op->data)->gemmMB = mb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpMatFreeGetGemmWorkspace_MatFree(FEGOp op, PetscInt *mb)
{
  PetscFunctionBegin;
  *mb = ((FEGOp_MatFree *)op->data)->gemmMB;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpSetScatter_MatFree(FEGOp op, FEGScatter scatter)
{
  PetscFunctionBegin;
  ((FEGOp_MatFree *)op->data)->scatter = scatter;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGOpGetScatter_MatFree(FEGOp op, FEGScatter *scatter)
{
  PetscFunctionBegin;
  *scatter = ((FEGOp_MatFree *)op->data)->scatter;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* compose (or with compose false remove) matfree's settings on the operator */
static PetscErrorCode FEGOpComposeSettings_MatFree(FEGOp op, PetscBool compose)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeSetKernel_C", compose ? FEGOpMatFreeSetKernel_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeGetKernel_C", compose ? FEGOpMatFreeGetKernel_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeSetGeometry_C", compose ? FEGOpMatFreeSetGeometry_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeGetGeometry_C", compose ? FEGOpMatFreeGetGeometry_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeSetFactored_C", compose ? FEGOpMatFreeSetFactored_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeGetFactored_C", compose ? FEGOpMatFreeGetFactored_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeSetNodal_C", compose ? FEGOpMatFreeSetNodal_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeGetNodal_C", compose ? FEGOpMatFreeGetNodal_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeSetTiling_C", compose ? FEGOpMatFreeSetTiling_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeGetTiling_C", compose ? FEGOpMatFreeGetTiling_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeSetGemmWorkspace_C", compose ? FEGOpMatFreeSetGemmWorkspace_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpMatFreeGetGemmWorkspace_C", compose ? FEGOpMatFreeGetGemmWorkspace_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpSetScatter_C", compose ? FEGOpSetScatter_MatFree : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)op, "FEGOpGetScatter_C", compose ? FEGOpGetScatter_MatFree : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeSetKernel - the kernel of a matfree operator; no effect on other types

  Logically Collective

  Input Parameters:
+ op     - the operator
- kernel - `FEG_MATFREE_AUTO` (default: sum factorisation on quadrilaterals and hexahedra, reference operators on affine
           simplices with a C constant per cell (on the GPU the tensor-core form from 20 dofs on tetrahedra), else
           quadrature-point tensors), `FEG_MATFREE_QP`, `FEG_MATFREE_REFOP`, `FEG_MATFREE_GEMM` (GPU),
           `FEG_MATFREE_MMA` (GPU) or `FEG_MATFREE_SUMFACT`

  Options Database Key:
. -feg_op_matfree_kernel <auto,qp,refop,gemm,mma,sumfact> - the same (deprecated name: -feg_matfree_kernel)

  Note:
  A kernel that cannot apply to the form or the mesh is an error at assembly that says why, never a silent fallback.

  Level: intermediate

.seealso: FEGOpMatFreeGetKernel(), FEGOpMatFreeSetFactored(), FEGOpMatFreeSetTiling(), FEGOPMATFREE
@*/
PetscErrorCode FEGOpMatFreeSetKernel(FEGOp op, FEGMatFreeKernel kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(op, kernel, 2);
  PetscCheck(kernel >= FEG_MATFREE_AUTO && kernel <= FEG_MATFREE_SUMFACT, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "Unknown matfree kernel %d; allowed: auto, qp, refop, gemm, mma, sumfact", (int)kernel);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the kernel before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpMatFreeSetKernel_C", (FEGOp, FEGMatFreeKernel), (op, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeGetKernel - the kernel a matfree operator uses once assembled (before, the one asked for)

  Not Collective

  Level: intermediate

.seealso: FEGOpMatFreeSetKernel()
@*/
PetscErrorCode FEGOpMatFreeGetKernel(FEGOp op, FEGMatFreeKernel *kernel)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(kernel, 2);
  PetscUseMethod(op, "FEGOpMatFreeGetKernel_C", (FEGOp, FEGMatFreeKernel *), (op, kernel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeSetGeometry - where the sumfact kernel of a matfree operator gets the geometry at each quadrature point;
  no effect on other types

  Logically Collective

  Input Parameters:
+ op       - the operator
- geometry - `FEG_MATFREE_GEOMETRY_AUTO` (default: on the GPU computed wherever it can be, the cells are not
             affine and the form has gradients; on the host, and for the mass alone, stored, which is faster there),
             `FEG_MATFREE_GEOMETRY_STORED` (the pairs of Chat stored at every quadrature point, or one per element on
             affine hexahedra with a constant C) or `FEG_MATFREE_GEOMETRY_COMPUTED` (the Jacobian computed in the kernel
             from each cell's coordinate nodes, and the pairs from it: 24 doubles a hexahedron instead of 6 or 7 a
             point)

  Options Database Key:
. -feg_op_matfree_geometry <auto,stored,computed> - the same

  Notes:
  Computed geometry needs the sumfact kernel, coordinate nodes that are the tensor product of 2 or 3 nodes per
  direction (straight or second-order quadrilaterals and hexahedra) and a coefficient that is the same everywhere; asked
  for where one is missing it is an error at assembly that says which. The two agree to rounding (the tests compare
  them). `FEGOpView()` says which is in use.

  Level: intermediate

.seealso: FEGOpMatFreeGetGeometry(), FEGOpMatFreeSetKernel(), FEGMeshKershaw(), FEGOPMATFREE
@*/
PetscErrorCode FEGOpMatFreeSetGeometry(FEGOp op, FEGMatFreeGeometry geometry)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(op, geometry, 2);
  PetscCheck(geometry >= FEG_MATFREE_GEOMETRY_AUTO && geometry <= FEG_MATFREE_GEOMETRY_COMPUTED, PetscObjectComm((PetscObject)op), PETSC_ERR_ARG_OUTOFRANGE, "Unknown matfree geometry %d; allowed: auto, stored, computed", (int)geometry);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the geometry before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpMatFreeSetGeometry_C", (FEGOp, FEGMatFreeGeometry), (op, geometry));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeGetGeometry - the geometry a matfree operator uses once assembled (before, the one asked for)

  Not Collective

  Level: intermediate

.seealso: FEGOpMatFreeSetGeometry()
@*/
PetscErrorCode FEGOpMatFreeGetGeometry(FEGOp op, FEGMatFreeGeometry *geometry)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(geometry, 2);
  PetscUseMethod(op, "FEGOpMatFreeGetGeometry_C", (FEGOp, FEGMatFreeGeometry *), (op, geometry));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeSetFactored - whether refop (the host's, and the GPU's one thread per element) and mma apply the gradient
  operators of diffusion forms (mass + diffusion, diffusion only) factored, M^rs = C_r^T C_s: fewer operations

  Logically Collective

  Input Parameters:
+ op  - the operator
- flg - `PETSC_TRUE` (default) or `PETSC_FALSE`

  Options Database Key:
. -feg_op_matfree_factored <bool> - the same (deprecated name: -feg_matfree_factored)

  Note:
  mma keeps the unfactored kernel when the tiling asks for one of its tile shapes (`FEGOpMatFreeSetTiling()` with more
  than 2 row or element tiles). `FEGOpView()` says which ran.

  Level: advanced

.seealso: FEGOpMatFreeGetFactored(), FEGOpMatFreeSetNodal()
@*/
PetscErrorCode FEGOpMatFreeSetFactored(FEGOp op, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(op, flg, 2);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the factoring before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpMatFreeSetFactored_C", (FEGOp, PetscBool), (op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeGetFactored - see `FEGOpMatFreeSetFactored()`; the operator must be matfree

  Not Collective

  Level: advanced
@*/
PetscErrorCode FEGOpMatFreeGetFactored(FEGOp op, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(flg, 2);
  PetscUseMethod(op, "FEGOpMatFreeGetFactored_C", (FEGOp, PetscBool *), (op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeSetNodal - whether the GPU's one-thread-per-element refop on P2 triangles and tetrahedra (diffusion forms,
  factored) goes through the P1 nodal values of the derivatives, M^rs = D_r^T M1 D_s, with the reference tables compiled
  in; taken where PETSc's basis matches the tables after a permutation found at setup

  Logically Collective

  Input Parameters:
+ op  - the operator
- flg - `PETSC_TRUE` (default) or `PETSC_FALSE`

  Options Database Key:
. -feg_op_matfree_nodal <bool> - the same (deprecated name: -feg_matfree_nodal)

  Level: advanced

.seealso: FEGOpMatFreeGetNodal(), FEGOpMatFreeSetFactored()
@*/
PetscErrorCode FEGOpMatFreeSetNodal(FEGOp op, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveBool(op, flg, 2);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the nodal form before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpMatFreeSetNodal_C", (FEGOp, PetscBool), (op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeGetNodal - see `FEGOpMatFreeSetNodal()`; the operator must be matfree

  Not Collective

  Level: advanced
@*/
PetscErrorCode FEGOpMatFreeGetNodal(FEGOp op, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(flg, 2);
  PetscUseMethod(op, "FEGOpMatFreeGetNodal_C", (FEGOp, PetscBool *), (op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeSetTiling - the work split of the GPU's matfree kernels (0 for any: the values tuned per order)

  Logically Collective

  Input Parameters:
+ op - the operator
. ne - refop: elements per thread (1, 2, 4, 8); mma: 8-element tiles per warp (2, 4, 8; factored 1, 2)
. nb - refop: element groups per block; mma: warps across the elements of a block (factored: tile groups per block);
       sumfact: elements per block (1 to 256)
- nr - refop: rows per thread (1, 2); mma: 8-row tiles per warp (1, 2, 4), with the operators unfactored

  Options Database Keys:
+ -feg_op_matfree_ne <n> - ne (deprecated name: -feg_matfree_ne)
. -feg_op_matfree_nb <n> - nb (deprecated name: -feg_matfree_nb)
- -feg_op_matfree_nr <n> - nr (deprecated name: -feg_matfree_nr)

  Note:
  Any of them set makes refop take its block kernel below 10 dofs too.

  Level: developer

.seealso: FEGOpMatFreeGetTiling(), FEGOpMatFreeSetKernel()
@*/
PetscErrorCode FEGOpMatFreeSetTiling(FEGOp op, PetscInt ne, PetscInt nb, PetscInt nr)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the tiling before FEGOpSetUp()");
  PetscCall(FEGMatFreeCheckTiling(PetscObjectComm((PetscObject)op), ne, nb, nr));
  PetscTryMethod(op, "FEGOpMatFreeSetTiling_C", (FEGOp, PetscInt, PetscInt, PetscInt), (op, ne, nb, nr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeGetTiling - see `FEGOpMatFreeSetTiling()`; the operator must be matfree (any output may be NULL)

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGOpMatFreeGetTiling(FEGOp op, PetscInt *ne, PetscInt *nb, PetscInt *nr)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscUseMethod(op, "FEGOpMatFreeGetTiling_C", (FEGOp, PetscInt *, PetscInt *, PetscInt *), (op, ne, nb, nr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeSetGemmWorkspace - the GPU gemm kernel's work space per chunk of elements

  Logically Collective

  Input Parameters:
+ op - the operator
- mb - megabytes, at least 1 (default 64; small enough for the L2 cache keeps the GEMM's output there)

  Options Database Key:
. -feg_op_matfree_gemm_mb <mb> - the same (deprecated name: -feg_matfree_gemm_mb)

  Level: developer

.seealso: FEGOpMatFreeGetGemmWorkspace(), FEGOpMatFreeSetKernel()
@*/
PetscErrorCode FEGOpMatFreeSetGemmWorkspace(FEGOp op, PetscInt mb)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  PetscValidLogicalCollectiveInt(op, mb, 2);
  PetscCall(FEGMatFreeCheckGemmWorkspace(PetscObjectComm((PetscObject)op), mb));
  PetscCheck(!op->setupcalled, PetscObjectComm((PetscObject)op), PETSC_ERR_ORDER, "The operator is set up: set the work space before FEGOpSetUp()");
  PetscTryMethod(op, "FEGOpMatFreeSetGemmWorkspace_C", (FEGOp, PetscInt), (op, mb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOpMatFreeGetGemmWorkspace - see `FEGOpMatFreeSetGemmWorkspace()`; the operator must be matfree

  Not Collective

  Level: developer
@*/
PetscErrorCode FEGOpMatFreeGetGemmWorkspace(FEGOp op, PetscInt *mb)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(op, FEG_OP_CLASSID, 1);
  FEGAssertPointer(mb, 2);
  PetscUseMethod(op, "FEGOpMatFreeGetGemmWorkspace_C", (FEGOp, PetscInt *), (op, mb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpDestroy_MatFree(FEGOp op)
{
  FEGOp_MatFree *mf = (FEGOp_MatFree *)op->data;

  PetscFunctionBegin;
  PetscCall(PetscFree(mf->Op));
  PetscCall(PetscFree(mf->Cf));
  PetscCall(PetscFree(mf->fwork));
  PetscCall(PetscFree(mf->G));
  PetscCall(PetscFree6(mf->B1, mf->D1, mf->Bt, mf->Dt, mf->Gq, mf->W1));
  PetscCall(PetscFree2(mf->lex, mf->qlex));
  PetscCall(PetscFree(mf->work));
  PetscCall(PetscFree(mf->Cl));
  PetscCall(PetscFree(mf->Cq));
  PetscCall(PetscFree2(mf->gB, mf->gD));
  PetscCall(PetscFree(mf->cwork));
  PetscCall(PetscFree(op->data));
  PetscCall(FEGOpComposeSettings_MatFree(op, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FEGOPMATFREE: a MATSHELL whose kernel is chosen per form and mesh (-feg_op_matfree_kernel) */
PetscErrorCode FEGOpCreate_MatFree(FEGOp op)
{
  FEGOp_MatFree *mf;

  PetscFunctionBegin;
  PetscCall(PetscNew(&mf));
  PetscCall(FEGCitationsRegister(FEG_CITE_MODAVE));
  mf->gemmMB              = 64;
  mf->factored            = PETSC_TRUE;
  mf->nodal               = PETSC_TRUE;
  mf->opKind              = -1;
  op->data                = mf;
  op->ops->setfromoptions = FEGOpSetFromOptions_MatFree;
  op->ops->assemble       = FEGOpAssemble_MatFree;
  op->ops->apply          = FEGOpApply_MatFree;
  op->ops->applytranspose = FEGOpApplyTranspose_MatFree;
  op->ops->getdiagonal    = FEGOpGetDiagonal_MatFree;
  op->ops->view           = FEGOpView_MatFree;
  op->ops->applybytes     = FEGOpApplyBytes_MatFree;
  op->ops->destroy        = FEGOpDestroy_MatFree;
  PetscCall(FEGOpComposeSettings_MatFree(op, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
