#!/bin/bash
# Merged atomics (FEGAtomicAddMerged(): a warp's adds to one entry summed before one atomic) in lma's one-element-per-
# thread kernels and matfree's refop, against the library before (OLDLIBDIR), alternating twice in one call:
#  - bench MatMult (median of 20) on 998k P1 and 185k P2 tetrahedra: lma, lma_single, matfree;
#  - advdiff, 545k triangles, 200 steps, GPU matfree and lma: the mass solves (a P1 triangle mass kernel each iteration).
#   source .gpu/env.sh && bash share/bench/atomics/run1.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
. ../share/bench/ablib.sh
pass() {
  local who=$1 rep=$2 c s
  for c in "55 1" "28 2"; do
    set -- $c
    echo "== bench P$2 $who pass $rep" >> "$out/summary.txt"
    ./bench -dm_vec_type cuda -bench_reps 20 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces $1 -order $2 -bench_strategies lma,lma_single,matfree > "$out/bench-p$2-$who-$rep.log" 2>&1
    grep -E "^(lma|lma_single|matfree) " "$out/bench-p$2-$who-$rep.log" | awk '{print "  " $1, "MatMult ms", $7, "GB/s", $8, "triad", $9}' >> "$out/summary.txt"
  done
  for s in matfree lma; do
    echo "== advdiff 545k $s $who pass $rep" >> "$out/summary.txt"
    ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy $s -dm_vec_type cuda > "$out/advdiff-$s-$who-$rep.log" 2>&1
    grep -E "times|last step" "$out/advdiff-$s-$who-$rep.log" >> "$out/summary.txt"
  done
}
ab_alternate 2 "$old" "$new" pass
cat "$out/summary.txt"
