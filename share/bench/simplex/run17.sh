#!/bin/bash
# Run 17 (H100, one call): the RHS kernel's first rewrite against .old (4a5c006), the per-thread P2 kernel's
# experiments (FEG_EXP_BAL: as many persistent blocks as make every block take the same number of tiles; FEG_EXP_MINB:
# __launch_bounds__(128, 7); both read in a temporary build of refop.cu, since removed), and ncu.sh at P2 and P3.
#   run from the repository root with .old built from 4a5c006: bash share/bench/simplex/run17.sh  (OUT set by the device)
source share/bench/build-old-new.sh
cp share/bench/setup/rhs-cells.sh .old/share/bench/setup/
tail -2 $OUT/build.log $OUT/build-old.log
(CK_RUN_CASE=rhs ./tests/test_gpu -dm_vec_type cuda > $OUT/test-rhs.log 2>&1; echo rc $? >> $OUT/test-rhs.log); tail -3 $OUT/test-rhs.log
bash share/bench/setup/rhs-cells.sh $OUT/rhs-new
(cd .old && bash share/bench/setup/rhs-cells.sh $OUT/rhs-old "hex tet prism")
for rep in a b; do
 for v in base BAL MINB BALMINB; do
  case $v in base) e="";; BAL) e="FEG_EXP_BAL=1";; MINB) e="FEG_EXP_MINB=1";; BALMINB) e="FEG_EXP_BAL=1 FEG_EXP_MINB=1";; esac
  env $e FEG_EXP_VERBOSE=1 bash share/bench/simplex/run.sh $OUT/p2-$v-$rep 2 auto
  echo "== $v $rep" >> $OUT/p2.log; cat $OUT/p2-$v-$rep/action.log >> $OUT/p2.log; rm -rf $OUT/p2-$v-$rep
 done
done
bash share/bench/simplex/ncu.sh $OUT/ncu 2,3
cat $OUT/rhs-new/rhs-cells.csv $OUT/rhs-old/rhs-cells.csv; grep -E "^2 |== " $OUT/p2.log
