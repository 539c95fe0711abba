#include <fegpu/private/fegimpl.h>

/* Matrix-free action. Nothing is stored but what the action needs beyond the reference element:
   - qp: at every quadrature point the (dim+1)x(dim+1) tensor Chat = w detJ T^T C T (T = diag(1, invJ^T)) seen by the
     reference values and gradients R: A_e x_e = sum_q R_q^T Chat_q R_q x_e. Any cell, order and coefficient.
   - refop (affine simplices, C constant per cell): A_e = sum_(r,s) G_rs M^rs with the reference operators
     M^rs_ab = sum_q w_q R_r(b) R_s(a) and per-element factors G = detJ T^T C T, only the pairs the form needs, and
     for symmetric forms M^rs + M^sr merged (Swirydowicz et al.'s stiffness-action kernel, 004). On the GPU also as
     batched GEMMs over all elements (Modave et al., 003).
   - sumfact (quadrilaterals, hexahedra with tensor Gauss quadrature): values and gradients at the quadrature points
     by 1D contractions, the stored pairs of Chat per quadrature point, and the transposed contractions back.
   The host versions here are also the reference the GPU kernels (matfree.cu) are tested against. */

PetscErrorCode FEGMatFreeDestroy(FEGMatFree *mf)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(mf->Op));
  PetscCall(PetscFree(mf->G));
  PetscCall(PetscFree4(mf->B1, mf->D1, mf->Bt, mf->Dt));
  PetscCall(PetscFree2(mf->lex, mf->qlex));
  PetscCall(PetscFree(mf->work));
  PetscCall(PetscFree(mf->Cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R(q, r, b): reference value (r = 0) or gradient component r-1 of basis function b at quadrature point q */
static inline PetscReal FEGRef(const FEGDisc *d, PetscInt q, PetscInt r, PetscInt b)
{
  return r == 0 ? d->T->T[0][q * d->Nb + b] : d->T->T[1][(q * d->Nb + b) * d->dim + r - 1];
}

/* Chat = wdet T^T C T at quadrature point q of the current cell (coefficients already evaluated) */
static void FEGChatAt(const FEGDisc *d, const FEGCoeff *coeff, PetscInt e, PetscInt q, PetscReal weight, PetscScalar Ch[])
{
  const PetscInt     dim = d->dim, Nd = dim + 1, gq = d->geom->numPoints == 1 ? e : e * d->Nq + q;
  const PetscReal   *invJ = &d->geom->invJ[gq * dim * dim];
  const PetscReal    wdet = weight * d->geom->detJ[gq];
  const PetscScalar *C    = &coeff->C[q * 16];
  PetscReal          T[4][4] = {{0}};

  T[0][0] = 1.0;
  for (PetscInt c = 0; c < dim; c++)
    for (PetscInt r = 0; r < dim; r++) T[1 + c][1 + r] = invJ[r * dim + c];
  for (PetscInt r = 0; r < Nd; r++)
    for (PetscInt s = 0; s < Nd; s++) {
      PetscScalar v = 0.0;

      for (PetscInt i = 0; i < Nd; i++)
        for (PetscInt j = 0; j < Nd; j++) v += T[i][r] * C[i * 4 + j] * T[j][s];
      Ch[r * Nd + s] = wdet * v;
    }
}

/* v (+)= Chat^(T) u at one point from the stored pairs c[m*stride] */
static inline void FEGMFPointApply(const FEGMatFree *mf, const PetscScalar *c, PetscInt stride, const PetscScalar u[], PetscScalar v[], PetscBool transpose)
{
  const PetscBool sym = (PetscBool)(mf->kind != FEG_MF_FULL);

  for (PetscInt m = 0; m < mf->npairs; m++) {
    const PetscInt    r = mf->pr[m], s = mf->ps[m];
    const PetscScalar cm = c[m * stride];

    if (sym) {
      v[s] += cm * u[r];
      if (r != s) v[r] += cm * u[s];
    } else if (transpose) v[r] += cm * u[s];
    else v[s] += cm * u[r];
  }
}

/* ------------------------------------------------------------------------------------------------------------ qp */
static PetscErrorCode FEGElemApply_QP(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const FEGDisc *d  = &op->disc;
  const PetscInt Nb = d->Nb, Nd = d->dim + 1;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) ye[a] = 0.0;
  for (PetscInt q = 0; q < d->Nq; q++) {
    const PetscScalar *Ch = &op->Cq[((size_t)e * d->Nq + q) * Nd * Nd];
    PetscScalar        u[4] = {0, 0, 0, 0}, v[4];

    /* interpolate to the quadrature point, apply the pointwise tensor, integrate back */
    for (PetscInt r = 0; r < Nd; r++)
      for (PetscInt b = 0; b < Nb; b++) u[r] += FEGRef(d, q, r, b) * xe[b];
    for (PetscInt s = 0; s < Nd; s++) {
      v[s] = 0.0;
      for (PetscInt r = 0; r < Nd; r++) v[s] += transpose ? Ch[s * Nd + r] * u[r] : Ch[r * Nd + s] * u[r];
    }
    for (PetscInt a = 0; a < Nb; a++)
      for (PetscInt s = 0; s < Nd; s++) ye[a] += FEGRef(d, q, s, a) * v[s];
  }
  PetscCall(PetscLogFlops((PetscLogDouble)d->Nq * (4.0 * Nb * Nd + 2.0 * Nd * Nd)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemDiag_QP(FEGOp op, PetscInt e, PetscScalar de[])
{
  const FEGDisc *d  = &op->disc;
  const PetscInt Nb = d->Nb, Nd = d->dim + 1;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) {
    de[a] = 0.0;
    for (PetscInt q = 0; q < d->Nq; q++) {
      const PetscScalar *Ch = &op->Cq[((size_t)e * d->Nq + q) * Nd * Nd];

      for (PetscInt r = 0; r < Nd; r++)
        for (PetscInt s = 0; s < Nd; s++) de[a] += Ch[r * Nd + s] * FEGRef(d, q, r, a) * FEGRef(d, q, s, a);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --------------------------------------------------------------------------------------------------------- refop */
static PetscErrorCode FEGElemApply_RefOp(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const FEGMatFree  *mf = &op->mf;
  const PetscInt     Nb = op->disc.Nb;
  const PetscScalar *G  = &mf->G[e * mf->npairs];

  PetscFunctionBeginHot;
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
  const FEGMatFree *mf = &op->mf;
  const PetscInt    Nb = op->disc.Nb;

  PetscFunctionBeginHot;
  for (PetscInt a = 0; a < Nb; a++) {
    de[a] = 0.0;
    for (PetscInt m = 0; m < mf->npairs; m++) de[a] += mf->G[e * mf->npairs + m] * mf->Op[((size_t)m * Nb + a) * Nb + a];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reference operators of the stored pairs: M^rs, or M^rs + M^sr (= M^rs + (M^rs)^T) for symmetric kinds */
static PetscErrorCode FEGMatFreeBuildRefOps(FEGDisc *d, FEGMatFree *mf)
{
  const PetscInt Nb = d->Nb;

  PetscFunctionBegin;
  PetscCall(PetscFree(mf->Op));
  PetscCall(PetscCalloc1((size_t)mf->npairs * Nb * Nb, &mf->Op));
  for (PetscInt m = 0; m < mf->npairs; m++) {
    const PetscInt r = mf->pr[m], s = mf->ps[m];
    PetscReal     *Om = &mf->Op[(size_t)m * Nb * Nb];

    for (PetscInt q = 0; q < d->Nq; q++)
      for (PetscInt b = 0; b < Nb; b++) {
        const PetscReal wr = d->qweights[q] * FEGRef(d, q, r, b), ws = d->qweights[q] * FEGRef(d, q, s, b);

        for (PetscInt a = 0; a < Nb; a++) {
          Om[b * Nb + a] += wr * FEGRef(d, q, s, a);
          if (mf->kind != FEG_MF_FULL && r != s) Om[b * Nb + a] += ws * FEGRef(d, q, r, a);
        }
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------- sumfact */
/* out[(i0*NO+i)*inner+i1] (+)= sum_a M[i*NA+a] in[(i0*NA+a)*inner+i1] */
static void FEGContract(const PetscScalar *in, PetscScalar *out, const PetscReal *M, PetscInt n0, PetscInt NA, PetscInt NO, PetscInt inner, PetscBool add)
{
  for (PetscInt i0 = 0; i0 < n0; i0++)
    for (PetscInt i = 0; i < NO; i++)
      for (PetscInt i1 = 0; i1 < inner; i1++) {
        PetscScalar s = add ? out[(i0 * NO + i) * inner + i1] : 0.0;

        for (PetscInt a = 0; a < NA; a++) s += M[i * NA + a] * in[(i0 * NA + a) * inner + i1];
        out[(i0 * NO + i) * inner + i1] = s;
      }
}

static PetscErrorCode FEGElemApply_SumFact(FEGOp op, PetscInt e, const PetscScalar xe[], PetscScalar ye[], PetscBool transpose)
{
  const FEGMatFree *mf = &op->mf;
  const PetscInt    P = mf->P, Q = mf->Q, dim = op->disc.dim, Nq = op->disc.Nq, Nb = op->disc.Nb;
  const PetscReal  *B = mf->B1, *D = mf->D1, *Bt = mf->Bt, *Dt = mf->Dt;
  const PetscInt    n = dim == 2 ? PetscMax(P, Q) * PetscMax(P, Q) : PetscMax(P, Q) * PetscMax(P, Q) * PetscMax(P, Q);
  PetscScalar      *U = mf->work, *T[5], *V[4];

  PetscFunctionBeginHot;
  for (PetscInt k = 0; k < 5; k++) T[k] = U + (1 + k) * n;
  for (PetscInt k = 0; k < 4; k++) V[k] = U + (6 + k) * n;
  for (PetscInt l = 0; l < Nb; l++) U[l] = xe[mf->lex[l]];
  if (dim == 2) {
    /* (y, x) layout: x first, then y; V[1] = d/dxi, V[2] = d/deta */
    FEGContract(U, T[0], B, P, P, Q, 1, PETSC_FALSE);
    FEGContract(U, T[1], D, P, P, Q, 1, PETSC_FALSE);
    FEGContract(T[0], V[0], B, 1, P, Q, Q, PETSC_FALSE);
    FEGContract(T[0], V[2], D, 1, P, Q, Q, PETSC_FALSE);
    FEGContract(T[1], V[1], B, 1, P, Q, Q, PETSC_FALSE);
  } else {
    FEGContract(U, T[0], B, P * P, P, Q, 1, PETSC_FALSE);
    FEGContract(U, T[1], D, P * P, P, Q, 1, PETSC_FALSE);
    FEGContract(T[0], T[2], B, P, P, Q, Q, PETSC_FALSE);
    FEGContract(T[0], T[3], D, P, P, Q, Q, PETSC_FALSE);
    FEGContract(T[1], T[4], B, P, P, Q, Q, PETSC_FALSE);
    FEGContract(T[2], V[0], B, 1, P, Q, Q * Q, PETSC_FALSE);
    FEGContract(T[2], V[3], D, 1, P, Q, Q * Q, PETSC_FALSE);
    FEGContract(T[3], V[2], B, 1, P, Q, Q * Q, PETSC_FALSE);
    FEGContract(T[4], V[1], B, 1, P, Q, Q * Q, PETSC_FALSE);
  }
  for (PetscInt l = 0; l < Nq; l++) {
    PetscScalar u[4], v[4] = {0, 0, 0, 0};

    for (PetscInt r = 0; r <= dim; r++) u[r] = V[r][l];
    FEGMFPointApply(mf, &mf->Cl[(size_t)e * mf->npairs * Nq + l], Nq, u, v, transpose);
    for (PetscInt r = 0; r <= dim; r++) V[r][l] = v[r];
  }
  if (dim == 2) {
    FEGContract(V[0], T[0], Bt, 1, Q, P, Q, PETSC_FALSE);
    FEGContract(V[2], T[0], Dt, 1, Q, P, Q, PETSC_TRUE);
    FEGContract(V[1], T[1], Bt, 1, Q, P, Q, PETSC_FALSE);
    FEGContract(T[0], U, Bt, P, Q, P, 1, PETSC_FALSE);
    FEGContract(T[1], U, Dt, P, Q, P, 1, PETSC_TRUE);
  } else {
    FEGContract(V[0], T[2], Bt, 1, Q, P, Q * Q, PETSC_FALSE);
    FEGContract(V[3], T[2], Dt, 1, Q, P, Q * Q, PETSC_TRUE);
    FEGContract(V[2], T[3], Bt, 1, Q, P, Q * Q, PETSC_FALSE);
    FEGContract(V[1], T[4], Bt, 1, Q, P, Q * Q, PETSC_FALSE);
    FEGContract(T[2], T[0], Bt, P, Q, P, Q, PETSC_FALSE);
    FEGContract(T[3], T[0], Dt, P, Q, P, Q, PETSC_TRUE);
    FEGContract(T[4], T[1], Bt, P, Q, P, Q, PETSC_FALSE);
    FEGContract(T[0], U, Bt, P * P, Q, P, 1, PETSC_FALSE);
    FEGContract(T[1], U, Dt, P * P, Q, P, 1, PETSC_TRUE);
  }
  for (PetscInt l = 0; l < Nb; l++) ye[mf->lex[l]] = U[l];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGElemDiag_SumFact(FEGOp op, PetscInt e, PetscScalar de[])
{
  const FEGMatFree *mf = &op->mf;
  const PetscInt    P = mf->P, Q = mf->Q, dim = op->disc.dim, Nq = op->disc.Nq, Nb = op->disc.Nb;

  PetscFunctionBeginHot;
  for (PetscInt l = 0; l < Nb; l++) {
    PetscInt    a[3] = {l % P, (l / P) % P, l / (P * P)};
    PetscScalar s    = 0.0;

    for (PetscInt lq = 0; lq < Nq; lq++) {
      PetscInt    i[3] = {lq % Q, (lq / Q) % Q, lq / (Q * Q)};
      PetscScalar R[4], v[4] = {0, 0, 0, 0};

      R[0] = 1.0;
      for (PetscInt c = 0; c < dim; c++) R[0] *= mf->B1[i[c] * P + a[c]];
      for (PetscInt r = 1; r <= dim; r++) {
        R[r] = 1.0;
        for (PetscInt c = 0; c < dim; c++) R[r] *= (c == r - 1 ? mf->D1 : mf->B1)[i[c] * P + a[c]];
      }
      FEGMFPointApply(mf, &mf->Cl[(size_t)e * mf->npairs * Nq + lq], Nq, R, v, PETSC_FALSE);
      for (PetscInt r = 0; r <= dim; r++) s += R[r] * v[r];
    }
    de[mf->lex[l]] = s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tensor structure of a quadrilateral or hexahedral space, or *ok = PETSC_FALSE with the reason: the quadrature
   must be the tensor Gauss rule and the basis the tensor product of the 1D Lagrange basis on the same nodes (checked
   to 1e-12 against the element's own tabulation) */
static PetscErrorCode FEGMatFreeTensorSetUp(FEGDisc *d, FEGMatFree *mf, PetscBool *ok, const char **why)
{
  const PetscInt  dim = d->dim;
  PetscInt        P = d->order + 1, Q = 1, Nn = 1;
  PetscReal      *gx, *gw, *nodes, *pts;
  PetscFE         fe1;
  PetscDualSpace  dsp;
  PetscTabulation T1, Tn;

  PetscFunctionBegin;
  *ok  = PETSC_FALSE;
  *why = NULL;
  if (d->ct != DM_POLYTOPE_QUADRILATERAL && d->ct != DM_POLYTOPE_HEXAHEDRON) {
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
  PetscCall(PetscMalloc4(Q, &gx, Q, &gw, P, &nodes, Nn * dim, &pts));
  PetscCall(PetscMalloc2(d->Nb, &mf->lex, d->Nq, &mf->qlex));
  PetscCall(PetscDTGaussQuadrature(Q, -1.0, 1.0, gx, gw));
  /* each quadrature point is (gx[i], gx[j], gx[k]) with weight gw[i] gw[j] gw[k] */
  *ok = PETSC_TRUE;
  for (PetscInt l = 0; l < d->Nq && *ok; l++) mf->qlex[l] = -1;
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
  if (!*ok) {
    *why = "the quadrature is not the tensor Gauss rule";
    PetscCall(PetscFree4(gx, gw, nodes, pts));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the 1D element on the same node family, and its nodes */
  PetscCall(PetscFECreateLagrangeByCell(PETSC_COMM_SELF, 1, 1, DM_POLYTOPE_SEGMENT, d->order, PETSC_DETERMINE, &fe1));
  PetscCall(PetscFEGetDualSpace(fe1, &dsp));
  for (PetscInt a = 0; a < P; a++) {
    PetscQuadrature  f;
    const PetscReal *fx;
    PetscInt         np;

    PetscCall(PetscDualSpaceGetFunctional(dsp, a, &f));
    PetscCall(PetscQuadratureGetData(f, NULL, NULL, &np, &fx, NULL));
    PetscCheck(np == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "1D Lagrange functional %" PetscInt_FMT " is not a point evaluation", a);
    nodes[a] = fx[0];
  }
  PetscCall(PetscMalloc4(Q * P, &mf->B1, Q * P, &mf->D1, Q * P, &mf->Bt, Q * P, &mf->Dt));
  PetscCall(PetscFECreateTabulation(fe1, 1, Q, gx, 1, &T1));
  for (PetscInt i = 0; i < Q; i++)
    for (PetscInt a = 0; a < P; a++) {
      mf->B1[i * P + a] = mf->Bt[a * Q + i] = T1->T[0][i * P + a];
      mf->D1[i * P + a] = mf->Dt[a * Q + i] = T1->T[1][i * P + a];
    }
  PetscCall(PetscTabulationDestroy(&T1));
  PetscCall(PetscFEDestroy(&fe1));
  /* the element's basis at the tensor nodes is a permutation: basis function lex[l] is 1 at lexicographic node l */
  for (PetscInt l = 0; l < Nn; l++) {
    PetscInt r = l;

    for (PetscInt c = 0; c < dim; c++, r /= P) pts[l * dim + c] = nodes[r % P];
  }
  PetscCall(PetscFECreateTabulation(d->fe, 1, Nn, pts, 0, &Tn));
  for (PetscInt l = 0; l < Nn && *ok; l++) {
    PetscInt found = -1;

    for (PetscInt b = 0; b < d->Nb; b++) {
      const PetscReal v = Tn->T[0][l * d->Nb + b];

      if (PetscAbsReal(v - 1.0) < 1e-10) found = found < 0 ? b : -2;
      else if (PetscAbsReal(v) > 1e-10) found = -2;
    }
    if (found < 0) *ok = PETSC_FALSE;
    else mf->lex[l] = found;
  }
  PetscCall(PetscTabulationDestroy(&Tn));
  /* and the element's own tables equal the tensor products */
  for (PetscInt lq = 0; lq < d->Nq && *ok; lq++)
    for (PetscInt l = 0; l < Nn && *ok; l++) {
      const PetscInt q = mf->qlex[lq], b = mf->lex[l];

      for (PetscInt r = 0; r <= dim && *ok; r++) {
        PetscReal v = 1.0;

        for (PetscInt c = 0, ic = lq, ac = l; c < dim; c++, ic /= Q, ac /= P) v *= (c == r - 1 ? mf->D1 : mf->B1)[(ic % Q) * P + ac % P];
        if (PetscAbsReal(v - FEGRef(d, q, r, b)) > 1e-12 * (1.0 + PetscAbsReal(v))) *ok = PETSC_FALSE;
      }
    }
  if (!*ok) *why = "the basis is not the tensor product of the 1D Lagrange basis";
  mf->P = P;
  mf->Q = Q;
  PetscCall(PetscMalloc1(10 * (dim == 2 ? PetscMax(P, Q) * PetscMax(P, Q) : PetscMax(P, Q) * PetscMax(P, Q) * PetscMax(P, Q)), &mf->work));
  PetscCall(PetscFree4(gx, gw, nodes, pts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------ choosing */
/* What the mesh and space allow, once per operator: affine simplices, the tensor structure of Q_k spaces */
static PetscErrorCode FEGMatFreeMeshStructure(FEGOp op)
{
  FEGDisc    *d  = &op->disc;
  FEGMatFree *mf = &op->mf;

  PetscFunctionBegin;
  /* simplices with a constant Jacobian in every cell (straight-sided; checked, as coordinates may be curved) */
  mf->affine = (PetscBool)(d->ct == DM_POLYTOPE_TRIANGLE || d->ct == DM_POLYTOPE_TETRAHEDRON);
  if (mf->affine && d->geom->numPoints > 1) {
    const PetscInt n = d->dim * d->dim;

    for (PetscInt e = 0; e < d->Ne && mf->affine; e++)
      for (PetscInt q = 1; q < d->Nq && mf->affine; q++)
        for (PetscInt k = 0; k < n; k++)
          if (PetscAbsReal(d->geom->J[(e * d->Nq + q) * n + k] - d->geom->J[e * d->Nq * n + k]) > 1e-12 * (1.0 + PetscAbsReal(d->geom->J[e * d->Nq * n + k]))) mf->affine = PETSC_FALSE;
  }
  mf->tensor    = PETSC_FALSE;
  mf->tensorWhy = NULL;
  if (op->mfRequest == FEG_MF_AUTO || op->mfRequest == FEG_MF_SUMFACT) PetscCall(FEGMatFreeTensorSetUp(d, mf, &mf->tensor, &mf->tensorWhy));
  if (mf->tensor && op->ondevice && (mf->P < 2 || mf->P > 9 || (mf->Q != mf->P && mf->Q != mf->P + 1))) {
    mf->tensor    = PETSC_FALSE;
    mf->tensorWhy = "the GPU kernels are compiled for 2 to 9 nodes and P or P+1 Gauss points per direction";
  }
  mf->opKind      = -1;
  mf->meshChecked = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Kernel for this form and discretization: the requested one, with an error naming why it cannot be used, or under
   auto the cheapest that applies */
static PetscErrorCode FEGMatFreeSelect(FEGOp op)
{
  FEGDisc    *d  = &op->disc;
  FEGMatFree *mf = &op->mf;
  PetscBool   sym, vv, vg, gv, gg, cellconst, affine, tensor;
  const char *why = NULL;
  MPI_Comm    comm = PetscObjectComm((PetscObject)op->dm);
  int         pr[16], ps[16];
  FEGMatFreeKernel k = op->mfRequest;

  PetscFunctionBegin;
  PetscCall(FEGFormIsSymmetric(op->form, &sym));
  PetscCall(FEGFormBlockPattern(op->form, &vv, &vg, &gv, &gg));
  PetscCall(FEGFormCellwiseConstant(op->form, &cellconst));
  if (!mf->meshChecked) PetscCall(FEGMatFreeMeshStructure(op));
  affine = mf->affine;
  tensor = mf->tensor;
  why    = mf->tensorWhy;
  if (k == FEG_MF_AUTO) {
    /* on the H100 the batched GEMM overtakes the refop kernel from tetrahedra of order 6 (84 dofs) up */
    if (affine && cellconst) k = op->ondevice && d->dim == 3 && d->Nb >= 84 ? FEG_MF_GEMM : FEG_MF_REFOP;
    else if (tensor) k = FEG_MF_SUMFACT;
    else k = FEG_MF_QP;
  }
  PetscCheck(k != FEG_MF_SUMFACT || tensor, comm, PETSC_ERR_SUP, "-feg_matfree_kernel sumfact cannot be used on %s cells of order %" PetscInt_FMT " with %" PetscInt_FMT " quadrature points: %s; use qp or auto", DMPolytopeTypes[d->ct], d->order, d->Nq, why);
  PetscCheck((k != FEG_MF_REFOP && k != FEG_MF_GEMM) || affine, comm, PETSC_ERR_SUP, "-feg_matfree_kernel %s needs affine simplices (triangles, tetrahedra), not %s cells; use qp, sumfact or auto", FEGMatFreeKernels[k], DMPolytopeTypes[d->ct]);
  PetscCheck((k != FEG_MF_REFOP && k != FEG_MF_GEMM) || cellconst, comm, PETSC_ERR_SUP, "-feg_matfree_kernel %s needs a coefficient constant on each cell (no pointwise function, auxiliary fields piecewise constant); use qp or auto", FEGMatFreeKernels[k]);
  PetscCheck(k != FEG_MF_GEMM || op->ondevice, comm, PETSC_ERR_SUP, "-feg_matfree_kernel gemm is a GPU kernel (cuBLAS): it needs CUDA vectors (-dm_vec_type cuda); on the host use refop or auto");
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
  if ((k == FEG_MF_REFOP || k == FEG_MF_GEMM) && mf->opKind != mf->kind) {
    PetscCall(FEGMatFreeBuildRefOps(d, mf));
    mf->opKind = mf->kind;
  }
  switch (k) {
  case FEG_MF_REFOP:
  case FEG_MF_GEMM:
    op->elemApply = FEGElemApply_RefOp;
    op->elemDiag  = FEGElemDiag_RefOp;
    break;
  case FEG_MF_SUMFACT:
    op->elemApply = FEGElemApply_SumFact;
    op->elemDiag  = FEGElemDiag_SumFact;
    break;
  default:
    op->elemApply = FEGElemApply_QP;
    op->elemDiag  = FEGElemDiag_QP;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpCreateMat_MatFree(FEGOp op, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(FEGOpCreateShell(op, A));
  op->elemApply = FEGElemApply_QP;
  op->elemDiag  = FEGElemDiag_QP;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the kernel needs from the coefficients and the geometry: Chat at every quadrature point (qp), per-element
   factors (refop), the stored pairs at the lexicographic quadrature points (sumfact) */
PetscErrorCode FEGOpAssemble_MatFree(FEGOp op, Mat A)
{
  FEGDisc     *d  = &op->disc;
  FEGMatFree  *mf = &op->mf;
  FEGCoeff     coeff;
  const PetscInt Nd = d->dim + 1, Nq = d->Nq;
  PetscScalar  Ch[16];

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(FEG_Integrate, A, 0, 0, 0));
  PetscCall(FEGMatFreeSelect(op));
  if (op->ondevice) {
#if defined(FEGPU_HAVE_CUDA)
    PetscCall(FEGOpDevAssemble_Shell(op));
#endif
    PetscCall(FEGShellAssembled(op, A));
    PetscCall(PetscLogEventEnd(FEG_Integrate, A, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscFree(op->Cq));
  PetscCall(PetscFree(mf->G));
  PetscCall(PetscFree(mf->Cl));
  if (mf->kernel == FEG_MF_QP) PetscCall(PetscMalloc1((size_t)d->Ne * Nq * Nd * Nd, &op->Cq));
  else if (mf->kernel == FEG_MF_REFOP) PetscCall(PetscMalloc1((size_t)d->Ne * mf->npairs, &mf->G));
  else PetscCall(PetscMalloc1((size_t)d->Ne * mf->npairs * Nq, &mf->Cl));
  PetscCall(FEGCoeffSetUp(d, op->form, &coeff));
  for (PetscInt e = 0; e < d->Ne; e++) {
    PetscCall(FEGCoeffEvaluate(d, &coeff, e));
    if (mf->kernel == FEG_MF_QP) {
      for (PetscInt q = 0; q < Nq; q++) FEGChatAt(d, &coeff, e, q, d->qweights[q], &op->Cq[((size_t)e * Nq + q) * Nd * Nd]);
    } else if (mf->kernel == FEG_MF_REFOP) {
      FEGChatAt(d, &coeff, e, 0, 1.0, Ch);
      for (PetscInt m = 0; m < mf->npairs; m++) mf->G[e * mf->npairs + m] = Ch[mf->pr[m] * Nd + mf->ps[m]];
    } else {
      for (PetscInt l = 0; l < Nq; l++) {
        const PetscInt q = mf->qlex[l];

        FEGChatAt(d, &coeff, e, q, d->qweights[q], Ch);
        for (PetscInt m = 0; m < mf->npairs; m++) mf->Cl[((size_t)e * mf->npairs + m) * Nq + l] = Ch[mf->pr[m] * Nd + mf->ps[m]];
      }
    }
  }
  PetscCall(FEGCoeffDestroy(&coeff));
  PetscCall(FEGShellAssembled(op, A));
  PetscCall(PetscLogEventEnd(FEG_Integrate, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The kernel, what it stores, and the bytes per unknown one action reads beyond the vectors */
PetscErrorCode FEGMatFreeView(FEGOp op, PetscInt ndof, PetscViewer viewer)
{
  FEGDisc          *d  = &op->disc;
  const FEGMatFree *mf = &op->mf;
  const char       *kinds[] = {"symmetric gradient-gradient", "symmetric mass and gradient-gradient", "symmetric", "all"};
  PetscLogDouble    per = 0, sum;

  PetscFunctionBegin;
  switch (mf->kernel) {
  case FEG_MF_QP:
    per = (PetscLogDouble)d->Nq * (d->dim + 1) * (d->dim + 1);
    PetscCall(PetscViewerASCIIPrintf(viewer, "matfree kernel: qp (partial assembly: %" PetscInt_FMT " Chat entries at each of %" PetscInt_FMT " quadrature points)\n", (d->dim + 1) * (d->dim + 1), d->Nq));
    break;
  case FEG_MF_REFOP:
  case FEG_MF_GEMM:
    per = (PetscLogDouble)mf->npairs;
    PetscCall(PetscViewerASCIIPrintf(viewer, "matfree kernel: %s (%" PetscInt_FMT " reference operators of %" PetscInt_FMT "x%" PetscInt_FMT ", %s pairs, %" PetscInt_FMT " factors per element)\n", mf->kernel == FEG_MF_GEMM ? "gemm (cuBLAS DGEMM of the stacked reference operators, then the element-wise combination)" : "refop", mf->npairs, d->Nb, d->Nb, kinds[mf->kind], mf->npairs));
    break;
  case FEG_MF_SUMFACT:
    per = (PetscLogDouble)d->Nq * mf->npairs;
    PetscCall(PetscViewerASCIIPrintf(viewer, "matfree kernel: sumfact (%" PetscInt_FMT " nodes and %" PetscInt_FMT " Gauss points per direction, %" PetscInt_FMT " %s Chat entries per quadrature point)\n", mf->P, mf->Q, mf->npairs, kinds[mf->kind]));
    break;
  default:
    break;
  }
  per = (per * sizeof(PetscScalar) + (PetscLogDouble)d->Nb * sizeof(int)) * d->Ne;
  PetscCall(MPIU_Allreduce(&per, &sum, 1, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)op->dm)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "matfree data read per action: %.1f bytes per unknown (coefficient-geometry data and 32-bit dof indices)\n", ndof ? sum / ndof : 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
