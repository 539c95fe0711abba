#!/bin/bash
# Run 53: matfree's sum-factorisation factors on affine hexahedra with a constant C taken per element straight from
# the geometry (det J T^T C T) instead of computed at every point, checked and reduced (run 52: 3.3 of 3.5 ms of a
# re-assembly on 512k Q1 hexahedra). make check-gpu's tests with the new library, then the old and new library
# alternating twice: bench's matfree assembly on hex Q1 (80 faces), Q2 (40), Q3 (25), and bench_matfree's BP3 at 8M
# unknowns, Q2 and Q4 (setup column), with cudashim's windows around each assembly on Q1.
#   source .gpu/env.sh && bash share/bench/setup/run53.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_gpu "$out" "$new"
gcc -O2 -shared -fPIC -o /tmp/cudashim.so "$here/share/bench/setup/cudashim.c" -I"$PETSC_DIR/include" -I/usr/local/cuda/include -ldl || exit 1
cd "$here/examples"
pass() { # WHO PAIR
  local who=$1 pair=$2 c pre
  for c in "80 1" "40 2" "25 3"; do
    set -- $c
    pre=; [ $2 = 1 ] && pre="LD_PRELOAD=/tmp/cudashim.so"
    echo "== $who pair $pair: hex $1 $2" >> "$out/bench.log"
    env $pre timeout 60 ./bench -dm_vec_type cuda -bench_reps 10 -bench_petsc_coo 0 -feg_cell_type hex -feg_faces $1 -order $2 -bench_strategies matfree >> "$out/bench.log" 2>&1
  done
  echo "== $who pair $pair: bp3" >> "$out/bp3.log"
  timeout 120 ./bench_matfree -mode bp3 -orders 2,4 -dofs 8000000 -strategies matfree -its 50 -reps 5 -dm_vec_type cuda >> "$out/bp3.log" 2>&1
}
ab_alternate 2 "$old" "$new" pass
grep -E "^==|^matfree |FEGOperatorAssemble #3" "$out/bench.log" | cut -c1-200
grep -E "^==|^[248] +matfree" "$out/bp3.log"
