#!/bin/bash
# Runs 7, 8 and 10: single-precision lma grouped (16-byte loads and stores) only at 16 and 20 dofs, the pair kernel kept at up to
# 10 (runs 5-6). make check-gpu's tests on the new library, then old and new alternating on bench.
#   source .gpu/env.sh && bash share/bench/precision/run7.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec timeout 300 python3 share/fegpu/runtests.py --root "$PWD" --tests test_gpu --gpu --timeout 200 --extra-args "-dm_vec_type cuda" > "$out/check-gpu.log" 2>&1
echo "check-gpu rc $?"; grep -E "^(not ok|FAIL)|passed" "$out/check-gpu.log" | head
ARGS="-bench_petsc_coo 0" bash share/bench/abbench.sh "$out" "$old" "$new" lma_single,lma "${CASES:-tet 30 3; quad 700 3; tet 55 2; tet 55 1; tri 700 3}"
