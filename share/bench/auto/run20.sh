#!/bin/bash
# Run 20: the library of HEAD on the GPU, then auto's calibration again. First make check-gpu's tests, test_gpu's
# symmetric case (lma's packed element matrices, now at 3-27 dofs) under the four compute-sanitizer tools and the
# cheap cases under memcheck and initcheck (the owned pairs' loop bounds of 5d4069a run in all of them). Then the
# bench matrix three times per case at scales 0.6 and 1 (run 17's sizes): run 17's rows predate lma's packed
# symmetric storage, matfree's per-element factors on affine hexahedra and the threaded sections.
#   source .gpu/env.sh && bash share/bench/auto/run20.sh OUT LIBDIR
set -u
out=$1 lib=$2
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_gpu "$out" "$lib"
export LD_LIBRARY_PATH="$lib:${BASE_LD:-}"
bash "$here/share/fegpu/sanitize.sh" "$here" "memcheck racecheck synccheck initcheck" symmetric > "$out/sanitize.txt" 2>&1
bash "$here/share/fegpu/sanitize.sh" "$here" "memcheck initcheck" "kernels deterministic single later solve" >> "$out/sanitize.txt" 2>&1
grep -E "^ok|^FAILED|passed" "$out/sanitize.txt"
cp "$here"/tests/sanitize-*.log "$out/" 2>/dev/null # (returned only in part: the machine returns eight files a call)
FEG_REPS=3 bash "$here/share/bench/auto/matrix.sh" "$out" calib20a 0.6 ${DEADLINE_A:-200} "atomic lma matfree"
FEG_REPS=3 bash "$here/share/bench/auto/matrix.sh" "$out" calib20b 1 ${DEADLINE_B:-330} "atomic lma matfree"
grep -c . "$out/calib20a.csv" "$out/calib20b.csv"
grep -h "deadline\|^rc" "$out/calib20a.log" "$out/calib20b.log" | head
xz -9 "$out"/calib20a.log "$out"/calib20b.log
