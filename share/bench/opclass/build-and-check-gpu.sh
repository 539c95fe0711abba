#!/bin/bash
# GPU run 1: build the new tree and the old (baseline) one, then make check-gpu
set -o pipefail
source .gpu/env.sh
nvidia-smi --query-gpu=name,memory.total,clocks.sm --format=csv > $OUT/gpu.txt 2>&1
( ./configure --with-check-dir=.gpu/check > $OUT/build.log 2>&1 && make -j12 >> $OUT/build.log 2>&1; echo "new build rc $?" >> $OUT/build.log ) &
( cd .old && ./configure --with-check=0 > ../.old-build.log 2>&1 && make -j4 lib examples >> ../.old-build.log 2>&1; echo "old build rc $?" >> ../.old-build.log ) &
wait
tail -3 $OUT/build.log; tail -1 .old-build.log; cp .old-build.log $OUT/build-old.log
t0=$(date +%s)
make check-gpu 2>&1 | tee $OUT/check-gpu.log | grep -v "^ok"
echo "check-gpu took $(( $(date +%s) - t0 )) s"
