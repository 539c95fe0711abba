#!/bin/bash
# fegpu's simplex matfree kernels (refop, gemm, mma) on affine tetrahedra against the roofline measured in the same run:
#   source .gpu/env.sh && bash share/bench/simplex/run.sh OUTDIR [orders] [kernels] [extra bench_matfree options]
# Writes OUTDIR/action.log (one line per order and kernel: ms of back-to-back MatMults, GFLOP/s, GB/s, % of the
# roofline, ms of a single synchronised MatMult; -sweep in the extra options adds one line per refop and mma shape) and
# OUTDIR/action.csv.
set -u
out=$1 orders=${2:-1,2,3,4,5,6,7,8} kernels=${3:-refop,gemm,mma}
shift 3 2>/dev/null || shift $#
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
"$here/examples/bench_matfree" -mode action -orders "$orders" -kernels "$kernels" -dm_vec_type cuda -reps 10 "$@" > "$out/action.log" 2>&1
echo "N,Np,kernel,ne,nb,ms,gflops,gbs,ai,roof_gflops,pct_roof,ms_sync" > "$out/action.csv"
grep -E '^[1-8] +[0-9]+ ' "$out/action.log" | grep -v 'does not fit' | awk '{ sub("%", "", $11); print $1","$2","$3","$4","$5","$6","$7","$8","$9","$10","$11","$12 }' >> "$out/action.csv"
