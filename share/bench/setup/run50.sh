#!/bin/bash
# Run 50: where advdiff's 0.18 s of setup go that its runs with the atomic scatter report beyond those with the
# transpose gather (share/bench/solve run 2): 545k triangles, matfree, each scatter in turn under -log_view (no
# -log_view_gpu_time) and -feg_view, two passes; the four -log_view files and the timing lines.
#   source .gpu/env.sh && bash share/bench/setup/run50.sh OUT
set -u
out=$1
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
A="-advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy matfree -dm_vec_type cuda"
for pass in 1 2; do
  for sc in atomic gather; do
    t0=$(date +%s%N)
    timeout 120 ./advdiff $A -feg_lma_scatter $sc -log_view -feg_view > "$out/logview-$sc-$pass.txt" 2>&1
    echo "== $sc pass $pass rc $? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> "$out/walls.txt"
  done
done
cat "$out/walls.txt"
grep -h "times (s)" "$out"/logview-*.txt
