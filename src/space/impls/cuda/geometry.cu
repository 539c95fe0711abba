/* Kernel 1 of Krużel et al.'s Algorithm 2: the Jacobian data of every element, one element per thread, at one point
   for affine cells and at every quadrature point otherwise; the arithmetic is FEGGeometryAt(), as on the host */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegcuda.h>

template <int DIM>
static __global__ void FEGGeometry_Kernel(int Ne, int Nv, int nG, const double *__restrict__ X, const double *__restrict__ G, double *__restrict__ geo, int *__restrict__ bad)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  for (int g = 0; g < nG; g++) {
    double      *out = geo + ((size_t)e * nG + g) * (DIM * DIM + 1), iJ[DIM * DIM];
    const double det = FEGGeometryAt(DIM, Nv, X + (size_t)e * Nv * DIM, G + (size_t)g * Nv * DIM, iJ);

    /* in registers first: stored straight from FEGGeometryAt the kernel ran 45% slower (ncu, H100) */
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
