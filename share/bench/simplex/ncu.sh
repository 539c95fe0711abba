#!/bin/bash
# Nsight Compute on the simplex matrix-free kernels auto picks, one launch each after warm-up (stiffness + mass action,
# discontinuous P_N on bench_matfree's 329k tetrahedra):
#   source .gpu/env.sh && bash share/bench/simplex/ncu.sh OUTDIR [orders, default 2,3]
# Writes OUTDIR/ncu-N.txt (the full section set: speed of light, memory, scheduler, warp states, occupancy).
set -u
out=$1 orders=${2:-2,3}
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
for N in ${orders//,/ }; do
  /usr/local/cuda/bin/ncu --set full --import-source no -k regex:"FEGRefOp" --launch-skip 5 --launch-count 1 \
    "$here/examples/bench_matfree" -mode action -orders "$N" -kernels auto -dm_vec_type cuda -reps 2 > "$out/ncu-$N.txt" 2>&1
done
