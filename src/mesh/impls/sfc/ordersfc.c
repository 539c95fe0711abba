/* Cell ordering along a Hilbert curve through the cell centroids (mean of the vertices), in the bounding box of the
   process's cells: neighbouring cells get neighbouring numbers without any graph */
#include <fegpu/private/fegmeshimpl.h>

/* The Hilbert index of the point X (n coordinates of b bits) by Skilling's transpose method (AIP Conf. Proc. 707,
   2004), bits interleaved into a double (exact while n*b <= 53) */
static PetscReal FEGHilbertKey(PetscInt n, PetscInt b, unsigned X[])
{
  const unsigned M   = 1u << (b - 1);
  unsigned       t   = 0;
  PetscReal      key = 0.0;

  for (unsigned Q = M; Q > 1; Q >>= 1) {
    const unsigned P = Q - 1;

    for (PetscInt i = 0; i < n; i++) {
      if (X[i] & Q) X[0] ^= P;
      else {
        const unsigned s = (X[0] ^ X[i]) & P;

        X[0] ^= s;
        X[i] ^= s;
      }
    }
  }
  for (PetscInt i = 1; i < n; i++) X[i] ^= X[i - 1];
  for (unsigned Q = M; Q > 1; Q >>= 1)
    if (X[n - 1] & Q) t ^= Q - 1;
  for (PetscInt i = 0; i < n; i++) X[i] ^= t;
  for (PetscInt j = b - 1; j >= 0; j--)
    for (PetscInt i = 0; i < n; i++) key = 2.0 * key + (PetscReal)((X[i] >> j) & 1u);
  return key;
}

PetscErrorCode FEGMeshOrderCells_SFC(DM dm, PetscInt nc, PetscInt perm[])
{
  PetscInt           cStart, cEnd, vStart, vEnd, cdim, b;
  PetscReal         *cent, *key, lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL};
  PetscSection       cs;
  Vec                coords;
  const PetscScalar *x;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCheck(cdim >= 1 && cdim <= 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "Coordinate dimension %" PetscInt_FMT " is not supported: use 1, 2 or 3", cdim);
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  PetscCall(VecGetArrayRead(coords, &x));
  PetscCall(PetscMalloc2(nc * cdim, &cent, nc, &key));
  for (PetscInt c = 0; c < nc; c++) {
    PetscInt *cl = NULL, ncl, nv = 0;

    for (PetscInt d = 0; d < cdim; d++) cent[c * cdim + d] = 0.0;
    PetscCall(DMPlexGetTransitiveClosure(dm, cStart + c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt k = 0; k < ncl; k++) {
      const PetscInt q = cl[2 * k];
      PetscInt       off;

      if (q < vStart || q >= vEnd) continue;
      PetscCall(PetscSectionGetOffset(cs, q, &off));
      for (PetscInt d = 0; d < cdim; d++) cent[c * cdim + d] += PetscRealPart(x[off + d]);
      nv++;
    }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, cStart + c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt d = 0; d < cdim; d++) {
      cent[c * cdim + d] /= PetscMax(nv, 1);
      lo[d] = PetscMin(lo[d], cent[c * cdim + d]);
      hi[d] = PetscMax(hi[d], cent[c * cdim + d]);
    }
  }
  PetscCall(VecRestoreArrayRead(coords, &x));
  b = 53 / cdim < 31 ? 53 / cdim : 31; /* bits per coordinate */
  for (PetscInt c = 0; c < nc; c++) {
    unsigned X[3] = {0, 0, 0};

    for (PetscInt d = 0; d < cdim; d++) {
      const PetscReal w = hi[d] > lo[d] ? (cent[c * cdim + d] - lo[d]) / (hi[d] - lo[d]) : 0.0;

      X[d] = (unsigned)PetscMin(w * (PetscReal)(1u << b), (PetscReal)((1u << b) - 1));
    }
    key[c]  = FEGHilbertKey(cdim, b, X);
    perm[c] = c;
  }
  PetscCall(PetscSortRealWithPermutation(nc, key, perm));
  PetscCall(PetscFree2(cent, key));
  PetscFunctionReturn(PETSC_SUCCESS);
}
