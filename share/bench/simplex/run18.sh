#!/bin/bash
# Run 18 (H100, one call): this tree against .old (4a5c006), simplex orders 1-8 twice, FEGComputeRHS on every cell,
# Nsight Compute stall reasons and the SASS opcode counts of the per-thread P2 kernel:
#   bash share/bench/simplex/run18.sh  (OUT set by the device; .old built from 4a5c006)
source share/bench/build-old-new.sh
tail -1 $OUT/build.log $OUT/build-old.log
for c in matfree rhs; do CK_RUN_CASE=$c ./tests/test_gpu -dm_vec_type cuda 2>&1 | grep -E "^[0-9]+%|Checks|Failures|Errors|:[EF]:" | head -5; done > $OUT/tests.log
cat $OUT/tests.log
for rep in a b; do
 bash share/bench/simplex/run.sh $OUT/s-new-$rep 1,2,3,4,5,6,7,8 auto
 (cd .old && bash share/bench/simplex/run.sh $OUT/s-old-$rep 1,2,3,4,5,6,7,8 auto)
 for t in new old; do echo "== $t $rep" >> $OUT/simplex.log; cat $OUT/s-$t-$rep/action.log >> $OUT/simplex.log; rm -rf $OUT/s-$t-$rep; done
done
grep -E "^[1-8] |== " $OUT/simplex.log
bash share/bench/setup/rhs-cells.sh $OUT/rhs-new > /dev/null 2>&1
cp share/bench/setup/rhs-cells.sh .old/share/bench/setup/
(cd .old && bash share/bench/setup/rhs-cells.sh $OUT/rhs-old > /dev/null 2>&1)
paste -d, $OUT/rhs-new/rhs-cells.csv $OUT/rhs-old/rhs-cells.csv | cut -d, -f1-7,14 > $OUT/rhs.csv; rm -rf $OUT/rhs-new $OUT/rhs-old; cat $OUT/rhs.csv
/usr/local/cuda/bin/ncu --section WarpStateStats --section SchedulerStats --section SpeedOfLight --metrics regex:smsp__warp_issue_stalled_.*_per_warp_active.pct -k regex:FEGRefOp --launch-skip 5 --launch-count 1 ./examples/bench_matfree -mode action -orders 2 -kernels auto -dm_vec_type cuda -reps 2 > $OUT/ncu-2.txt 2>&1
/usr/local/cuda/bin/cuobjdump -sass lib/libfegpu.so > /tmp/all.sass; awk '/Function : .*FEGRefOpThread_KernelILi10ELi7E16FEGRefOpFactoredILi10ELi3ELi4ELi1EELi1E/{f=1;next} /Function : /{f=0} f' /tmp/all.sass > $OUT/p2.sass
grep -oE "^ +/\*[0-9a-f]+\*/ +[^ ;]+( [^ ;]+)?" $OUT/p2.sass | awk '{op=$2; if (op ~ /^@/) op=$3; sub(/\..*/,"",op); print op}' | sort | uniq -c | sort -rn | head -25
