#!/bin/bash
# Run 10: the final tree against the tree before this work (.old, built alongside), auto at every order, twice, and
# mma factored with 1 or 2 element tiles per warp (-feg_matfree_ne) at P3 and P4, in one call:
#   source .gpu/env.sh && bash share/bench/simplex/run10.sh OUTDIR [label]
# Writes OUTDIR/LABEL-action.log and OUTDIR/LABEL-action.csv (tree, options, rep, then run.sh's columns); label run10
# by default (run 13: the same after the factored mma's warps were tuned).
set -u
out=$1 label=${2:-run10}
here=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
echo "tree,options,rep,N,Np,kernel,ne,nb,ms,gflops,gbs,ai,roof_gflops,pct_roof,ms_sync" > "$out/$label-action.csv"
one() { # tree label rep orders kernels [options]
  local tree=$1 opt=$2 rep=$3 orders=$4 kernels=$5 d="$tmp/$1$2$3"
  shift 5
  if [ "$tree" = new ]; then bash "$here/share/bench/simplex/run.sh" "$d" "$orders" "$kernels" "$@"
  else (cd "$here/.old" && bash share/bench/simplex/run.sh "$d" "$orders" "$kernels" "$@"); fi
  echo "== tree $tree options $opt rep $rep: orders $orders kernels $kernels $*" >> "$out/$label-action.log"
  cat "$d/action.log" >> "$out/$label-action.log"
  tail -n +2 "$d/action.csv" | sed "s/^/$tree,$opt,$rep,/" >> "$out/$label-action.csv"
}
for rep in a b; do
  one new default $rep 1,2,3,4,5,6,7,8 auto
  one old default $rep 1,2,3,4,5,6,7,8 auto
done
one new unfactored a 1,2,3,4,5,6,7,8 auto -feg_matfree_factored 0 # (added after run 10)
one new ne1nb1 a 3,4 mma -feg_matfree_ne 1 -feg_matfree_nb 1
one new ne1nb2 a 3,4 mma -feg_matfree_ne 1 -feg_matfree_nb 2
one new ne2nb1 a 3,4 mma -feg_matfree_ne 2 -feg_matfree_nb 1
rm -rf "$tmp"
