#!/bin/bash
# Run 6: the committed library (87cad89) against the one before the split tensors: make check-gpu's tests and
# memcheck/initcheck, then fused addto against its reference (fegpu's element matrices + MatSetValuesCOO) at P2 and P3
# tetrahedra and Q2 hexahedra, and lma's single/double MatMult at 998k P2 tetrahedra (issue 15's targets).
#   source .gpu/env.sh && bash share/bench/sym/run6.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../../.." && pwd)
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 300 --extra-args "-dm_vec_type cuda") > "$out/check-gpu.log" 2>&1
tail -1 "$out/check-gpu.log"
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" bash share/fegpu/sanitize.sh "$here" "memcheck initcheck" "kernels single") > "$out/sanitize.log" 2>&1
tail -5 "$out/sanitize.log"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/fused" "$old" "$new" atomic,coo "tet 28 2; tet 30 3; hex 40 2"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/single" "$old" "$new" lma,lma_single "tet 55 2"
