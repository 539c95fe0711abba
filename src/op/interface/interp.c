/* The transfer between two orders of a polynomial hierarchy on one mesh, as PCMG's interpolation: a MATSHELL that
   applies prolongation (and its transpose, restriction) element by element without assembling it, on the host or,
   with CUDA vectors, on the GPU (FEGInterpApplyDevice) */
#include <fegpu/private/fegopimpl.h>

PetscErrorCode (*FEGInterpApplyDevice)(FEGInterp *, Vec, Vec, PetscBool) = NULL;

static PetscErrorCode FEGInterpDestroy_Private(Mat P)
{
  FEGInterp *ip;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ip));
  if (ip->devdestroy) PetscCall((*ip->devdestroy)(&ip->dev));
  PetscCall(PetscFree(ip->Pe));
  PetscCall(PetscFree(ip->fidx));
  PetscCall(PetscFree(ip->cidx));
  PetscCall(PetscFree(ip->w));
  PetscCall(PetscFree(ip->work));
  PetscCall(VecDestroy(&ip->fl));
  PetscCall(VecDestroy(&ip->cl));
  PetscCall(PetscContainerDestroy(&ip->cf));
  PetscCall(PetscContainerDestroy(&ip->cc));
  PetscCall(DMDestroy(&ip->dmf));
  PetscCall(DMDestroy(&ip->dmc));
  PetscCall(PetscFree(ip));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = P x or y = P^T x on the arrays fidx and cidx index, on the host */
static PetscErrorCode FEGInterpApplyHost(FEGInterp *ip, Vec x, Vec y, PetscBool transpose)
{
  const PetscInt     Nbf = ip->Nbf, Nbc = ip->Nbc;
  const PetscReal   *Pe = ip->Pe;
  const PetscScalar *xa;
  PetscScalar       *ya, *t = ip->work;
  PetscInt           ny;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  PetscCall(VecGetLocalSize(y, &ny));
  if (transpose) PetscCall(PetscArrayzero(ya, ny));
  for (PetscInt e = 0; e < ip->Ne; e++) {
    const PetscInt *fi = ip->fidx + e * Nbf, *ci = ip->cidx + e * Nbc;

    if (!transpose) {
      for (PetscInt b = 0; b < Nbc; b++) t[b] = ci[b] >= 0 ? xa[ci[b]] : 0.0;
      for (PetscInt a = 0; a < Nbf; a++) {
        PetscScalar s = 0.0;

        if (fi[a] < 0) continue;
        for (PetscInt b = 0; b < Nbc; b++) s += Pe[a * Nbc + b] * t[b];
        ya[fi[a]] = s; /* every cell holding the node computes the same value */
      }
    } else {
      for (PetscInt a = 0; a < Nbf; a++) t[a] = fi[a] >= 0 ? ip->w[fi[a]] * xa[fi[a]] : 0.0;
      for (PetscInt b = 0; b < Nbc; b++) {
        PetscScalar s = 0.0;

        if (ci[b] < 0) continue;
        for (PetscInt a = 0; a < Nbf; a++) s += Pe[a * Nbc + b] * t[a];
        ya[ci[b]] += s;
      }
    }
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGInterpApply_Private(Mat P, Vec x, Vec y, PetscBool transpose)
{
  FEGInterp *ip;
  Vec        xin = x, yout = y;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &ip));
  if (ip->local) {
    xin  = transpose ? ip->fl : ip->cl;
    yout = transpose ? ip->cl : ip->fl;
    PetscCall(DMGlobalToLocal(transpose ? ip->dmf : ip->dmc, x, INSERT_VALUES, xin));
  }
  if (ip->ondevice) PetscCall((*FEGInterpApplyDevice)(ip, xin, yout, transpose));
  else {
    PetscCall(FEGInterpApplyHost(ip, xin, yout, transpose));
    PetscCall(PetscLogFlops(ip->flops));
  }
  if (ip->local) {
    if (transpose) {
      PetscCall(VecZeroEntries(y));
      PetscCall(DMLocalToGlobal(ip->dmc, ip->cl, ADD_VALUES, y));
    } else PetscCall(DMLocalToGlobal(ip->dmf, ip->fl, INSERT_VALUES, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGInterpMult_Private(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(FEGInterpApply_Private(P, x, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGInterpMultTranspose_Private(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(FEGInterpApply_Private(P, x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pe[a*Nbc+b]: coarse basis function b at the node of fine basis function a (the fine element's functionals are point
   evaluations: Lagrange) */
static PetscErrorCode FEGInterpTable(PetscFE fef, PetscFE fec, PetscInt dim, PetscReal **Pe)
{
  PetscDualSpace  Q;
  PetscInt        Nbf, Nbc;
  PetscReal      *pts;
  PetscTabulation T;

  PetscFunctionBegin;
  PetscCall(PetscFEGetDualSpace(fef, &Q));
  PetscCall(PetscDualSpaceGetDimension(Q, &Nbf));
  PetscCall(PetscFEGetDimension(fec, &Nbc));
  PetscCall(PetscMalloc1(Nbf * dim, &pts));
  for (PetscInt a = 0; a < Nbf; a++) {
    PetscQuadrature  f;
    const PetscReal *pt;
    PetscInt         np;

    PetscCall(PetscDualSpaceGetFunctional(Q, a, &f));
    PetscCall(PetscQuadratureGetData(f, NULL, NULL, &np, &pt, NULL));
    PetscCheck(np == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "The fine element's functional %" PetscInt_FMT " has %" PetscInt_FMT " points: interpolation between orders needs nodal (Lagrange) elements", a, np);
    for (PetscInt d = 0; d < dim; d++) pts[a * dim + d] = pt[d];
  }
  PetscCall(PetscFECreateTabulation(fec, 1, Nbf, pts, 0, &T));
  PetscCall(PetscMalloc1(Nbf * Nbc, Pe));
  PetscCall(PetscArraycpy(*Pe, T->T[0], Nbf * Nbc));
  PetscCall(PetscTabulationDestroy(&T));
  PetscCall(PetscFree(pts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* each element's dofs as indices of the arrays the transfer works on: global on one process, local on several; -1 where
   constrained */
static PetscErrorCode FEGInterpIndices(FEGDisc *d, PetscBool local, PetscInt **idx, PetscInt *n)
{
  const PetscInt *g;
  const PetscInt  N = d->Ne * d->Nb;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(N, idx));
  if (local) {
    PetscCall(FEGDiscGetLocalToGlobal(d, &g));
    for (PetscInt k = 0; k < N; k++) (*idx)[k] = g[d->lidx[k]] >= 0 ? d->lidx[k] : -1;
    *n = d->nlocal;
  } else {
    PetscCall(FEGDiscGetGlobalIndices(d, &g));
    PetscCall(PetscArraycpy(*idx, g, N));
    *n = d->nglobal;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w[i] = 1 / (cells holding fine dof i, on every process), 0 where constrained */
static PetscErrorCode FEGInterpWeights(FEGInterp *ip)
{
  PetscScalar *c;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(ip->nf, &ip->w));
  if (ip->local) {
    Vec g;

    PetscCall(VecZeroEntries(ip->fl));
    PetscCall(VecGetArray(ip->fl, &c));
    for (PetscInt k = 0; k < ip->Ne * ip->Nbf; k++)
      if (ip->fidx[k] >= 0) c[ip->fidx[k]] += 1.0;
    PetscCall(VecRestoreArray(ip->fl, &c));
    PetscCall(DMGetGlobalVector(ip->dmf, &g));
    PetscCall(VecZeroEntries(g));
    PetscCall(DMLocalToGlobal(ip->dmf, ip->fl, ADD_VALUES, g));
    PetscCall(DMGlobalToLocal(ip->dmf, g, INSERT_VALUES, ip->fl));
    PetscCall(DMRestoreGlobalVector(ip->dmf, &g));
    PetscCall(VecGetArray(ip->fl, &c));
    for (PetscInt k = 0; k < ip->Ne * ip->Nbf; k++)
      if (ip->fidx[k] >= 0) ip->w[ip->fidx[k]] = 1.0 / PetscRealPart(c[ip->fidx[k]]);
    PetscCall(VecRestoreArray(ip->fl, &c));
  } else {
    for (PetscInt k = 0; k < ip->Ne * ip->Nbf; k++)
      if (ip->fidx[k] >= 0) ip->w[ip->fidx[k]] += 1.0;
    for (PetscInt i = 0; i < ip->nf; i++)
      if (ip->w[i] > 0) ip->w[i] = 1.0 / ip->w[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMCreateInterpolation - the prolongation from a coarse order to a fine one on the same mesh (DMCreateInterpolation()
  of DMs with a fegpu form; DMCoarsen() makes the coarse one): a MATSHELL that applies it and its transpose element by
  element, never assembled, on the GPU when the DMs' vectors are CUDA vectors

  Collective

  Input Parameters:
+ dmc - the coarse DM
- dmf - the fine DM, the same mesh (a DMClone() of it) at the same or a higher order

  Output Parameter:
. P - the interpolation: fine dofs from coarse ones (rows: the fine global vector, columns: the coarse one)

  Level: developer

  Notes:
  Each fine node takes the coarse function's value there (exact for the coarse space); the transpose weights each fine
  dof by the inverse of the number of cells holding it, so that it is P^T. The added products are MATSHELL's (the
  product into a work vector it keeps, then VecAXPY()). Constrained dofs are zero on both sides, as
  multigrid corrections need. PCMG uses it with -pc_type mg on a KSP whose DM has a form (`FEGDMSetForm()`).

.seealso: FEGDMSetForm(), FEGDMSetCoarsenOrder()
@*/
PetscErrorCode FEGDMCreateInterpolation(DM dmc, DM dmf, Mat *P)
{
  FEGInterp  *ip;
  PetscMPIInt size;
  MPI_Comm    comm = PetscObjectComm((PetscObject)dmf);
  Vec         xf, xc;
  PetscInt    mf, mc, Mf, Mc, dim;
  PetscBool   ondevice;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dmc, DM_CLASSID, 1);
  PetscValidHeaderSpecific(dmf, DM_CLASSID, 2);
  FEGAssertPointer(P, 3);
  PetscCall(PetscNew(&ip));
  PetscCall(PetscObjectReference((PetscObject)dmf));
  PetscCall(PetscObjectReference((PetscObject)dmc));
  ip->dmf = dmf;
  ip->dmc = dmc;
  PetscCall(FEGDMGetDisc(dmf, &ip->df, &ip->cf));
  PetscCall(FEGDMGetDisc(dmc, &ip->dc, &ip->cc));
  {
    Vec       cf, cc;
    PetscBool same;

    PetscCall(DMGetCoordinatesLocal(dmf, &cf));
    PetscCall(DMGetCoordinatesLocal(dmc, &cc));
    same = (PetscBool)(cf == cc && ip->df->cStart == ip->dc->cStart && ip->df->cEnd == ip->dc->cEnd);
    /* element e of one is element e of the other: the same element order (FEGDMSetElementOrder()) */
    if (same && (ip->df->ecell || ip->dc->ecell)) same = (PetscBool)(ip->df->ecell && ip->dc->ecell);
    for (PetscInt e = 0; same && ip->df->ecell && e < ip->df->Ne; e++) same = (PetscBool)(ip->df->ecell[e] == ip->dc->ecell[e]);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPIU_BOOL, MPI_LAND, comm));
    PetscCheck(same, comm, PETSC_ERR_ARG_INCOMP, "fegpu interpolates between two orders on one mesh (a DM and its DMCoarsen(), which shares the mesh); these DMs have different meshes or element orders (FEGDMSetElementOrder())");
  }
  PetscCall(FEGDMIsOnDevice(dmf, &ondevice));
  PetscCall(FEGDMIsOnDevice(dmc, &ip->ondevice));
  PetscCheck(ondevice == ip->ondevice, comm, PETSC_ERR_ARG_INCOMP, "The fine DM's vectors are %s and the coarse one's %s: both must be CUDA vectors or neither", ondevice ? "CUDA vectors" : "host vectors", ip->ondevice ? "CUDA vectors" : "host vectors");
  PetscCheck(!ip->ondevice || FEGInterpApplyDevice, comm, PETSC_ERR_SUP, "CUDA vectors, but fegpu was built without CUDA");
  PetscCallMPI(MPI_Comm_size(comm, &size));
  ip->local = (PetscBool)(size > 1);
  ip->Ne    = ip->df->Ne;
  ip->Nbf   = ip->df->Nb;
  ip->Nbc   = ip->dc->Nb;
  ip->flops = 2.0 * ip->Ne * ip->Nbf * ip->Nbc;
  PetscCall(DMGetDimension(dmf, &dim));
  PetscCall(FEGInterpTable(ip->df->fe, ip->dc->fe, dim, &ip->Pe));
  PetscCall(FEGInterpIndices(ip->df, ip->local, &ip->fidx, &ip->nf));
  PetscCall(FEGInterpIndices(ip->dc, ip->local, &ip->cidx, &ip->nc));
  if (ip->local) {
    PetscCall(DMCreateLocalVector(dmf, &ip->fl));
    PetscCall(DMCreateLocalVector(dmc, &ip->cl));
  }
  PetscCall(FEGInterpWeights(ip));
  if (!ip->ondevice) PetscCall(PetscMalloc1(PetscMax(ip->Nbf, ip->Nbc), &ip->work));

  PetscCall(DMGetGlobalVector(dmf, &xf));
  PetscCall(DMGetGlobalVector(dmc, &xc));
  PetscCall(VecGetLocalSize(xf, &mf));
  PetscCall(VecGetSize(xf, &Mf));
  PetscCall(VecGetLocalSize(xc, &mc));
  PetscCall(VecGetSize(xc, &Mc));
  PetscCall(MatCreateShell(comm, mf, mc, Mf, Mc, ip, P));
  {
    VecType vtype;

    PetscCall(VecGetType(xf, &vtype));
    PetscCall(MatShellSetVecType(*P, vtype));
  }
  PetscCall(DMRestoreGlobalVector(dmf, &xf));
  PetscCall(DMRestoreGlobalVector(dmc, &xc));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT, (void (*)(void))FEGInterpMult_Private));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE, (void (*)(void))FEGInterpMultTranspose_Private));
  PetscCall(MatShellSetOperation(*P, MATOP_DESTROY, (void (*)(void))FEGInterpDestroy_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}
