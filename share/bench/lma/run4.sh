#!/bin/bash
# lma MatMult on 998k P2 tetrahedra, double and single element matrices, under each cell ordering of -feg_reorder
# (the box mesh's own, a Hilbert curve, METIS parts), alternating twice:
#   source .gpu/env.sh && bash share/bench/lma/run4.sh OUT
set -u
out=$1
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for rep in 1 2; do
  for r in none sfc metis; do
    echo "== rep $rep: -feg_reorder $r" >> "$out/bench.log"
    timeout 150 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type tet -feg_faces 55 -order 2 -bench_strategies lma,lma_single -bench_petsc_coo 0 -feg_reorder $r >> "$out/bench.log" 2>&1
  done
done
grep -E "^==|^(lma|lma_single) " "$out/bench.log" | cut -c1-160
