#!/bin/bash
# advdiff's mass solves: CG (natural norm, to 1e-12) against Chebyshev on Wathen's bounds [1/2, 2] for the
# Jacobi-scaled P1 mass matrix (26 iterations bound the error by 1e-12, no inner products), GPU and 16 host cores,
# 60k and 545k triangles, 200 steps, alternating; every process timed by its wall clock:
#   source .gpu/env.sh && bash share/bench/setup/run34.sh OUT [ADVDIFF]
set -u
out=$1 exe=${2:-./advdiff}
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
CHEB=${CHEB:--mass_ksp_type chebyshev -mass_ksp_chebyshev_eigenvalues 0.5,2 -mass_ksp_norm_type none -mass_ksp_max_it 26}
CG=${CG:--mass_ksp_type cg}
. ../share/bench/setup/timedrun.sh
for mesh in "square_944.msh -dm_refine 3" "square_2128.msh -dm_refine 4"; do
  A="-advdiff_steps 200 -feg_mesh_file ../share/meshes/$mesh"
  for rep in 1 2; do
    for solver in CG CHEB; do
      S=${!solver}
      run $exe $A -feg_strategy matfree -dm_vec_type cuda $S
      run $exe $A -feg_strategy lma -dm_vec_type cuda $S
      run mpiexec -n 16 $exe $A -feg_strategy addto $S
    done
  done
done
grep -E "^==|iterations|conserved|times" "$out/advdiff.log"
