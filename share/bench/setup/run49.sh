#!/bin/bash
# Run 49: advdiff at 545k triangles with each GPU operator type (matfree, lma, addto; the mass solves by Chebyshev),
# alternating twice with `mpiexec -n 16` addto on the host cores; -log_view of one addto and one matfree process (no
# -log_view_gpu_time, whose synchronisations change what is measured); bench's MatMult of the three types on 545k P1
# triangles (addto: PETSc's AIJCUSPARSE MatMult of the assembled matrix).
#   source .gpu/env.sh && bash share/bench/setup/run49.sh OUT [ADVDIFF]
set -u
out=$1 exe=${2:-./advdiff}
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
. ../share/bench/setup/timedrun.sh
A="-advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4"
for rep in 1 2; do
  for s in matfree lma addto; do run $exe $A -feg_strategy $s -dm_vec_type cuda; done
  run mpiexec -n 16 $exe $A -feg_strategy addto
done
for s in addto matfree; do
  timeout 120 $exe $A -feg_strategy $s -dm_vec_type cuda -log_view > "$out/logview-$s.txt" 2>&1
done
timeout 200 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type tri -feg_faces 522 -order 1 -bench_strategies atomic,lma,matfree -bench_petsc_coo 0 > "$out/bench-tri1.log" 2>&1
grep -E "^==|times" "$out/advdiff.log"
grep -E "^(atomic|lma|matfree) |MatMult" "$out/bench-tri1.log" | cut -c1-160
