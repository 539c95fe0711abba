#!/bin/bash
# Run 39: what a setup's time and its spread between processes are made of, below -log_view's events.
# cudashim.c (LD_PRELOAD) times the CUDA runtime calls inside FEGCreateOperator() and the other setup calls:
#   bench, tet P3 on 16^3 boxes (auto's noisy case of run 14), lma and matfree, six processes each, taking turns;
#   advdiff at 545k triangles on the GPU, lma and matfree, under -log_view, with the same windows.
#   source .gpu/env.sh && bash share/bench/setup/run39.sh OUT     (from the repository root, binaries in examples/)
# FEG_REPS=n: n processes per type (6); FEG_GPUTIME=1: -log_view_gpu_time too, and bench once per type under it.
set -u
out=$1
mkdir -p "$out"
gcc -O2 -shared -fPIC -o /tmp/cudashim.so share/bench/setup/cudashim.c -I"$PETSC_DIR"/include -I/usr/local/cuda/include -ldl || exit 1
cd examples
reps=${FEG_REPS:-6}
for rep in $(seq $reps); do
  for s in lma matfree; do
    echo "== $s rep $rep" >> "$out/noise.log"
    LD_PRELOAD=/tmp/cudashim.so ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 16 -order 3 -bench_strategies $s >> "$out/noise.log" 2>&1
  done
done
for s in lma matfree; do
  LD_PRELOAD=/tmp/cudashim.so ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy $s -dm_vec_type cuda -log_view ${FEG_GPUTIME:+-log_view_gpu_time} > "$out/advdiff-$s-logview.log" 2>&1
done
if [ -n "${FEG_GPUTIME:-}" ]; then # the setup's events timed (GPU events need -log_view_gpu_time to show times)
  for s in lma matfree; do
    ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 16 -order 3 -bench_strategies $s -log_view -log_view_gpu_time > "$out/bench-$s-logview.log" 2>&1
  done
fi
grep -h '^==\|^cudashim FEGCreateOperator\|^lma \|^matfree ' "$out/noise.log"
