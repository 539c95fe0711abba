#!/bin/bash
# The single-precision pair kernel reading the pair's shared dofs once and adding their sums once (lma.cu), in two
# builds (A: no launch bound, 168 registers at 10 dofs; B: __launch_bounds__(128, 4), 128 registers and 80 bytes of
# spills), against the library before (old), alternating twice; lma (double, the same code in all three) as control:
#   source .gpu/env.sh && bash share/bench/lma/run5.sh OUT OLDLIBDIR ALIBDIR BLIBDIR
set -u
out=$1 old=$2 a=$3 b=$4
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
cases=("tet 55 2" "tet 55 1" "tri 300 2" "hex 100 1")
for rep in 1 2; do
  for who in old A B; do
    lib=$old
    [ $who = A ] && lib=$a
    [ $who = B ] && lib=$b
    for c in "${cases[@]}"; do
      set -- $c
      echo "== $who rep $rep: $c" >> "$out/bench.log"
      LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies lma_single,lma -bench_petsc_coo 0 >> "$out/bench.log" 2>&1
    done
  done
done
grep -E "^==|^(lma|lma_single) " "$out/bench.log" | cut -c1-140
