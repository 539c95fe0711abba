/* The host side of fegpu's CUDA backend for operators, shared by the types' device implementations (<type>cuda.c): the
   data and vector handling every element-local operator on the GPU needs (the discretization and coefficients on the
   device are the space's and the form's, in fegspaceimpl.h and fegformimpl.h). Included only by files built with CUDA. */
#pragma once

#include <fegpu/private/fegopimpl.h>
#include <fegpu/private/fegcuda.h>
#include <petscdevice_cuda.h>

/* The ghost exchange of the overlapped apply on several processes (-feg_op_halo_exchange auto, ipc, pinned), from the
   halo SF's rank lists: the values of owned dofs that other processes hold as ghosts are packed on the device and
   either written straight into the receivers' device buffers (ipc, below) or copied into pinned host memory behind the
   kernels already queued and sent with MPI point-to-point messages; what arrives is unpacked, or (sums) added in a
   fixed order. PetscSF with an MPI that is not CUDA-aware does the same through pageable memory and waits for the
   device before each message, which idled the GPU while halos moved. */
typedef struct {
  MPI_Comm     comm; /* PETSc's inner communicator, with a tag of its own */
  PetscMPIInt  tag;
  PetscMPIInt  nr, nl; /* ranks owning this process's ghosts; ranks holding ghosts of this process's dofs */
  PetscMPIInt *rranks, *lranks;
  PetscInt    *roff, *loff;         /* their segments of the ghost buffer and of the owned buffer (host) */
  int          ng, no;              /* entries of the ghost and owned buffers */
  int         *gidx, *oidx;         /* local index of each ghost entry; global-vector index of each owned entry (device) */
  int          nsum;                /* owned dofs that receive sums, */
  int         *srow, *soff, *slist; /* their index, and the owned-buffer entries added into each (device) */
  double      *dg, *dn;             /* device buffers: ghost entries, owned entries */
  double      *dy;                  /* ghost sums a kernel with global indices adds in place, in ghost order */
  double      *hg, *hn;             /* pinned host buffers of the same */
  MPI_Request *req;
  cudaEvent_t  packed, gread, nread; /* a buffer copied down; the ghost and owned host buffers read by the device */
  /* device to device (CUDA IPC, -feg_op_halo_exchange ipc): the packing kernel writes each entry straight into the
     receiving process's dg (forward) or dn (backward), records an interprocess event and sends an empty message; the
     receiver's stream waits on that event. No host copy, and the host never waits for the device. */
  PetscBool    ipc;
  double     **fptr, **bptr; /* where owned entry k (forward) and ghost entry k (backward) go in another process (device) */
  cudaEvent_t  evf, evb;     /* this process's, recorded after packing forward and backward */
  cudaEvent_t *wf, *wb;      /* the senders' of what this process receives: rranks' evf, lranks' evb (opened) */
  void       **opened;       /* the other processes' buffers mapped here: rranks' dn, lranks' dg */
  int          lastdir;      /* the last exchange's direction (0 forward, 1 backward, -1 none): two in a row sync */
} FEGDevHalo;

/* What every operator type keeps on the device */
typedef struct {
  FEGDevDisc       d;
  FEGDevCoeffCache cc;
  FEGDevTuning     tune;
  PetscBool        direct;       /* one process, no constraints: local and global vectors coincide, no DMGlobalToLocal */
  PetscBool        unique;       /* no dof is shared by two elements */
  PetscBool        contig;       /* element e owns dofs e*Nb..e*Nb+Nb-1 */
  PetscBool        covering;     /* unique, and every local dof lies in an element */
  int             *toff, *tlist; /* dof -> element entries (-feg_op_scatter gather) */
  double          *ybuf;         /* per-entry results the gather sums */
  /* the overlapped apply (not direct, -feg_op_halo_overlap): fegpu moves the owned dofs itself, xchg or PetscSF the ghosts */
  PetscBool   overlap;     /* this path is taken */
  PetscBool   xlzeroed;    /* the local work vector's constrained entries, read as zeros and never written, are zero */
  PetscSF     halo;        /* leaves: the local ghost dofs; roots: their owners' entries of the global vector (several processes) */
  FEGDevHalo *xchg;        /* fegpu's exchange over halo's graph (-feg_op_halo_exchange auto, ipc, pinned), or NULL: PetscSF's */
  int        *lcode;       /* with xchg: each local dof's index in the process's part of the global vector, -2-k for the
                              ghost entry k of xchg's buffers, -1 constrained (device): for kernels that index the global
                              vectors (gindex) */
  int         nown;        /* owned unconstrained dofs */
  int        *lown, *gown; /* their local index and their index in the process's part of the global vector (device; the
                              discretization's, FEGDiscGetDevPairs()) */
  PetscInt    nint;        /* elements 0..nint-1 touch no ghost dof (FEGMeshReorder() puts the others last) */
  PetscInt    nfirst;      /* of them, the ones applied while ghost values arrive; the rest run while sums leave */
  /* one process with constraints, or several with lcode: a type whose kernel reads and adds through global indices,
     skipping the constrained dofs (-1) and reaching the ghosts in xchg's buffers (< -1), applies on the global vectors
     with no copies around the kernel */
  const PetscInt *l2g;    /* global index of each local dof, -1 for a constrained one (host; the discretization's) */
  PetscBool       gindex; /* the type's kernel indexes the global vector through l2g */
} FEGDevOp;

PETSC_INTERN PetscErrorCode FEGDevOpSetUp(FEGOp, PetscBool, const FEGTuning *, FEGScatter, FEGDevOp *);
PETSC_INTERN PetscErrorCode FEGDiscLayout(FEGDisc *, PetscBool *, PetscBool *, PetscBool *, PetscBool *);
PETSC_INTERN PetscErrorCode FEGDevOpDestroy(FEGDevOp *);
PETSC_INTERN size_t         FEGDevOpBytes(const FEGDevOp *);

/* A type's kernel on the device: kernel(op, L) adds the action (or with L->diag the diagonal) of elements L->e0..e1-1
   into L->y (fegcuda.h's FEGDevLaunch) */
typedef PetscErrorCode (*FEGDevApplyFn)(FEGOp, const FEGDevLaunch *);
/* y (+)= A x or A^T x on the device through kernel, on local arrays (or, direct or gindex, the global ones), in one range
   or in the overlapped apply's three; mayOverwrite: the kernel can store instead of adding (element-owned dofs
   covering the vector) */
PETSC_INTERN PetscErrorCode FEGDevOpApply(FEGOp, FEGDevOp *, FEGDevApplyFn, PetscLogDouble, PetscBool, Vec, Vec, PetscBool, PetscBool);
/* the diagonal through kernel, every element in one launch with diag set */
PETSC_INTERN PetscErrorCode FEGDevOpDiagonal(FEGOp, FEGDevOp *, FEGDevApplyFn, Vec);
PETSC_INTERN PetscErrorCode FEGDevOpGlobalIndices(FEGOp, FEGDevOp *, size_t, const int *, int **);
PETSC_INTERN PetscErrorCode FEGDevOpTableGlobalIndices(FEGOp, FEGDevOp *, int **, PetscBool *);
PETSC_INTERN PetscErrorCode FEGDevOpView(FEGOp, FEGDevOp *, PetscViewer);
