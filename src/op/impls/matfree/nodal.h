/* P2 Lagrange on PETSc's reference triangle and tetrahedron (vertices (-1, ..., -1) and -1 + 2 e_d), for the GPU refop
   kernel that takes these tables as compile-time constants (refop.cu) and for the host check that they are the
   operators of the space in use (FEGMatFreeNodalP2(), matfree.c). Canonical order: the dim + 1 vertex functions
   lambda_v (2 lambda_v - 1), then the edge functions 4 lambda_i lambda_j of (0,1), (0,2), ..., (dim-1,dim).
   The derivatives of P2 functions are P1, so the diffusion operators factor exactly through P1's nodal values:
   int d_r phi_a d_s phi_b = sum_(v,w) D_r[v][a] M1[v][w] D_s[w][b], D_s[w][c] = d_s phi_c at vertex w (most entries
   0 or +-1/2, +-3/2, +-2) and M1 the P1 mass matrix, M1 z = m1 (z + sum z). Compile-time arguments fold every call. */
#pragma once

#include <fegpu/private/fegpoint.h>

/* dofs of P2 in dim dimensions */
FEG_INLINE int FEGP2Dofs(int dim)
{
  return (dim + 1) * (dim + 2) / 2;
}

/* the vertices of canonical edge e, i < j */
FEG_INLINE void FEGP2Edge(int dim, int e, int *i, int *j)
{
  if (e < dim) {
    *i = 0;
    *j = e + 1;
  } else if (e < 2 * dim - 1) {
    *i = 1;
    *j = e - dim + 2;
  } else {
    *i = 2;
    *j = 3;
  }
}

/* d lambda_i / d xi_s on the reference simplex: lambda_i = (xi_(i-1) + 1) / 2, lambda_0 = 1 - the others */
FEG_INLINE double FEGP1RefGrad(int i, int s)
{
  return i == 0 ? -0.5 : (i - 1 == s ? 0.5 : 0.0);
}

/* D_s[w][c]: the derivative along xi_s of canonical P2 function c at vertex w */
FEG_INLINE double FEGP2NodalD(int dim, int s, int w, int c)
{
  int i, j;

  if (c <= dim) return (w == c ? 3.0 : -1.0) * FEGP1RefGrad(c, s);
  FEGP2Edge(dim, c - dim - 1, &i, &j);
  return 4.0 * ((w == j ? FEGP1RefGrad(i, s) : 0.0) + (w == i ? FEGP1RefGrad(j, s) : 0.0));
}

/* m1: the P1 mass matrix on the reference simplex is m1 (1 + delta_vw), m1 = |ref| / ((dim + 1)(dim + 2)) */
FEG_INLINE double FEGP1RefMassScale(int dim)
{
  return dim == 2 ? 2.0 / 12.0 : (4.0 / 3.0) / 20.0;
}

/* the P2 mass matrix on the reference simplex is FEGP2RefMassScale(dim) times these integers (|ref| / 180 for the
   triangle, |ref| / 420 for the tetrahedron) */
FEG_INLINE double FEGP2RefMassScale(int dim)
{
  return dim == 2 ? 2.0 / 180.0 : (4.0 / 3.0) / 420.0;
}

FEG_INLINE double FEGP2RefMassInt(int dim, int a, int b)
{
  int i, j, k, l;

  if (a > b) { /* symmetric: a <= b below */
    const int t = a;
    a           = b;
    b           = t;
  }
  if (b <= dim) return a == b ? 6.0 : (dim == 2 ? -1.0 : 1.0); /* two vertices */
  FEGP2Edge(dim, b - dim - 1, &k, &l);
  if (a <= dim) return (a == k || a == l) ? (dim == 2 ? 0.0 : -4.0) : (dim == 2 ? -4.0 : -6.0); /* vertex, edge */
  if (a == b) return 32.0;
  FEGP2Edge(dim, a - dim - 1, &i, &j);
  return (i == k || i == l || j == k || j == l) ? 16.0 : 8.0; /* two edges: sharing a vertex or opposite */
}
