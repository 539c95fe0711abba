static const char help[] = "fegpu cdr_integration: the prism integration experiment of Kruzel, Banas and Nytko.\n"
                           "Convection-diffusion-reaction with a fully populated 4x4 C on (perturbed, non-affine) prisms of\n"
                           "degree p: all element matrices and right-hand sides are computed; per-element times, GFLOP/s with the\n"
                           "operation counts of that paper's Table 2, % of the measured FP64 peak, and its Table 12 times beside.\n"
                           "Options: -cdr_orders 1,2,...,7 -feg_mesh_faces n -feg_mesh_perturb r -dm_vec_type cuda -cdr_reps n -cdr_timing 0|1\n";

#include "benchutil.h"

/* Table 2 (operations per element, sum of the stages) and Table 12 (microseconds per element, DG) of the paper */
static const double table2[7]        = {4266, 67446, 770160, 4285200, 22156650, 81580191, 254458512};
static const double table12tesla[7]  = {0, 0, 3.130, 26.790, 99.805, 0, 0};
static const double table12radeon[7] = {0, 0, 2.196, 9.594, 31.793, 0, 0};

int main(int argc, char **argv)
{
  PetscInt  orders[8] = {1, 2, 3, 4, 5}, norders = 8, reps = 5;
  PetscBool timing = PETSC_TRUE, set;
  PetscReal peak = 0.0, triad = 0.0, atom = 0.0;
  /* a fully populated, non-symmetric C and a D, as in the paper's CDR problem */
  const PetscScalar C[16] = {1.0, 0.2, -0.1, 0.3, 0.4, 2.0, 0.1, -0.2, -0.3, 0.2, 1.5, 0.1, 0.1, -0.1, 0.2, 1.2}, D[4] = {1.0, 0.1, 0.2, 0.3};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  /* the paper's cells: perturbed (non-affine) prisms unless told otherwise */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-feg_mesh_cell_type", &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, "-feg_mesh_cell_type", "prism"));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-feg_mesh_perturb", &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, "-feg_mesh_perturb", "0.2"));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "cdr_integration options", NULL);
  PetscCall(PetscOptionsIntArray("-cdr_orders", "Degrees p (1 to 7)", NULL, orders, &norders, &set));
  PetscCall(PetscOptionsInt("-cdr_reps", "Repetitions (median reported)", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsBool("-cdr_timing", "Print times and rates", NULL, timing, &timing, NULL));
  PetscOptionsEnd();
  if (!set) norders = 5;
  PetscCall(BenchCheckInt("-cdr_reps", reps, 1, 64));
  for (PetscInt i = 0; i < norders; i++) PetscCall(BenchCheckInt("-cdr_orders", orders[i], 1, 7)); /* the paper's degrees */

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fegpu cdr_integration: prisms, full 4x4 C, discontinuous and continuous Lagrange\n"));
  for (PetscInt i = 0; i < norders; i++) {
    for (PetscInt cont = 0; cont < 2; cont++) {
      const PetscInt  p = orders[i];
      DM              dm;
      FEGForm         form;
      Mat             A;
      Vec             diag, b;
      PetscInt        Ne, Nb, Nq, cStart, cEnd;
      PetscReal       nd, nb;
      PetscLogDouble  t[64], tr[64], t0, t1, tk, tb;
      PetscQuadrature q;
      PetscFE         fe;

      PetscCall(FEGCreateMeshFromOptions(PETSC_COMM_WORLD, NULL, &dm));
      { /* the paper's operation counts and times are those of prisms */
        PetscInt       c0, c1;
        DMPolytopeType ct = DM_POLYTOPE_TRI_PRISM;
        PetscMPIInt    other;

        PetscCall(DMPlexGetHeightStratum(dm, 0, &c0, &c1));
        if (c1 > c0) PetscCall(DMPlexGetCellType(dm, c0, &ct));
        other = ct == DM_POLYTOPE_TRI_PRISM ? -1 : (PetscMPIInt)ct;
        PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &other, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
        PetscCheck(other < 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "cdr_integration repeats Kruzel et al.'s experiment on prisms (its Table 2 operation counts and Table 12 times), but the mesh has %s cells: use -feg_mesh_cell_type prism (the default) or a mesh of prisms", DMPolytopeTypes[other < 0 ? DM_POLYTOPE_TRI_PRISM : (DMPolytopeType)other]);
      }
      PetscCall(FEGSetUpDiscretization(dm, p, cont ? PETSC_TRUE : PETSC_FALSE, "u"));
      {
        VecType vt;

        PetscCall(DMGetVecType(dm, &vt));
        PetscCall(BenchSetOnDevice(vt));
      }
      if (ondevice && peak == 0.0) PetscCall(FEGDeviceRoofline(&triad, &peak, &atom));
      PetscCall(DMGetField(dm, 0, NULL, (PetscObject *)&fe));
      PetscCall(PetscFEGetDimension(fe, &Nb));
      PetscCall(PetscFEGetQuadrature(fe, &q));
      PetscCall(PetscQuadratureGetData(q, NULL, NULL, &Nq, NULL, NULL));
      PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
      Ne = cEnd - cStart;
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &Ne, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
      PetscCall(FEGFormCreate(PETSC_COMM_WORLD, &form));
      PetscCall(FEGFormSetConstant(form, C, D));
      {
        FEGOp op;

        /* an lma operator keeps every element matrix */
        PetscCall(FEGOpCreate(PETSC_COMM_WORLD, &op));
        PetscCall(FEGOpSetDM(op, dm));
        PetscCall(FEGOpSetForm(op, form));
        PetscCall(FEGOpSetType(op, FEGOPLMA));
        PetscCall(FEGOpSetFromOptions(op));
        PetscCall(FEGOpCreateMat(op, &A));
        PetscCall(FEGOpDestroy(&op));
      }
      PetscCall(DMCreateGlobalVector(dm, &diag));
      PetscCall(VecDuplicate(diag, &b));
      for (PetscInt r = 0; r < reps; r++) {
        PetscCall(Sync());
        PetscCall(PetscTime(&t0));
        PetscCall(FEGOperatorAssemble(A, NULL));
        PetscCall(Sync());
        PetscCall(PetscTime(&t1));
        t[r] = t1 - t0;
        PetscCall(PetscTime(&t0));
        PetscCall(FEGComputeRHS(dm, form, b));
        PetscCall(Sync());
        PetscCall(PetscTime(&t1));
        tr[r] = t1 - t0;
      }
      tk = Median(t, reps) / Ne * 1e6;
      tb = Median(tr, reps) / Ne * 1e6;
      /* checksums independent of where it ran: the assembled diagonal and right-hand side */
      PetscCall(MatGetDiagonal(A, diag));
      PetscCall(VecNorm(diag, NORM_2, &nd));
      PetscCall(VecNorm(b, NORM_2, &nb));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "p %" PetscInt_FMT " %-13s N_S %3" PetscInt_FMT " N_Q %3" PetscInt_FMT " elements %6" PetscInt_FMT "  |diag A| %.8e  |b| %.8e\n", p, cont ? "continuous" : "discontinuous", Nb, Nq, Ne, (double)nd, (double)nb));
      if (timing) {
        const double gflops = table2[p - 1] / (tk * 1e-6) / 1e9;

        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    element matrix %.5g us, rhs %.5g us, %.1f GFLOP/s (Table 2 count)", tk, tb, gflops));
        if (peak > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", %.1f%% of the measured FP64 peak %.0f GFLOP/s", 100.0 * gflops / peak, (double)peak));
        if (table12tesla[p - 1] > 0 && !cont)
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; Table 12: Tesla K20m %.3f us (%.3gx), Radeon R9 280X %.3f us (%.3gx)", table12tesla[p - 1], table12tesla[p - 1] / tk, table12radeon[p - 1], table12radeon[p - 1] / tk));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
      }
      PetscCall(VecDestroy(&diag));
      PetscCall(VecDestroy(&b));
      PetscCall(MatDestroy(&A));
      PetscCall(FEGFormDestroy(&form));
      PetscCall(DMDestroy(&dm));
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: small
    args: -feg_mesh_faces 2 -cdr_orders 1,2,3 -cdr_reps 1 -cdr_timing 0
    output_file: output/cdr_integration_small.out

  test:
    suffix: small_np2
    nsize: 2
    args: -feg_mesh_cell_type prism -feg_mesh_faces 2 -feg_mesh_perturb 0.2 -cdr_orders 1,2,3 -cdr_reps 1 -cdr_timing 0
    output_file: output/cdr_integration_small.out

TEST*/
