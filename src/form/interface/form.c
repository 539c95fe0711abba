#include <fegpu/private/fegformimpl.h>

static PetscErrorCode FEGFormDestroy_Private(FEGForm form)
{
  PetscFunctionBegin;
  PetscCall(DMDestroy(&form->auxdm));
  PetscCall(VecDestroy(&form->aux));
  PetscCall(PetscFree2(form->A, form->B));
  PetscCall(VecDestroy(&form->Wq));
  PetscCall(PetscFree2(form->Aq, form->Bq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormCreate - creates an empty bilinear form a(u,v) = int sum_ij C_ij d_i u d_j v and linear form b(v) = int sum_j D_j d_j v

  Collective

  Input Parameter:
. comm - the communicator

  Output Parameter:
. form - the form, with C = 0 and D = 0

  Level: beginner

.seealso: FEGFormSetConstant(), FEGFormSetAuxiliaryField(), FEGFormSetLinearCoefficient(), FEGCreateOperator()
@*/
PetscErrorCode FEGFormCreate(MPI_Comm comm, FEGForm *form)
{
  FEGForm f;

  PetscFunctionBegin;
  FEGAssertPointer(form, 2);
  PetscCall(FEGInitializePackage());
  PetscCall(PetscHeaderCreate(f, FEG_FORM_CLASSID, "FEGForm", "Finite element bilinear form", "FEG", comm, FEGFormDestroy, FEGFormView));
  *form = f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormDestroy - destroys a form

  Collective

  Level: beginner
@*/
PetscErrorCode FEGFormDestroy(FEGForm *form)
{
  PetscFunctionBegin;
  if (!form || !*form) PetscFunctionReturn(PETSC_SUCCESS);
  PetscValidHeaderSpecific(*form, FEG_FORM_CLASSID, 1);
  if (--((PetscObject)*form)->refct > 0) {
    *form = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FEGFormDestroy_Private(*form));
  PetscCall(PetscHeaderDestroy(form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormView - prints the coefficients of a form

  Collective

  Level: intermediate
@*/
PetscErrorCode FEGFormView(FEGForm form, PetscViewer viewer)
{
  PetscBool iascii;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)form), &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)form, viewer));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "constant C (row: trial derivative, column: test derivative):\n"));
  for (PetscInt i = 0; i < FEG_MAX_DERIV; i++) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  %g %g %g %g\n", (double)PetscRealPart(form->C0[i * 4 + 0]), (double)PetscRealPart(form->C0[i * 4 + 1]), (double)PetscRealPart(form->C0[i * 4 + 2]), (double)PetscRealPart(form->C0[i * 4 + 3])));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "constant D: %g %g %g %g\n", (double)PetscRealPart(form->D0[0]), (double)PetscRealPart(form->D0[1]), (double)PetscRealPart(form->D0[2]), (double)PetscRealPart(form->D0[3])));
  if (form->auxdm) PetscCall(PetscViewerASCIIPrintf(viewer, "auxiliary field with %" PetscInt_FMT " components, %s\n", form->Nw, form->A ? "linear map" : "no linear map"));
  if (form->pointwise) PetscCall(PetscViewerASCIIPrintf(viewer, "pointwise function (host)\n"));
  if (form->Wq) PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " values at every quadrature point, linear map to C and D\n", form->Nqc));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormSetOptionsPrefix - sets the prefix of the form's options (-<prefix>feg_form_view), which FEGCreateOperator()
  also gives the operators it creates from the form (-<prefix>feg_op_type, ...)

  Logically Collective

  Level: intermediate
@*/
PetscErrorCode FEGFormSetOptionsPrefix(FEGForm form, const char prefix[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)form, prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormSetFromOptions - reads -feg_form_view

  Collective

  Options Database Key:
. -feg_form_view - print the form

  Level: beginner
@*/
PetscErrorCode FEGFormSetFromOptions(FEGForm form)
{
  PetscBool view = PETSC_FALSE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  PetscObjectOptionsBegin((PetscObject)form);
  PetscCall(PetscOptionsBool("-feg_form_view", "Print the form", "FEGFormView", view, &view, NULL));
  PetscOptionsEnd();
  if (view) PetscCall(FEGFormView(form, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormSetRHSScatter - how `FEGComputeRHS()` on the GPU adds the element vectors (with their Dirichlet lifting) into
  the right-hand side

  Logically Collective

  Input Parameters:
+ form    - the form
- scatter - `FEG_SCATTER_ATOMIC` (default) or `FEG_SCATTER_GATHER`: deterministically, the same sums in the same
            order on every run

  Options Database Key:
. -feg_form_rhs_scatter <atomic,gather> - the same, read with the form's prefix by each `FEGComputeRHS()` on the GPU
  while the function has not set it (deprecated name: -feg_rhs_scatter)

  Level: intermediate

.seealso: FEGFormGetRHSScatter(), FEGComputeRHS(), FEGOpSetScatter()
@*/
PetscErrorCode FEGFormSetRHSScatter(FEGForm form, FEGScatter scatter)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(form, scatter, 2);
  PetscCheck(scatter == FEG_SCATTER_ATOMIC || scatter == FEG_SCATTER_GATHER, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "Unknown scatter %d; allowed: atomic, gather", (int)scatter);
  form->rhsscatter    = scatter;
  form->rhsscatterset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormGetRHSScatter - the scatter `FEGComputeRHS()` uses on the GPU: the one `FEGFormSetRHSScatter()` set, else
  -feg_form_rhs_scatter's

  Collective while the function has not set it (the options database is read)

  Level: intermediate

.seealso: FEGFormSetRHSScatter()
@*/
PetscErrorCode FEGFormGetRHSScatter(FEGForm form, FEGScatter *scatter)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  FEGAssertPointer(scatter, 2);
  *scatter = form->rhsscatter;
  if (form->rhsscatterset) PetscFunctionReturn(PETSC_SUCCESS);
  PetscObjectOptionsBegin((PetscObject)form);
  PetscCall(PetscOptionsDeprecated("-feg_rhs_scatter", "-feg_form_rhs_scatter", "0.3", NULL));
  PetscCall(PetscOptionsEnum("-feg_form_rhs_scatter", "GPU right-hand sides: element vectors added by atomics or by a deterministic gather", "FEGFormSetRHSScatter", FEGScatters, (PetscEnum)*scatter, (PetscEnum *)scatter, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Coefficients must be finite: a NaN or Inf named with its place here beats a NaN solution found later */
PetscErrorCode FEGCheckFinite(MPI_Comm comm, const char name[], const PetscScalar v[], PetscInt n, PetscInt ncol, const char where[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    if (PetscLikely(!PetscIsInfOrNanScalar(v[i]))) continue;
    if (ncol > 1) SETERRQ(comm, PETSC_ERR_FP, "%s[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g is not finite%s", name, i / ncol, i % ncol, (double)PetscRealPart(v[i]), where ? where : "");
    SETERRQ(comm, PETSC_ERR_FP, "%s[%" PetscInt_FMT "] = %g is not finite%s", name, i, (double)PetscRealPart(v[i]), where ? where : "");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormSetConstant - sets the constant parts of C and D

  Logically Collective

  Input Parameters:
+ form - the form
. C    - 16 values, C[i*4+j] multiplies d_i u d_j v (i trial, j test; 0 = value, 1..3 = x, y, z derivative), or NULL to keep
- D    - 4 values, D[j] multiplies d_j v, or NULL to keep

  Level: beginner
@*/
PetscErrorCode FEGFormSetConstant(FEGForm form, const PetscScalar C[], const PetscScalar D[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  if (C) PetscCall(FEGCheckFinite(PetscObjectComm((PetscObject)form), "C", C, FEG_MAX_DERIV * FEG_MAX_DERIV, FEG_MAX_DERIV, " (FEGFormSetConstant())"));
  if (D) PetscCall(FEGCheckFinite(PetscObjectComm((PetscObject)form), "D", D, FEG_MAX_DERIV, 1, " (FEGFormSetConstant())"));
  if (C) PetscCall(PetscArraycpy(form->C0, C, FEG_MAX_DERIV * FEG_MAX_DERIV));
  if (D) PetscCall(PetscArraycpy(form->D0, D, FEG_MAX_DERIV));
  PetscCall(PetscObjectStateIncrease((PetscObject)form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormGetConstant - gets the constant parts of C (16 values) and D (4 values); either may be NULL

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGFormGetConstant(FEGForm form, PetscScalar C[], PetscScalar D[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  if (C) PetscCall(PetscArraycpy(C, form->C0, FEG_MAX_DERIV * FEG_MAX_DERIV));
  if (D) PetscCall(PetscArraycpy(D, form->D0, FEG_MAX_DERIV));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormSetAuxiliaryField - gives the field w from which coefficients are computed at quadrature points

  Logically Collective

  Input Parameters:
+ form  - the form
. auxdm - a DMPlex on the same mesh as the operator's DM (for example DMClone() of it) with one PetscFE field of Nw components
- aux   - a global Vec of auxdm (for example a velocity field, a DG0 field for per-cell coefficients, or the current solution)

  Notes:
  The Vec is referenced, not copied: changing it and calling FEGOperatorAssemble() re-assembles with the new values.
  How w enters C and D is set with FEGFormSetLinearCoefficient() and/or FEGFormSetPointwiseCoefficient().

  Level: beginner
@*/
PetscErrorCode FEGFormSetAuxiliaryField(FEGForm form, DM auxdm, Vec aux)
{
  PetscInt     Nf, Nw, n, nsec;
  PetscObject  disc;
  PetscClassId id;
  PetscSection gsec;
  DM           vdm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  PetscValidHeaderSpecific(auxdm, DM_CLASSID, 2);
  PetscValidHeaderSpecific(aux, VEC_CLASSID, 3);
  PetscCall(DMGetNumFields(auxdm, &Nf));
  PetscCheck(Nf == 1, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_WRONG, "The auxiliary DM has %" PetscInt_FMT " fields; fegpu needs exactly one PetscFE field on it", Nf);
  PetscCall(DMGetField(auxdm, 0, NULL, &disc));
  PetscCall(PetscObjectGetClassId(disc, &id));
  PetscCheck(id == PETSCFE_CLASSID, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_WRONG, "The auxiliary DM's field is not a PetscFE");
  PetscCall(PetscFEGetNumComponents((PetscFE)disc, &Nw));
  PetscCall(VecGetDM(aux, &vdm));
  PetscCheck(!vdm || vdm == auxdm, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_WRONG, "The auxiliary Vec belongs to another DM than the auxiliary DM given");
  PetscCall(DMGetGlobalSection(auxdm, &gsec));
  PetscCall(PetscSectionGetConstrainedStorageSize(gsec, &nsec));
  PetscCall(VecGetLocalSize(aux, &n));
  PetscCheck(n == nsec, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The auxiliary Vec has local size %" PetscInt_FMT " but a global Vec of the auxiliary DM has %" PetscInt_FMT, n, nsec);
  PetscCall(PetscObjectReference((PetscObject)auxdm));
  PetscCall(PetscObjectReference((PetscObject)aux));
  PetscCall(DMDestroy(&form->auxdm));
  PetscCall(VecDestroy(&form->aux));
  form->auxdm = auxdm;
  form->aux   = aux;
  form->Nw    = Nw;
  PetscCall(PetscObjectStateIncrease((PetscObject)form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormGetAuxiliaryField - gets the auxiliary DM and Vec (borrowed references, NULL if none)

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGFormGetAuxiliaryField(FEGForm form, DM *auxdm, Vec *aux)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  if (auxdm) *auxdm = form->auxdm;
  if (aux) *aux = form->aux;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormSetLinearCoefficient - makes C and D depend linearly on the auxiliary field: C_ij += sum_k A[(i*4+j)*Nw+k] w_k,
  D_j += sum_k B[j*Nw+k] w_k

  Logically Collective

  Input Parameters:
+ form - the form
. Nw   - number of components of w (must match the auxiliary field's at operator creation)
. A    - 16*Nw values, or NULL for zero
- B    - 4*Nw values, or NULL for zero

  Notes:
  This is evaluated on the device by the GPU backends; FEGFormSetPointwiseCoefficient() is more general but host-only.

  Level: beginner
@*/
PetscErrorCode FEGFormSetLinearCoefficient(FEGForm form, PetscInt Nw, const PetscScalar A[], const PetscScalar B[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  PetscCheck(Nw > 0, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "Number of auxiliary components %" PetscInt_FMT " must be positive", Nw);
  if (A) PetscCall(FEGCheckFinite(PetscObjectComm((PetscObject)form), "A", A, FEG_MAX_DERIV * FEG_MAX_DERIV * Nw, Nw, " (FEGFormSetLinearCoefficient(), A[ij][k])"));
  if (B) PetscCall(FEGCheckFinite(PetscObjectComm((PetscObject)form), "B", B, FEG_MAX_DERIV * Nw, Nw, " (FEGFormSetLinearCoefficient(), B[j][k])"));
  PetscCall(PetscFree2(form->A, form->B));
  PetscCall(PetscCalloc2(FEG_MAX_DERIV * FEG_MAX_DERIV * Nw, &form->A, FEG_MAX_DERIV * Nw, &form->B));
  if (A) PetscCall(PetscArraycpy(form->A, A, FEG_MAX_DERIV * FEG_MAX_DERIV * Nw));
  if (B) PetscCall(PetscArraycpy(form->B, B, FEG_MAX_DERIV * Nw));
  form->Nlin = Nw;
  PetscCall(PetscObjectStateIncrease((PetscObject)form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FEGFormSetPointwiseCoefficient - sets a function that computes C and D at each quadrature point from x, w and grad w

  Logically Collective

  Level: intermediate

.seealso: FEGPointwiseFn, FEGFormSetLinearCoefficient()
@*/
PetscErrorCode FEGFormSetPointwiseCoefficient(FEGForm form, FEGPointwiseFn fn, void *ctx)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  form->pointwise = fn;
  form->pwctx     = ctx;
  PetscCall(PetscObjectStateIncrease((PetscObject)form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormSetQuadratureCoefficient - gives the form values at every quadrature point of every local cell, added to C and
  D through a linear map as the auxiliary field's are: C_ij += sum_k A[(i*4+j)*nc+k] W_k, D_j += sum_k B[j*nc+k] W_k

  Logically Collective

  Input Parameters:
+ form - the form
. W    - nc values per point, from `FEGDMCreateQuadratureVec()` on the operator's DM (block size nc), or NULL to remove them
. nc   - values per point
. A    - 16*nc values (i the trial derivative, j the test derivative, as in `FEGPointwiseFn`), or NULL for none
- B    - 4*nc values, or NULL for none

  Level: intermediate

  Notes:
  Point q of local cell cStart + e holds W[(e*Nq + q)*nc + k], Nq the points of fegpu's quadrature for the DM's
  element; `FEGDMCreateQuadratureCoordinates()` gives the points in the same layout. When the DM's vectors are CUDA
  vectors W is one too and the kernels read it on the GPU: filled there (a kernel of your own on
  VecCUDAGetArrayWrite(), or Vec operations that run on the GPU) it never crosses to the host. A scalar field such as a
  diffusivity kappa(x) is one value per point with A putting it on the diagonal of the gradient block. The form keeps a
  reference to W; each assembly and `FEGComputeRHS()` read the values it holds then. A pointwise function, if any, sees
  C and D with these values added.

.seealso: FEGDMCreateQuadratureVec(), FEGDMCreateQuadratureCoordinates(), FEGFormSetLinearCoefficient(), FEGFormSetPointwiseCoefficient()
@*/
PetscErrorCode FEGFormSetQuadratureCoefficient(FEGForm form, Vec W, PetscInt nc, const PetscScalar A[], const PetscScalar B[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  if (W) PetscValidHeaderSpecific(W, VEC_CLASSID, 2);
  if (W) {
    PetscCheck(nc >= 1 && nc <= 64, PetscObjectComm((PetscObject)form), PETSC_ERR_ARG_OUTOFRANGE, "Values per quadrature point %" PetscInt_FMT " must be between 1 and 64", nc);
    if (A) PetscCall(FEGCheckFinite(PetscObjectComm((PetscObject)form), "A", A, 16 * nc, nc, " (FEGFormSetQuadratureCoefficient(), A[ij][k])"));
    if (B) PetscCall(FEGCheckFinite(PetscObjectComm((PetscObject)form), "B", B, 4 * nc, nc, " (FEGFormSetQuadratureCoefficient(), B[j][k])"));
    PetscCall(PetscObjectReference((PetscObject)W));
  }
  PetscCall(VecDestroy(&form->Wq));
  PetscCall(PetscFree2(form->Aq, form->Bq));
  form->Wq  = W;
  form->Nqc = W ? nc : 0;
  if (W) {
    PetscCall(PetscCalloc2(16 * nc, &form->Aq, 4 * nc, &form->Bq));
    if (A) PetscCall(PetscArraycpy(form->Aq, A, 16 * nc));
    if (B) PetscCall(PetscArraycpy(form->Bq, B, 4 * nc));
  }
  PetscCall(PetscObjectStateIncrease((PetscObject)form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormGetQuadratureCoefficient - gets the values set by `FEGFormSetQuadratureCoefficient()` (borrowed, NULL if none)
  and their number per point

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGFormGetQuadratureCoefficient(FEGForm form, Vec *W, PetscInt *nc)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  if (W) *W = form->Wq;
  if (nc) *nc = form->Nqc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The quadrature-point values must have the discretization's layout: a Vec made for another DM, element or number of
   values would be read out of place */
PetscErrorCode FEGFormCheckQuadrature(FEGForm form, const FEGDisc *disc)
{
  PetscInt  n, want;
  PetscReal nrm;

  PetscFunctionBegin;
  if (!form->Wq) PetscFunctionReturn(PETSC_SUCCESS);
  want = disc->Ne * disc->Nq * form->Nqc;
  PetscCall(VecGetLocalSize(form->Wq, &n));
  PetscCheck(n == want, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The form's quadrature-point vector has local size %" PetscInt_FMT ", but this DM's %" PetscInt_FMT " local cells x %" PetscInt_FMT " quadrature points x %" PetscInt_FMT " values need %" PetscInt_FMT ": create it with FEGDMCreateQuadratureVec(dm, %" PetscInt_FMT ", &W) on the operator's DM", n,
             disc->Ne, disc->Nq, form->Nqc, want, form->Nqc);
  /* the values may have changed since they were set; one reduction per assembly */
  PetscCall(VecNorm(form->Wq, NORM_INFINITY, &nrm));
  PetscCheck(!PetscIsInfOrNanReal(nrm), PetscObjectComm((PetscObject)form->Wq), PETSC_ERR_FP, "The form's quadrature-point vector holds a NaN or Inf (max norm %g)", (double)nrm);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormIsSymmetric - whether a(u,v) = a(v,u) can be guaranteed from the coefficients (C and the linear map symmetric,
  no pointwise function or quadrature-point values); used to choose CG over GMRES

  Not Collective

  Level: intermediate
@*/
PetscErrorCode FEGFormIsSymmetric(FEGForm form, PetscBool *sym)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(form, FEG_FORM_CLASSID, 1);
  *sym = form->pointwise || form->Wq ? PETSC_FALSE : PETSC_TRUE;
  for (PetscInt i = 0; i < FEG_MAX_DERIV; i++) {
    for (PetscInt j = 0; j < i; j++) {
      if (form->C0[i * 4 + j] != form->C0[j * 4 + i]) *sym = PETSC_FALSE;
      for (PetscInt k = 0; form->A && k < form->Nlin; k++)
        if (form->A[(i * 4 + j) * form->Nlin + k] != form->A[(j * 4 + i) * form->Nlin + k]) *sym = PETSC_FALSE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormCreateAdvectionDiffusion - the advection-diffusion form mass*m(u,v) + dscale*d(u,v) + ascale*a(u,v) of
  Markall et al. (eqs. 11-13): m(u,v) = int u v, d(u,v) = int grad v . kappa grad u, a(u,v) = int v (vel . grad u)

  Collective

  Input Parameters:
+ comm   - communicator
. dim    - spatial dimension
. mass   - mass scaling (1 for a mass matrix, 0 for none)
. dscale - diffusion scaling (for example dt/2 in Crank-Nicolson)
. kappa  - dim x dim diffusivity tensor, row-major (kappa[k*dim+l] couples d_k v and d_l u), or NULL for none
. ascale - advection scaling (for example dt)
. veldm  - DM of the velocity field (first dim components are used), or NULL for no advection
- vel    - global Vec of veldm

  Output Parameter:
. form - the form

  Level: beginner
@*/
PetscErrorCode FEGFormCreateAdvectionDiffusion(MPI_Comm comm, PetscInt dim, PetscScalar mass, PetscScalar dscale, const PetscScalar kappa[], PetscScalar ascale, DM veldm, Vec vel, FEGForm *form)
{
  PetscScalar C[16] = {0};

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "Dimension %" PetscInt_FMT " must be 1, 2 or 3", dim);
  PetscCall(FEGFormCreate(comm, form));
  C[0] = mass;
  for (PetscInt k = 0; kappa && k < dim; k++)
    for (PetscInt l = 0; l < dim; l++) C[(l + 1) * 4 + (k + 1)] = dscale * kappa[k * dim + l];
  PetscCall(FEGFormSetConstant(*form, C, NULL));
  if (veldm) {
    PetscScalar *A;
    PetscInt     Nw;

    PetscCall(FEGFormSetAuxiliaryField(*form, veldm, vel));
    Nw = (*form)->Nw;
    PetscCheck(Nw >= dim, comm, PETSC_ERR_ARG_WRONG, "The velocity field has %" PetscInt_FMT " components, fewer than the dimension %" PetscInt_FMT, Nw, dim);
    PetscCall(PetscCalloc1(16 * Nw, &A));
    for (PetscInt l = 0; l < dim; l++) A[((l + 1) * 4 + 0) * Nw + l] = ascale;
    PetscCall(FEGFormSetLinearCoefficient(*form, Nw, A, NULL));
    PetscCall(PetscFree(A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  FEGFormCreateCDR - the convection-diffusion-reaction form with a full constant (dim+1)x(dim+1) matrix C and vector D
  (Kruzel, Banas, Nytko): a(u,v) = int sum_{i,j=0..dim} C_ij d_i u d_j v, b(v) = int sum_j D_j d_j v

  Collective

  Input Parameters:
+ comm - communicator
. dim  - spatial dimension
. C    - (dim+1)*(dim+1) values, row-major, row = trial derivative
- D    - dim+1 values, or NULL

  Level: beginner
@*/
PetscErrorCode FEGFormCreateCDR(MPI_Comm comm, PetscInt dim, const PetscScalar C[], const PetscScalar D[], FEGForm *form)
{
  PetscScalar C4[16] = {0}, D4[4] = {0};

  PetscFunctionBegin;
  PetscCheck(dim >= 1 && dim <= 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "Dimension %" PetscInt_FMT " must be 1, 2 or 3", dim);
  PetscCall(FEGFormCreate(comm, form));
  for (PetscInt i = 0; i <= dim; i++) {
    for (PetscInt j = 0; j <= dim; j++) C4[i * 4 + j] = C[i * (dim + 1) + j];
    if (D) D4[i] = D[i];
  }
  PetscCall(FEGFormSetConstant(*form, C4, D4));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The auxiliary field must live on the operator's mesh: same chart and cells, same distribution */
PetscErrorCode FEGFormCheckCompatible(FEGForm form, DM dm)
{
  PetscInt pS, pE, apS, apE, cS, cE, acS, acE;

  PetscFunctionBegin;
  if (!form->auxdm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMPlexGetChart(dm, &pS, &pE));
  PetscCall(DMPlexGetChart(form->auxdm, &apS, &apE));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cS, &cE));
  PetscCall(DMPlexGetHeightStratum(form->auxdm, 0, &acS, &acE));
  PetscCheck(pS == apS && pE == apE && cS == acS && cE == acE, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The form's coefficient field lives on the wrong DM: it has cells [%" PetscInt_FMT ", %" PetscInt_FMT ") and chart [%" PetscInt_FMT ", %" PetscInt_FMT ") but the operator's DM has cells [%" PetscInt_FMT ", %" PetscInt_FMT ") and chart [%" PetscInt_FMT ", %" PetscInt_FMT "); create the auxiliary DM with DMClone() of the operator's DM", acS, acE, apS, apE, cS, cE, pS, pE);
  PetscCheck(!form->A || form->Nlin == form->Nw, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The linear coefficient map was given for %" PetscInt_FMT " auxiliary components but the auxiliary field has %" PetscInt_FMT, form->Nlin, form->Nw);
  {
    PetscReal nrm;

    /* the field may have changed since it was set; one reduction per assembly */
    PetscCall(VecNorm(form->aux, NORM_INFINITY, &nrm));
    PetscCheck(!PetscIsInfOrNanReal(nrm), PetscObjectComm((PetscObject)form), PETSC_ERR_FP, "The form's auxiliary field vector holds a NaN or Inf (max norm %g)", (double)nrm);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether C is constant on each cell: no pointwise function or quadrature-point values, and any auxiliary field is piecewise constant (one basis
   function per component) */
PetscErrorCode FEGFormCellwiseConstant(FEGForm form, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = form->pointwise || form->Wq ? PETSC_FALSE : PETSC_TRUE;
  if (*flg && form->auxdm && form->A) {
    PetscObject  obj;
    PetscClassId id;
    PetscInt     Nb, Nc;

    PetscCall(DMGetField(form->auxdm, 0, NULL, &obj));
    PetscCall(PetscObjectGetClassId(obj, &id));
    if (id != PETSCFE_CLASSID) *flg = PETSC_FALSE;
    else {
      PetscCall(PetscFEGetDimension((PetscFE)obj, &Nb));
      PetscCall(PetscFEGetNumComponents((PetscFE)obj, &Nc));
      if (Nb != Nc) *flg = PETSC_FALSE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Which blocks of C can be nonzero: value-value, value trial with gradient test, gradient trial with value test,
   gradient-gradient (everything when a pointwise function sets C) */
PetscErrorCode FEGFormBlockPattern(FEGForm form, PetscBool *vv, PetscBool *vg, PetscBool *gv, PetscBool *gg)
{
  PetscBool nz[4][4];

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 4; i++)
    for (PetscInt j = 0; j < 4; j++) {
      nz[i][j] = (PetscBool)(form->pointwise || form->C0[i * 4 + j] != 0.0);
      for (PetscInt k = 0; form->A && k < form->Nlin; k++)
        if (form->A[(i * 4 + j) * form->Nlin + k] != 0.0) nz[i][j] = PETSC_TRUE;
      for (PetscInt k = 0; form->Wq && k < form->Nqc; k++)
        if (form->Aq[(i * 4 + j) * form->Nqc + k] != 0.0) nz[i][j] = PETSC_TRUE;
    }
  *vv = nz[0][0];
  *vg = *gv = *gg = PETSC_FALSE;
  for (PetscInt i = 1; i < 4; i++) {
    *vg = (PetscBool)(*vg || nz[0][i]);
    *gv = (PetscBool)(*gv || nz[i][0]);
    for (PetscInt j = 1; j < 4; j++) *gg = (PetscBool)(*gg || nz[i][j]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
