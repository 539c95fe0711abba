#!/bin/bash
# Run 3: the block scatter's kernel in three builds (N: as committed; P: FEG_LMA_PREFETCH, the block's element matrices
# prefetched towards L2 while x is staged; Q: P with FEG_LMA_BE 128), each with -feg_lma_scatter block, against N's
# atomic scatter, two passes:
#   source .gpu/env.sh && bash share/bench/block/run2.sh OUT NLIBDIR PLIBDIR QLIBDIR
set -u
out=$1 n=$2 p=$3 q=$4
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for rep in 1 2; do
  for v in atomic N P Q; do
    lib=$n opt="-feg_lma_scatter block"
    [ $v = atomic ] && opt=""
    [ $v = P ] && lib=$p
    [ $v = Q ] && lib=$q
    for c in "tet 55 2" "tet 55 1" "hex 100 1"; do
      set -- $c
      echo "== $v rep $rep: $c" >> "$out/bench.log"
      LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 60 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies lma_single,lma -bench_petsc_coo 0 $opt >> "$out/bench.log" 2>&1
    done
  done
done
grep -E "^==|^(lma|lma_single) " "$out/bench.log" | cut -c1-100
