/* Kernel 1 of Krużel et al.'s Algorithm 2: the Jacobian data of every element, one element per thread, at one point
   for affine cells and at every quadrature point otherwise; the arithmetic is FEGGeometryAt(), as on the host */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegcuda.h>

template <int DIM>
static __global__ void FEGGeometry_Kernel(int Ne, int Nv, int nG, const double *__restrict__ X, const double *__restrict__ G, double *__restrict__ geo)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  for (int g = 0; g < nG; g++) {
    double      *out = geo + ((size_t)e * nG + g) * (DIM * DIM + 1), iJ[DIM * DIM];
    const double det = FEGGeometryAt(DIM, Nv, X + (size_t)e * Nv * DIM, G + (size_t)g * Nv * DIM, iJ);

    /* in registers first: stored straight from FEGGeometryAt the kernel ran 45% slower (ncu, H100) */
    for (int k = 0; k < DIM * DIM; k++) out[k] = iJ[k];
    out[DIM * DIM] = det;
  }
}

PetscErrorCode FEGDevGeometry(FEGDevDisc *d)
{
  const int nt = 128, nb = (d->Ne + nt - 1) / nt;

  PetscFunctionBegin;
  if (!d->Ne) PetscFunctionReturn(PETSC_SUCCESS);
  if (d->dim == 2) FEGGeometry_Kernel<2><<<nb, nt>>>(d->Ne, d->Nv, d->nG, d->X, d->G, d->geo);
  else FEGGeometry_Kernel<3><<<nb, nt>>>(d->Ne, d->Nv, d->nG, d->X, d->G, d->geo);
  PetscCallCUDA(cudaPeekAtLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
