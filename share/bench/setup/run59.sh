#!/bin/bash
# Run 59: advdiff at 545k triangles on the final library of 2026-11-28 (lma's packed symmetric element matrices), each
# GPU type alternating twice with `mpiexec -n 16` addto on the host cores, every process timed (run57.sh's advdiff part):
#   source .gpu/env.sh && bash share/bench/setup/run59.sh OUT LIBDIR
set -u
out=$1 lib=$2
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}"
cd "$here/examples"
. ../share/bench/setup/timedrun.sh
A="-advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4"
for rep in 1 2; do
  for s in matfree lma addto; do run ./advdiff $A -feg_strategy $s -dm_vec_type cuda; done
  run mpiexec -n 16 ./advdiff $A -feg_strategy addto
done
grep -E "^== \./|^== mpiexec|times|process wall" "$out/advdiff.log" | cut -c1-150
