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
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 300 --extra-args "-dm_vec_type cuda") > "$out/check-gpu.log" 2>&1
tail -1 "$out/check-gpu.log"
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" bash share/fegpu/sanitize.sh "$here" "memcheck initcheck" "kernels single") > "$out/sanitize.log" 2>&1
tail -5 "$out/sanitize.log"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/sym" "$old" "$new" lma,lma_single,atomic,coo "tet 60 1; tet 55 2; tet 30 3; tri 500 4; hex 40 2; hex 25 3; prism 40 2"
ARGS="-bench_petsc_coo 0 -bench_advection 0.5" bash "$here/share/bench/abbench.sh" "$out/adv" "$old" "$new" lma,lma_single,atomic,coo "tet 55 2; tet 30 3; hex 40 2"
