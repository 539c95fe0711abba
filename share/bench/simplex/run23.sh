#!/bin/bash
# Run 23 (H100, one call): the per-thread refop at P2 with the gradient operators factored through the P1 nodal values
# of the derivatives, nodal.h's tables compiled in (-feg_matfree_nodal, default on), against the same library with
# -feg_matfree_nodal 0 (the Gram-Schmidt factors in the kernel's parameters) and against the previous stop's library.
# make check-gpu's tests first (new library), then orders 1, 2 (discontinuous, as in the table) three times
# each way, P2 continuous once, and Nsight Compute on the P2 kernel both ways:
#   bash share/bench/simplex/run23.sh NEWLIB OLDLIB    (OUT set by the device; binaries from .gbuild)
new=$1 old=$2 base=$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=$new:$PWD/.gbuild/lib:$base
MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root $PWD --tests test_gpu --gpu --timeout 200 --extra-args "-dm_vec_type cuda" > $OUT/check-gpu.log 2>&1
tail -3 $OUT/check-gpu.log
for rep in a b c; do
  for v in nodal factored old; do
    lib=$new extra=""
    [ $v = old ] && lib=$old
    [ $v = factored ] && extra="-feg_matfree_nodal 0"
    LD_LIBRARY_PATH=$lib:$PWD/.gbuild/lib:$base bash share/bench/simplex/run.sh $OUT/s-$v-$rep 1,2 auto $extra
    echo "== $v $rep" >> $OUT/action.log; cat $OUT/s-$v-$rep/action.log >> $OUT/action.log; rm -rf $OUT/s-$v-$rep
  done
done
for v in nodal factored; do
  extra=""; [ $v = factored ] && extra="-feg_matfree_nodal 0"
  bash share/bench/simplex/run.sh $OUT/c-$v 2 auto -continuous -view $extra
  echo "== continuous $v" >> $OUT/action.log; cat $OUT/c-$v/action.log >> $OUT/action.log; rm -rf $OUT/c-$v
  ncu -k regex:FEGRefOpThread_Kernel --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats \
    ./examples/bench_matfree -mode action -orders 2 -kernels auto -dm_vec_type cuda -reps 2 $extra > $OUT/ncu-p2-$v.txt 2>&1
done
grep -E "^[12] |== |nodal values|factored \(" $OUT/action.log
