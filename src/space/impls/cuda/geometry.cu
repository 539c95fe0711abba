/* Kernel 1 of Krużel et al.'s Algorithm 2: the Jacobian data of every element, one element per thread, at one point
   for affine cells and at every quadrature point otherwise */
#include <petscdevice_cuda.h>
#include <fegpu/private/fegcuda.h>

template <int DIM>
static __global__ void FEGGeometry_Kernel(int Ne, int Nv, int nG, const double *__restrict__ X, const double *__restrict__ G, double *__restrict__ geo)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= Ne) return;
  for (int g = 0; g < nG; g++) {
    double J[DIM * DIM] = {0}, iJ[DIM * DIM], det;

    for (int v = 0; v < Nv; v++)
      for (int i = 0; i < DIM; i++) {
        const double x = X[((size_t)e * Nv + v) * DIM + i];
        for (int j = 0; j < DIM; j++) J[i * DIM + j] += x * G[(g * Nv + v) * DIM + j];
      }
    if (DIM == 2) {
      det   = J[0] * J[3] - J[1] * J[2];
      iJ[0] = J[3] / det;
      iJ[1] = -J[1] / det;
      iJ[2] = -J[2] / det;
      iJ[3] = J[0] / det;
    } else {
      det   = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
      iJ[0] = (J[4] * J[8] - J[5] * J[7]) / det;
      iJ[1] = (J[2] * J[7] - J[1] * J[8]) / det;
      iJ[2] = (J[1] * J[5] - J[2] * J[4]) / det;
      iJ[3] = (J[5] * J[6] - J[3] * J[8]) / det;
      iJ[4] = (J[0] * J[8] - J[2] * J[6]) / det;
      iJ[5] = (J[2] * J[3] - J[0] * J[5]) / det;
      iJ[6] = (J[3] * J[7] - J[4] * J[6]) / det;
      iJ[7] = (J[1] * J[6] - J[0] * J[7]) / det;
      iJ[8] = (J[0] * J[4] - J[1] * J[3]) / det;
    }
    double *out = geo + ((size_t)e * nG + g) * (DIM * DIM + 1);
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
