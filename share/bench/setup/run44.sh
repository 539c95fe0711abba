#!/bin/bash
# Run 44: a DM's later lma operator at P1 (998k tetrahedra), what its setup is made of: bench with matfree first (it
# reads the DM), then lma three times, under cudashim.c (CUDA runtime calls per FEGCreateOperator() window) and under
# -log_view -log_view_gpu_time (FEGSetUp, FEGIntegrate per operator stage), twice each:
#   source .gpu/env.sh && bash share/bench/setup/run44.sh OUT
set -u
out=$1
mkdir -p "$out"
gcc -O2 -shared -fPIC -o /tmp/cudashim.so share/bench/setup/cudashim.c -I"$PETSC_DIR"/include -I/usr/local/cuda/include -ldl || exit 1
cd examples
A="-dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies matfree,lma,lma,lma"
for rep in 1 2; do
  LD_PRELOAD=/tmp/cudashim.so ./bench $A > "$out/shim-$rep.log" 2>&1
  ./bench $A -log_view -log_view_gpu_time > "$out/logview-$rep.log" 2>&1
done
grep -h "^cudashim FEGCreateOperator\|^lma \|^matfree " "$out"/shim-*.log
