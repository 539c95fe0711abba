#!/bin/bash
# fegpu's replacements of PETSc routines against PETSc's own on one process at about 1M cells (share/bench/bench_plex),
# hexahedra and tetrahedra, with the node's threads (the fastest of REPS=2 repetitions) and with one thread (REPS1=1:
# PETSc's routines take 20-30 s a repetition there):
#   bash share/bench/plex/run.sh [OUTDIR]              -> OUTDIR/plex.csv, plex.png
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" plex)
rm -f "$out/plex.csv"
cd "$FEG_BENCH" || exit 1
for t in "" 1; do
  reps=${REPS:-2}
  [ -n "$t" ] && reps=${REPS1:-1}
  for c in hex tet; do
    ./bench_plex -cell $c -reps "$reps" ${t:+-feg_setup_threads $t} -csv "$out/plex.csv" >> "$out/plex.log" 2>&1 || echo "bench_plex failed: $c $t" >> "$out/plex.log"
  done
done
cat "$out/plex.csv"
bash "$FEG_BENCH/plot.sh" plex "$out/plex.csv" "$out/plex.png"
