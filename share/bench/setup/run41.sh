#!/bin/bash
# fegpu's global section on one process and no section SF where local and global vectors coincide, against the
# library before (old and new alternating three times, one call):
#   advdiff at 545k triangles on the GPU (lma), each process timed whole, and once more per library under the
#   cudashim windows (share/bench/setup/cudashim.c) for the setup's parts;
#   bench on 998k P1 tetrahedra (lma, the first operator on its DM: setup column), each process alone;
#   and advdiff with mpiexec -n 16 on the host cores (PETSc's sections there: several processes) for the ratio.
#   source .gpu/env.sh && bash share/bench/setup/run41.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
gcc -O2 -shared -fPIC -o /tmp/cudashim.so share/bench/setup/cudashim.c -I"$PETSC_DIR"/include -I/usr/local/cuda/include -ldl || exit 1
. share/bench/setup/timedrun.sh
cd examples
mesh="-feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4"
for rep in 1 2 3; do
  for who in old new; do
    lib=$old
    [ $who = new ] && lib=$new
    echo "== library $who" >> "$out/advdiff.log"
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" run ./advdiff -advdiff_steps 200 $mesh -feg_strategy lma -dm_vec_type cuda
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies lma > "$out/bench-$who-$rep.log" 2>&1
    echo "bench $who rep $rep: $(grep -E '^lma ' "$out/bench-$who-$rep.log" | awk '{print "setup", $3, "s, assembly", $4, "ms"}')" >> "$out/summary.txt"
  done
  [ $rep -lt 3 ] && run mpiexec -n 16 ./advdiff -advdiff_steps 200 $mesh -feg_strategy addto
done
for who in old new; do
  lib=$old
  [ $who = new ] && lib=$new
  LD_PRELOAD=/tmp/cudashim.so LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" ./advdiff -advdiff_steps 200 $mesh -feg_strategy lma -dm_vec_type cuda > "$out/advdiff-shim-$who.log" 2>&1
done
awk '/^== library/{who=$3} /^== \.\/advdiff/{gpu=1} /^== mpiexec/{gpu=0} /times \(s\)/{t=$0} /process wall/{print (gpu ? "gpu " who : "host16"), $6, "ms |", t}' "$out/advdiff.log" >> "$out/summary.txt"
cat "$out/summary.txt"
