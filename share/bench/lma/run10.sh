#!/bin/bash
# The tiles on by default for P1 tetrahedra alone (run 9 measured the others slower or even): make check-gpu's tests on
# the library, test_gpu's symmetric case (which forces the tiles at every size up to 10 dofs) under memcheck, then the
# library before the tiles (OLDLIB) and this one alternating twice on bench's lma lines with -feg_view (its scatter line
# says whether the tiles ran): P1 and P2 tetrahedra, Q1 hexahedra, Q2 quadrilaterals.
#   source .gpu/env.sh && bash share/bench/lma/run10.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_gpu "$out" "$new"
LD_LIBRARY_PATH="$new:${BASE_LD:-}" bash "$here/share/fegpu/sanitize.sh" "$here" memcheck symmetric > "$out/sanitize.txt" 2>&1
grep -E "^ok|^FAILED|passed" "$out/sanitize.txt"
ARGS="-bench_petsc_coo 0 -feg_view" bash "$here/share/bench/abbench.sh" "$out" "$old" "$new" lma,lma_single "tet 55 1; tet 55 2; hex 100 1; quad 300 2" > /dev/null
grep -E "^==|^lma|scatter by" "$out/bench.log" | cut -c1-150
