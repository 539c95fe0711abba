#!/bin/bash
# gather against atomic beyond run 4's four cases: the cells, orders and coefficients where the integration kernel
# takes one element per thread or one per entry, affine and not (medians of 10, same process; -feg_view says which
# layout gather took). Usage: source .gpu/env.sh && bash share/bench/color/run6.sh OUTDIR
set -u
out=${1:?output directory}
mkdir -p "$out"
echo "case,strategy,setup_s,assembly_ms,layout" > "$out/gather.csv"
while read -r name args; do
  [ -n "$name" ] || continue
  ./examples/bench -dm_vec_type cuda -bench_strategies atomic,gather -bench_petsc_coo 0 -bench_reps 10 -feg_view $args > "$out/$name.log" 2>&1
  lay=$(grep -o "sum of its [a-z-]* entries" "$out/$name.log" | head -1 | awk '{print $4}')
  awk -v n="$name" -v l="$lay" '($1=="atomic"||$1=="gather") && NF>=7 {print n","$1","$3","$4","($1=="gather"?l:"")}' "$out/$name.log" >> "$out/gather.csv"
done << 'CASES'
tet-p1-points -feg_cell_type tet -feg_faces 55 -order 1 -bench_coeff points
tet-p2-points -feg_cell_type tet -feg_faces 28 -order 2 -bench_coeff points
tet-p3 -feg_cell_type tet -feg_faces 28 -order 3
hex-q1p -feg_cell_type hex -feg_faces 100 -order 1 -feg_perturb 0.2
hex-q2p -feg_cell_type hex -feg_faces 40 -order 2 -feg_perturb 0.2
prism-p1 -feg_cell_type prism -feg_faces 80 -order 1
prism-p2 -feg_cell_type prism -feg_faces 40 -order 2
tri-p1 -feg_cell_type tri -feg_faces 700 -order 1
tri-p2 -feg_cell_type tri -feg_faces 400 -order 2
quad-q1 -feg_cell_type quad -feg_faces 1000 -order 1
quad-q2p -feg_cell_type quad -feg_faces 500 -order 2 -feg_perturb 0.2
CASES
cat "$out/gather.csv"
