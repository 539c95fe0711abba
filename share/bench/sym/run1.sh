#!/bin/bash
# The reference-tensor kernels on split tensors (FEGSplitPairs(): symmetric sums S^k and antisymmetric differences A^k;
# one pair a <= b at a time in the one-element-per-thread kernel): make check-gpu's tests and memcheck/initcheck on the
# new library, then the old and new library alternating twice on bench's assembly (lma, lma_single, atomic addto, and
# coo: fegpu's element matrices + MatSetValuesCOO), with bench's symmetric C and with an advection term (-bench_advection).
#   source .gpu/env.sh && bash share/bench/sym/run1.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../../.." && pwd)
bash "$here/share/bench/sym/checks.sh" "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/sym" "$old" "$new" lma,lma_single,atomic,coo "tet 60 1; tet 55 2; tet 30 3; tri 500 4; hex 40 2; hex 25 3; prism 40 2"
ARGS="-bench_petsc_coo 0 -bench_advection 0.5" bash "$here/share/bench/abbench.sh" "$out/adv" "$old" "$new" lma,lma_single,atomic,coo "tet 55 2; tet 30 3; hex 40 2"
