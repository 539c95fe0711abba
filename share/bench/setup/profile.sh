#!/bin/bash
# Where setup time goes on the GPU machine: -log_view (with the FEGSetUp phase events) of the large cases
source .gpu/env.sh
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt 2>&1
./configure --with-check=0 > $OUT/build.log 2>&1 && make -j16 lib examples >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
cd examples
lv="-log_view -log_view_gpu_time"
ev='^(atomic|coo|lma|matfree|bench|[0-9] +matfree)|FEG[A-Za-z]+ |DMPlex(GetClos|MatSetClos|Interp|Distrib)|MatSetPreall|MatAssemblyEnd|DMProject|DMCreateMat|KSPSolve|MatMult |PCApply|MatGetDiag|VecCUDACopy|^Time \(sec'
timeout 200 ./bench -dm_vec_type cuda -bench_reps 3 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies atomic,lma,matfree $lv > $OUT/tet1.log 2>&1
grep -E "$ev" $OUT/tet1.log
for o in 2 6; do
  timeout 150 ./bench_matfree -dm_vec_type cuda -mode bp3 -orders $o -dofs 8000000 -its 50 -reps 1 -strategies matfree $lv > $OUT/bp3-o$o.log 2>&1; echo "rc $?"
  grep -E "$ev" $OUT/bp3-o$o.log
done
