#!/bin/bash
# addto's deterministic modes (colour, gather) against atomics and coo (fegpu's element matrices + PETSc's
# MatSetValuesCOO, also deterministic) in the same process (bench's assembly column, medians of 10), on the cells and
# orders of issue 15's target. Usage: source .gpu/env.sh && bash share/bench/color/run.sh OUTDIR
# STRATS: the strategies (default atomic,color,gather,coo); CASES: which of tet-p1 tet-p2 hex-q1 hex-q2 (default all)
set -u
out=${1:?output directory}
strats=${STRATS:-atomic,color,gather,coo}
cases=" ${CASES:-tet-p1 tet-p2 hex-q1 hex-q2} "
mkdir -p "$out"
echo "case,strategy,setup_s,assembly_ms" > "$out/color.csv"
for c in "tet-p1 -feg_cell_type tet -feg_faces 55 -order 1" "tet-p2 -feg_cell_type tet -feg_faces 28 -order 2" \
         "hex-q1 -feg_cell_type hex -feg_faces 100 -order 1" "hex-q2 -feg_cell_type hex -feg_faces 40 -order 2"; do
  set -- $c
  name=$1; shift
  [[ $cases == *" $name "* ]] || continue
  ./examples/bench -dm_vec_type cuda -bench_strategies $strats -bench_petsc_coo 0 -bench_reps 10 -feg_view "$@" > "$out/$name.log" 2>&1
  awk -v n="$name" '($1=="atomic"||$1=="color"||$1=="coo"||$1=="gather") && NF>=7 {print n","$1","$3","$4}' "$out/$name.log" >> "$out/color.csv"
done
cat "$out/color.csv"
