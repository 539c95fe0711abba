/* Matrix-free kernels: which entries of Chat (the (dim+1)x(dim+1) coefficient-and-geometry tensor seen by the
   reference value r = 0 and reference gradients r = 1..dim) a kernel stores and applies. Shared by the host (C) and
   the device (CUDA) code, so both walk the same pair lists. */
#pragma once

/* Pair sets, from the form's structure: symmetric stiffness only, symmetric mass plus stiffness, any symmetric form,
   or every (trial r, test s) pair */
typedef enum {
  FEG_MF_GG_SYM,
  FEG_MF_VVGG_SYM,
  FEG_MF_SYM,
  FEG_MF_FULL
} FEGMFKind;

#define FEG_MF_MAXPAIRS 16

/* Stored (r, s) pairs of a kind, in storage order; returns how many. Symmetric kinds store r <= s only. */
static inline int FEGMFPairs(int dim, int kind, int pr[], int ps[])
{
  const int Nd = dim + 1;
  int       n  = 0;

  for (int r = 0; r < Nd; r++)
    for (int s = 0; s < Nd; s++) {
      int keep;

      switch (kind) {
      case FEG_MF_GG_SYM:
        keep = r >= 1 && s >= r;
        break;
      case FEG_MF_VVGG_SYM:
        keep = (r == 0 && s == 0) || (r >= 1 && s >= r);
        break;
      case FEG_MF_SYM:
        keep = s >= r;
        break;
      default:
        keep = 1;
      }
      if (keep) {
        pr[n] = r;
        ps[n] = s;
        n++;
      }
    }
  return n;
}

/* The smallest kind holding every nonzero of Chat: vv, vg, gv, gg say which blocks of C (value-value, value
   trial/gradient test, gradient trial/value test, gradient-gradient) can be nonzero */
static inline int FEGMFKindOf(int sym, int vv, int vg, int gv, int gg)
{
  (void)gg;
  if (!sym) return FEG_MF_FULL;
  if (vg || gv) return FEG_MF_SYM;
  return vv ? FEG_MF_VVGG_SYM : FEG_MF_GG_SYM;
}
