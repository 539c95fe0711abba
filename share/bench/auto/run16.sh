#!/bin/bash
# Run 16: the setup threads sized by the mesh (FEGDiscThreads(): one per 64k element dofs) against the library before
# (all of the host's threads above 16k cells): tet P3 on a 16^3 box, matfree, bench's setup column, the two libraries
# alternating FEG_REPS times; then the auto matrix (run 15's) and make check-gpu's tests on the new library.
#   source .gpu/env.sh && bash share/bench/auto/run16.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
here=$(pwd)
cd examples
for rep in $(seq ${FEG_REPS:-8}); do
  for who in old new; do
    lib=$old
    [ $who = new ] && lib=$new
    echo "== $who rep $rep" >> "$out/threads.log"
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 16 -order 3 -bench_strategies matfree >> "$out/threads.log" 2>&1
  done
done
awk '/^== /{w=$2} /^matfree /{s[w]=s[w]" "$3} END{for (w in s) print w, "setup s:" s[w]}' "$out/threads.log" | sort
cd "$here"
export LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}"
FEG_REPS=4 bash share/bench/auto/matrix.sh "$out" valid16 0.8 470 "atomic lma matfree auto@1 auto@10 auto@100"
python3 share/bench/auto/score.py "$out/valid16.csv" "$out/valid16-auto1.csv" "$out/valid16-auto10.csv" "$out/valid16-auto100.csv" > "$out/valid16-score.txt" 2>&1
tail -1 "$out/valid16-score.txt"
xz -9 "$out/valid16.log"
MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 200 --extra-args "-dm_vec_type cuda" > "$out/check-gpu.log" 2>&1
tail -1 "$out/check-gpu.log"
