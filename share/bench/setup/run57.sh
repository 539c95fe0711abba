#!/bin/bash
# Run 57: the session's final library (setup runs 55-56): make check-gpu's tests, then BP3 at 8M unknowns at every
# order 2-8 (issue 11's "setup under 1 s at every order", the sections counted), then advdiff at 545k triangles with
# each GPU type alternating twice with `mpiexec -n 16` addto on the host cores (issue 11's 5x), every process timed.
#   source .gpu/env.sh && bash share/bench/setup/run57.sh OUT LIBDIR
set -u
out=$1 lib=$2
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_gpu "$out" "$lib"
export LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}"
cd "$here/examples"
timeout 300 ./bench_matfree -mode bp3 -orders 2,3,4,5,6,7,8 -dofs 8000000 -strategies matfree -its 50 -reps 3 -dm_vec_type cuda > "$out/bp3.log" 2>&1
grep -E "^[2-8] +matfree" "$out/bp3.log"
bash "$here/share/bench/setup/run59.sh" "$out" "$lib" # advdiff against the host cores, and its lines
