/* Kernel 1 of Krużel et al.'s Algorithm 2: the Jacobian data of every element, one element per thread, at one point
   for affine cells and at every quadrature point otherwise; the arithmetic is FEGGeometryAt(), as on the host */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegspacecuda.h>

template <int DIM>
static __global__ void FEGGeometry_Kernel(int Ne, int Nv, int nG, const double *__restrict__ X, const double *__restrict__ G, double *__restrict__ geo, int *__restrict__ bad)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  for (int g = 0; g < nG; g++) {
    double      *out = geo + ((size_t)e * nG + g) * (DIM * DIM + 1), iJ[DIM * DIM];
    const double det = FEGGeometryAt(DIM, Nv, X + (size_t)e * Nv * DIM, G + (size_t)g * Nv * DIM, iJ);

    /* in registers first: stored straight from FEGGeometryAt the kernel was slower */
    for (int k = 0; k < DIM * DIM; k++) out[k] = iJ[k];
    out[DIM * DIM] = det;
    if (!(det > 0.0)) atomicMin(bad, e); /* inverted, degenerate or NaN: the first such cell is reported */
  }
}

/* bad: out, the first element with det J <= 0 at a geometry point, Ne if none; work: one device int */
PetscErrorCode FEGDevGeometry(FEGDevDisc *d, int *work, int *bad)
{
  const int nt = 128, nb = (d->Ne + nt - 1) / nt;

  PetscFunctionBegin;
  *bad = d->Ne;
  if (!d->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaMemcpy(work, bad, sizeof(int), cudaMemcpyHostToDevice));
  if (d->dim == 2) FEGGeometry_Kernel<2><<<nb, nt>>>(d->Ne, d->Nv, d->nG, d->X, d->G, d->geo, work);
  else FEGGeometry_Kernel<3><<<nb, nt>>>(d->Ne, d->Nv, d->nG, d->X, d->G, d->geo, work);
  FEGCheckLaunch("FEGGeometry_Kernel");
  PetscCallCUDA(cudaMemcpy(bad, work, sizeof(int), cudaMemcpyDeviceToHost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the real-space point of every (element, quadrature point), one per thread: FEGMapPoint() as on the host */
template <int DIM>
static __global__ void FEGMapPoints_Kernel(int Ne, int Nq, int Nv, const double *__restrict__ X, const double *__restrict__ Bc, double *__restrict__ xq)
{
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  double       x[DIM];

  if (i >= (size_t)Ne * Nq) return;
  FEGMapPoint(DIM, Nv, X + (i / Nq) * Nv * DIM, Bc + (i % Nq) * Nv, x);
  for (int d = 0; d < DIM; d++) xq[i * DIM + d] = x[d];
}

/* xq[(e*Nq+q)*dim+d] from the coordinate nodes X[(e*Nv+v)*dim+d] and the coordinate basis Bc[q*Nv+v] (device arrays) */
PetscErrorCode FEGDevMapPoints(int dim, int Ne, int Nq, int Nv, const double *X, const double *Bc, double *xq)
{
  const int    nt = 256;
  const size_t n  = (size_t)Ne * Nq;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  if (dim == 2) FEGMapPoints_Kernel<2><<<(unsigned)((n + nt - 1) / nt), nt>>>(Ne, Nq, Nv, X, Bc, xq);
  else if (dim == 3) FEGMapPoints_Kernel<3><<<(unsigned)((n + nt - 1) / nt), nt>>>(Ne, Nq, Nv, X, Bc, xq);
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Quadrature points on the GPU for dimension %d: only 2 and 3", dim);
  FEGCheckLaunch("FEGMapPoints_Kernel");
  PetscFunctionReturn(PETSC_SUCCESS);
}
