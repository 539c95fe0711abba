#!/bin/bash
# Run 16 (H100, one call): make check-gpu on this tree, then FEGComputeRHS against the element matrix on every cell
# type in this tree and in .old (4a5c006), back to back:
#   bash share/bench/setup/run16.sh  (from the repository root; OUT set by the device; .old built from 4a5c006)
source share/bench/build-old-new.sh
make check-gpu > $OUT/run16-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run16-check-gpu.log
tail -3 $OUT/run16-check-gpu.log
bash share/bench/setup/rhs-cells.sh $OUT/rhs-new > /dev/null 2>&1
cp share/bench/setup/rhs-cells.sh .old/share/bench/setup/
(cd .old && bash share/bench/setup/rhs-cells.sh $OUT/rhs-old > /dev/null 2>&1)
paste -d, $OUT/rhs-new/rhs-cells.csv $OUT/rhs-old/rhs-cells.csv | cut -d, -f1-7,13,14 | sed '1s/.*/cell,p,space,elements,element_matrix_us,rhs_us,ratio,old_rhs_us,old_ratio/' > $OUT/run16-rhs-cells.csv
cat $OUT/rhs-new/rhs-cells.log > $OUT/run16-rhs-cells.log; rm -rf $OUT/rhs-new $OUT/rhs-old
cat $OUT/run16-rhs-cells.csv
