/* fegpu's private form layer (src/form): the form object, and coefficients evaluated on a discretization */
#pragma once

#include <fegpu/private/fegspaceimpl.h>

/* ---------------------------------------------------------------------------------------------------------- forms */
struct _FEGFormOps {
  PetscErrorCode (*view)(FEGForm, PetscViewer);
};

struct _p_FEGForm {
  PETSCHEADER(struct _FEGFormOps);
  PetscScalar    C0[FEG_MAX_DERIV * FEG_MAX_DERIV]; /* constant part, C0[i*4+j], i trial and j test derivative */
  PetscScalar    D0[FEG_MAX_DERIV];
  DM             auxdm; /* auxiliary field w: any scalar or vector PetscFE on a DM sharing the operator's mesh */
  Vec            aux;   /* global Vec of auxdm */
  PetscInt       Nw;    /* components of w, 0 without an auxiliary field */
  PetscInt       Nlin;  /* components the linear map was given for; must equal Nw at use */
  PetscScalar   *A, *B; /* C_ij += A[(i*4+j)*Nw+k] w_k, D_j += B[j*Nw+k] w_k */
  FEGPointwiseFn pointwise;
  void          *pwctx;
  Vec            Wq;            /* values at the quadrature points (FEGFormSetQuadratureCoefficient()), or NULL */
  PetscInt       Nqc;           /* values per point */
  PetscScalar   *Aq, *Bq;       /* C_ij += Aq[(i*4+j)*Nqc+k] Wq_k, D_j += Bq[j*Nqc+k] Wq_k */
  FEGScatter     rhsscatter;    /* FEGFormSetRHSScatter() */
  PetscBool      rhsscatterset; /* set by the function (else the options database decides) */
};

/* C and D the same everywhere: no pointwise function, no auxiliary-field map, no quadrature-point values (what the
   device's coefficient setup, FEGDevCoeffPrepare(), calls FEG_DEV_COEFF_CONSTANT) */
static inline PetscBool FEGFormConstantC(FEGForm form)
{
  return (PetscBool)(!form->pointwise && !(form->auxdm && form->A) && !form->Wq);
}

PETSC_INTERN PetscErrorCode FEGCheckFinite(MPI_Comm, const char[], const PetscScalar[], PetscInt, PetscInt, const char[]);
PETSC_INTERN PetscErrorCode FEGFormCheckCompatible(FEGForm, DM);
PETSC_EXTERN PetscErrorCode FEGFormCellwiseConstant(FEGForm, PetscBool *);
PETSC_EXTERN PetscErrorCode FEGFormBlockPattern(FEGForm, PetscBool *, PetscBool *, PetscBool *, PetscBool *);
PETSC_INTERN PetscErrorCode FEGFormCheckQuadrature(FEGForm, const FEGDisc *);

/* ----------------------------------------------------------------------------------- host coefficients, elements */
/* Scratch and state for evaluating a form on one discretization */
typedef struct {
  FEGForm            form;
  PetscBool          constant; /* C and D identical at every quadrature point */
  Vec                auxloc;
  PetscTabulation    Taux; /* auxiliary basis at the main quadrature points */
  PetscInt           NbAux;
  PetscScalar       *C, *D; /* Nq x 16 and Nq x 4 for the current cell */
  PetscScalar       *w, *gradw;
  const PetscScalar *Wq; /* the form's quadrature-point values, read on the host, or NULL */
} FEGCoeff;

PETSC_EXTERN PetscErrorCode FEGCoeffSetUp(FEGDisc *, FEGForm, FEGCoeff *);
PETSC_EXTERN PetscErrorCode FEGCoeffEvaluate(FEGDisc *, FEGCoeff *, PetscInt);
PETSC_EXTERN PetscErrorCode FEGCoeffDestroy(FEGCoeff *);

#if defined(FEGPU_HAVE_CUDA)
/* -------------------------------------------------------------------------------------------- on the device (CUDA) */
  #include <fegpu/private/fegformcuda.h>

/* A Vec's values while a kernel reads them: a CUDA Vec's own device array, or a host Vec's copied into buf (kept
   between assemblies, grown as needed) */
typedef struct {
  Vec                v;
  PetscBool          cuda;
  const PetscScalar *h;
  double            *buf;
  PetscInt           nbuf;
} FEGDevVecRead;

/* Coefficient data kept on the device between assemblies */
typedef struct {
  double       *A, *Bl, *TA, *Cq, *Dq;
  int          *aidx;
  int           Nw, NbA;
  DM            auxdm;     /* the auxiliary DM TA and aidx were built for (borrowed) */
  PetscBool     auxdirect; /* its local and global vectors coincide (FEGDMSectionsCoincide()): the field is read */
  FEGDevVecRead aux;       /* the auxiliary field's local vector, or the field */
  FEGDevVecRead wq;        /* the form's quadrature-point values */
  double       *qA, *qB;   /* their map */
  int          *ecell;     /* the discretization's element order (FEGDiscCell()), when it is not the cells' */
  double       *wqe;       /* the quadrature-point values in that order, nwqe of them */
  size_t        nwqe;
} FEGDevCoeffCache;

PETSC_INTERN PetscErrorCode FEGDevCoeffPrepare(FEGDisc *, FEGForm, FEGDevCoeffCache *, FEGDevCoeff *);
PETSC_INTERN PetscErrorCode FEGDevCoeffRelease(FEGForm, FEGDevCoeffCache *);
PETSC_INTERN PetscErrorCode FEGDevCoeffCacheDestroy(FEGDevCoeffCache *);
#endif
