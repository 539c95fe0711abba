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
(cd "$here" && LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 300 --extra-args "-dm_vec_type cuda") > "$out/check-gpu.log" 2>&1
tail -1 "$out/check-gpu.log"
cd "$here/examples"
for pair in 1 2; do
  for who in old new; do
    lib=$old; [ $who = new ] && lib=$new
    echo "== $who pair $pair: bp3" >> "$out/bp3.log"
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench_matfree -mode bp3 -orders 2,4 -dofs 8000000 -strategies matfree -its 50 -reps 3 -dm_vec_type cuda >> "$out/bp3.log" 2>&1
  done
done
grep -E "^==|^[248] +matfree" "$out/bp3.log"
