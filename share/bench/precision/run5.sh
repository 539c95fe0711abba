#!/bin/bash
# Run 5: single-precision lma with its entries in groups of four (one 16-byte load per group, one element per thread)
# against the landed pair kernel. make check-gpu's tests on the new library, then old and new alternating on bench.
#   source .gpu/env.sh && bash share/bench/precision/run5.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec timeout 300 python3 share/fegpu/runtests.py --root "$PWD" --tests test_gpu --gpu --timeout 200 --extra-args "-dm_vec_type cuda" > "$out/check-gpu.log" 2>&1
echo "check-gpu rc $?"; tail -3 "$out/check-gpu.log"
ARGS="-bench_petsc_coo 0" bash share/bench/abbench.sh "$out" "$old" "$new" lma_single,lma "tet 55 2; tet 55 1; tet 30 3; tri 700 3; hex 40 2; prism 40 2"
