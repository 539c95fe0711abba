#!/bin/bash
# lma MatMult with the element's dof count as a template parameter (x_e in registers) against the library before, on
# one GPU, the two libraries alternating twice in one call (they share the public API, so one binary runs both):
#   source .gpu/env.sh && bash share/bench/lma/run1.sh OUT OLDLIBDIR NEWLIBDIR
# bench's lma line (assembly and MatMult medians of 20) for P1 and P2 tetrahedra, P1 triangles, Q1 hexahedra and P2
# tetrahedra with single-precision element matrices, then advdiff's whole run (545k triangles, 200 steps, GPU lma).
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
cases=("tet 55 1" "tet 28 2" "tri 522 1" "hex 100 1" "tet 28 2 -feg_precision single")
for pair in 1 2; do
  for who in old new; do
    lib=$old
    [ "$who" = new ] && lib=$new
    for c in "${cases[@]}"; do
      set -- $c
      echo "== $who pair $pair: $c" >> "$out/bench.log"
      LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies lma ${4:-} ${5:-} >> "$out/bench.log" 2>&1
    done
    echo "== $who pair $pair: advdiff" >> "$out/advdiff.log"
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda >> "$out/advdiff.log" 2>&1
  done
done
grep -E "^==|^lma " "$out/bench.log" | cut -c1-140
grep -E "^==|times" "$out/advdiff.log"
