#!/bin/bash
# The CEED benchmark problems BP1, BP3, BP5 on hexahedra, matrix-free, against libCEED's examples/petsc/bps
# (/gpu/cuda/gen) in the same call, 50 CG iterations, and the whole process of BP3 with 64M unknowns:
#   bash share/bench/bp/run.sh [OUTDIR]                -> OUTDIR/bp.csv, bp-process.csv, bp.png
# Needs the peer staged (../shared/peers/stage.sh: .peer/ in the repository root, carried with the call). DOFS
# (default 1000000) sets the problem size, DEGREES (2,4,6,8) the orders.
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" bp)
csv=$out/bp.csv
dofs=${DOFS:-1000000} degs=${DEGREES:-2,4,6,8}
peer=$FEG_ROOT/.peer/bp.sh
[ -f "$peer" ] || { echo "bp: the peer is not staged ($peer): run ../shared/peers/stage.sh and carry .peer"; exit 1; }
rm -f "$csv"
cd "$FEG_BENCH" || exit 1
for bp in bp1 bp3 bp5; do
  bash "$peer" $bp "$degs" "$dofs" > "$out/peer-$bp.csv" 2>> "$out/bp.log"
  ./bench_matfree $FEG_VEC -mode $bp -orders "$degs" -dofs "$dofs" -its 50 -strategies matfree -csv "$csv" >> "$out/bp.log" 2>&1
done
# one file: fegpu's rows, then the peer's (their columns are fegpu's first nine)
for bp in bp1 bp3 bp5; do tail -n +2 "$out/peer-$bp.csv" >> "$csv"; rm -f "$out/peer-$bp.csv"; done
# whole processes: BP3 Q4 at 64M unknowns, fegpu and the peer
{
  echo "peer,problem,degree,global_nodes,process_s"
  p=$(feg_time ./bench_matfree $FEG_VEC -mode bp3 -orders 4 -dofs 64000000 -its 50 -strategies matfree 2>&1 | tee -a "$out/bp.log" | awk '/^process seconds/ { print $3 }')
  echo "fegpu,bp3,4,64000000,$p"
  p=$(feg_time bash "$peer" bp3 4 64000000 2>&1 | tee -a "$out/bp.log" | awk '/^process seconds/ { print $3 }')
  echo "libceed,bp3,4,64000000,$p"
} > "$out/bp-process.csv"
echo "bp: $(($(wc -l < "$csv") - 1)) rows in $csv, whole processes in $out/bp-process.csv ($(feg_gpu))"
bash "$FEG_BENCH/plot.sh" bp "$csv" "$out/bp.png"
