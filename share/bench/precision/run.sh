#!/bin/bash
# -feg_precision single against double, on the GPU, in one run:
#   source .gpu/env.sh && bash share/bench/precision/run.sh OUTDIR [faces] [orders]
# 1. lma MatMult with FP64 and FP32 element matrices on a box of tetrahedra (faces^3 x 6 cells, continuous P1..P3):
#    bench's lma and lma_single lines (medians of 20 synchronised MatMults) -> OUTDIR/matmult.log, matmult.csv
# 2. ex1's manufactured solutions solved with double and single element matrices (GMRES + Jacobi, rtol 1e-10): L2 error
#    and iterations -> OUTDIR/accuracy.log, accuracy.csv
set -u
out=$1 faces=${2:-55} orders=${3:-1,2,3}
here=$(cd "$(dirname "$0")/../../.." && pwd)
vec=${FEG_VEC--dm_vec_type cuda}
mkdir -p "$out"
rm -f "$out/matmult.csv"
for p in ${orders//,/ }; do
  "$here/examples/bench" -feg_cell_type tet -feg_faces "$faces" -order "$p" -bench_strategies lma,lma_single -bench_reps 20 $vec -bench_csv "$out/matmult.csv" >> "$out/matmult.log" 2>&1
done
echo "cell,faces,order,precision,unknowns,iterations,l2_error" > "$out/accuracy.csv"
for c in "tri 16 1" "tri 32 1" "tri 16 3" "tri 32 3" "quad 32 2" "tet 8 2" "tet 16 2" "hex 8 2" "hex 16 2" "prism 8 1"; do
  set -- $c
  for prec in double single; do
    log=$("$here/examples/ex1" -feg_cell_type "$1" -feg_faces "$2" -order "$3" -feg_perturb 0.2 -feg_strategy lma -feg_precision "$prec" $vec 2>&1)
    echo "== $1 faces $2 P$3 $prec" >> "$out/accuracy.log"
    echo "$log" >> "$out/accuracy.log"
    n=$(echo "$log" | sed -n 's/.*P[0-9]* Lagrange, \([0-9]*\) unknowns.*/\1/p')
    its=$(echo "$log" | sed -n 's/ *iterations: //p')
    e=$(echo "$log" | sed -n 's/ *L2 error: //p')
    echo "$1,$2,$3,$prec,$n,$its,$e" >> "$out/accuracy.csv"
  done
done
cat "$out/accuracy.csv"
grep -E "^(lma|lma_single) " "$out/matmult.log"
