#!/bin/bash
# bench's assembly with -feg_cuda_kernel auto and entries taking turns twice, on one library: each CASE ("cell faces
# order") with -bench_strategies STRATEGIES and each FORM (bench options; "" is bench's symmetric C); lines to
# OUT/bench.log under "== auto|entries pass N: CASE FORM".
#   source .gpu/env.sh && bash share/bench/fused/kernels.sh OUT LIBDIR "CASE; CASE; ..." STRATEGIES ["FORM; FORM"]
set -u
out=$1 lib=$2 cases=$3 strategies=$4 forms=${5:-}
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
IFS=';' read -ra list <<< "$cases"
IFS=';' read -ra flist <<< "${forms:- }"
for form in "${flist[@]}"; do
  for pass in 1 2; do
    for kernel in auto entries; do
      for c in "${list[@]}"; do
        set -- $c
        echo "== $kernel pass $pass: $c $form" >> "$out/bench.log"
        LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -bench_petsc_coo 0 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies $strategies -feg_cuda_kernel $kernel $form >> "$out/bench.log" 2>&1
      done
    done
  done
done
