static const char help[] = "fegpu advdiff: the advection-diffusion test problem of Markall et al. (section 5, eqs. 10-19).\n"
                           "A tracer T on the unit square, P1 triangles from a Gmsh mesh, no-flux boundaries. Each step:\n"
                           "RK4 advection, every stage a mass solve m(v,T_k) = a(v,...) (Chebyshev with GPU vectors, one kernel a step on an addto matrix, else CG),\n"
                           "then Crank-Nicolson diffusion"
                           " (M + d/2) T^{n+1} = (M - d/2) T^a with CG. Options: -feg_mesh_file f.msh -dm_refine k -advdiff_steps n\n"
                           "-advdiff_dt dt -advdiff_monitor_vtk k -advdiff_mass_solver auto|cg|chebyshev|fused -advdiff_diffusion_solver auto|cg|fused\n"
                           "-feg_op_type addto|lma -dm_vec_type cuda\n"
                           "-advdiff_timing 0\n";

#include <fegpu.h>
#include <petscdevice.h>

#define ADVDIFF_RTOL 1e-12 /* relative tolerance of every solve */

static const char *const MassSolvers[] = {"auto", "cg", "chebyshev", "fused", "MassSolver", "MASS_", NULL};
typedef enum {
  MASS_AUTO,
  MASS_CG,
  MASS_CHEBYSHEV,
  MASS_FUSED
} MassSolver;

/* velocity u = curl psi with psi = sin^2(pi x) sin^2(pi y) (zero on the boundary), taken cell by cell from the P1
   interpolant of psi: every cell's velocity is divergence free and the normal component is continuous across edges
   and zero on the boundary, so a(1, T) = 0 and the scheme conserves tracer to solver accuracy */
static PetscErrorCode psi(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  const PetscReal s = PetscSinReal(PETSC_PI * x[0]), r = PetscSinReal(PETSC_PI * x[1]);

  u[0] = s * s * r * r / PETSC_PI;
  return PETSC_SUCCESS;
}

static PetscErrorCode initial(PetscInt dim, PetscReal t, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  const PetscReal dx = x[0] - 0.3, dy = x[1] - 0.5;

  u[0] = PetscExpReal(-(dx * dx + dy * dy) / 0.01);
  return PETSC_SUCCESS;
}

/* a cell-wise constant velocity field (DG0, 2 components) from the P1 interpolant of psi: psi at the vertices, then
   each cell's gradient from its three vertices (the interpolant through a P1 field on a cloned DM with a closure per
   cell took 1.5 s of the setup at 545k triangles) */
static PetscErrorCode CreateVelocity(DM dm, DM *veldm, Vec *vel, PetscReal *umax)
{
  DM                 cdm;
  PetscFE            fe, pfe;
  PetscSection       cs;
  Vec                X, vh;
  const PetscScalar *x;
  PetscScalar       *va, *pv;
  PetscReal         *pv0;
  PetscInt           cStart, cEnd, vStart, vEnd;
  PetscQuadrature    q;

  PetscFunctionBegin;
  PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
  PetscCall(PetscFECreateLagrangeByCell(PetscObjectComm((PetscObject)dm), 2, 2, DM_POLYTOPE_TRIANGLE, 0, PETSC_DETERMINE, &pfe));
  PetscCall(PetscFEGetQuadrature(fe, &q));
  PetscCall(PetscFESetQuadrature(pfe, q));
  PetscCall(DMClone(dm, veldm));
  PetscCall(DMSetField(*veldm, 0, NULL, (PetscObject)pfe));
  PetscCall(DMCreateDS(*veldm));
  PetscCall(PetscFEDestroy(&pfe));
  PetscCall(DMCreateGlobalVector(*veldm, vel));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetLocalSection(cdm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &X));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(PetscMalloc1(vEnd - vStart, &pv0));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt    o;
    PetscScalar p;
    PetscReal   xv[2];

    PetscCall(PetscSectionGetOffset(cs, v, &o));
    xv[0] = PetscRealPart(x[o]);
    xv[1] = PetscRealPart(x[o + 1]);
    PetscCall(psi(2, 0.0, xv, 1, &p, NULL));
    pv0[v - vStart] = PetscRealPart(p);
  }
  *umax = 0.0;
  /* filled on the host, then copied into the (possibly device) global vector */
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2 * (cEnd - cStart), &vh));
  PetscCall(VecGetArray(vh, &va));
  for (PetscInt c = cStart; c < cEnd; c++) {
    const PetscInt *cone, *ev;
    PetscInt        vt[3], n = 0, o[3];
    PetscReal       e[2][2], df[2], det, g[2];

    /* the triangle's vertices through its edges; the gradient does not depend on their order */
    PetscCall(DMPlexGetCone(dm, c, &cone));
    for (PetscInt k = 0; k < 3 && n < 3; k++) {
      PetscCall(DMPlexGetCone(dm, cone[k], &ev));
      for (PetscInt j = 0; j < 2; j++) {
        PetscInt i = 0;

        while (i < n && vt[i] != ev[j]) i++;
        if (i == n && n < 3) vt[n++] = ev[j];
      }
    }
    PetscCheck(n == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Cell %" PetscInt_FMT " is not a triangle with three vertices", c);
    for (PetscInt k = 0; k < 3; k++) PetscCall(PetscSectionGetOffset(cs, vt[k], &o[k]));
    for (PetscInt k = 0; k < 2; k++) {
      e[k][0] = PetscRealPart(x[o[k + 1]] - x[o[0]]);
      e[k][1] = PetscRealPart(x[o[k + 1] + 1] - x[o[0] + 1]);
      df[k]   = pv0[vt[k + 1] - vStart] - pv0[vt[0] - vStart];
    }
    /* [e_1; e_2] g = df */
    det                      = e[0][0] * e[1][1] - e[0][1] * e[1][0];
    g[0]                     = (df[0] * e[1][1] - df[1] * e[0][1]) / det;
    g[1]                     = (df[1] * e[0][0] - df[0] * e[1][0]) / det;
    va[2 * (c - cStart) + 0] = g[1];
    va[2 * (c - cStart) + 1] = -g[0];
    *umax                    = PetscMax(*umax, PetscSqrtReal(g[0] * g[0] + g[1] * g[1]));
  }
  PetscCall(VecRestoreArray(vh, &va));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(PetscFree(pv0));
  PetscCall(VecGetArray(*vel, &pv));
  {
    const PetscScalar *h;

    PetscCall(VecGetArrayRead(vh, &h));
    PetscCall(PetscArraycpy(pv, h, 2 * (cEnd - cStart)));
    PetscCall(VecRestoreArrayRead(vh, &h));
  }
  PetscCall(VecRestoreArray(*vel, &pv));
  PetscCall(VecDestroy(&vh));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, umax, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* advdiff solves on P1 triangles in 2-D: refuse other meshes by what they are */
static PetscErrorCode CheckTriangles(DM dm)
{
  PetscInt       dim, cdim, cStart, cEnd;
  DMPolytopeType ct = DM_POLYTOPE_TRIANGLE;
  PetscMPIInt    ict;
  char           file[PETSC_MAX_PATH_LEN] = "";

  PetscFunctionBegin;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  for (PetscInt c = cStart; c < cEnd && ct == DM_POLYTOPE_TRIANGLE; c++) PetscCall(DMPlexGetCellType(dm, c, &ct));
  ict = ct == DM_POLYTOPE_TRIANGLE ? -1 : (PetscMPIInt)ct; /* the first other cell type on any process */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ict, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)dm)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-feg_mesh_file", file, sizeof(file), NULL));
  PetscCheck(dim == 2 && cdim == 2 && ict < 0, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "advdiff solves on triangles in the plane, but the mesh%s%s has dimension %" PetscInt_FMT ", %" PetscInt_FMT " coordinates per vertex and %s cells: give a 2-D triangular mesh (-feg_mesh_cell_type tri, or a Gmsh file of triangles)", file[0] ? " " : "", file, dim, cdim, DMPolytopeTypes[ict < 0 ? DM_POLYTOPE_TRIANGLE : (DMPolytopeType)ict]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an operator of the form C (constant) plus dt u in C_{0,l+1} (the advection term int grad v . u T) */
static PetscErrorCode CreateOp(DM dm, const PetscScalar C[16], PetscScalar adv, DM veldm, Vec vel, Mat *A)
{
  FEGForm form;

  PetscFunctionBegin;
  PetscCall(FEGFormCreate(PetscObjectComm((PetscObject)dm), &form));
  PetscCall(FEGFormSetConstant(form, C, NULL));
  if (adv != 0.0) {
    PetscScalar Al[16 * 2] = {0};

    Al[(0 * 4 + 1) * 2 + 0] = adv; /* trial value, test d/dx: dt u_x */
    Al[(0 * 4 + 2) * 2 + 1] = adv; /* trial value, test d/dy: dt u_y */
    PetscCall(FEGFormSetAuxiliaryField(form, veldm, vel));
    PetscCall(FEGFormSetLinearCoefficient(form, 2, Al, NULL));
  }
  PetscCall(FEGCreateOperator(dm, form, A));
  PetscCall(FEGFormDestroy(&form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* with device vectors, a solve's device work finished before it is timed: Chebyshev never waits for the device, so its
   kernels would otherwise be counted in whatever waits next (the diffusion solves). Host runs leave the device alone:
   with a CUDA PETSc, a device context on every rank made them about 2x slower */
static PetscErrorCode WaitForDevice(PetscBool device)
{
  PetscDeviceContext dctx;

  PetscFunctionBegin;
  if (device) {
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(KSP ksp, Vec b, Vec x, PetscBool device, PetscInt *its, PetscLogDouble *t)
{
  PetscInt           n;
  PetscLogDouble     t0, t1;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(WaitForDevice(device));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "The solve did not converge: %s", KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, &n));
  *its += n;
  *t += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the Chebyshev steps of a mass solve on Wathen's bounds of the Jacobi-scaled P1 mass matrix (CreateChebyshev()) */
#define MASS_EMIN 0.5
#define MASS_EMAX 2.0
static PetscInt ChebyshevStepsOn(PetscReal emin, PetscReal emax)
{
  const PetscReal q = (PetscSqrtReal(emax / emin) + 1.0) / (PetscSqrtReal(emax / emin) - 1.0);

  return (PetscInt)PetscCeilReal(PetscLogReal(2.0 / ADVDIFF_RTOL) / PetscLogReal(q));
}

static PetscInt ChebyshevSteps(void)
{
  return ChebyshevStepsOn(MASS_EMIN, MASS_EMAX);
}

/* a mass solve by FEGCreateChebyshevInverse()'s fixed steps, timed as Solve() times a KSP's */
static PetscErrorCode ApplyInverse(Mat Minv, PetscInt steps, Vec b, Vec x, PetscBool device, PetscInt *its, PetscLogDouble *t)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatMult(Minv, b, x));
  PetscCall(WaitForDevice(device));
  PetscCall(PetscTime(&t1));
  *its += steps;
  *t += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateCG(Mat A, const char *prefix, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  /* the natural norm sqrt(r^T B r) comes from the (r, B r) product CG computes anyway, so each iteration has one
     synchronising reduction fewer than with the preconditioned norm (the GPU's solves about 1.4x faster, the host's
     the same); -mass_ksp_norm_type and -diff_ksp_norm_type choose another */
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_NATURAL));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(*ksp, ADVDIFF_RTOL, 1e-50, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mass solves by Chebyshev iteration with Jacobi: each P1 triangle's mass matrix scaled by its diagonal has the
   eigenvalues 1/2, 1/2 and 2, so the Jacobi-scaled global mass matrix has its spectrum in [1/2, 2] (Wathen 1987, for
   any P1 triangle mesh). k steps on that interval reduce the error in the energy norm by 1/T_k(5/3) = 2/(3^k + 3^-k)
   at least, so k = log(2/rtol)/log(3) steps (26 at 1e-12; 3 = (sqrt(4) + 1)/(sqrt(4) - 1), 4 the condition number)
   solve to CG's tolerance without an inner product: no iteration waits for the host (on the GPU the mass solves are
   1.4-1.7x faster than CG's, on 16 host cores slower). fused: the same steps by FEGCreateChebyshevInverse(), one kernel
   each on an addto matrix where PETSc's KSPCHEBYSHEV launches five */
static PetscErrorCode CreateChebyshev(Mat M, const char *prefix, KSP *ksp)
{
  PC              pc;
  const PetscReal emin = MASS_EMIN, emax = MASS_EMAX;
  const PetscInt  its = ChebyshevSteps();

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)M), ksp));
  PetscCall(KSPSetOperators(*ksp, M, M));
  PetscCall(KSPSetType(*ksp, KSPCHEBYSHEV));
  PetscCall(KSPChebyshevSetEigenvalues(*ksp, emax, emin));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(*ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(*ksp, ADVDIFF_RTOL, 1e-50, PETSC_DEFAULT, its));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             dm, veldm;
  Vec            T, Ta, Ts, k[4], rhs, ones, mones, vel;
  Mat            M, A, L, R, Minv = NULL, Linv = NULL;
  KSP            kspm = NULL, kspd = NULL;
  PetscInt       steps = 200, vtk = 0, itm = 0, itd = 0, nsd = 0, cStart, cEnd, ncells;
  PetscReal      dt = 0.0, umax, h, mass0, mass1, tnorm, tmax, kappa[4] = {2e-3, 5e-4, 5e-4, 1e-3};
  PetscBool      timing  = PETSC_TRUE, device;
  MassSolver     msolver = MASS_AUTO, dsolver = MASS_AUTO;
  PetscLogDouble t0, t1, tsetup = 0, tadv = 0, tdiff = 0, tsm = 0, tsd = 0, ttot;
  PetscLogStage  stage[6];
  PetscScalar    Cm[16] = {1.0}, Cl[16] = {1.0}, Cr[16] = {1.0}, Ca[16] = {0}, dot;
  FEGOpType      strategy;
  VecType        vt;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "advdiff options", NULL);
  PetscCall(PetscOptionsInt("-advdiff_steps", "Time steps", NULL, steps, &steps, NULL));
  PetscCall(PetscOptionsReal("-advdiff_dt", "Time step (0: a quarter of the advective CFL limit)", NULL, dt, &dt, NULL));
  PetscCall(PetscOptionsInt("-advdiff_monitor_vtk", "Write advdiff-NNNN.vtu every k steps (0: never)", NULL, vtk, &vtk, NULL));
  PetscCall(PetscOptionsBool("-advdiff_timing", "Print per-phase times", NULL, timing, &timing, NULL));
  PetscCall(PetscOptionsEnum("-advdiff_mass_solver", "Mass solves: auto (with device vectors fused on an addto matrix of one process, else chebyshev; cg on the host), cg, chebyshev or fused", NULL, MassSolvers, (PetscEnum)msolver, (PetscEnum *)&msolver, NULL));
  PetscCall(PetscOptionsEnum("-advdiff_diffusion_solver", "Diffusion solves: auto (fused where the mass solves are), cg or fused (Chebyshev on the bounds of FEGOperatorGetJacobiBounds())", NULL, MassSolvers, (PetscEnum)dsolver, (PetscEnum *)&dsolver, NULL));
  PetscOptionsEnd();
  PetscCheck(dsolver != MASS_CHEBYSHEV, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_diffusion_solver chebyshev is not offered: allowed are auto, cg and fused (Chebyshev on bounds from the element matrices)");
  PetscCheck(steps >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_steps %" PetscInt_FMT " is out of range: allowed are 0 or more time steps", steps);
  PetscCheck(dt >= 0.0 && !PetscIsInfOrNanReal(dt), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_dt %g is out of range: allowed is a positive time step, or 0 for a quarter of the advective CFL limit", (double)dt);
  PetscCheck(vtk >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_monitor_vtk %" PetscInt_FMT " is out of range: allowed are 0 (never) or every k >= 1 steps", vtk);
  /* -log_view splits the setup into these phases, and the time steps into advection and diffusion */
  PetscCall(PetscLogStageRegister("Mesh", &stage[0]));
  PetscCall(PetscLogStageRegister("Discretization", &stage[1]));
  PetscCall(PetscLogStageRegister("Operators", &stage[2]));
  PetscCall(PetscLogStageRegister("Vectors, KSPSetUp", &stage[3]));
  PetscCall(PetscLogStageRegister("Advection", &stage[4]));
  PetscCall(PetscLogStageRegister("Diffusion", &stage[5]));

  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogStagePush(stage[0]));
  PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, NULL, &dm));
  PetscCall(PetscLogStagePop());
  PetscCall(CheckTriangles(dm));
  PetscCall(PetscLogStagePush(stage[1]));
  PetscCall(FEGSetUpDiscretization(dm, 1, PETSC_TRUE, "T"));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  ncells = cEnd - cStart;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ncells, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(CreateVelocity(dm, &veldm, &vel, &umax));
  h = PetscSqrtReal(2.0 / ncells);
  PetscCheck(umax > 0.0 && !PetscIsInfOrNanReal(umax), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "The velocity's largest magnitude on this mesh is %g: the mesh must cover part of the unit square, where the velocity field lives", (double)umax);
  if (dt == 0.0) dt = 0.25 * h / umax;
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogStagePush(stage[2]));

  /* m, a, M + d/2 and M - d/2 (d: dt grad v . kappa grad T, C_{l+1,k+1} = kappa_kl) */
  for (PetscInt kk = 0; kk < 2; kk++)
    for (PetscInt l = 0; l < 2; l++) {
      Cl[(l + 1) * 4 + kk + 1] = 0.5 * dt * kappa[kk * 2 + l];
      Cr[(l + 1) * 4 + kk + 1] = -0.5 * dt * kappa[kk * 2 + l];
    }
  PetscCall(CreateOp(dm, Cm, 0.0, NULL, NULL, &M));
  PetscCall(CreateOp(dm, Ca, dt, veldm, vel, &A));
  PetscCall(CreateOp(dm, Cl, 0.0, NULL, NULL, &L));
  PetscCall(FEGOperatorGetType(M, &strategy));
  if (!strcmp(strategy, FEGOPADDTO)) {
    /* M - d/2 = 2 M - (M + d/2): assembled operators of one DM share their pattern, so R is two vector operations on
       M's and L's values, not an operator of its own (its pattern and integration) */
    PetscCall(MatDuplicate(M, MAT_COPY_VALUES, &R));
    PetscCall(MatScale(R, 2.0));
    PetscCall(MatAXPY(R, -1.0, L, SAME_NONZERO_PATTERN));
  } else PetscCall(CreateOp(dm, Cr, 0.0, NULL, NULL, &R));
  PetscCall(DMGetVecType(dm, &vt));
  PetscCall(PetscStrInList(vt ? vt : "", "cuda,seqcuda,mpicuda,hip,seqhip,mpihip,kokkos,seqkokkos,mpikokkos", ',', &device));
  /* the fastest measured: Chebyshev on the GPU, where CG waits for the host twice an iteration; CG on the host cores,
     where the inner products are cheap and Chebyshev's 26 iterations cost more than CG's 14-24 */
  if (msolver == MASS_AUTO) {
    PetscBool   seqaij;
    PetscMPIInt size;

    PetscCall(PetscObjectTypeCompareAny((PetscObject)M, &seqaij, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    msolver = device ? (seqaij && size == 1 ? MASS_FUSED : MASS_CHEBYSHEV) : MASS_CG;
  }
  if (msolver == MASS_FUSED) PetscCall(FEGCreateChebyshevInverse(M, MASS_EMIN, MASS_EMAX, ChebyshevSteps(), &Minv));
  else if (msolver == MASS_CHEBYSHEV) PetscCall(CreateChebyshev(M, "mass_", &kspm));
  else PetscCall(CreateCG(M, "mass_", &kspm));
  if (dsolver == MASS_AUTO) dsolver = msolver == MASS_FUSED ? MASS_FUSED : MASS_CG;
  if (dsolver == MASS_FUSED) {
    PetscReal emin, emax;

    /* Wathen's bounds from the element matrices of M + d/2: the same tolerance in the energy norm, no inner products */
    PetscCall(FEGOperatorGetJacobiBounds(L, &emin, &emax));
    nsd = ChebyshevStepsOn(emin, emax);
    PetscCall(FEGCreateChebyshevInverse(L, emin, emax, nsd, &Linv));
  } else PetscCall(CreateCG(L, "diff_", &kspd));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogStagePush(stage[3]));
  PetscCall(DMCreateGlobalVector(dm, &T));
  PetscCall(PetscObjectSetName((PetscObject)T, "T"));
  PetscCall(VecDuplicate(T, &Ta));
  PetscCall(VecDuplicate(T, &Ts));
  PetscCall(VecDuplicate(T, &rhs));
  PetscCall(VecDuplicate(T, &ones));
  PetscCall(VecDuplicate(T, &mones));
  for (PetscInt s = 0; s < 4; s++) PetscCall(VecDuplicate(T, &k[s]));
  PetscCall(FEGDMProjectFunction(dm, 0.0, initial, NULL, T));
  PetscCall(VecSet(ones, 1.0));
  PetscCall(MatMult(M, ones, mones)); /* total tracer = 1^T M T */
  PetscCall(VecDot(mones, T, &dot));
  mass0 = PetscRealPart(dot);
  if (kspm) PetscCall(KSPSetUp(kspm));
  if (kspd) PetscCall(KSPSetUp(kspd));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&t1));
  tsetup = t1 - t0;

  for (PetscInt n = 0; n < steps; n++) {
    PetscCall(PetscTime(&t0));
    PetscCall(PetscLogStagePush(stage[4]));
    /* RK4: m(v, T_s) = a(v, T^n + c_s T_{s-1}) */
    for (PetscInt s = 0; s < 4; s++) {
      const PetscReal c = s == 0 ? 0.0 : (s == 3 ? 1.0 : 0.5);

      PetscCall(VecWAXPY(Ts, c, s ? k[s - 1] : T, T));
      PetscCall(MatMult(A, Ts, rhs));
      if (Minv) PetscCall(ApplyInverse(Minv, ChebyshevSteps(), rhs, k[s], device, &itm, &tsm));
      else PetscCall(Solve(kspm, rhs, k[s], device, &itm, &tsm));
    }
    PetscCall(VecCopy(T, Ta));
    PetscCall(VecAXPY(Ta, 1.0 / 6.0, k[0]));
    PetscCall(VecAXPY(Ta, 1.0 / 3.0, k[1]));
    PetscCall(VecAXPY(Ta, 1.0 / 3.0, k[2]));
    PetscCall(VecAXPY(Ta, 1.0 / 6.0, k[3]));
    PetscCall(PetscLogStagePop());
    PetscCall(PetscTime(&t1));
    tadv += t1 - t0;
    /* Crank-Nicolson diffusion */
    PetscCall(PetscLogStagePush(stage[5]));
    PetscCall(MatMult(R, Ta, rhs));
    if (Linv) PetscCall(ApplyInverse(Linv, nsd, rhs, T, device, &itd, &tsd));
    else PetscCall(Solve(kspd, rhs, T, device, &itd, &tsd));
    PetscCall(PetscLogStagePop());
    PetscCall(PetscTime(&t0));
    tdiff += t0 - t1;
    if (vtk > 0 && (n + 1) % vtk == 0) {
      PetscViewer viewer;
      char        name[64];

      PetscCall(PetscSNPrintf(name, sizeof(name), "advdiff-%04d.vtu", (int)(n + 1)));
      PetscCall(PetscViewerVTKOpen(PETSC_COMM_WORLD, name, FILE_MODE_WRITE, &viewer));
      PetscCall(VecView(T, viewer));
      PetscCall(PetscViewerDestroy(&viewer));
    }
  }
  PetscCall(VecDot(mones, T, &dot));
  mass1 = PetscRealPart(dot);
  PetscCall(VecNorm(T, NORM_2, &tnorm));
  PetscCall(VecMax(T, NULL, &tmax));
  ttot = tsetup + tadv + tdiff;

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fegpu advdiff: %" PetscInt_FMT " P1 triangles, %" PetscInt_FMT " steps of dt %.4e, strategy %s\n", ncells, steps, (double)dt, strategy));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  iterations: %" PetscInt_FMT " in mass solves (%s), %" PetscInt_FMT " in diffusion solves (%s)\n", itm, MassSolvers[msolver], itd, MassSolvers[dsolver]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  tracer mass: first step %.12e, last step %.12e\n", (double)mass0, (double)mass1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  last step: max %.10e, 2-norm %.10e\n", (double)tmax, (double)tnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  mass conserved to 1e-10: %s\n", PetscAbsReal(mass1 - mass0) <= 1e-10 * PetscAbsReal(mass0) ? "yes" : "NO"));
  if (timing) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  vectors: %s\n", vt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  times (s): setup and integration/assembly %.3f, advection %.3f (mass solves %.3f), diffusion %.3f (solves %.3f), total %.3f\n", tsetup, tadv, tsm, tdiff, tsd, ttot));
  }

  for (PetscInt s = 0; s < 4; s++) PetscCall(VecDestroy(&k[s]));
  PetscCall(VecDestroy(&T));
  PetscCall(VecDestroy(&Ta));
  PetscCall(VecDestroy(&Ts));
  PetscCall(VecDestroy(&rhs));
  PetscCall(VecDestroy(&ones));
  PetscCall(VecDestroy(&mones));
  PetscCall(VecDestroy(&vel));
  PetscCall(KSPDestroy(&kspm));
  PetscCall(MatDestroy(&Minv));
  PetscCall(MatDestroy(&Linv));
  PetscCall(KSPDestroy(&kspd));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&L));
  PetscCall(MatDestroy(&R));
  PetscCall(DMDestroy(&veldm));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: addto
    args: -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 10 -feg_op_type addto -advdiff_timing 0 -advdiff_mass_solver cg
    output_file: output/advdiff_addto.out

  test:
    suffix: lma
    args: -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 10 -feg_op_type lma -advdiff_timing 0 -advdiff_mass_solver cg
    output_file: output/advdiff_lma.out

  test:
    suffix: lma_np2
    nsize: 2
    args: -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 10 -feg_op_type lma -advdiff_timing 0 -advdiff_mass_solver cg
    output_file: output/advdiff_lma.out

  test:
    suffix: addto_refine_np3
    nsize: 3
    args: -feg_mesh_file ../share/meshes/square.msh -dm_refine 1 -advdiff_steps 5 -feg_op_type addto -advdiff_timing 0 -advdiff_mass_solver cg
    output_file: output/advdiff_refine.out

  test:
    suffix: chebyshev
    args: -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 10 -feg_op_type lma -advdiff_timing 0 -advdiff_mass_solver chebyshev
    output_file: output/advdiff_chebyshev.out

  test:
    suffix: fused
    args: -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 10 -feg_op_type addto -advdiff_timing 0 -advdiff_mass_solver fused
    output_file: output/advdiff_fused.out

  test:
    suffix: chebyshev_matfree_np2
    nsize: 2
    args: -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 10 -feg_op_type matfree -advdiff_timing 0 -advdiff_mass_solver chebyshev
    output_file: output/advdiff_chebyshev_matfree.out

TEST*/
