#!/bin/bash
# Run 55: fegpu's local and global sections built from their arrays on the setup threads (dofs stored by cell-type
# stratum, offsets by a blocked prefix sum, the global section's constraint sections copied from the local ones)
# instead of PETSc's calls per point and its serial set-up loops. make check-gpu's tests with the new library, then
# the old and new library alternating twice on bench_matfree's BP3 at 8M unknowns, Q2 and Q4 (sections s column:
# the program's first global vector, which builds both sections; setup s: fegpu's operator).
#   source .gpu/env.sh && bash share/bench/setup/run55.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_gpu "$out" "$new"
cd "$here/examples"
pass() { # WHO PAIR
  echo "== $1 pair $2: bp3" >> "$out/bp3.log"
  timeout 120 ./bench_matfree -mode bp3 -orders 2,4 -dofs 8000000 -strategies matfree -its 50 -reps 3 -dm_vec_type cuda >> "$out/bp3.log" 2>&1
}
ab_alternate 2 "$old" "$new" pass
grep -E "^==|^[248] +matfree" "$out/bp3.log"
