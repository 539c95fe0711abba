#!/bin/bash
# Elements per block of the hexahedral sumfact kernel (-feg_matfree_nb), fegpu alone, one process per point:
#   source .gpu/env.sh && bash share/bench/bp/sweep-nb.sh OUTDIR "bp1 bp3 bp5" 2,4,6,8 1000000
# Writes OUTDIR/sweep.csv: the bench's CSV line (the peer's columns) with nb last (0: the tuned default).
set -u
out=$1 probs=$2 degs=$3 dofs=${4:-1000000}
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
rm -f "$out/sweep.csv" "$out/sweep.log"
for prob in $probs; do
  for p in ${degs//,/ }; do
    t=$((p + 2))                   # threads per direction: max(P, Q) = N + 2 for bp1/bp3, N + 1 for bp5
    [ "$prob" = bp5 ] && t=$((p + 1))
    for nb in 0 1 2 4 8 16 32; do
      [ $((t * t * nb)) -gt 1024 ] && continue
      rm -f "$out/tmp.csv"
      "$here/examples/bench_matfree" -mode "$prob" -orders "$p" -dofs "$dofs" -strategies matfree -its 50 -reps 3 \
        -dm_vec_type cuda -csv "$out/tmp.csv" -feg_matfree_nb "$nb" >> "$out/sweep.log" 2>&1 || echo "failed: $prob $p nb $nb" >> "$out/sweep.log"
      [ -s "$out/sweep.csv" ] || head -1 "$out/tmp.csv" | sed 's/$/,nb/' > "$out/sweep.csv"
      tail -n +2 "$out/tmp.csv" | sed "s/\$/,$nb/" >> "$out/sweep.csv"
    done
  done
done
rm -f "$out/tmp.csv"
