#!/bin/bash
# Matrix-free on deformed meshes against libCEED on its uniform box (libCEED's bps stores the same per-point data for
# any mesh, so its speed does not depend on the deformation): BP1, BP3, BP5 on hexahedra perturbed by 0.1,
# Kershaw-deformed with eps 0.3, and curved (second-order coordinates deformed by Kershaw with eps 0.5; 0.3 inverts
# second-order cells that straddle its kinks), with the geometry computed in the kernel (auto) and stored per point,
# fegpu's uniform box beside them, 50 CG iterations; libCEED's examples/petsc/bps (/gpu/cuda/gen) in the same call:
#   bash share/bench/deformed/run.sh [OUTDIR]          -> OUTDIR/deformed.csv, deformed.png
# Needs the peer staged (.peer/, as bp/run.sh). SIZES (default 1000000,8000000) the unknowns, DEGREES (2,4,6,8) the
# orders, PROBLEMS (bp1,bp3,bp5).
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" deformed)
csv=$out/deformed.csv
sizes=${SIZES:-1000000,8000000} degs=${DEGREES:-2,4,6,8} probs=${PROBLEMS:-bp1,bp3,bp5}
peer=$FEG_ROOT/.peer/bp.sh
[ -f "$peer" ] || { echo "deformed: the peer is not staged ($peer): run ../shared/peers/stage.sh and carry .peer"; exit 1; }
rm -f "$csv"
cd "$FEG_BENCH" || exit 1
for n in ${sizes//,/ }; do
  for bp in ${probs//,/ }; do
    bash "$peer" $bp "$degs" "$n" 2>> "$out/deformed.log" | tail -n +2 | sed 's/$/,,,,,uniform,-/' >> "$out/peer.csv"
    ./bench_matfree $FEG_VEC -mode $bp -orders "$degs" -dofs "$n" -its 50 -strategies matfree -csv "$csv" >> "$out/deformed.log" 2>&1
    for mesh in "-perturb 0.1" "-kershaw 0.3" "-coordinate_order 2 -kershaw 0.5"; do
      for geo in auto stored; do
        ./bench_matfree $FEG_VEC -mode $bp -orders "$degs" -dofs "$n" -its 50 -strategies matfree $mesh -feg_op_matfree_geometry $geo -csv "$csv" >> "$out/deformed.log" 2>&1
      done
    done
  done
done
# one file: fegpu's rows, then the peer's (its columns are fegpu's first nine; mesh "uniform")
cat "$out/peer.csv" >> "$csv" && rm -f "$out/peer.csv"
echo "deformed: $(($(wc -l < "$csv") - 1)) rows in $csv ($(feg_gpu))"
bash "$FEG_BENCH/plot.sh" deformed "$csv" "$out/deformed.png"
