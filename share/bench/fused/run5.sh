#!/bin/bash
# Run 5 (H100, one call): make check-gpu on this tree, then profile.sh on the hexahedra (unperturbed: affine, the
# reference-tensor kernels now; perturbed: unchanged GEMM) and P3 tetrahedra in this tree and in .old (223189b), back to
# back: bash share/bench/fused/run5.sh  (from the repository root; OUT set by the device; .old built from 223189b)
source share/bench/build-old-new.sh
make check-gpu > $OUT/run5-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run5-check-gpu.log
tail -3 $OUT/run5-check-gpu.log
cases="tet-p3 hex-q2 hex-q2p hex-q3 hex-q3p"
bash share/bench/fused/profile.sh $OUT/new $cases > /dev/null 2>&1
cp share/bench/fused/profile.sh .old/share/bench/fused/
(cd .old && bash share/bench/fused/profile.sh $OUT/old $cases > /dev/null 2>&1)
for c in $cases; do cp $OUT/new/$c-auto.log $OUT/run5-$c-new.log; cp $OUT/old/$c-auto.log $OUT/run5-$c-old.log; done
(echo "tree,case,kernel,strategy,assembly_ms"; sed 1d $OUT/new/fused.csv | sed 's/^/new,/'; sed 1d $OUT/old/fused.csv | sed 's/^/old,/') > $OUT/run5.csv
rm -rf $OUT/new $OUT/old
cat $OUT/run5.csv
