#!/bin/bash
# Run 20 (H100, one call): the final tree's make check-gpu, then simplex orders 1-8 twice against .old (4a5c006):
#   bash share/bench/simplex/run20.sh  (OUT set by the device; .old built from 4a5c006)
source share/bench/build-old-new.sh
make check-gpu > $OUT/run20-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run20-check-gpu.log
tail -4 $OUT/run20-check-gpu.log
for rep in a b; do
 bash share/bench/simplex/run.sh $OUT/s-new-$rep 1,2,3,4,5,6,7,8 auto
 (cd .old && bash share/bench/simplex/run.sh $OUT/s-old-$rep 1,2,3,4,5,6,7,8 auto)
 for t in new old; do echo "== $t $rep" >> $OUT/run20-action.log; cat $OUT/s-$t-$rep/action.log >> $OUT/run20-action.log; rm -rf $OUT/s-$t-$rep; done
done
grep -E "^[1-8] |== " $OUT/run20-action.log
