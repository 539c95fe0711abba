#!/bin/bash
# Run 6's change with its last touch (lma's row kernel computes a packed symmetric element matrix's upper entries
# alone), the final library: a library whose packed product drops the lower triangle (MUTLIB) against test_gpu's
# symmetric case, make check-gpu's tests, then the packed sizes' assembly and MatMult against the library before
# (alternating twice, both precisions), and advdiff at 545k triangles with lma three times each, with -log_view's
# stages (setup phases, advection, diffusion):
#   source .gpu/env.sh && bash share/bench/lma/run7.sh OUT OLDLIBDIR NEWLIBDIR MUTLIBDIR
set -u
out=$1 old=$2 new=$3 mut=$4
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_case "$out" "$mut" symmetric
ab_check_gpu "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out" "$old" "$new" lma,lma_single "tet 55 2; tet 55 1; quad 300 2; hex 100 1; tri 200 3"
advdiff() {
  echo "== $1 pass $2: advdiff lma" >> "$out/advdiff.log"
  (cd "$here/examples" && timeout 120 ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda -log_view) > "$out/advdiff-$1-$2.txt" 2>&1
  grep -E "times|^ *[0-9]: " "$out/advdiff-$1-$2.txt" | cut -c1-60 >> "$out/advdiff.log"
}
ab_alternate 3 "$old" "$new" advdiff
cat "$out/advdiff.log"
