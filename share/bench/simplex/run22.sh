#!/bin/bash
# Run 22 (H100, one call): the per-thread kernel with two elements per thread (FEG_EXP_EPT, a temporary build of
# refop.cu whose kernel took a compile-time count of elements per thread, each operator entry loaded once for both;
# since removed) against one, test_gpu matfree both ways (120 checks passed each), then P1, P2 three times each:
#   bash share/bench/simplex/run22.sh
source .gpu/env.sh
./configure --with-check-dir=.gpu/check > /dev/null && make -j16 > $OUT/build.log 2>&1
for e in 0 1; do if [ $e = 1 ]; then export FEG_EXP_EPT=1; fi; echo "EPT env $e"; CK_RUN_CASE=matfree ./tests/test_gpu -dm_vec_type cuda 2>&1 | grep -E "^[0-9]+%|:[EF]:" | head -5; unset FEG_EXP_EPT; done
for rep in a b c; do for v in 1 2; do if [ $v = 2 ]; then export FEG_EXP_EPT=1; fi; FEG_EXP_VERBOSE=1 bash share/bench/simplex/run.sh $OUT/p-$v-$rep 1,2 auto; unset FEG_EXP_EPT; echo "== ept $v $rep" >> $OUT/ept.log; cat $OUT/p-$v-$rep/action.log >> $OUT/ept.log; rm -rf $OUT/p-$v-$rep; done; done
grep -E "^[12] |== |EXP" $OUT/ept.log
