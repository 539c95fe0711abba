#!/bin/bash
# advdiff's solves on the GPU, host side and device side (no nsys on the GPU machine):
# -log_view without -log_view_gpu_time (200 steps; events' host times, the device work running behind), and ncu's
# duration of 60 consecutive kernels in the third time step (the device time of a Chebyshev and a CG iteration)
#   source .gpu/env.sh && bash share/bench/solve/prof2.sh OUT [ADVDIFF] [STRATEGY]
set -u
out=$1 exe=${2:-./advdiff} strat=${3:-matfree}
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for m in "60k square_944.msh -dm_refine 3" "545k square_2128.msh -dm_refine 4"; do
  set -- $m
  tag=$1; shift
  A="-feg_mesh_file ../share/meshes/$* -feg_strategy $strat -dm_vec_type cuda"
  $exe $A -advdiff_steps 200 -log_view > "$out/logview-$tag.txt" 2>&1
  ncu --metrics gpu__time_duration.sum --launch-skip 3000 --launch-count 80 --csv $exe $A -advdiff_steps 4 > "$out/ncu-$tag.csv" 2>&1
done
