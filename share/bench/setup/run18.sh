#!/bin/bash
# Run 18 (H100, one call): make check-gpu on the tree, then where BP3's setup at 8M unknowns goes: -log_view with GPU
# times and -feg_view's phases at Q2/Q4/Q8, and an Nsight Systems trace of Q2 (CUDA API and OS runtime summaries).
#   bash share/bench/setup/run18.sh
source .gpu/env.sh
./configure --with-check-dir=.gpu/check > /dev/null && make -j16 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
make check-gpu > $OUT/run18-check-gpu.log 2>&1; echo "check-gpu rc $?" >> $OUT/run18-check-gpu.log
tail -3 $OUT/run18-check-gpu.log
cd examples
ev='^[0-9] +matfree|FEG[A-Za-z]+ |SFSetUp|DMPlex|Section|KSPSolve|MatMult |cuda|CUDA|^Time \(sec|setup phases'
for o in 2 4 8; do
  ./bench_matfree -dm_vec_type cuda -mode bp3 -orders $o -dofs 8000000 -its 50 -reps 1 -strategies matfree -log_view -log_view_gpu_time -feg_view ::ascii_info_detail > $OUT/run18-bp3-o$o.log 2>&1
  echo "o$o rc $?"; grep -E "$ev" $OUT/run18-bp3-o$o.log
done
nsys profile -t cuda,osrt -o /tmp/run18-o2 -f true ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 2 -dofs 8000000 -its 5 -reps 1 -strategies matfree > $OUT/run18-nsys-o2-run.log 2>&1
nsys stats -r cuda_api_sum,cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,osrt_sum /tmp/run18-o2.nsys-rep > $OUT/run18-nsys-o2.txt 2>&1
nsys stats -r cuda_api_trace /tmp/run18-o2.nsys-rep 2>/dev/null | awk '$0 ~ /cuda|Start/' | head -400 > $OUT/run18-nsys-o2-trace.txt
head -60 $OUT/run18-nsys-o2.txt
