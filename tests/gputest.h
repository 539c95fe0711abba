/* What the GPU tests (tests/test_gpu*.c, make check-gpu) share: a host and a GPU operator of one form, built alike and
   compared. Needs a GPU. */
#pragma once

#include "fegtest.h"
#include <petscdevice_cuda.h>
#include <dlfcn.h>
#include <fegpu/private/fegsysimpl.h> /* FEGDeviceGetStarted() */

typedef struct {
  FEGOpType   strategy;
  const char *mode; /* -feg_op_addto_mode or -feg_op_scatter */
} gputest_variant;

/* every type in every way it adds element results */
static const gputest_variant gputest_variants[] = {
  {FEGOPADDTO,   "atomic"},
  {FEGOPADDTO,   "color" },
  {FEGOPADDTO,   "coo"   },
  {FEGOPLMA,     "atomic"},
  {FEGOPLMA,     "gather"},
  {FEGOPMATFREE, "atomic"},
  {FEGOPMATFREE, "gather"},
  {FEGOPADDTO,   "gather"}
};
#define GPUTEST_NVARIANTS 8

/* the GPUs other than dev on which this process has an active primary context, from CUDA's driver API (looked up in
   the loaded libcuda, so that the tests do not link it) */
static inline PetscErrorCode gputest_other_contexts(int dev, int *nother)
{
  void *h;
  int (*count)(int *), (*get)(int *, int), (*state)(int, unsigned *, int *);
  int n = 0;

  PetscFunctionBegin;
  *nother = 0;
  h       = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  PetscCheck(h, PETSC_COMM_SELF, PETSC_ERR_LIB, "libcuda.so.1 is not loaded: %s", dlerror());
  *(void **)&count = dlsym(h, "cuDeviceGetCount");
  *(void **)&get   = dlsym(h, "cuDeviceGet");
  *(void **)&state = dlsym(h, "cuDevicePrimaryCtxGetState");
  PetscCheck(count && get && state, PETSC_COMM_SELF, PETSC_ERR_LIB, "libcuda.so.1 lacks cuDeviceGetCount, cuDeviceGet or cuDevicePrimaryCtxGetState");
  PetscCheck(!count(&n), PETSC_COMM_SELF, PETSC_ERR_LIB, "cuDeviceGetCount failed");
  for (int i = 0; i < n; i++) {
    int      d, active = 0;
    unsigned flags;

    if (i == dev) continue;
    PetscCheck(!get(&d, i) && !state(d, &flags, &active), PETSC_COMM_SELF, PETSC_ERR_LIB, "cuDevicePrimaryCtxGetState failed on device %d", i);
    if (active) (*nother)++;
  }
  (void)dlclose(h);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* how gputest_build() makes the mesh and the form; NULL: the perturbed box and fegtest_form()'s coefficients */
typedef struct {
  PetscBool   qpoints;        /* values at the quadrature points added to the form */
  PetscBool   constant;       /* a constant-C form (form below) on an unperturbed box */
  test_form   form;           /* the constant form */
  PetscBool   symmetric;      /* FORM_SYMMETRIC on the perturbed mesh (4 faces a side at order 1) */
  const char *kernel_options; /* options inserted for the GPU operator of gputest_compare_variant() */
} gputest_setup;

static inline PetscErrorCode gputest_build(const gputest_setup *st, MPI_Comm comm, DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool gpu, PetscBool pointwise, DM *dm, DM *auxdm, Vec *aux, FEGForm *form)
{
  const gputest_setup none = {PETSC_FALSE, PETSC_FALSE, FORM_CONSTANT, PETSC_FALSE, NULL};

  PetscFunctionBegin;
  if (!st) st = &none;
  if (st->constant) {
    const PetscBool bc = fegtest_walls(cont, order);
    PetscInt        faces[3];

    faces[0] = faces[1] = faces[2] = fegtest_faces(order, bc, 2);
    PetscCall(fegtest_box(comm, ct, faces, 0.0, order, cont, bc, dm));
  } else PetscCall(fegtest_setup(comm, ct, order, cont, fegtest_walls(cont, order), 2, dm));
  if (gpu) PetscCall(DMSetVecType(*dm, VECCUDA));
  if (st->qpoints || st->constant || st->symmetric) {
    PetscCall(fegtest_make_form(*dm, st->qpoints ? FORM_QPOINTS : (st->symmetric ? FORM_SYMMETRIC : st->form), auxdm, aux, form));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(fegtest_aux(*dm, auxdm, aux));
  PetscCall(fegtest_form(comm, *auxdm, *aux, pointwise, form));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode gputest_destroy(DM *dm, DM *auxdm, Vec *aux, FEGForm *form)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(aux));
  PetscCall(FEGFormDestroy(form));
  PetscCall(DMDestroy(auxdm));
  PetscCall(DMDestroy(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest relative difference of the GPU's preconditioning matrix Pg (AIJCUSPARSE) and the host's Ph */
static inline PetscErrorCode gputest_pmat_diff(Mat Pg, Mat Ph, PetscReal *err)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatConvert(Pg, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(fegtest_matdiff(C, Ph, err));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a host (0) and GPU (1) pair of operators and what gputest_build() made for them */
static inline PetscErrorCode gputest_destroy_pair(Mat A[2], DM dm[2], DM aux[2], Vec ax[2], FEGForm f[2])
{
  PetscFunctionBegin;
  for (int g = 0; g < 2; g++) {
    PetscCall(MatDestroy(&A[g]));
    PetscCall(gputest_destroy(&dm[g], &aux[g], &ax[g], &f[g]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest relative difference of A and B (host) over MatMult, MatMultTranspose, MatMultAdd and, with diag,
   MatGetDiagonal */
static inline PetscErrorCode gputest_apply_diff(Mat A, DM dm, Mat B, DM dmh, PetscBool diag, PetscReal *err)
{
  Vec         x, y, z, xh, yh, zh;
  PetscRandom rnd;
  PetscReal   r;

  PetscFunctionBegin;
  *err = 0.0;
  PetscCall(DMCreateGlobalVector(dmh, &xh));
  PetscCall(VecDuplicate(xh, &yh));
  PetscCall(VecDuplicate(xh, &zh));
  PetscCall(DMCreateGlobalVector(dm, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)dmh), &rnd));
  PetscCall(VecSetRandom(xh, rnd));
  PetscCall(VecSetRandom(zh, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecCopy(xh, x));
  PetscCall(VecCopy(zh, z));
  for (int k = 0; k < (diag ? 4 : 3); k++) {
    if (k == 0) {
      PetscCall(MatMult(B, xh, yh));
      PetscCall(MatMult(A, x, y));
    } else if (k == 1) {
      PetscCall(MatMultTranspose(B, xh, yh));
      PetscCall(MatMultTranspose(A, x, y));
    } else if (k == 2) {
      PetscCall(MatMultAdd(B, xh, zh, yh));
      PetscCall(MatMultAdd(A, x, z, y));
    } else {
      PetscCall(MatGetDiagonal(B, yh));
      PetscCall(MatGetDiagonal(A, y));
    }
    PetscCall(fegtest_vecdiff(y, yh, &r));
    *err = PetscMax(*err, r);
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&zh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the largest relative difference between the GPU and the host operator of a variant (the matrix entry by entry for
   addto, the products and the diagonal for the shells) and between their right-hand sides */
static inline PetscErrorCode gputest_compare_variant(const gputest_setup *st, MPI_Comm comm, DMPolytopeType ct, PetscInt order, PetscBool cont, PetscBool pointwise, const gputest_variant *v, PetscReal *err)
{
  DM        dmh, dmg, auxh, auxg;
  Vec       axh, axg, bh, bg;
  FEGForm   fh, fg;
  Mat       Ah, Ag;
  PetscReal r;
  PetscBool addto;

  PetscFunctionBegin;
  *err = 0.0;
  PetscCall(PetscStrcmp(v->strategy, FEGOPADDTO, &addto));
  PetscCall(gputest_build(st, comm, ct, order, cont, PETSC_FALSE, pointwise, &dmh, &auxh, &axh, &fh));
  PetscCall(gputest_build(st, comm, ct, order, cont, PETSC_TRUE, pointwise, &dmg, &auxg, &axg, &fg));
  PetscCall(FEGFormSetOptionsPrefix(fg, "gpu_"));
  PetscCall(PetscOptionsSetValue(NULL, addto ? "-gpu_feg_op_addto_mode" : "-gpu_feg_op_scatter", v->mode));
  PetscCall(fegtest_operator(dmh, fh, v->strategy, &Ah));
  if (st && st->kernel_options) PetscCall(PetscOptionsInsertString(NULL, st->kernel_options));
  PetscCall(fegtest_operator(dmg, fg, v->strategy, &Ag));
  if (st && st->kernel_options) PetscCall(PetscOptionsClearValue(NULL, "-gpu_feg_op_integration_kernel"));
  PetscCall(PetscOptionsClearValue(NULL, addto ? "-gpu_feg_op_addto_mode" : "-gpu_feg_op_scatter"));
  if (addto) {
    Mat C;

    PetscCall(MatConvert(Ag, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(fegtest_matdiff(C, Ah, &r));
    *err = PetscMax(*err, r);
    PetscCall(MatDestroy(&C));
  } else {
    PetscCall(gputest_apply_diff(Ag, dmg, Ah, dmh, PETSC_TRUE, &r));
    *err = PetscMax(*err, r);
  }
  PetscCall(DMCreateGlobalVector(dmh, &bh));
  PetscCall(DMCreateGlobalVector(dmg, &bg));
  PetscCall(FEGComputeRHS(dmh, fh, bh));
  PetscCall(FEGComputeRHS(dmg, fg, bg));
  PetscCall(fegtest_vecdiff(bg, bh, &r));
  *err = PetscMax(*err, r);
  PetscCall(VecDestroy(&bh));
  PetscCall(VecDestroy(&bg));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&Ag));
  PetscCall(gputest_destroy(&dmh, &auxh, &axh, &fh));
  PetscCall(gputest_destroy(&dmg, &auxg, &axg, &fg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
