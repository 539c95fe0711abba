#!/bin/bash
# Run 23 (H100, one call): run 22 showed matfree re-assembly on 998k P1 tetrahedra 0.70 ms (shared device tables)
# against 0.58 ms (60836fe, .old) when matfree is the third operator on the DM; the same cases without -log_view, and
# matfree alone on the DM, old/new interleaved twice.   bash share/bench/setup/run23.sh
source share/bench/build-old-new.sh
for rep in 1 2; do for t in old new; do
  d=examples; [ $t = old ] && d=.old/examples
  for s in atomic,lma,matfree matfree; do
    echo "== $t $rep $s"
    (cd $d && ./bench -dm_vec_type cuda -bench_reps 5 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies $s) 2>&1 | grep -E "^(atomic|lma|matfree) "
  done
done; done | tee $OUT/run23.txt
