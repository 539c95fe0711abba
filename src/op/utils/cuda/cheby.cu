/* Kernels of the Chebyshev steps with Jacobi on a CSR matrix (chebyshev.c, chebycuda.c): each step one pass over the
   rows, the product with the direction, the residual, the iterate and the next direction together */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegcuda.h>

/* r = b, d0 = D^{-1} b / theta, x = 0 */
static __global__ void FEGChebyInit_Kernel(int n, const double *__restrict__ b, const double *__restrict__ dinv, double stheta, double *__restrict__ r, double *__restrict__ d0, double *__restrict__ x)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= n) return;
  r[i]  = b[i];
  d0[i] = stheta * dinv[i] * b[i];
  x[i]  = 0.0;
}

/* row i, LANES threads: x += d, r -= (A d)_i, dn = c1 d + c2 D^{-1} r; last: x += d only */
template <int LANES>
static __global__ void FEGChebyStep_Kernel(int n, const int *__restrict__ ia, const int *__restrict__ ja, const double *__restrict__ a, const double *__restrict__ dinv, const double *__restrict__ d, double *__restrict__ dn, double *__restrict__ r, double *__restrict__ x, double c1, double c2, int last)
{
  const int t = blockIdx.x * blockDim.x + threadIdx.x, i = t / LANES, lane = t % LANES;
  double    s = 0.0;

  if (i >= n) return; /* a row's lanes are consecutive threads of one warp: they leave together */
  if (last) {
    if (lane == 0) x[i] += d[i];
    return;
  }
  for (int p = ia[i] + lane; p < ia[i + 1]; p += LANES) s += a[p] * d[ja[p]];
  if (LANES > 1) {
    const unsigned mask = LANES == 32 ? 0xffffffffu : ((1u << LANES) - 1u) << (threadIdx.x % 32 / LANES * LANES);

    for (int o = LANES / 2; o > 0; o /= 2) s += __shfl_down_sync(mask, s, o, LANES);
  }
  if (lane == 0) {
    const double ri = r[i] - s;

    x[i] += d[i];
    r[i]  = ri;
    dn[i] = c1 * d[i] + c2 * dinv[i] * ri;
  }
}

template <int LANES>
static PetscErrorCode FEGChebyStep(const FEGDevCheby *c, const double *d, double *dn, double *x, double c1, double c2, int last)
{
  const int    nt       = 256;
  const size_t nthreads = (size_t)c->n * LANES;

  PetscFunctionBegin;
  FEGChebyStep_Kernel<LANES><<<(unsigned)((nthreads + nt - 1) / nt), nt>>>(c->n, c->ia, c->ja, c->a, c->dinv, d, dn, c->r, x, c1, c2, last);
  FEGCheckLaunch("FEGChebyStep_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = S b: its steps; c1[k], c2[k] the coefficients of step k (host arrays) */
PetscErrorCode FEGDevChebyApply(const FEGDevCheby *c, const double *b, double *x, int its, double theta, const double *c1, const double *c2)
{
  const int nt = 256;

  PetscFunctionBegin;
  if (!c->n) PetscFunctionReturn(PETSC_SUCCESS);
  FEGChebyInit_Kernel<<<(c->n + nt - 1) / nt, nt>>>(c->n, b, c->dinv, 1.0 / theta, c->r, c->d0, x);
  FEGCheckLaunch("FEGChebyInit_Kernel");
  for (int k = 0; k < its; k++) {
    const double *d    = k % 2 ? c->d1 : c->d0;
    double       *dn   = k % 2 ? c->d0 : c->d1;
    const int     last = k == its - 1;
    const double  a1 = last ? 0.0 : c1[k], a2 = last ? 0.0 : c2[k];

    switch (c->lanes) {
    case 1:
      PetscCall(FEGChebyStep<1>(c, d, dn, x, a1, a2, last));
      break;
    case 2:
      PetscCall(FEGChebyStep<2>(c, d, dn, x, a1, a2, last));
      break;
    case 4:
      PetscCall(FEGChebyStep<4>(c, d, dn, x, a1, a2, last));
      break;
    case 8:
      PetscCall(FEGChebyStep<8>(c, d, dn, x, a1, a2, last));
      break;
    case 16:
      PetscCall(FEGChebyStep<16>(c, d, dn, x, a1, a2, last));
      break;
    default:
      PetscCall(FEGChebyStep<32>(c, d, dn, x, a1, a2, last));
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
