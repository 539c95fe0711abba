#!/bin/bash
# Run 18: validation of the model refitted to run 17 (automodel.h as committed): make check-gpu's tests on the
# library, then the matrix at scale 0.8 with three processes per case and strategy, auto for 1, 10 and 100
# applications beside the three types, the strategies of a case taking turns; score.py's table.
#   source .gpu/env.sh && bash share/bench/auto/run18.sh OUT LIBDIR [DEADLINE_S]
set -u
out=$1 lib=$2 deadline=${3:-360}
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
(cd "$here" && LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 300 --extra-args "-dm_vec_type cuda") > "$out/check-gpu.log" 2>&1
tail -1 "$out/check-gpu.log"
export LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}"
FEG_REPS=3 bash "$here/share/bench/auto/matrix.sh" "$out" valid18 0.8 "$deadline" "atomic lma matfree auto@1 auto@10 auto@100"
grep -h "deadline" "$out/valid18.log" | head -3
python3 "$here/share/bench/auto/score.py" "$out/valid18.csv" "$out/valid18-auto1.csv" "$out/valid18-auto10.csv" "$out/valid18-auto100.csv" | tee "$out/valid18-score.txt"
