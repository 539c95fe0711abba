#include <fegpu/private/fegimpl.h>
#include <petsc/private/dmimpl.h>

static PetscErrorCode FEGOpDestroy_Container(void *ctx)
{
  FEGOp op = (FEGOp)ctx;

  PetscFunctionBegin;
#if defined(FEGPU_HAVE_CUDA)
  PetscCall(FEGOpDevDestroy(op));
#endif
  PetscCall(FEGDiscDestroy(&op->disc));
  PetscCall(FEGFormDestroy(&op->form));
  PetscCall(PetscFree(op->Ke));
  PetscCall(PetscFree(op->Cq));
  PetscCall(FEGMatFreeDestroy(&op->mf));
  PetscCall(VecDestroy(&op->xl));
  PetscCall(VecDestroy(&op->yl));
  PetscCall(DMDestroy(&op->dm));
  PetscCall(PetscFree(op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fegpu data of an operator, or NULL for a Mat fegpu did not create */
PetscErrorCode FEGOpGet(Mat A, FEGOp *op)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, "FEGOp", (PetscObject *)&c));
  *op = NULL;
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FEGOpView(FEGOp op, PetscViewer viewer)
{
  FEGDisc       *d = &op->disc;
  PetscInt       ne = d->Ne, nemax, nesum, ndof;
  PetscLogDouble bytes = d->bytes + (op->Ke ? (PetscLogDouble)d->Ne * d->Nb * d->Nb * sizeof(PetscScalar) : 0) + (op->Cq ? (PetscLogDouble)d->Ne * d->Nq * (d->dim + 1) * (d->dim + 1) * sizeof(PetscScalar) : 0) + (op->mf.G ? (PetscLogDouble)d->Ne * op->mf.npairs * sizeof(PetscScalar) : 0) + (op->mf.Cl ? (PetscLogDouble)d->Ne * d->Nq * op->mf.npairs * sizeof(PetscScalar) : 0), bsum;
  MPI_Comm       comm = PetscObjectComm((PetscObject)op->dm);

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&ne, &nesum, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(&ne, &nemax, 1, MPIU_INT, MPI_MAX, comm));
  PetscCall(MPIU_Allreduce(&d->nglobal, &ndof, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(MPIU_Allreduce(&bytes, &bsum, 1, MPI_DOUBLE, MPI_SUM, comm));
  PetscCall(PetscViewerASCIIPrintf(viewer, "fegpu operator\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "strategy: %s (%s)\n", FEGStrategies[op->strategy], op->ondevice ? "GPU" : "host"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "cell type: %s, dimension %" PetscInt_FMT "\n", DMPolytopeTypes[d->ct], d->dim));
  PetscCall(PetscViewerASCIIPrintf(viewer, "space: %s Lagrange of order %" PetscInt_FMT ", %" PetscInt_FMT " dofs and %" PetscInt_FMT " quadrature points per element\n", d->continuous ? "continuous" : "discontinuous", d->order, d->Nb, d->Nq));
  PetscCall(PetscViewerASCIIPrintf(viewer, "elements: %" PetscInt_FMT " (at most %" PetscInt_FMT " per process), unknowns: %" PetscInt_FMT "\n", nesum, nemax, ndof));
  PetscCall(PetscViewerASCIIPrintf(viewer, "memory: %.4g MB (%.1f bytes per unknown) for indices, geometry%s\n", bsum / 1048576.0, ndof ? bsum / ndof : 0.0, op->Ke ? " and element matrices" : (op->strategy == FEG_STRATEGY_MATFREE ? " and matfree data" : "")));
  if (op->strategy == FEG_STRATEGY_MATFREE) PetscCall(FEGMatFreeView(op, ndof, viewer));
#if defined(FEGPU_HAVE_CUDA)
  PetscCall(FEGOpDevView(op, viewer));
#endif
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fegpu runs on the GPU when the DM's vectors are CUDA vectors (-dm_vec_type cuda) */
PetscErrorCode FEGDMIsOnDevice(DM dm, PetscBool *ondevice)
{
  VecType vtype;

  PetscFunctionBegin;
  PetscCall(DMGetVecType(dm, &vtype));
  PetscCall(PetscStrbeginswith(vtype ? vtype : "", "cuda", ondevice));
  if (!*ondevice) {
    PetscBool seq, mpi;

    PetscCall(PetscStrbeginswith(vtype ? vtype : "", "seqcuda", &seq));
    PetscCall(PetscStrbeginswith(vtype ? vtype : "", "mpicuda", &mpi));
    *ondevice = (PetscBool)(seq || mpi);
  }
#if !defined(FEGPU_HAVE_CUDA)
  PetscCheck(!*ondevice, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "The DM has vector type %s but fegpu was built without CUDA: configure fegpu against a CUDA-enabled PETSc", vtype);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGCreateOperator - creates the operator of a bilinear form on a DMPlex with one scalar PetscFE field

  Collective

  Input Parameters:
+ dm   - the DMPlex; its local section's constraints (DMAddBoundary() essential conditions) remove those dofs
- form - the form

  Output Parameter:
. A - an assembled AIJ matrix (strategy addto; MPIAIJ in parallel, type from -dm_mat_type), or a MATSHELL storing
      element matrices (strategy lma) or only (dim+1)^2 coefficient-geometry values per quadrature point (matfree),
      with MatMult, MatMultAdd, MatMultTranspose(Add), MatGetDiagonal and MatView

  Options Database Keys (with the form's options prefix):
+ -feg_strategy <addto,lma,matfree> - the strategy (default: the form's, FEGFormSetStrategy())
- -feg_view - print strategy, cell type, order, element and dof counts and memory

  Level: beginner

.seealso: FEGOperatorAssemble(), FEGComputeRHS(), FEGDMSetForm()
@*/
PetscErrorCode FEGCreateOperator(DM dm, FEGForm form, Mat *A)
{
  FEGOp          op;
  PetscContainer c;
  PetscBool      view = PETSC_FALSE;
  FEGStrategy    s;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 2);
  FEGAssertPointer(A, 3);
  PetscCall(FEGInitializePackage());
  PetscCall(PetscNew(&op));
  s                      = form->strategy;
  op->addtoMode          = FEG_ADDTO_AUTO;
  op->lmaScatter         = FEG_LMA_SCATTER_ATOMIC;
  op->tuning.jacShared   = PETSC_TRUE;
  PetscObjectOptionsBegin((PetscObject)form);
  PetscCall(PetscOptionsEnum("-feg_strategy", "How the operator is stored and applied", "FEGFormSetStrategy", FEGStrategies, (PetscEnum)s, (PetscEnum *)&s, NULL));
  PetscCall(PetscOptionsBool("-feg_view", "Print the operator's layout and memory", "FEGCreateOperator", view, &view, NULL));
  PetscCall(PetscOptionsEnum("-feg_addto_mode", "GPU addto: atomics, element colouring, or PETSc's MatSetValuesCOO (auto: atomic on one process, coo on several)", "FEGCreateOperator", FEGAddtoModes, (PetscEnum)op->addtoMode, (PetscEnum *)&op->addtoMode, NULL));
  PetscCall(PetscOptionsEnum("-feg_lma_scatter", "GPU lma: scatter-add by atomics or by a deterministic transpose gather", "FEGCreateOperator", FEGLMAScatters, (PetscEnum)op->lmaScatter, (PetscEnum *)&op->lmaScatter, NULL));
  PetscCall(PetscOptionsEList("-feg_cuda_kernel", "Integration kernel: one element per thread, one per thread block (Kruzel et al.), or GEMM over reference tables", "FEGCreateOperator", FEGCudaKernels, 4, FEGCudaKernels[op->tuning.kernel], &op->tuning.kernel, NULL));
  PetscCall(PetscOptionsInt("-feg_cuda_block_size", "Threads per block of the block kernel (0: by element size)", "FEGCreateOperator", op->tuning.blockSize, &op->tuning.blockSize, NULL));
  PetscCall(PetscOptionsInt("-feg_cuda_nentpt", "Element matrix entries per thread and part, NENTPT (1, 2, 4, 8, 16; 0: by element size)", "FEGCreateOperator", op->tuning.nentpt, &op->tuning.nentpt, NULL));
  PetscCall(PetscOptionsInt("-feg_cuda_qchunk", "Quadrature points staged in shared memory at a time (0: 16, fewer if shared memory is short)", "FEGCreateOperator", op->tuning.qchunk, &op->tuning.qchunk, NULL));
  PetscCall(PetscOptionsBool("-feg_cuda_jacobian_shared", "Stage the element's Jacobian data in shared memory", "FEGCreateOperator", op->tuning.jacShared, &op->tuning.jacShared, NULL));
  PetscCall(PetscOptionsEnum("-feg_matfree_kernel", "matfree: quadrature-point tensors, reference operators (affine simplices), their batched-GEMM form (GPU), or sum factorisation (quadrilaterals, hexahedra)", "FEGCreateOperator", FEGMatFreeKernels, (PetscEnum)op->mfRequest, (PetscEnum *)&op->mfRequest, NULL));
  PetscCall(PetscOptionsInt("-feg_matfree_ne", "GPU refop: elements per thread (1, 2, 4, 8; 0: tuned per order)", "FEGCreateOperator", op->mf.ne, &op->mf.ne, NULL));
  PetscCall(PetscOptionsInt("-feg_matfree_nb", "GPU refop: element groups per thread block (0: tuned per order)", "FEGCreateOperator", op->mf.nb, &op->mf.nb, NULL));
  PetscCall(PetscOptionsInt("-feg_matfree_nr", "GPU refop: rows per thread, 1 or 2 (0: tuned per order)", "FEGCreateOperator", op->mf.nr, &op->mf.nr, NULL));
  op->mf.gemmMB = 64;
  PetscCall(PetscOptionsInt("-feg_matfree_gemm_mb", "GPU gemm: work space (MB) per chunk of elements; small enough for the L2 cache keeps the GEMM output there", "FEGCreateOperator", op->mf.gemmMB, &op->mf.gemmMB, NULL));
  PetscOptionsEnd();
  PetscCheck(op->mf.nr >= 0 && op->mf.nr <= 2, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "-feg_matfree_nr %" PetscInt_FMT " is not supported: allowed are 0 (tuned), 1, 2", op->mf.nr);
  PetscCheck(op->mf.gemmMB >= 1, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "-feg_matfree_gemm_mb %" PetscInt_FMT " must be at least 1", op->mf.gemmMB);
  PetscCheck(op->mf.ne >= 0 && op->mf.ne <= 8 && (op->mf.ne & (op->mf.ne - 1)) == 0, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "-feg_matfree_ne %" PetscInt_FMT " is not supported: allowed are 0 (tuned), 1, 2, 4, 8", op->mf.ne);
  PetscCheck(op->mf.nb >= 0 && op->mf.nb <= 256, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "-feg_matfree_nb %" PetscInt_FMT " must be 0 (tuned) or 1 to 256 (threads per block = dofs per element x nb, at most 1024)", op->mf.nb);
  PetscCheck(op->tuning.nentpt >= 0 && op->tuning.nentpt <= 16 && (op->tuning.nentpt & (op->tuning.nentpt - 1)) == 0, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "-feg_cuda_nentpt %" PetscInt_FMT " is not supported: allowed are 0 (automatic), 1, 2, 4, 8, 16", op->tuning.nentpt);
  PetscCheck(op->tuning.blockSize == 0 || (op->tuning.blockSize >= 32 && op->tuning.blockSize <= 1024 && op->tuning.blockSize % 32 == 0), PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "-feg_cuda_block_size %" PetscInt_FMT " must be 0 or a multiple of 32 from 32 to 1024", op->tuning.blockSize);
  PetscCheck(op->tuning.qchunk >= 0, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "-feg_cuda_qchunk %" PetscInt_FMT " must be non-negative", op->tuning.qchunk);
  PetscCall(FEGDMIsOnDevice(dm, &op->ondevice));
  {
    PetscMPIInt size;

    /* the mode only matters on the GPU; the host always assembles through MatSetValues */
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
    if (op->addtoMode == FEG_ADDTO_AUTO) op->addtoMode = size > 1 ? FEG_ADDTO_COO : FEG_ADDTO_ATOMIC;
    PetscCheck(!op->ondevice || size == 1 || op->addtoMode == FEG_ADDTO_COO, PetscObjectComm((PetscObject)dm), PETSC_ERR_SUP, "-feg_addto_mode %s works on one process; on %d processes the off-process contributions need -feg_addto_mode coo (the default)", FEGAddtoModes[op->addtoMode], (int)size);
  }

  PetscCall(PetscObjectReference((PetscObject)dm));
  op->dm = dm;
  PetscCall(PetscObjectReference((PetscObject)form));
  op->form     = form;
  op->strategy = s;
  PetscCall(FEGDiscCreate(dm, &op->disc));
#if defined(FEGPU_HAVE_CUDA)
  if (op->ondevice) PetscCall(FEGOpDevSetUp(op));
#endif
  switch (s) {
  case FEG_STRATEGY_ADDTO:
    PetscCall(FEGOpCreateMat_AddTo(op, A));
    break;
  case FEG_STRATEGY_LMA:
    PetscCall(FEGOpCreateMat_LMA(op, A));
    break;
  case FEG_STRATEGY_MATFREE:
    PetscCall(FEGOpCreateMat_MatFree(op, A));
    break;
  }
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)dm), &c));
  PetscCall(PetscContainerSetPointer(c, op));
  PetscCall(PetscContainerSetUserDestroy(c, FEGOpDestroy_Container));
  PetscCall(PetscObjectCompose((PetscObject)*A, "FEGOp", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(FEGOperatorAssemble(*A, form));
  if (view) {
    PetscViewer viewer;

    PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)dm), &viewer));
    PetscCall(FEGOpView(op, viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOperatorAssemble - recomputes an operator from a form (new coefficients or auxiliary field values, same mesh),
  reusing everything set up at creation

  Collective

  Input Parameters:
+ A    - an operator from FEGCreateOperator()
- form - the form, or NULL to keep the operator's

  Level: intermediate
@*/
PetscErrorCode FEGOperatorAssemble(Mat A, FEGForm form)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(FEGOpGet(A, &op));
  PetscCheck(op, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Mat was not created by FEGCreateOperator()");
  if (form && form != op->form) {
    PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 2);
    PetscCall(PetscObjectReference((PetscObject)form));
    PetscCall(FEGFormDestroy(&op->form));
    op->form = form;
  }
  switch (op->strategy) {
  case FEG_STRATEGY_ADDTO:
    PetscCall(FEGOpAssemble_AddTo(op, A));
    break;
  case FEG_STRATEGY_LMA:
    PetscCall(FEGOpAssemble_LMA(op, A));
    break;
  case FEG_STRATEGY_MATFREE:
    PetscCall(FEGOpAssemble_MatFree(op, A));
    break;
  }
  PetscCall(PetscObjectStateGet((PetscObject)op->form, &op->formState));
  op->auxState = 0;
  if (op->form->aux) PetscCall(PetscObjectStateGet((PetscObject)op->form->aux, &op->auxState));
  op->assembled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGOperatorGetStrategy - the strategy of an operator from FEGCreateOperator()

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGOperatorGetStrategy(Mat A, FEGStrategy *s)
{
  FEGOp op;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(FEGOpGet(A, &op));
  PetscCheck(op, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Mat was not created by FEGCreateOperator()");
  *s = op->strategy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGComputeRHS - assembles the right-hand side b(v) - a(g, v) for the free dofs, where g holds the essential boundary
  values of the DM's PetscDS (DMAddBoundary()) and zero elsewhere

  Collective

  Input Parameters:
+ dm   - the DMPlex
. form - the form (its D gives b, its C the boundary lifting)
- b    - a global Vec of dm

  Level: beginner
@*/
PetscErrorCode FEGComputeRHS(DM dm, FEGForm form, Vec b)
{
  FEGDisc      disc;
  FEGCoeff     coeff;
  Vec          bl, gl;
  PetscInt     n;
  PetscReal    gnorm;
  PetscScalar *work, *Fe, *Ke, *ge, *ba;
  const PetscScalar *ga;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 2);
  PetscValidHeaderSpecific(b, VEC_CLASSID, 3);
  PetscCall(FEGDiscCreate(dm, &disc));
  PetscCall(VecGetLocalSize(b, &n));
  PetscCheck(n == disc.nglobal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Right-hand side Vec has local size %" PetscInt_FMT " but the DM's global Vecs have %" PetscInt_FMT " (use DMCreateGlobalVector())", n, disc.nglobal);
#if defined(FEGPU_HAVE_CUDA)
  {
    PetscBool ondevice;

    PetscCall(FEGDMIsOnDevice(dm, &ondevice));
    if (ondevice) {
      PetscCall(PetscLogEventBegin(FEG_RHS, dm, b, 0, 0));
      PetscCall(FEGComputeRHS_Device(&disc, form, b));
      PetscCall(PetscLogEventEnd(FEG_RHS, dm, b, 0, 0));
      PetscCall(FEGDiscDestroy(&disc));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(PetscLogEventBegin(FEG_RHS, dm, b, 0, 0));
  PetscCall(FEGCoeffSetUp(&disc, form, &coeff));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(DMGetLocalVector(dm, &gl));
  PetscCall(VecZeroEntries(bl));
  PetscCall(VecZeroEntries(gl));
  PetscCall(DMPlexInsertBoundaryValues(dm, PETSC_TRUE, gl, 0.0, NULL, NULL, NULL));
  PetscCall(VecNorm(gl, NORM_INFINITY, &gnorm));
  PetscCall(PetscMalloc4(2 * disc.Nb * (disc.dim + 1), &work, disc.Nb, &Fe, disc.Nb * disc.Nb, &Ke, disc.Nb, &ge));
  PetscCall(VecGetArrayRead(gl, &ga));
  PetscCall(VecGetArray(bl, &ba));
  for (PetscInt e = 0; e < disc.Ne; e++) {
    const PetscInt *idx   = &disc.lidx[e * disc.Nb];
    PetscBool       lifted = PETSC_FALSE;

    PetscCall(FEGCoeffEvaluate(&disc, &coeff, e));
    PetscCall(FEGIntegrateElementVector(&disc, &coeff, e, work, Fe));
    if (gnorm > 0.0) {
      for (PetscInt a = 0; a < disc.Nb; a++) {
        ge[a] = ga[idx[a]];
        if (ge[a] != 0.0) lifted = PETSC_TRUE;
      }
    }
    if (lifted) {
      PetscCall(FEGIntegrateElementMatrix(&disc, &coeff, e, work, Ke));
      for (PetscInt a = 0; a < disc.Nb; a++)
        for (PetscInt c = 0; c < disc.Nb; c++) Fe[a] -= Ke[a * disc.Nb + c] * ge[c];
    }
    for (PetscInt a = 0; a < disc.Nb; a++) ba[idx[a]] += Fe[a];
  }
  PetscCall(VecRestoreArray(bl, &ba));
  PetscCall(VecRestoreArrayRead(gl, &ga));
  PetscCall(VecZeroEntries(b));
  PetscCall(DMLocalToGlobal(dm, bl, ADD_VALUES, b));
  PetscCall(PetscFree4(work, Fe, Ke, ge));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscCall(DMRestoreLocalVector(dm, &gl));
  PetscCall(FEGCoeffDestroy(&coeff));
  PetscCall(PetscLogEventEnd(FEG_RHS, dm, b, 0, 0));
  PetscCall(FEGDiscDestroy(&disc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGDMCreateMatrix_Private(DM dm, Mat *A)
{
  FEGForm form;

  PetscFunctionBegin;
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCheck(form, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONGSTATE, "No fegpu form on this DM");
  PetscCall(FEGCreateOperator(dm, form, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Assembles fegpu operators only when the form or its auxiliary field changed; any other Mat (a user's AIJ
   preconditioning matrix, say) is assembled through a temporary Addto operator */
static PetscErrorCode FEGKSPAssemble_Private(DM dm, FEGForm form, Mat M)
{
  FEGOp            op;
  PetscObjectState fs, as = 0;

  PetscFunctionBegin;
  PetscCall(FEGOpGet(M, &op));
  if (op) {
    PetscCall(PetscObjectStateGet((PetscObject)form, &fs));
    if (form->aux) PetscCall(PetscObjectStateGet((PetscObject)form->aux, &as));
    if (!op->assembled || op->form != form || fs != op->formState || as != op->auxState) PetscCall(FEGOperatorAssemble(M, form));
  } else {
    Mat         T;
    FEGStrategy s = form->strategy;

    form->strategy = FEG_STRATEGY_ADDTO;
    PetscCall(FEGCreateOperator(dm, form, &T));
    form->strategy = s;
    PetscCall(MatCopy(T, M, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&T));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGKSPComputeOperators_Private(KSP ksp, Mat A, Mat P, void *ctx)
{
  DM      dm;
  FEGForm form;

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &dm));
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCall(FEGKSPAssemble_Private(dm, form, A));
  if (P != A) PetscCall(FEGKSPAssemble_Private(dm, form, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FEGKSPComputeRHS_Private(KSP ksp, Vec b, void *ctx)
{
  DM      dm;
  FEGForm form;

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &dm));
  PetscCall(FEGDMGetForm(dm, &form));
  PetscCall(FEGComputeRHS(dm, form, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMSetForm - attaches a form to a DMPlex so that DMCreateMatrix() returns fegpu's operator and a KSP with
  KSPSetDM() gets the operator and right-hand side through DMKSPSetComputeOperators()/DMKSPSetComputeRHS()

  Logically Collective

  Input Parameters:
+ dm   - the DMPlex with its discretization set up
- form - the form

  Level: beginner
@*/
PetscErrorCode FEGDMSetForm(DM dm, FEGForm form)
{
  PetscBool isplex;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 2);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMPLEX, &isplex));
  PetscCheck(isplex, PetscObjectComm((PetscObject)dm), PETSC_ERR_ARG_WRONG, "fegpu needs a DMPlex, not a %s", ((PetscObject)dm)->type_name);
  PetscCall(PetscObjectCompose((PetscObject)dm, "FEGForm", (PetscObject)form));
  dm->ops->creatematrix = FEGDMCreateMatrix_Private;
  PetscCall(DMKSPSetComputeOperators(dm, FEGKSPComputeOperators_Private, NULL));
  PetscCall(DMKSPSetComputeRHS(dm, FEGKSPComputeRHS_Private, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGDMGetForm - the form attached with FEGDMSetForm(), or NULL

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGDMGetForm(DM dm, FEGForm *form)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscCall(PetscObjectQuery((PetscObject)dm, "FEGForm", (PetscObject *)form));
  PetscFunctionReturn(PETSC_SUCCESS);
}
