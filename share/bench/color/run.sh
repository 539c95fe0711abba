#!/bin/bash
# addto colour mode against atomics (and coo, the deterministic PETSc path) in the same process (bench's assembly column, medians of 10), on the cells and
# orders of issue 15's target. Usage: source .gpu/env.sh && bash share/bench/color/run.sh OUTDIR
set -u
out=${1:?output directory}
mkdir -p "$out"
echo "case,strategy,assembly_ms" > "$out/color.csv"
for c in "tet-p1 -feg_cell_type tet -feg_faces 55 -order 1" "tet-p2 -feg_cell_type tet -feg_faces 28 -order 2" \
         "hex-q1 -feg_cell_type hex -feg_faces 100 -order 1" "hex-q2 -feg_cell_type hex -feg_faces 40 -order 2"; do
  set -- $c
  name=$1; shift
  ./examples/bench -dm_vec_type cuda -bench_strategies atomic,color,coo -bench_reps 10 -feg_view "$@" > "$out/$name.log" 2>&1
  awk -v n="$name" '($1=="atomic"||$1=="color"||$1=="coo") && NF>=7 {print n","$1","$4}' "$out/$name.log" >> "$out/color.csv"
done
cat "$out/color.csv"
