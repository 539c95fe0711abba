#!/bin/bash
# lma MatMult with the element's dof count as a template parameter (x_e in registers) against the library before, on
# one GPU, the two libraries alternating twice in one call (share/bench/abbench.sh):
#   source .gpu/env.sh && bash share/bench/lma/run1.sh OUT OLDLIBDIR NEWLIBDIR
# bench's lma line (assembly and MatMult medians of 20) for P1 and P2 tetrahedra, P1 triangles, Q1 hexahedra and P2
# tetrahedra with single-precision element matrices, then advdiff's whole run (545k triangles, 200 steps, GPU lma).
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
bash "$here/share/bench/abbench.sh" "$out" "$old" "$new" lma "tet 55 1; tet 28 2; tri 522 1; hex 100 1; tet 28 2 -feg_precision single"
cd "$here/examples"
for pair in 1 2; do
  for who in old new; do
    lib=$old
    [ "$who" = new ] && lib=$new
    echo "== $who pair $pair: advdiff" >> "$out/advdiff.log"
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda >> "$out/advdiff.log" 2>&1
  done
done
grep -E "^==|times" "$out/advdiff.log"
