#!/bin/bash
# Run 24 (H100, one call): the nodal P2 kernel's minimum blocks per multiprocessor (__launch_bounds__(128, MINB)):
# none (run 23's library, 88-92 registers, 5 blocks), 6 (78-80 registers) and 7 (72 registers, 24-32 bytes spilled),
# discontinuous P2 (and P1 as control) four times each, alternating:
#   bash share/bench/simplex/run24.sh LIB5 LIB6 LIB7    (OUT set by the device; binaries from .gbuild)
base=$LD_LIBRARY_PATH
for rep in a b c d; do
  for v in 5 6 7; do
    eval lib=\$$((v - 4))
    LD_LIBRARY_PATH=$lib:$PWD/.gbuild/lib:$base bash share/bench/simplex/run.sh $OUT/s-$v-$rep 1,2 auto
    echo "== minb $v $rep" >> $OUT/action.log; cat $OUT/s-$v-$rep/action.log >> $OUT/action.log; rm -rf $OUT/s-$v-$rep
  done
done
grep -E "^[12] |== " $OUT/action.log
