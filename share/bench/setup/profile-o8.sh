#!/bin/bash
# Where BP3 Q8 setup goes on the GPU: -log_view of one bench_matfree run (an nsys summary was tried in the same
# call and gave an empty report; the host part was then profiled with perf on the CPU machine)
source .gpu/env.sh
./configure --with-check=0 > $OUT/build.log 2>&1 && make -j16 lib examples >> $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
cd examples
timeout 120 ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 8 -dofs 8000000 -its 50 -reps 1 -strategies matfree -log_view -log_view_gpu_time > $OUT/o8-logview.log 2>&1
grep -E "^ *8 +matfree|^FEG|^KSPSolve|^PCApply|^MatGetDiag|^DMPlexInterp|^MatMult " $OUT/o8-logview.log | cut -c1-120
