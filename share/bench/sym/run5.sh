#!/bin/bash
# Run 5: a variant (run5.patch, not kept: the M^rs kept beside the split tensors for a non-symmetric C, the grouped rows'
# kernel compiled once per case) against the library
# before the split tensors: make check-gpu's tests and memcheck/initcheck, then run1.sh's bench cases where the kernels
# changed since run 4 (grouped rows: P3 tetrahedra, Q3 quadrilaterals; COO values: P2 tetrahedra), both forms.
#   source .gpu/env.sh && bash share/bench/sym/run5.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../../.." && pwd)
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 300 --extra-args "-dm_vec_type cuda") > "$out/check-gpu.log" 2>&1
tail -1 "$out/check-gpu.log"
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" bash share/fegpu/sanitize.sh "$here" "memcheck initcheck" "kernels single") > "$out/sanitize.log" 2>&1
tail -5 "$out/sanitize.log"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/sym" "$old" "$new" lma,lma_single,coo "tet 30 3; quad 700 3; tet 55 2"
ARGS="-bench_petsc_coo 0 -bench_advection 0.5" bash "$here/share/bench/abbench.sh" "$out/adv" "$old" "$new" lma,lma_single,coo "tet 30 3; quad 700 3; tet 55 2"
