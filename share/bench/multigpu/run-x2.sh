#!/bin/bash
# Build, test and measure on the machine with two H200 GPUs (run kind nvidia-h200-x2), from the repository root:
#   source .gpu/env.sh && bash share/bench/multigpu/run-x2.sh check tet     (then, on the same machine)
#   source .gpu/env.sh && bash share/bench/multigpu/run-x2.sh reorder bp3
# Needs .gpu/cube1m.msh.gz (gmsh -3 share/bench/multigpu/cube1m.geo -format msh41 -bin -o cube1m.msh; gzip).
# Logs go to $OUT (or ./out).
set -u
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
B=$PWD/share/fegpu/gpu-bind
stages=" $* "
nvidia-smi -L > "$OUT/gpus.txt"
# configure and build unless this machine still has the build (a warm machine keeps it between calls)
[ -f lib/fegpu/conf/fegpuvariables ] || ./configure --with-check-dir=.gpu/check > "$OUT/configure.log" 2>&1
make -j32 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
if [[ $stages == *" check "* ]]; then
  (time make check-gpu) > "$OUT/check-gpu.log" 2>&1
  tail -3 "$OUT/check-gpu.log"
fi
cd examples
COMMON="-dm_vec_type cuda -petscpartitioner_type metis"
[[ $stages == *" tet "* ]] && {
  echo "== GPU assignment"
  mpiexec -n 2 $B ./ex1 $COMMON -feg_cell_type tet -feg_faces 8 -order 2 -feg_strategy lma -feg_view | grep -E "GPU [0-9]|L2 error"
  for n in 1 2; do
    echo "== bench tet P1 addto/lma, weak: 998k tets per GPU, np $n"
    f=55,55,$((55 * n))
    mpiexec -n $n $B ./bench $COMMON -bench_reps 20 -feg_cell_type tet -feg_faces $f -order 1 -bench_strategies atomic,coo,lma
  done
} > "$OUT/weak-tet.log" 2>&1
[[ $stages == *" tet "* ]] && grep -E "^==|^(atomic|coo|lma) |^halo|GPU [0-9]" "$OUT/weak-tet.log"
[[ $stages == *" bp3 "* ]] && {
  for n in 1 2; do
    echo "== bench_matfree BP3 weak, 8M unknowns per GPU, np $n"
    mpiexec -n $n $B ./bench_matfree $COMMON -mode bp3 -orders 2,4 -dofs 8000000 -dofs_per_process -its 50 -reps 3 -strategies matfree,lma
  done
  echo "== bench_matfree BP3 strong, 8M unknowns, np 2"
  mpiexec -n 2 $B ./bench_matfree $COMMON -mode bp3 -orders 2,4 -dofs 8000000 -its 50 -reps 3 -strategies matfree
} > "$OUT/bp3.log" 2>&1
[[ $stages == *" bp3 "* ]] && grep -E "^==|^[0-9] |^halo" "$OUT/bp3.log"
[[ $stages == *" reorder "* ]] && {
  gunzip -c ../.gpu/cube1m.msh.gz > /tmp/cube1m.msh
  for r in none metis sfc; do
    echo "== bench Gmsh cube, 968k tets in file order, P1, one GPU, -feg_reorder $r"
    ./bench -dm_vec_type cuda -feg_mesh_file /tmp/cube1m.msh -order 1 -bench_reps 20 -bench_strategies atomic,lma,matfree -feg_reorder $r -info :dm | grep -v "^\[0\] <dm> [^F]"
  done
} > "$OUT/reorder.log" 2>&1
[[ $stages == *" reorder "* ]] && grep -E "^==|^(atomic|lma|matfree) |Reordered" "$OUT/reorder.log"
exit 0
