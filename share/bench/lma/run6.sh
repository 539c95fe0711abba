#!/bin/bash
# A symmetric form's lma element matrices kept as their upper triangles (-feg_lma_symmetric, on by default at 3-10
# dofs) against the library before, both precisions, alternating twice (share/bench/abbench.sh; bench's C is
# symmetric): the packed sizes (P1-P3 triangles, Q1-Q2 quadrilaterals, P1-P2 tetrahedra, Q1 hexahedra, P1 prisms) and
# P3 tetrahedra (20 dofs, full in both) as a control; then make check-gpu's tests on the new library, and advdiff at
# 545k triangles with lma (its mass and diffusion operators are symmetric, the advection one is not):
#   source .gpu/env.sh && bash share/bench/lma/run6.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_gpu "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out" "$old" "$new" lma,lma_single "tet 55 1; tet 55 2; tri 522 1; tri 300 2; tri 200 3; quad 1000 1; quad 300 2; hex 100 1; prism 60 1; tet 28 3"
advdiff() {
  echo "== $1 pass $2: advdiff lma" >> "$out/advdiff.log"
  (cd "$here/examples" && timeout 120 ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda) >> "$out/advdiff.log" 2>&1
}
ab_alternate 2 "$old" "$new" advdiff
grep -E "^==|times" "$out/advdiff.log"
