#!/bin/bash
# Run 7 (H100, one call), with share/bench/fused/run7-rows.patch applied (git apply; the rows mode it adds was measured
# slower than atomic in every case and not kept): make check-gpu, then bench's addto modes atomic, rows (one warp per
# CSR row summing its elements' reference-tensor entries in shared memory), coo and lma integration, one process per
# case:
#   bash share/bench/fused/run7.sh  (from the repository root; OUT set by the device)
source .gpu/env.sh
./configure --with-check-dir=.gpu/check > /dev/null && make -j16 > $OUT/build.log 2>&1
make check-gpu > $OUT/run7-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run7-check-gpu.log
tail -3 $OUT/run7-check-gpu.log
echo "case,strategy,assembly_ms" > $OUT/run7.csv
for c in "tet-p1:tet 55 1" "tet-p2:tet 28 2" "tet-p3:tet 30 3" "hex-q1:hex 99 1" "hex-q2:hex 40 2" "hex-q3:hex 25 3" "prism-p2:prism 40 2"; do
  n=${c%%:*}; set -- ${c#*:}
  ./examples/bench -dm_vec_type cuda -bench_strategies atomic,rows,coo,lma -bench_reps 10 -feg_view -feg_cell_type $1 -feg_faces $2 -order $3 > $OUT/run7-$n.log 2>&1
  awk -v n="$n" '($1=="atomic"||$1=="rows"||$1=="coo"||$1=="lma") && NF>=7 {print n","$1","$4}' $OUT/run7-$n.log >> $OUT/run7.csv
done
cat $OUT/run7.csv
