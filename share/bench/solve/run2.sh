#!/bin/bash
# Run 2: the P1 mass product of advdiff's Chebyshev iterations with atomics (the default) against the deterministic
# transpose gather (-feg_lma_scatter gather: each element's results stored, then each dof sums its entries), which
# trades 3 atomic adds per triangle for a buffer write and a gather. bench's MatMult of matfree and lma on 545k P1
# triangles and 998k P1 tetrahedra (and 185k-dof P2 tetrahedra), each scatter in turn, two passes; then advdiff at 545k
# triangles with matfree, each scatter in turn, two passes.
#   source .gpu/env.sh && bash share/bench/solve/run2.sh OUT
set -u
out=$1
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
. ../share/bench/setup/timedrun.sh
for pass in 1 2; do
  for sc in atomic gather; do
    for c in "tri 522 1" "tet 60 1" "tet 28 2"; do
      set -- $c
      echo "== pass $pass scatter $sc: $c" >> "$out/bench.log"
      timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies lma,matfree -bench_petsc_coo 0 -feg_lma_scatter $sc >> "$out/bench.log" 2>&1
    done
  done
done
A="-advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy matfree -dm_vec_type cuda"
for pass in 1 2; do
  for sc in atomic gather; do run ./advdiff $A -feg_lma_scatter $sc; done
done
grep -E "^==|^(lma|matfree) " "$out/bench.log" | cut -c1-120
grep -E "^==|times|mass" "$out/advdiff.log" | cut -c1-160
