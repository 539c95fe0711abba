#!/bin/bash
# Run 26 (H100, one call): continuous P2 tetrahedra (atomic adds into the shared dofs), the nodal kernel against
# -feg_matfree_nodal 0, alternating four times; discontinuous P2 once more each way; then compute-sanitizer initcheck
# on test_gpu's matfree case (run 25 ran memcheck, racecheck and synccheck before its call's time ran out):
#   bash share/bench/simplex/run26.sh LIB    (OUT set by the device; binaries from .gbuild, test_gpu in tests/)
export LD_LIBRARY_PATH=$1:$PWD/.gbuild/lib:$LD_LIBRARY_PATH
for rep in a b c d; do
  for v in nodal factored; do
    extra=""; [ $v = factored ] && extra="-feg_matfree_nodal 0"
    bash share/bench/simplex/run.sh $OUT/c-$v-$rep 2 auto -continuous $extra
    echo "== continuous $v $rep" >> $OUT/action.log; cat $OUT/c-$v-$rep/action.log >> $OUT/action.log; rm -rf $OUT/c-$v-$rep
  done
done
for v in nodal factored; do
  extra=""; [ $v = factored ] && extra="-feg_matfree_nodal 0"
  bash share/bench/simplex/run.sh $OUT/d-$v 2 auto $extra
  echo "== discontinuous $v" >> $OUT/action.log; cat $OUT/d-$v/action.log >> $OUT/action.log; rm -rf $OUT/d-$v
done
grep -E "^[12] |== " $OUT/action.log
bash share/fegpu/sanitize.sh $PWD initcheck matfree > $OUT/sanitize-initcheck-matfree.txt 2>&1; cat $OUT/sanitize-initcheck-matfree.txt
