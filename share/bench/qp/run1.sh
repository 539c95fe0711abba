#!/bin/bash
# matfree's per-quadrature-point kernel (qp: prisms, non-affine cells, pointwise coefficients) with the element's dof
# count as a template parameter against the library before, on one GPU, alternating twice in one call:
#   source .gpu/env.sh && bash share/bench/qp/run1.sh OUT OLDLIBDIR NEWLIBDIR
# bench's matfree line (MatMult median of 20) with -feg_matfree_kernel qp on P1 and P2 tetrahedra and prisms, P1
# triangles and Q1 hexahedra.
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
cases=("tet 55 1" "tet 28 2" "prism 60 1" "prism 30 2" "tri 522 1" "hex 100 1")
for pair in 1 2; do
  for who in old new; do
    lib=$old
    [ "$who" = new ] && lib=$new
    for c in "${cases[@]}"; do
      set -- $c
      echo "== $who pair $pair: $c" >> "$out/bench.log"
      LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies matfree -feg_matfree_kernel qp >> "$out/bench.log" 2>&1
    done
  done
done
grep -E "^==|^matfree " "$out/bench.log" | cut -c1-140
