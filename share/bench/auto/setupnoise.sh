#!/bin/bash
# Where the setup's spread between processes comes from (auto's run 14: one type's setup varies 2-4x between processes
# of one call): bench's setup column for tet P3 (faces 16) lma and matfree, five processes per variant, the variants
# taking turns: as is, CUDA_MODULE_LOADING=EAGER (every kernel loaded at the first CUDA call, not at its first
# launch), -feg_setup_threads 1 (no OpenMP threads in the setup):
#   source .gpu/env.sh && bash share/bench/auto/setupnoise.sh OUT
set -u
out=$1
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for rep in 1 2 3 4 5; do
  for v in plain eager threads1; do
    for s in lma matfree; do
      env=() more=()
      [ $v = eager ] && env=(CUDA_MODULE_LOADING=EAGER)
      [ $v = threads1 ] && more=(-feg_setup_threads 1)
      echo "== $v $s rep $rep" >> "$out/noise.log"
      env "${env[@]}" ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 16 -order 3 -bench_strategies $s "${more[@]}" >> "$out/noise.log" 2>&1
    done
  done
done
awk '/^==/{h=$2" "$3} /^(lma|matfree) /{print h, $3}' "$out/noise.log" | sort | awk '{k=$1" "$2; a[k]=a[k]" "$3} END{for (k in a) print k":"a[k]}' | sort
