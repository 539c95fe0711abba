#!/bin/bash
# mma with the gradient operators factored, element tiles per block 1, 2, 4 (-feg_matfree_nb: 16, 32, 64 elements),
# against mma on the operators as they are (-feg_matfree_factored 0), in one call:
#   source .gpu/env.sh && bash share/bench/simplex/mma-factored.sh OUTDIR [orders] [label]
# Writes OUTDIR/LABEL-mma.log and OUTDIR/LABEL-mma.csv (factored, nb, then share/bench/simplex/run.sh's columns);
# run 8 was the first factored kernel (one tile per block), run 9 the persistent, double-buffered one.
set -u
out=$1 orders=${2:-2,3,4,5,6,7,8} label=${3:-run8}
here=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
echo "factored,nb,N,Np,kernel,ne,nb_,ms,gflops,gbs,ai,roof_gflops,pct_roof,ms_sync" > "$out/$label-mma.csv"
for cfg in "0 0" "1 1" "1 2" "1 4" "1 0"; do
  set -- $cfg
  extra="-feg_matfree_factored $1"; [ "$2" != 0 ] && extra="$extra -feg_matfree_nb $2"
  bash "$here/share/bench/simplex/run.sh" "$tmp/r$1$2" "$orders" mma $extra
  echo "== factored $1 nb $2" >> "$out/$label-mma.log"
  cat "$tmp/r$1$2/action.log" >> "$out/$label-mma.log"
  tail -n +2 "$tmp/r$1$2/action.csv" | sed "s/^/$1,$2,/" >> "$out/$label-mma.csv"
done
rm -rf "$tmp"
