#!/bin/bash
# the old (baseline) and new builds side by side, each configuration interleaved old/new in one run
source .gpu/env.sh
if [ ! -x examples/bench_matfree ] || [ ! -x .old/examples/bench_matfree ]; then
  ( ./configure --with-check=0 > /dev/null && make -j12 lib examples > /dev/null 2>&1 ) &
  ( cd .old && ./configure --with-check=0 > /dev/null && make -j4 lib examples > /dev/null 2>&1 ) &
  wait
fi
ls -la examples/bench .old/examples/bench > $OUT/builds.txt 2>&1
pair() { label=$1; shift; for tree in old new; do d=examples; [ $tree = old ] && d=.old/examples; echo "== $tree: $*" >> $OUT/$label.log; (cd $d && timeout 240 "$@") >> $OUT/$label.log 2>&1; done; }
for cfg in "$@"; do
  case $cfg in
    tet1) pair bench-tet1 ./bench -dm_vec_type cuda -bench_reps 10 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies atomic,coo,lma,matfree ;;
    tet2) pair bench-tet2 ./bench -dm_vec_type cuda -bench_reps 10 -feg_cell_type tet -feg_faces 55 -order 2 -bench_strategies atomic,lma,matfree ;;
    hex2) pair bench-hex2 ./bench -dm_vec_type cuda -bench_reps 10 -feg_cell_type hex -feg_faces 40 -order 2 -bench_strategies atomic,lma,matfree ;;
    action) pair bench_matfree-action ./bench_matfree -dm_vec_type cuda -orders 1,2,3,4,5,6,7,8 -elements 320000 -reps 10 -kernels auto ;;
    bp3) pair bench_matfree-bp3 ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 2,4 -dofs 1000000 -its 50 -reps 3 -strategies matfree,lma ;;
  esac
done
grep -h "^==\|^atomic\|^coo\|^lma\|^matfree\|^[0-9] \|bp3\|action" $OUT/*.log | head -80
