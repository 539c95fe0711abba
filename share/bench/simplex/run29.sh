#!/bin/bash
# Run 29: the per-thread refop kernel gathers each tile's x into shared memory one tile ahead (cp.async) instead of
# loading indices and values when it computes; the library before (OLDLIBDIR) and after, alternating twice in one call:
#  - bench matfree MatMult (median of 20), continuous: 998k P1 and 185k P2 tetrahedra; P1, P2, P3 triangles;
#  - advdiff 545k triangles, 200 steps, GPU matfree: the mass solves (the P1 triangle mass kernel every iteration);
#  - ncu of the new kernel in advdiff (the profile before is ../solve/ and this directory's run29/ncu-before.txt).
#   source .gpu/env.sh && bash share/bench/simplex/run29.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
. ../share/bench/ablib.sh
pass() {
  local who=$1 rep=$2
  for c in "tet 55 1" "tet 28 2" "tri 700 1" "tri 350 2" "tri 240 3"; do
    set -- $c
    ./bench -dm_vec_type cuda -bench_reps 20 -bench_petsc_coo 0 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies matfree > "$out/bench-$1$3-$who-$rep.log" 2>&1
    grep -E "^matfree " "$out/bench-$1$3-$who-$rep.log" | awk -v c="$1 P$3" -v w=$who -v r=$rep '{print "== " c, w, "pass", r, ": MatMult ms", $7, "GB/s", $8, "triad", $9}' >> "$out/summary.txt"
  done
  ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy matfree -dm_vec_type cuda > "$out/advdiff-$who-$rep.log" 2>&1
  echo "== advdiff 545k matfree $who pass $rep: $(grep -E 'times' "$out/advdiff-$who-$rep.log")" >> "$out/summary.txt"
  grep -E "last step" "$out/advdiff-$who-$rep.log" >> "$out/summary.txt"
}
ab_alternate 2 "$old" "$new" pass
LD_LIBRARY_PATH="$new:${BASE_LD:-}" ncu --set full -k regex:FEGRefOpThread --launch-skip 200 -c 1 ./advdiff -advdiff_steps 2 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy matfree -dm_vec_type cuda > "$out/ncu-after.txt" 2>&1
grep -E "^    (Duration|DRAM Throughput|L2 Cache Throughput|Registers Per Thread|Achieved Occupancy|Warp Cycles Per Issued)" "$out/ncu-after.txt" >> "$out/summary.txt"
cat "$out/summary.txt"
