#!/bin/bash
# Run 56: the host loops of an operator's setup on one process. PetscTime() probes in three earlier calls (not kept)
# put BP3's setup at 8M Q2 unknowns at 0.68-0.74 s, of it 0.1 s making and zeroing two local work vectors that a
# kernel indexing the global vectors never uses, 80 ms reading the whole dof map to learn that a continuous space
# shares dofs, and serial passes over the 8M local dofs and the 26M element dofs. Now: the work vectors are made at
# the first apply that needs them, the layout pass stops once its answer is known, and the local-to-global map, the
# owned pairs and sum factorisation's index permutation run on the
# setup threads. make check-gpu's tests with the new library, then old and new alternating twice: bench_matfree's
# BP3 at 8M unknowns (Q2, Q4, Q8), bench's setup of 998k P1 tetrahedra (atomic, lma, matfree), advdiff's whole
# process at 545k triangles (lma, GPU vectors).
#   source .gpu/env.sh && bash share/bench/setup/run56.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_gpu "$out" "$new"
cd "$here/examples"
. ../share/bench/setup/timedrun.sh
pass() { # WHO PAIR
  echo "== $1 pair $2: bp3" >> "$out/bp3.log"
  timeout 150 ./bench_matfree -mode bp3 -orders 2,4,8 -dofs 8000000 -strategies matfree -its 50 -reps 3 -dm_vec_type cuda >> "$out/bp3.log" 2>&1
  echo "== $1 pair $2: bench tet P1" >> "$out/bench.log"
  timeout 100 ./bench -dm_vec_type cuda -bench_reps 5 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies atomic,lma,matfree -bench_petsc_coo 0 >> "$out/bench.log" 2>&1
  echo "== $1 pair $2" >> "$out/advdiff.log"
  run ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda
}
ab_alternate 2 "$old" "$new" pass
grep -E "^==|^[248] +matfree" "$out/bp3.log"
grep -E "^==|^(atomic|lma|matfree) " "$out/bench.log" | cut -c1-120
grep -E "^==|times|process wall" "$out/advdiff.log"
