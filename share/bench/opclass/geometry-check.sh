#!/bin/bash
bash .gpu/run1.sh
source .gpu/env.sh
( cd .old && make -j8 lib examples > /dev/null 2>&1 )
for tree in new old; do
  d=examples; [ $tree = old ] && d=.old/examples
  echo "== ncu $tree"
  (cd $d && timeout 100 ncu --clock-control none -k regex:"Geometry|Factors" -c 4 --metrics gpu__time_duration.sum ./bench -dm_vec_type cuda -bench_reps 3 -feg_cell_type tet -feg_faces 40 -order 1 -bench_strategies matfree 2>&1 | grep -E "Kernel|gpu__time_duration" | sed 's/(.*//' | tee $OUT/ncu-geometry-$tree.log)
done
for tree in old new old new; do
  d=examples; [ $tree = old ] && d=.old/examples
  echo "== bench $tree" | tee -a $OUT/bench-tet1-matfree.log
  (cd $d && timeout 60 ./bench -dm_vec_type cuda -bench_reps 10 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies matfree 2>&1 | grep "^matfree" | tee -a $OUT/bench-tet1-matfree.log)
done
