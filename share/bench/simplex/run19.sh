#!/bin/bash
# Run 19 (H100, one call): P1, P2 with the per-thread kernel's operators in shared memory (FEG_EXP_SOPS, a temporary
# build of refop.cu, since removed) and with the factored mma, against the auto kernel and .old (4a5c006):
#   bash share/bench/simplex/run19.sh
source share/bench/build-old-new.sh
CK_RUN_CASE=matfree ./tests/test_gpu -dm_vec_type cuda 2>&1 | grep -E "^[0-9]+%|:[EF]:" | head -5
for rep in a b; do
 for v in base SOPS mma old; do
  case $v in base) e=""; k=auto;; SOPS) e="FEG_EXP_SOPS=1"; k=auto;; mma) e=""; k=mma;; old) e=""; k=auto;; esac
  if [ $v = old ]; then (cd .old && bash share/bench/simplex/run.sh $OUT/p-$v-$rep 1,2 auto); else env $e bash share/bench/simplex/run.sh $OUT/p-$v-$rep 1,2 $k; fi
  echo "== $v $rep" >> $OUT/p12.log; cat $OUT/p-$v-$rep/action.log >> $OUT/p12.log; rm -rf $OUT/p-$v-$rep
 done
done
grep -E "^[1-8] |== " $OUT/p12.log
