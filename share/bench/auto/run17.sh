#!/bin/bash
# Run 17: recalibrate -feg_strategy auto's model on today's library (setups with the one-process global section and
# the loops over cells sized by their work, share/bench/setup runs 39-41 and auto run 16; the entries kernel's held
# tensors). First, the library before and after the FEGRefEntry() helper (integrate.cu) alternating twice on the
# kernels it touches (COO values, lma rows, atomics; symmetric and non-symmetric C), since its PTX differs. Then the
# matrix three times per case at scales 0.6 and 1 (run 9's sizes), each strategy in its own process.
#   source .gpu/env.sh && bash share/bench/auto/run17.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
bash "$here/share/bench/abbench.sh" "$out/ab" "$old" "$new" atomic,coo,lma "tet 55 2; tet 30 3 -bench_advection 1; hex 25 3; tri 300 3 -bench_advection 1" > /dev/null
python3 "$here/share/bench/sym/abtab.py" "$out/ab/bench.log" > "$out/ab/table.txt" 2>&1
cat "$out/ab/table.txt"
export LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}"
FEG_REPS=3 bash "$here/share/bench/auto/matrix.sh" "$out" calib17a 0.6 ${DEADLINE_A:-200} "atomic lma matfree"
FEG_REPS=3 bash "$here/share/bench/auto/matrix.sh" "$out" calib17b 1 ${DEADLINE_B:-260} "atomic lma matfree"
grep -c . "$out/calib17a.csv" "$out/calib17b.csv"
grep -h "deadline\|^rc" "$out/calib17a.log" "$out/calib17b.log" | head
