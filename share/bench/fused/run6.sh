#!/bin/bash
# Run 6 (H100, one call), this tree against .old (223189b): profile.sh on Q2/Q3 hexahedra (lma on affine cells now
# through the row kernel), BP3 at 8M unknowns Q2/Q4 (setup: the affine test, the reference tensors of the right-hand
# side), and the simplex action orders 1-8 (launch fit checks cached): bash share/bench/fused/run6.sh
source share/bench/build-old-new.sh
cases="hex-q2 hex-q3"
bash share/bench/fused/profile.sh $OUT/new $cases > /dev/null 2>&1
cp share/bench/fused/profile.sh .old/share/bench/fused/
(cd .old && bash share/bench/fused/profile.sh $OUT/old $cases > /dev/null 2>&1)
(echo "tree,case,kernel,strategy,assembly_ms"; sed 1d $OUT/new/fused.csv | sed 's/^/new,/'; sed 1d $OUT/old/fused.csv | sed 's/^/old,/') > $OUT/run6.csv
for c in $cases; do cp $OUT/new/$c-auto.log $OUT/run6-$c-new.log; done
rm -rf $OUT/new $OUT/old
cat $OUT/run6.csv
for o in 2 4; do for t in old new; do
  d=examples; [ $t = old ] && d=.old/examples
  s=$(date +%s%N)
  (cd $d && ./bench_matfree -dm_vec_type cuda -mode bp3 -orders $o -dofs 8000000 -its 50 -reps 1 -strategies matfree -log_view) > $OUT/bp3-o$o-$t.log 2>&1
  echo "$t bp3 Q$o process $(( ($(date +%s%N) - s) / 1000000 )) ms" >> $OUT/run6-bp3.log
  grep -E "^$o +matfree|^FEG(SetUp|RHS|Integrate)" $OUT/bp3-o$o-$t.log | cut -c1-75 >> $OUT/run6-bp3.log
done; done
cat $OUT/bp3-o2-new.log $OUT/bp3-o2-old.log > $OUT/run6-bp3-o2.log; rm $OUT/bp3-o*.log
cat $OUT/run6-bp3.log
bash share/bench/simplex/run.sh $OUT/s-new 1,2,3,4,5,6,7,8 auto
(cd .old && bash share/bench/simplex/run.sh $OUT/s-old 1,2,3,4,5,6,7,8 auto)
(echo "== new"; cat $OUT/s-new/action.log; echo "== old"; cat $OUT/s-old/action.log) > $OUT/run6-simplex.log; rm -rf $OUT/s-new $OUT/s-old
grep -E "^[1-8] |== " $OUT/run6-simplex.log
