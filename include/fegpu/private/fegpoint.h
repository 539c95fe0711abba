/* What fegpu computes per quadrature point and per element, written once for the host (C) and the device (CUDA):
   geometry, the coefficient-geometry tensor Chat, physical basis derivatives, the linear coefficient map, the stored
   pairs of matrix-free operators, quadrature-point applications and the 1D contractions of sum factorisation.
   Every function here is inlined by both compilers; a device kernel that passes compile-time sizes gets the loops
   unrolled. Sizes are small counts (int); values are double (fegpu requires a real double PETSc). */
#pragma once

#include <stddef.h>

#if defined(__CUDACC__)
  #define FEG_HOST_DEVICE __host__ __device__
  #define FEG_UNROLL      _Pragma("unroll")
#else
  #define FEG_HOST_DEVICE
  #define FEG_UNROLL
#endif
#define FEG_INLINE static inline FEG_HOST_DEVICE
/* 1 / x: on the device the correctly rounded reciprocal instruction sequence, cheaper than a division's */
#if defined(__CUDA_ARCH__)
  #define FEG_RCP(x) __drcp_rn(x)
#else
  #define FEG_RCP(x) (1.0 / (x))
#endif

/* ------------------------------------------------------------------------------------------------------ geometry */
/* A = adj J (invJ = A / det J), returns det J */
FEG_INLINE double FEGAdjugate(int dim, const double *J, double A[9])
{
  if (dim == 2) {
    A[0] = J[3];
    A[1] = -J[1];
    A[2] = -J[2];
    A[3] = J[0];
    return J[0] * J[3] - J[1] * J[2];
  }
  A[0] = J[4] * J[8] - J[5] * J[7];
  A[1] = J[2] * J[7] - J[1] * J[8];
  A[2] = J[1] * J[5] - J[2] * J[4];
  A[3] = J[5] * J[6] - J[3] * J[8];
  A[4] = J[0] * J[8] - J[2] * J[6];
  A[5] = J[2] * J[3] - J[0] * J[5];
  A[6] = J[3] * J[7] - J[4] * J[6];
  A[7] = J[1] * J[6] - J[0] * J[7];
  A[8] = J[0] * J[4] - J[1] * J[3];
  return J[0] * A[0] + J[1] * A[3] + J[2] * A[6];
}

/* J = sum_v X_v (x) dphi_v at one point (X[v*dim+i] coordinates of coordinate node v, G[v*dim+j] the reference gradient
   of its basis function there); writes invJ (row-major, d xi_r / d x_c) and returns det J */
FEG_INLINE double FEGGeometryAt(int dim, int Nv, const double *X, const double *G, double *invJ)
{
  double J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, det;

  for (int v = 0; v < Nv; v++) {
    FEG_UNROLL
    for (int i = 0; i < 3; i++) {
      if (i >= dim) break;
      const double x = X[v * dim + i];
      FEG_UNROLL
      for (int j = 0; j < 3; j++) {
        if (j >= dim) break;
        J[i * dim + j] += x * G[v * dim + j];
      }
    }
  }
  det = FEGAdjugate(dim, J, invJ);
  FEG_UNROLL
  for (int k = 0; k < 9; k++) {
    if (k >= dim * dim) break;
    invJ[k] /= det;
  }
  return det;
}

/* x = sum_v X_v phi_v: the point of real space at a reference point (B[v] the coordinate basis values there) */
FEG_INLINE void FEGMapPoint(int dim, int Nv, const double *X, const double *B, double *x)
{
  for (int i = 0; i < dim; i++) x[i] = 0.0;
  for (int v = 0; v < Nv; v++)
    for (int i = 0; i < dim; i++) x[i] += X[v * dim + i] * B[v];
}

/* Chat = wdet T^T C T with T = diag(1, invJ^T): the coefficient seen by the reference value (0) and reference
   gradients (1..dim); C[i*4+j] couples trial derivative i and test derivative j */
FEG_INLINE void FEGChat(int dim, const double C[16], const double *invJ, double wdet, double Ch[4][4])
{
  const int Nd = dim + 1;
  double    T[4][4], CT[4][4];

  FEG_UNROLL
  for (int i = 0; i < 4; i++) {
    FEG_UNROLL
    for (int j = 0; j < 4; j++) T[i][j] = 0.0;
  }
  T[0][0] = 1.0;
  FEG_UNROLL
  for (int c = 0; c < 3; c++) {
    if (c >= dim) break;
    FEG_UNROLL
    for (int r = 0; r < 3; r++) {
      if (r >= dim) break;
      T[1 + c][1 + r] = invJ[r * dim + c];
    }
  }
  FEG_UNROLL
  for (int i = 0; i < 4; i++) {
    if (i >= Nd) break;
    FEG_UNROLL
    for (int s = 0; s < 4; s++) {
      if (s >= Nd) break;
      double v = 0.0;
      FEG_UNROLL
      for (int j = 0; j < 4; j++) {
        if (j >= Nd) break;
        v += C[i * 4 + j] * T[j][s];
      }
      CT[i][s] = v;
    }
  }
  FEG_UNROLL
  for (int r = 0; r < 4; r++) {
    if (r >= Nd) break;
    FEG_UNROLL
    for (int s = 0; s < 4; s++) {
      if (s >= Nd) break;
      double v = 0.0;
      FEG_UNROLL
      for (int i = 0; i < 4; i++) {
        if (i >= Nd) break;
        v += T[i][r] * CT[i][s];
      }
      Ch[r][s] = wdet * v;
    }
  }
}

/* X (Nd x Nd) split into symmetric and antisymmetric parts, one value per pair in one order for Chat and for the reference
   tensors: sym[k] over r <= t row by row (X_rr, or hs (X_rt + X_tr)), skew[k] over r < t row by row (hs (X_rt - X_tr)).
   With Chat split at hs = 1/2 and M^rt at hs = 1, sum_rt Chat_rt M^rt = sum_k sym_k S^k + sum_k skew_k A^k, where S^k is
   symmetric and A^k antisymmetric in the element matrix's (a, b); a symmetric C needs only the S^k, Nd(Nd+1)/2 of
   them, and each pair a < b gives K_ab = s + w and K_ba = s - w */
FEG_INLINE void FEGSplitPairs(int Nd, const double X[4][4], double hs, double sym[10], double skew[6])
{
  int ks = 0, kw = 0;

  FEG_UNROLL
  for (int r = 0; r < 4; r++) {
    if (r >= Nd) break;
    FEG_UNROLL
    for (int t = 0; t < 4; t++) {
      if (t >= Nd) break;
      if (t < r) continue;
      if (t == r) sym[ks++] = X[r][r];
      else {
        sym[ks++]  = hs * (X[r][t] + X[t][r]);
        skew[kw++] = hs * (X[r][t] - X[t][r]);
      }
    }
  }
}

/* whether C couples derivatives i and j differently from j and i (i, j <= dim): then element matrices need skew parts */
FEG_INLINE int FEGCoeffSkew(int dim, const double C[16])
{
  FEG_UNROLL
  for (int i = 1; i < 4; i++) {
    if (i > dim) break;
    FEG_UNROLL
    for (int j = 0; j < 3; j++) {
      if (j >= i) break;
      if (C[i * 4 + j] != C[j * 4 + i]) return 1;
    }
  }
  return 0;
}

/* phi[0] the value, phi[1..dim] the physical gradient of a basis function from its reference value B and reference
   gradient D[0..dim) */
FEG_INLINE void FEGPhysical(int dim, double B, const double *D, const double *invJ, double phi[4])
{
  phi[0] = B;
  FEG_UNROLL
  for (int c = 0; c < 3; c++) {
    if (c >= dim) break;
    double s = 0.0;
    FEG_UNROLL
    for (int r = 0; r < 3; r++) {
      if (r >= dim) break;
      s += D[r] * invJ[r * dim + c];
    }
    phi[1 + c] = s;
  }
}

/* cphi[j] = wdet sum_i C[i*4+j] phi[i]: a trial function's derivatives weighted by C, ready for the test functions */
FEG_INLINE void FEGWeighted(int Nd, const double C[16], const double phi[4], double wdet, double cphi[4])
{
  FEG_UNROLL
  for (int j = 0; j < 4; j++) {
    if (j >= Nd) break;
    double s = 0.0;
    FEG_UNROLL
    for (int i = 0; i < 4; i++) {
      if (i >= Nd) break;
      s += C[i * 4 + j] * phi[i];
    }
    cphi[j] = wdet * s;
  }
}

FEG_INLINE double FEGDot(int Nd, const double a[4], const double b[4])
{
  double s = 0.0;

  FEG_UNROLL
  for (int j = 0; j < 4; j++) {
    if (j >= Nd) break;
    s += a[j] * b[j];
  }
  return s;
}

/* -------------------------------------------------------------------------------------------------- coefficients */
/* the values W[0..nc) given at a quadrature point, mapped into C and D (D may be NULL) */
FEG_INLINE void FEGCoeffPointsAt(int nc, const double *W, const double *A, const double *B, double C[16], double *D)
{
  for (int k = 0; k < nc; k++) {
    const double wk = W[k];

    for (int ij = 0; ij < 16; ij++) C[ij] += A[ij * nc + k] * wk;
    if (D)
      for (int j = 0; j < 4; j++) D[j] += B[j * nc + k] * wk;
  }
}

/* At one quadrature point: the auxiliary field w_k = sum_b TA[b*Nw+k] a_b (TA its basis there, a_b = aux[aidx[b]], or
   aux[b] when aidx is NULL), stored in w unless w is NULL, and the linear coefficient map C_ij += sum_k A[ij*Nw+k] w_k,
   D_j += sum_k B[j*Nw+k] w_k (unless A is NULL; D may be NULL) */
FEG_INLINE void FEGCoeffLinearAt(int Nw, int NbA, const double *TA, const double *aux, const int *aidx, const double *A, const double *B, double C[16], double *D, double *w)
{
  for (int k = 0; k < Nw; k++) {
    double wk = 0.0;

    for (int b = 0; b < NbA; b++) wk += TA[b * Nw + k] * aux[aidx ? aidx[b] : b];
    if (w) w[k] = wk;
    if (A) {
      for (int ij = 0; ij < 16; ij++) C[ij] += A[ij * Nw + k] * wk;
      if (D)
        for (int j = 0; j < 4; j++) D[j] += B[j * Nw + k] * wk;
    }
  }
}

/* --------------------------------------------------------------------------------- matrix-free: stored Chat pairs */
/* Pair sets, from the form's structure: symmetric stiffness only, symmetric mass plus stiffness, any symmetric form,
   every (trial r, test s) pair, or the mass term alone */
typedef enum {
  FEG_MF_GG_SYM,
  FEG_MF_VVGG_SYM,
  FEG_MF_SYM,
  FEG_MF_FULL,
  FEG_MF_VV
} FEGMFKind;

#define FEG_MF_MAXPAIRS 16

/* whether pair (r, s) is stored for a kind; symmetric kinds store r <= s only */
FEG_INLINE int FEGMFKeep(int kind, int r, int s)
{
  switch (kind) {
  case FEG_MF_GG_SYM:
    return r >= 1 && s >= r;
  case FEG_MF_VVGG_SYM:
    return (r == 0 && s == 0) || (r >= 1 && s >= r);
  case FEG_MF_SYM:
    return s >= r;
  case FEG_MF_VV:
    return r == 0 && s == 0;
  default:
    return 1;
  }
}

/* stored (r, s) pairs of a kind, in storage order; returns how many */
FEG_INLINE int FEGMFPairs(int dim, int kind, int pr[], int ps[])
{
  int n = 0;

  for (int r = 0; r <= dim; r++)
    for (int s = 0; s <= dim; s++)
      if (FEGMFKeep(kind, r, s)) {
        pr[n] = r;
        ps[n] = s;
        n++;
      }
  return n;
}

/* index of the stored pair (r, s), 1 <= r, s <= dim, in the symmetric diffusion kinds (FEGMFPairs: the mass pair
   first if vv, then row by row); compile-time constant where dim, vv, r and s are */
FEG_INLINE int FEGMFSymPairIndex(int dim, int vv, int r, int s)
{
  const int lo = r < s ? r : s, hi = r < s ? s : r;

  return vv + (lo - 1) * dim - (lo - 1) * (lo - 2) / 2 + (hi - lo);
}

/* the smallest kind holding every nonzero of Chat: vv, vg, gv, gg say which blocks of C (value-value, value trial and
   gradient test, gradient trial and value test, gradient-gradient) can be nonzero */
FEG_INLINE int FEGMFKindOf(int sym, int vv, int vg, int gv, int gg)
{
  if (!sym) return FEG_MF_FULL;
  if (vg || gv) return FEG_MF_SYM;
  if (!gg) return FEG_MF_VV;
  return vv ? FEG_MF_VVGG_SYM : FEG_MF_GG_SYM;
}

/* The stored pairs c[0..np) at one point from the Jacobian there, J[i*dim+j] = d x_i / d xi_j, and the point's weight
   w: Chat = w det J T^T C T as FEGChat() makes it from the stored geometry, here through the adjugate (invJ = adj J /
   det J), for kernels that compute the geometry instead of reading it. The diffusion and mass kinds need only C's
   value-value entry and gradient block Cg: their gradient pairs are (w / det J) adj Cg adj^T, and with iso (Cg a
   multiple C[5] of the identity: BP3, BP5) (w C[5] / det J) adj adj^T. Returns det J (nothing is checked here: the
   assembly's geometry did) */
FEG_INLINE double FEGMFPairsFromJacobian(int dim, int kind, int iso, const double C[16], const double *J, double w, double *c)
{
  double A[9];
  int    m   = 0;
  double det = FEGAdjugate(dim, J, A);

  if (kind == FEG_MF_VV || kind == FEG_MF_GG_SYM || kind == FEG_MF_VVGG_SYM) {
    const double g = w / det;
    double       M[9];

    if (kind != FEG_MF_GG_SYM) c[m++] = w * det * C[0];
    if (kind == FEG_MF_VV) return det;
    /* M = adj Cg (or C[5] adj), then the pairs r <= s of g M adj^T */
    FEG_UNROLL
    for (int r = 0; r < 3; r++) {
      if (r >= dim) break;
      FEG_UNROLL
      for (int t = 0; t < 3; t++) {
        if (t >= dim) break;
        double x = 0.0;
        if (iso) x = C[5] * A[r * dim + t];
        else {
          FEG_UNROLL
          for (int k = 0; k < 3; k++) {
            if (k >= dim) break;
            x += A[r * dim + k] * C[(1 + k) * 4 + 1 + t];
          }
        }
        M[r * dim + t] = x;
      }
    }
    FEG_UNROLL
    for (int r = 0; r < 3; r++) {
      if (r >= dim) break;
      FEG_UNROLL
      for (int s = 0; s < 3; s++) {
        if (s >= dim) break;
        if (s < r) continue;
        double t = 0.0;
        FEG_UNROLL
        for (int k = 0; k < 3; k++) {
          if (k >= dim) break;
          t += M[r * dim + k] * A[s * dim + k];
        }
        c[m++] = g * t;
      }
    }
  } else {
    double Ch[4][4];

    FEG_UNROLL
    for (int k = 0; k < 9; k++) {
      if (k >= dim * dim) break;
      A[k] /= det;
    }
    FEGChat(dim, C, A, w * det, Ch);
    FEG_UNROLL
    for (int r = 0; r < 4; r++) {
      if (r > dim) break;
      FEG_UNROLL
      for (int s = 0; s < 4; s++) {
        if (s > dim) break;
        if (FEGMFKeep(kind, r, s)) c[m++] = Ch[r][s];
      }
    }
  }
  return det;
}

/* J[i*dim+j] = d x_i / d xi_j at the lexicographic point a[] of a tensor rule, from coordinate nodes that are the tensor
   product of G 1D nodes: X[lexg[g]*dim+i] the coordinates of lexicographic node g, gB and gD (Q x G, row i the point's)
   the 1D basis values and derivatives at the rule's 1D points */
FEG_INLINE void FEGTensorJacobian(int dim, int G, const double *X, const int *lexg, const double *gB, const double *gD, const int a[3], double *J)
{
  FEG_UNROLL
  for (int k = 0; k < 9; k++) J[k] = 0.0;
  for (int g = 0; g < (dim == 3 ? G * G * G : G * G); g++) {
    const int p[3] = {g % G, (g / G) % G, g / (G * G)};
    double    d[3];

    FEG_UNROLL
    for (int j = 0; j < 3; j++) {
      if (j >= dim) break;
      d[j] = 1.0;
      FEG_UNROLL
      for (int k = 0; k < 3; k++) {
        if (k >= dim) break;
        d[j] *= (k == j ? gD : gB)[a[k] * G + p[k]];
      }
    }
    FEG_UNROLL
    for (int i = 0; i < 3; i++) {
      if (i >= dim) break;
      const double x = X[lexg[g] * dim + i];
      FEG_UNROLL
      for (int j = 0; j < 3; j++) {
        if (j >= dim) break;
        J[i * dim + j] += x * d[j];
      }
    }
  }
}

/* v (+)= Chat^(T) u at one point from the stored pairs c[m*stride], in the order of FEGMFPairs() */
FEG_INLINE void FEGMFPointApply(int dim, int kind, const double *c, size_t stride, const double u[4], double v[4], int transpose)
{
  int m = 0;

  FEG_UNROLL
  for (int r = 0; r < 4; r++) {
    if (r > dim) break;
    FEG_UNROLL
    for (int s = 0; s < 4; s++) {
      if (s > dim) break;
      if (FEGMFKeep(kind, r, s)) {
        const double cm = c[(size_t)m * stride];

        m++;
        if (kind != FEG_MF_FULL) {
          v[s] += cm * u[r];
          if (r != s) v[r] += cm * u[s];
        } else if (transpose) v[r] += cm * u[s];
        else v[s] += cm * u[r];
      }
    }
  }
}

/* v += Chat u at one point from the Jacobian there, as FEGMFPairsFromJacobian() then FEGMFPointApply() but, for the mass
   and diffusion kinds, without forming the pairs: v_0 = w det J C00 u_0 and the gradients (w / det J) adj (Cg (adj^T
   u)), three small products (Cg = C[5] I with iso) that keep fewer values live in a kernel's registers */
FEG_INLINE void FEGMFGeoPointApply(int dim, int kind, int iso, const double C[16], const double *J, double w, const double u[4], double v[4], int transpose)
{
  if (kind == FEG_MF_VV || kind == FEG_MF_GG_SYM || kind == FEG_MF_VVGG_SYM) {
    double       A[9], t[3], t2[3];
    const double det = FEGAdjugate(dim, J, A), wd = w * FEG_RCP(det);

    if (kind != FEG_MF_GG_SYM) v[0] += w * det * C[0] * u[0];
    if (kind == FEG_MF_VV) return;
    FEG_UNROLL
    for (int c = 0; c < 3; c++) {
      if (c >= dim) break;
      double x = 0.0;
      FEG_UNROLL
      for (int r = 0; r < 3; r++) {
        if (r >= dim) break;
        x += A[r * dim + c] * u[1 + r];
      }
      t[c] = x;
    }
    FEG_UNROLL
    for (int c = 0; c < 3; c++) {
      if (c >= dim) break;
      double x = 0.0;
      if (iso) x = C[5] * t[c];
      else {
        FEG_UNROLL
        for (int k = 0; k < 3; k++) {
          if (k >= dim) break;
          x += C[(1 + k) * 4 + 1 + c] * t[k];
        }
      }
      t2[c] = x * wd;
    }
    FEG_UNROLL
    for (int s = 0; s < 3; s++) {
      if (s >= dim) break;
      double x = 0.0;
      FEG_UNROLL
      for (int c = 0; c < 3; c++) {
        if (c >= dim) break;
        x += A[s * dim + c] * t2[c];
      }
      v[1 + s] += x;
    }
  } else {
    double c[FEG_MF_MAXPAIRS];

    (void)FEGMFPairsFromJacobian(dim, kind, iso, C, J, w, c);
    FEGMFPointApply(dim, kind, c, 1, u, v, transpose);
  }
}

/* ------------------------------------------------------------------------------- matrix-free: quadrature points */
/* the full tensor ch[(r*Nd+s)*stride] at one point: v = Chat^(T) u */
FEG_INLINE void FEGQPPointApply(int Nd, const double *ch, size_t stride, const double u[4], double v[4], int transpose)
{
  FEG_UNROLL
  for (int s = 0; s < 4; s++) {
    if (s >= Nd) break;
    double t = 0.0;
    FEG_UNROLL
    for (int r = 0; r < 4; r++) {
      if (r >= Nd) break;
      t += (transpose ? ch[(size_t)(s * Nd + r) * stride] : ch[(size_t)(r * Nd + s) * stride]) * u[r];
    }
    v[s] = t;
  }
}

/* sum_rs Chat_rs R_r R_s: one quadrature point's part of a diagonal entry, R the reference derivatives of the basis
   function (R[r*ldr]) */
FEG_INLINE double FEGQPPointDiag(int Nd, const double *ch, size_t stride, const double *R, int ldr)
{
  double s = 0.0;

  FEG_UNROLL
  for (int r = 0; r < 4; r++) {
    if (r >= Nd) break;
    FEG_UNROLL
    for (int t = 0; t < 4; t++) {
      if (t >= Nd) break;
      s += ch[(size_t)(r * Nd + t) * stride] * R[r * ldr] * R[t * ldr];
    }
  }
  return s;
}

/* u[r] = sum_b R[r + b*KK] x_b: reference value and gradients of an element's function at one point, from the
   column-major reference table R (KK = Nq (dim+1) rows, R pointing at the point's first row) */
FEG_INLINE void FEGInterpolateRef(int Nd, int Nb, const double *R, size_t KK, const double *xe, double u[4])
{
  FEG_UNROLL
  for (int r = 0; r < 4; r++) u[r] = 0.0;
  for (int b = 0; b < Nb; b++) {
    FEG_UNROLL
    for (int r = 0; r < 4; r++) {
      if (r >= Nd) break;
      u[r] += R[r + (size_t)b * KK] * xe[b];
    }
  }
}

/* ye_a += sum_s R[s + a*KK] v_s: the transpose of FEGInterpolateRef */
FEG_INLINE void FEGIntegrateRef(int Nd, int Nb, const double *R, size_t KK, const double v[4], double *ye)
{
  for (int a = 0; a < Nb; a++) {
    FEG_UNROLL
    for (int s = 0; s < 4; s++) {
      if (s >= Nd) break;
      ye[a] += R[s + (size_t)a * KK] * v[s];
    }
  }
}

/* ---------------------------------------------------------------------------------------- matrix-free: refop */
/* diagonal entry a of sum_m G_m Op_m (Op_m[(m*Nb+a)*ld+a]) */
FEG_INLINE double FEGRefOpDiagEntry(int nops, const double *G, const double *Op, int Nb, int ld, int a)
{
  double v = 0.0;

  for (int m = 0; m < nops; m++) v += G[m] * Op[((size_t)m * Nb + a) * ld + a];
  return v;
}

/* -------------------------------------------------------------------------------------- matrix-free: sumfact */
/* One output of a stage of sum factorisation, out[(i0*NO+i)*inner+i1] (+)= sum_a M[i*NA+a] in[(i0*NA+a)*inner+i1]:
   the host sweeps i0, i, i1 of an element in loops, the device's threads the outputs rr of several elements
   (FEGContractEntry()) */
FEG_INLINE double FEGContractAt(const double *in, const double *M, int NA, int inner, int i0, int i, int i1, double s)
{
  const double *ip = in + i0 * NA * inner + i1, *mp = M + i * NA;

  FEG_UNROLL
  for (int a = 0; a < NA; a++) s += mp[a] * ip[a * inner];
  return s;
}

/* the same for output rr = (i0*NO+i)*inner+i1 */
FEG_INLINE double FEGContractEntry(const double *in, const double *M, int NA, int NO, int inner, int rr, double s)
{
  return FEGContractAt(in, M, NA, inner, rr / (inner * NO), (rr / inner) % NO, rr % inner, s);
}

/* diagonal entry of lexicographic node l: the stored pairs c[m*stride + lq] at each lexicographic Gauss point lq
   times the products of the 1D basis values B1 and derivatives D1 (Q x P). With the 1D weights W1 the pairs are one
   per element, c[m], the value at point lq being its weight times c[m] (affine cells, C constant in each) */
FEG_INLINE double FEGSumFactDiagEntry(int dim, int kind, int P, int Q, const double *B1, const double *D1, const double *W1, const double *c, size_t stride, int l)
{
  const int a[3] = {l % P, (l / P) % P, l / (P * P)}, NQ = dim == 3 ? Q * Q * Q : Q * Q;
  int       pr[FEG_MF_MAXPAIRS], ps[FEG_MF_MAXPAIRS];
  const int np = W1 ? FEGMFPairs(dim, kind, pr, ps) : 0;
  double    s  = 0.0;

  for (int lq = 0; lq < NQ; lq++) {
    const int     i[3] = {lq % Q, (lq / Q) % Q, lq / (Q * Q)};
    double        R[4], v[4] = {0, 0, 0, 0}, cw[FEG_MF_MAXPAIRS];
    const double *cp = c + lq;
    size_t        st = stride;

    if (W1) {
      const double w = W1[i[0]] * W1[i[1]] * (dim == 3 ? W1[i[2]] : 1.0);

      for (int m = 0; m < np; m++) cw[m] = w * c[m];
      cp = cw;
      st = 1;
    }
    R[0] = 1.0;
    FEG_UNROLL
    for (int k = 0; k < 3; k++) {
      if (k >= dim) break;
      R[0] *= B1[i[k] * P + a[k]];
    }
    FEG_UNROLL
    for (int r = 1; r < 4; r++) {
      if (r > dim) break;
      R[r] = 1.0;
      FEG_UNROLL
      for (int k = 0; k < 3; k++) {
        if (k >= dim) break;
        R[r] *= (k == r - 1 ? D1 : B1)[i[k] * P + a[k]];
      }
    }
    FEGMFPointApply(dim, kind, cp, st, R, v, 0);
    FEG_UNROLL
    for (int r = 0; r < 4; r++) {
      if (r > dim) break;
      s += R[r] * v[r];
    }
  }
  return s;
}
