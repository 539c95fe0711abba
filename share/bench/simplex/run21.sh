#!/bin/bash
# Run 21 (H100, one call): P2 with the per-thread kernel's mass matrix in shared memory (FEG_EXP_VAR=1: a temporary
# build of refop.cu whose mass operator was copied to a static shared array at kernel start, since removed) against the
# operators all in the parameter bank (FEG_EXP_VAR=0, the kernel kept), three repetitions each:
#   bash share/bench/simplex/run21.sh
source .gpu/env.sh
./configure --with-check-dir=.gpu/check > /dev/null && make -j16 lib examples > $OUT/build.log 2>&1
for rep in a b c; do for v in 0 1; do FEG_EXP_VAR=$v bash share/bench/simplex/run.sh $OUT/p-$v-$rep 1,2 auto; echo "== var $v $rep" >> $OUT/p2var.log; cat $OUT/p-$v-$rep/action.log >> $OUT/p2var.log; rm -rf $OUT/p-$v-$rep; done; done
grep -E "^[12] |== " $OUT/p2var.log
