#!/bin/bash
# The reference-tensor kernel's grouped rows (FEGRefGroups(): 8-byte loads of M for single, 16-byte for double pairs)
# and lma's two index functions through FEGLMAGroupIndex(): make check-gpu's tests and memcheck/initcheck on the new
# library, then the old and new library alternating twice on bench (lma_single and lma; assembly and MatMult):
#   source .gpu/env.sh && bash share/bench/pairs/run4.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../../.." && pwd)
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 200 --extra-args "-dm_vec_type cuda") > "$out/check-gpu.log" 2>&1
tail -1 "$out/check-gpu.log"
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" bash share/fegpu/sanitize.sh "$here" "memcheck initcheck" "single kernels") > "$out/sanitize.log" 2>&1
tail -5 "$out/sanitize.log"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out" "$old" "$new" lma_single,lma "tet 30 3; quad 700 3; tri 500 4; prism 40 2; tet 55 2"
