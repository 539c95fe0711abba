#!/bin/bash
# Build, test and measure on the machine with two H200 GPUs (run kind nvidia-h200-x2), from the repository root:
#   source .gpu/env.sh && bash share/bench/multigpu/run-x2.sh check tet     (then, on the same machine)
#   source .gpu/env.sh && bash share/bench/multigpu/run-x2.sh bp3 reorder
# (tet and bp3 also run two GPUs with -feg_halo_overlap false: the apply without overlap, for the same-run ratio)
# (diag: the multi-process GPU tests case by case, with stacks of a hung one)
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
  (time make check-gpu GPU_TEST_TIMEOUT=150) > "$OUT/check-gpu.log" 2>&1
  tail -3 "$OUT/check-gpu.log"
fi
if [[ $stages == *" diag "* ]]; then
  # the multi-process GPU tests one by one, bounded in time; stacks of whatever still runs after 90 s
  (
    cd tests
    export CK_VERBOSITY=verbose
    for c in equal parallel; do
      echo "== test_gpu np 2, case $c"
      CK_RUN_CASE=$c timeout 150 stdbuf -oL -eL mpiexec -n 2 ./test_gpu &
      p=$!
      for i in $(seq 90); do kill -0 $p 2> /dev/null || break; sleep 1; done
      if kill -0 $p 2> /dev/null; then
        echo "== still running after 90 s: stacks"
        for q in $(pgrep -x test_gpu); do gdb -p $q -batch -ex "thread apply all bt" 2>&1 | grep -E "^#|^Thread" | head -40; done
        kill -9 $(pgrep -x test_gpu) 2> /dev/null
      fi
      wait $p; echo "== rc $?"
    done
    cd ../examples
    for a in "3 ./ex1 -feg_cell_type tet -feg_faces 3 -order 2 -feg_strategy addto" "2 ./cdr_integration -feg_cell_type prism -feg_faces 2 -feg_perturb 0.2 -cdr_orders 1,2,3 -cdr_reps 1 -cdr_timing 0" "2 ./ex1 -feg_cell_type quad -feg_faces 4 -order 2 -feg_strategy addto -dm_refine 1"; do
      echo "== mpiexec -n $a -dm_vec_type cuda"
      timeout 60 mpiexec -n $a -dm_vec_type cuda 2>&1 | tail -15; echo "== rc $?"
    done
  ) > "$OUT/diag.log" 2>&1
  grep -E "^==|Passed|Failure|Error|error|ERROR: #|^#" "$OUT/diag.log" | head -120
fi
cd examples
COMMON="-dm_vec_type cuda -petscpartitioner_type metis"
[[ $stages == *" tet "* ]] && {
  echo "== GPU assignment"
  timeout 60 mpiexec -n 2 $B ./ex1 $COMMON -feg_cell_type tet -feg_faces 8 -order 2 -feg_strategy lma -feg_view | grep -E "GPU [0-9]|L2 error"
  for n in 1 2; do
    echo "== bench tet P1 addto/lma, weak: 998k tets per GPU, np $n"
    f=55,55,$((55 * n))
    timeout 240 mpiexec -n $n $B ./bench $COMMON -bench_reps 20 -feg_cell_type tet -feg_faces $f -order 1 -bench_strategies atomic,coo,lma
  done
  # the same two-GPU run with the apply of before: DMGlobalToLocal/DMLocalToGlobal around one kernel, no overlap
  echo "== bench tet P1 lma, weak, np 2, -feg_halo_overlap false"
  timeout 240 mpiexec -n 2 $B ./bench $COMMON -bench_reps 20 -feg_cell_type tet -feg_faces 55,55,110 -order 1 -bench_strategies lma -feg_halo_overlap false
} > "$OUT/weak-tet.log" 2>&1
[[ $stages == *" tet "* ]] && grep -E "^==|^(atomic|coo|lma) |^halo|GPU [0-9]" "$OUT/weak-tet.log"
# BP3 matfree (lma's weak scaling is the tet case): one GPU, two GPUs on the same 8M unknowns (strong), two GPUs with
# 8M each (weak); BP3_ORDERS (default 4: order 2's setup alone takes minutes at these sizes) says which orders
[[ $stages == *" bp3 "* ]] && {
  BO=${BP3_ORDERS:-4}
  echo "== bench_matfree BP3, 8M unknowns, np 1"
  timeout 200 $B ./bench_matfree $COMMON -mode bp3 -orders $BO -dofs 8000000 -its 50 -reps 3 -strategies matfree
  echo "== bench_matfree BP3 strong, 8M unknowns, np 2"
  timeout 200 mpiexec -n 2 $B ./bench_matfree $COMMON -mode bp3 -orders $BO -dofs 8000000 -its 50 -reps 3 -strategies matfree
  echo "== bench_matfree BP3 weak, 8M unknowns per GPU, np 2"
  timeout 250 mpiexec -n 2 $B ./bench_matfree $COMMON -mode bp3 -orders $BO -dofs 8000000 -dofs_per_process -its 50 -reps 3 -strategies matfree
  for n in 8000000 "8000000 -dofs_per_process"; do
    echo "== bench_matfree BP3, np 2, -dofs $n, -feg_halo_overlap false"
    timeout 250 mpiexec -n 2 $B ./bench_matfree $COMMON -mode bp3 -orders $BO -dofs $n -its 50 -reps 3 -strategies matfree -feg_halo_overlap false
  done
} > "$OUT/bp3.log" 2>&1
[[ $stages == *" bp3 "* ]] && grep -E "^==|^ *[0-9] |^halo" "$OUT/bp3.log"
# where the two-GPU time goes: PETSc's events (SF packing, host staging copies, MPI) in the weak-scaling BP3 run
[[ $stages == *" logview "* ]] && {
  echo "== bench_matfree BP3 weak, 8M unknowns per GPU, np 2, -log_view"
  timeout 200 mpiexec -n 2 $B ./bench_matfree $COMMON -mode bp3 -orders ${LV_ORDERS:-4} -dofs 8000000 -dofs_per_process -its 50 -reps 3 -strategies matfree -log_view -log_view_gpu_time
} > "$OUT/bp3-logview.log" 2>&1
[[ $stages == *" logview "* ]] && grep -E "^==|^ *[0-9] |^(MatMult|KSPSolve|SF[A-Za-z]*|VecScatter[A-Za-z]*|DMGlobalToLocal|DMLocalToGlobal|FEGApply|VecTDot|VecNorm|VecAXPY|VecAYPX|VecPointwiseMult) " "$OUT/bp3-logview.log" | cut -c1-120
[[ $stages == *" reorder "* ]] && {
  gunzip -c ../.gpu/cube1m.msh.gz > /tmp/cube1m.msh
  for r in none metis sfc; do
    echo "== bench Gmsh cube, 968k tets in file order, P1, one GPU, -feg_reorder $r"
    timeout 120 ./bench -dm_vec_type cuda -feg_mesh_file /tmp/cube1m.msh -order 1 -bench_reps 20 -bench_strategies atomic,lma,matfree -feg_reorder $r -info :dm | grep -v "^\[0\] <dm> [^F]"
  done
} > "$OUT/reorder.log" 2>&1
[[ $stages == *" reorder "* ]] && grep -E "^==|^(atomic|lma|matfree) |Reordered" "$OUT/reorder.log"
exit 0
