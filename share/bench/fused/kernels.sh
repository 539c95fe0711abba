#!/bin/bash
# bench's assembly with each -feg_cuda_kernel in KERNELS (default "auto entries") taking turns twice, on one library:
# each CASE ("cell faces order [more bench options]") with -bench_strategies STRATEGIES and each FORM (bench options;
# "" is bench's symmetric C); lines to OUT/bench.log under "== KERNEL pass N: CASE FORM".
#   source .gpu/env.sh && bash share/bench/fused/kernels.sh OUT LIBDIR "CASE; CASE; ..." STRATEGIES ["FORM; FORM"]
set -u
out=$1 lib=$2 cases=$3 strategies=$4 forms=${5:-}
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
IFS=';' read -ra list <<< "$cases"
IFS=';' read -ra flist <<< "${forms:- }"
for form in "${flist[@]}"; do
  for pass in 1 2; do
    for kernel in ${KERNELS:-auto entries}; do
      for c in "${list[@]}"; do
        set -- $c
        cell=$1 faces=$2 order=$3
        shift 3
        echo "== $kernel pass $pass: $cell $faces $order $* $form" >> "$out/bench.log"
        LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -bench_petsc_coo 0 -feg_cell_type $cell -feg_faces $faces -order $order "$@" -bench_strategies $strategies -feg_cuda_kernel $kernel $form >> "$out/bench.log" 2>&1
      done
    done
  done
done
