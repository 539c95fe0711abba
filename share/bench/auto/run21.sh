#!/bin/bash
# Run 21: validation of the model refitted to run 20 (automodel.h as committed; fit.py's lines kept to a >= 0, b >= 0
# by the better of the constant and the line through 0): test_gpu's auto case on the library, then the matrix at
# scales 0.8 and 0.7, three processes per case and strategy, auto for 1, 10 and 100 applications beside the three
# types, the strategies of a case taking turns; score.py's tables, and choices.py's score of run 17's table and the
# new one on the same processes. Everything packed into OUT/run21.tar.xz (the GPU machine returns eight files).
#   source .gpu/env.sh && bash share/bench/auto/run21.sh OUT LIBDIR [DEADLINE_S]
set -u
out=$1 lib=$2 deadline=${3:-240}
here=$(cd "$(dirname "$0")/../../.." && pwd)
a=$here/share/bench/auto
w=$(mktemp -d)
. "$here/share/bench/ablib.sh"
ab_check_case "$w" "$lib" auto > /dev/null
tail -3 "$w/mutant.log"
mv "$w/mutant.log" "$w/test-gpu-auto.log"
export LD_LIBRARY_PATH="$lib:${BASE_LD:-}"
for v in "valid21 0.8" "valid21b 0.7"; do
  set -- $v
  FEG_REPS=3 bash "$a/matrix.sh" "$w" "$1" "$2" "$deadline" "atomic lma matfree auto@1 auto@10 auto@100"
  grep -h "deadline" "$w/$1.log" | head -3
  python3 "$a/score.py" "$w/$1.csv" "$w/$1-auto1.csv" "$w/$1-auto10.csv" "$w/$1-auto100.csv" > "$w/$1-score.txt"
  python3 "$a/choices.py" "$w/$1.csv" "$a/run20/automodel-run17.h" "$here/src/op/impls/auto/automodel.h" > "$w/$1-choices.txt"
  tail -1 "$w/$1-score.txt"; grep -v "^ " "$w/$1-choices.txt" | tail -2
  xz -9 "$w/$1.log"
done
mkdir -p "$out" && tar -C "$w" -cJf "$out/run21.tar.xz" .
