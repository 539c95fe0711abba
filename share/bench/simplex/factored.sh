#!/bin/bash
# Run 7: the factored, double-buffered per-thread refop (this tree) against the same kernels without factoring
# (-feg_matfree_factored 0) and against the tree before the change (.old, built alongside), all in one call:
#   source .gpu/env.sh && bash share/bench/simplex/factored.sh OUTDIR
# Writes OUTDIR/run7-action.log (every bench_matfree output, twice over) and OUTDIR/run7-action.csv (tree, factored,
# repetition, then share/bench/simplex/run.sh's columns).
set -u
out=$1
here=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
echo "tree,factored,rep,N,Np,kernel,ne,nb,ms,gflops,gbs,ai,roof_gflops,pct_roof,ms_sync" > "$out/run7-action.csv"
for rep in a b; do
  for cfg in "new 1 1,2,3 refop,auto" "new 0 1,2 refop,auto" "old - 1,2,3 refop,auto"; do
    set -- $cfg
    if [ "$1" = new ]; then bash "$here/share/bench/simplex/run.sh" "$tmp/$1$2$rep" "$3" "$4" -feg_matfree_factored "$2"
    else (cd "$here/.old" && bash share/bench/simplex/run.sh "$tmp/$1$2$rep" "$3" "$4"); fi
    echo "== tree $1 factored $2 rep $rep: orders $3 kernels $4" >> "$out/run7-action.log"
    cat "$tmp/$1$2$rep/action.log" >> "$out/run7-action.log"
    tail -n +2 "$tmp/$1$2$rep/action.csv" | sed "s/^/$1,$2,$rep,/" >> "$out/run7-action.csv"
  done
done
rm -rf "$tmp"
