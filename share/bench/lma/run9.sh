#!/bin/bash
# lma's product tile by tile (-feg_lma_tiles, elements of 3-10 dofs with atomics): first test_gpu's symmetric case with a
# library whose tile kernel drops the last element of a partial tile (MUTLIB), make check-gpu's tests on the new library
# and the symmetric case under compute-sanitizer; then the library before (OLDLIB: elementwise kernels) and the new one
# alternating twice on bench's lma lines in both precisions: P2 and P1 tetrahedra, Q1 hexahedra, Q2 quadrilaterals, P1
# prisms, P1 triangles, and P2 tetrahedra with the advection form (not symmetric: full element matrices).
#   source .gpu/env.sh && bash share/bench/lma/run9.sh OUT OLDLIBDIR NEWLIBDIR MUTLIBDIR
set -u
out=$1 old=$2 new=$3 mut=$4
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_case "$out" "$mut" symmetric
ab_check_gpu "$out" "$new"
LD_LIBRARY_PATH="$new:${BASE_LD:-}" bash "$here/share/fegpu/sanitize.sh" "$here" "memcheck racecheck synccheck initcheck" symmetric > "$out/sanitize.txt" 2>&1
grep -E "^ok|^FAILED|passed" "$out/sanitize.txt"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out" "$old" "$new" lma,lma_single "tet 55 2; tet 55 1; hex 100 1; quad 300 2; prism 80 1; tri 522 1; tet 55 2 -bench_advection 1"
# auto's lma rows where the tiles apply (P1 and P2 tetrahedra, Q1 hexahedra, P1 prisms), as in auto run 20: three
# processes per case at scales 0.6 and 1
export LD_LIBRARY_PATH="$new:${BASE_LD:-}"
for s in "a 0.6" "b 1"; do
  set -- $s
  FEG_REPS=3 FEG_CELLS=tet FEG_ORDERS="1 2" bash "$here/share/bench/auto/matrix.sh" "$out" "calib$1" "$2" 120 lma
  FEG_REPS=3 FEG_CELLS="hex prism" FEG_ORDERS=1 bash "$here/share/bench/auto/matrix.sh" "$out" "calib$1" "$2" 120 lma
done
grep -c . "$out"/calib*.csv
