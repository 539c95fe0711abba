#!/bin/bash
# Run 17 (H100, one call): make check-gpu on this tree, then FEGComputeRHS against the element matrix on every cell
# type in this tree and the non-triangle cells in .old (4a5c006), back to back:
#   bash share/bench/setup/run17.sh  (from the repository root; OUT set by the device; .old built from 4a5c006)
source share/bench/build-old-new.sh
make check-gpu > $OUT/run17-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run17-check-gpu.log
tail -3 $OUT/run17-check-gpu.log
bash share/bench/setup/rhs-cells.sh $OUT/rhs-new > /dev/null 2>&1
cp share/bench/setup/rhs-cells.sh .old/share/bench/setup/
(cd .old && bash share/bench/setup/rhs-cells.sh $OUT/rhs-old "quad tet hex prism" > /dev/null 2>&1)
cp $OUT/rhs-new/rhs-cells.csv $OUT/run17-rhs-cells.csv; cp $OUT/rhs-old/rhs-cells.csv $OUT/run17-rhs-cells-old.csv
cat $OUT/rhs-new/rhs-cells.log > $OUT/run17-rhs-cells.log; rm -rf $OUT/rhs-new $OUT/rhs-old
cat $OUT/run17-rhs-cells.csv $OUT/run17-rhs-cells-old.csv
