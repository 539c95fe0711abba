#!/bin/bash
# Run 22 (H100, one call): the device tables shared by every operator and right-hand side on a DM, against .old
# (60836fe, each built its own) built side by side; make check-gpu on this tree first. 998k P1 tetrahedra with atomic,
# lma and matfree on one DM (the later operators' setup), and BP3 8M Q2 (FEGRHS, whole process), old/new interleaved
# twice.   bash share/bench/setup/run22.sh
source share/bench/build-old-new.sh
grep -qE "error:|Error [0-9]" $OUT/build.log && { grep -B2 -A5 -E "error:|Error [0-9]" $OUT/build.log | head -40; exit 1; }
make check-gpu > $OUT/run22-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run22-check-gpu.log
tail -3 $OUT/run22-check-gpu.log
ev='^(atomic|lma|matfree) |^[0-9] +matfree|FEGRHS|FEGSetUpDevice|FEGSetUp '
for rep in 1 2; do for t in old new; do
  d=examples; [ $t = old ] && d=.old/examples
  (cd $d && ./bench -dm_vec_type cuda -bench_reps 3 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies atomic,lma,matfree -log_view -log_view_gpu_time) > $OUT/run22-tet1-$t$rep.log 2>&1
  echo "== tet1 $t $rep"; grep -E "$ev" $OUT/run22-tet1-$t$rep.log
  s0=$(date +%s.%N)
  (cd $d && ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 2 -dofs 8000000 -its 50 -reps 1 -strategies matfree -log_view -log_view_gpu_time) > $OUT/run22-bp3-$t$rep.log 2>&1
  s1=$(date +%s.%N)
  echo "== bp3 $t $rep process $(awk "BEGIN{print $s1 - $s0}") s"; grep -E "$ev" $OUT/run22-bp3-$t$rep.log
done; done
