#!/bin/bash
# Run 9 (H100, one call): make check-gpu on the final tree (lma's separate row kernel back), profile.sh on Q2/Q3
# hexahedra, and cdr_integration on an unperturbed hexahedral box (FEGComputeRHS against the element matrix on affine
# cells):  bash share/bench/fused/run9.sh
source .gpu/env.sh
./configure --with-check-dir=.gpu/check > /dev/null && make -j16 > $OUT/build.log 2>&1
make check-gpu > $OUT/run9-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run9-check-gpu.log
tail -3 $OUT/run9-check-gpu.log
bash share/bench/fused/profile.sh $OUT/new hex-q2 hex-q3 > /dev/null 2>&1
cp $OUT/new/fused.csv $OUT/run9.csv; rm -rf $OUT/new; cat $OUT/run9.csv
for p in 2 3; do ./examples/cdr_integration -feg_cell_type hex -feg_faces 40 -feg_perturb 0 -cdr_orders $p -cdr_reps 10 -cdr_timing 1 -dm_vec_type cuda >> $OUT/run9-rhs-affine-hex.log 2>&1; done
grep -E "^p [0-9]|element matrix|rror" $OUT/run9-rhs-affine-hex.log | head
