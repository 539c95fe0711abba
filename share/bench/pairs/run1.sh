#!/bin/bash
# lma's double element matrices in pairs at 16 dofs (FEGLMADoubleIndex()): make check-gpu's tests on the new library,
# then the old and new library alternating twice on bench (lma and lma_single; assembly and MatMult):
#   source .gpu/env.sh && bash share/bench/pairs/run1.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../../.." && pwd)
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 200 --extra-args "-dm_vec_type cuda") > "$out/check-gpu.log" 2>&1
tail -3 "$out/check-gpu.log"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out" "$old" "$new" lma_single,lma "quad 700 3; tet 30 3; tri 500 4; prism 40 2; tet 55 2; hex 100 1; quad 700 2"
