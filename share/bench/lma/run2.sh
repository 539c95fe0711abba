#!/bin/bash
# lma MatMult for elements of 15-27 dofs (P4 triangles, Q3 quadrilaterals, P2 prisms, P3 tetrahedra, Q2 hexahedra)
# with the dof count as a template parameter (rows one at a time) against the library before, alternating twice:
#   source .gpu/env.sh && bash share/bench/lma/run2.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
cases=("tri 200 4" "quad 300 3" "prism 30 2" "tet 30 3" "hex 40 2" "tet 55 1")
for pair in 1 2; do
  for who in old new; do
    lib=$old
    [ "$who" = new ] && lib=$new
    for c in "${cases[@]}"; do
      set -- $c
      echo "== $who pair $pair: $c" >> "$out/bench.log"
      LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies lma >> "$out/bench.log" 2>&1
    done
  done
done
grep -E "^==|^lma " "$out/bench.log" | cut -c1-140
