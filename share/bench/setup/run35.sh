#!/bin/bash
# advdiff with each platform's default mass solver (-advdiff_mass_solver auto: Chebyshev with GPU vectors, CG on the
# host), 60k and 545k triangles, 200 steps: GPU matfree and lma against `mpiexec -n 16` addto on the host cores,
# alternating three times; every process timed by its wall clock:
#   source .gpu/env.sh && bash share/bench/setup/run35.sh OUT [ADVDIFF]   (run 36: the same, advdiff timing each solve after a device sync)
set -u
out=$1 exe=${2:-./advdiff}
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
. ../share/bench/setup/timedrun.sh
for mesh in "square_944.msh -dm_refine 3" "square_2128.msh -dm_refine 4"; do
  A="-advdiff_steps 200 -feg_mesh_file ../share/meshes/$mesh"
  for rep in 1 2 3; do
    run $exe $A -feg_strategy matfree -dm_vec_type cuda
    run $exe $A -feg_strategy lma -dm_vec_type cuda
    run mpiexec -n 16 $exe $A -feg_strategy addto
  done
done
grep -E "^==|iterations|last step|conserved|times" "$out/advdiff.log"
