#!/bin/bash
# Run 19 (H100, one call): this tree and .old (140274e) built side by side, make check-gpu on this tree, then BP3 at
# 8M unknowns Q2/Q4/Q6/Q8 (matfree, 50 CG iterations), old and new interleaved twice, whole process timed; -log_view of
# the new tree at Q2.   bash share/bench/setup/run19.sh
source share/bench/build-old-new.sh
grep -qE "error:|Error [0-9]" $OUT/build.log && { grep -B2 -A5 -E "error:|Error [0-9]" $OUT/build.log | head -40; exit 1; }
make check-gpu > $OUT/run19-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run19-check-gpu.log
tail -3 $OUT/run19-check-gpu.log
echo "tree,rep,order,cells,dofs,mesh_s,setup_s,solve_s,rate,sections_s,process_s" > $OUT/run19-bp3.csv
for rep in 1 2; do for o in 2 4 6 8; do for t in old new; do
  d=examples; [ $t = old ] && d=.old/examples
  s0=$(date +%s.%N)
  (cd $d && ./bench_matfree -dm_vec_type cuda -mode bp3 -orders $o -dofs 8000000 -its 50 -reps 1 -strategies matfree) > $OUT/bp3.log 2>&1
  s1=$(date +%s.%N)
  l=$(grep -E "^$o +matfree" $OUT/bp3.log)
  echo "$t,$rep,$o,$(echo $l | awk '{print $3","$4","$5","$6","$7","$8","($10==""?"-":$10)}'),$(awk "BEGIN{print $s1 - $s0}")" >> $OUT/run19-bp3.csv
done; done; done
rm -f $OUT/bp3.log; cat $OUT/run19-bp3.csv
cd examples && ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 2 -dofs 8000000 -its 50 -reps 1 -strategies matfree -log_view -log_view_gpu_time -feg_view ::ascii_info_detail > $OUT/run19-bp3-o2-logview.log 2>&1
grep -E "^[0-9] +matfree|setup phases|^FEG|Time \(sec" $OUT/run19-bp3-o2-logview.log
