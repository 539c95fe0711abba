#!/bin/bash
# atomic, gather (by rows where it applies), coo on the fused-addto cases
out=$1; mkdir -p $out
echo "case,strategy,setup_s,assembly_ms" > $out/rows.csv
while read -r name args; do
  [ -n "$name" ] || continue
  ./examples/bench -dm_vec_type cuda -bench_strategies atomic,gather,coo -bench_petsc_coo 0 -bench_reps 10 -feg_view $args > $out/$name.log 2>&1
  awk -v n="$name" '($1=="atomic"||$1=="gather"||$1=="coo") && NF>=7 {print n","$1","$3","$4}' $out/$name.log >> $out/rows.csv
  grep -h "GPU addto: a warp\|GPU addto: element\|rror" $out/$name.log | head -2
done << 'CASES'
tet-p3 -feg_cell_type tet -feg_faces 30 -order 3
hex-q2 -feg_cell_type hex -feg_faces 40 -order 2
hex-q3 -feg_cell_type hex -feg_faces 25 -order 3
tet-p2 -feg_cell_type tet -feg_faces 28 -order 2
prism-p2 -feg_cell_type prism -feg_faces 40 -order 2
quad-q3 -feg_cell_type quad -feg_faces 300 -order 3
tet-p4 -feg_cell_type tet -feg_faces 16 -order 4
CASES
cat $out/rows.csv
