#!/bin/bash
# The matrix-free action on affine tetrahedra of orders 1-8 (stiffness + mass, 7 reference operators) against the
# roofline measured on the spot: the work each kernel does (its logged flops) against min(FP64 peak, triad x AI), and
# the gain from factoring the gradient operators:
#   bash share/bench/action/run.sh [OUTDIR]            -> OUTDIR/action.csv, action.png
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" action)
cd "$FEG_BENCH" || exit 1
./bench_matfree $FEG_VEC -mode action -orders 1,2,3,4,5,6,7,8 -elements 320000 -kernels auto -reps 10 > "$out/action.log" 2>&1
{
  echo "order,dofs_per_element,kernel,ms,gflops,gbs,ai,roof_gflops,pct_roof,factoring_speedup"
  awk '/^roofline/ { next } $3 ~ /^(refop|mma|gemm|qp|auto)$/ && $1 ~ /^[0-9]+$/ { sub("%", "", $11); print $1 "," $2 "," $3 "," $6 "," $7 "," $8 "," $9 "," $10 "," $11 "," ($12 == "-" ? "" : $12) }' "$out/action.log"
} > "$out/action.csv"
echo "action: $(($(wc -l < "$out/action.csv") - 1)) rows in $out/action.csv ($(grep '^roofline' "$out/action.log"))"
bash "$FEG_BENCH/plot.sh" action "$out/action.csv" "$out/action.png"
