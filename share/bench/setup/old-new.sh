#!/bin/bash
# GPU run: build this tree (with the tests) and the old one (.old, the commit before this work) side by side, run
# make check-gpu, then each setup case old then new in the same run, with -log_view for the phase events
# (runs 1-9 used the BP3 mode of their time: equispaced nodes, a perturbed box, Jacobi; from 856d4c4 -mode bp3 is the
# CEED/libCEED setup, so an old build before that commit and a new one no longer run the same problem with these lines)
source .gpu/env.sh
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt 2>&1
( ./configure --with-check-dir=.gpu/check > $OUT/build.log 2>&1 && make -j12 >> $OUT/build.log 2>&1; echo "new build rc $?" >> $OUT/build.log ) &
( cd .old && ./configure --with-check=0 > ../.old-build.log 2>&1 && make -j4 lib examples >> ../.old-build.log 2>&1; echo "old build rc $?" >> ../.old-build.log ) &
wait
tail -1 $OUT/build.log; tail -1 .old-build.log
t0=$(date +%s)
[ -n "$NOCHECK" ] || make check-gpu > $OUT/check-gpu.log 2>&1; echo "check-gpu rc $? in $(( $(date +%s) - t0 )) s"; grep -v "^ok" $OUT/check-gpu.log | tail -5
lv="-log_view -log_view_gpu_time"
# the same without -log_view (whole-process times, no GPU timer synchronisation)
pairq() { label=$1; to=$2; shift 2; for tree in old new; do d=examples; [ $tree = old ] && d=.old/examples; echo "== $tree: $*" >> $OUT/$label.log; t0=$(date +%s%N); (cd $d && timeout $to "$@") >> $OUT/$label.log 2>&1; echo "== $tree rc $? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> $OUT/$label.log; done; }
pair() { label=$1; to=$2; shift 2; for tree in old new; do d=examples; [ $tree = old ] && d=.old/examples; echo "== $tree: $*" >> $OUT/$label.log; t0=$(date +%s%N); (cd $d && timeout $to "$@" $lv) >> $OUT/$label.log 2>&1; echo "== $tree rc $? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> $OUT/$label.log; done; }
one() { label=$1; to=$2; shift 2; echo "== new: $*" >> $OUT/$label.log; t0=$(date +%s%N); (cd examples && timeout $to "$@") >> $OUT/$label.log 2>&1; echo "== new rc $? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> $OUT/$label.log; }
mesh=../share/meshes/square_2128.msh
for cfg in "$@"; do
  case $cfg in
    tet1) pair bench-tet1 200 ./bench -dm_vec_type cuda -bench_reps 5 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies atomic,coo,lma,matfree ;;
    tet2) pair bench-tet2 200 ./bench -dm_vec_type cuda -bench_reps 5 -feg_cell_type tet -feg_faces 30 -order 2 -bench_strategies atomic,coo,lma,matfree ;;
    newtet1) one bench-tet1-stages 200 ./bench -dm_vec_type cuda -bench_reps 5 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies atomic,coo,lma,matfree -log_view ;;
    newbp3o*) o=${cfg#newbp3o}; one bench_matfree-bp3-o$o 100 ./bench_matfree -dm_vec_type cuda -mode bp3 -orders $o -dofs 8000000 -its 50 -reps 1 -strategies matfree -log_view ;;
    oldbp3o*) o=${cfg#oldbp3o}; echo "== old: bench_matfree bp3 order $o" >> $OUT/bench_matfree-bp3-o$o.log; t0=$(date +%s%N); (cd .old/examples && timeout 100 ./bench_matfree -dm_vec_type cuda -mode bp3 -orders $o -dofs 8000000 -its 50 -reps 1 -strategies matfree) >> $OUT/bench_matfree-bp3-o$o.log 2>&1; echo "== old rc $? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> $OUT/bench_matfree-bp3-o$o.log ;;
    advdiff) pair advdiff 120 ./advdiff -advdiff_steps 200 -feg_mesh_file $mesh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda
      one advdiff 120 ./advdiff -advdiff_steps 200 -feg_mesh_file $mesh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda -mass_ksp_cg_single_reduction -diff_ksp_cg_single_reduction
      one advdiff 120 ./advdiff -advdiff_steps 200 -feg_mesh_file $mesh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda -mass_ksp_type pipecg -diff_ksp_type pipecg
      one advdiff 120 mpiexec -n 16 ./advdiff -advdiff_steps 200 -feg_mesh_file $mesh -dm_refine 4 -feg_strategy addto ;;
    advdiff2) for v in true false; do
        one advdiff2 120 ./advdiff -advdiff_steps 200 -feg_mesh_file $mesh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda -mass_ksp_cg_single_reduction $v -diff_ksp_cg_single_reduction $v
        one advdiff2 120 mpiexec -n 16 ./advdiff -advdiff_steps 200 -feg_mesh_file $mesh -dm_refine 4 -feg_strategy addto -mass_ksp_cg_single_reduction $v -diff_ksp_cg_single_reduction $v
      done ;;
    advdiff3) pairq advdiff3 120 ./advdiff -advdiff_steps 200 -feg_mesh_file $mesh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda
      one advdiff3 120 mpiexec -n 16 ./advdiff -advdiff_steps 200 -feg_mesh_file $mesh -dm_refine 4 -feg_strategy addto ;;
    cdr) pair cdr_integration 200 ./cdr_integration -feg_faces 20 -cdr_orders 1,2,3,4,5,6,7 -dm_vec_type cuda ;;
    bp3o*) o=${cfg#bp3o}; pair bench_matfree-bp3-o$o 100 ./bench_matfree -dm_vec_type cuda -mode bp3 -orders $o -dofs 8000000 -its 50 -reps 1 -strategies matfree ;;
  esac
done
ev='^== |^(atomic|coo|lma|matfree) |^ *[0-9] +matfree|^FEG(SetUp|RHS)|MatSetPreallCOO|DMPlexInterp|^--- Event Stage|times \(s\)|CG iterations|element matrix|^p [0-9]'
for f in $(ls $OUT/*.log | grep -v "build\|check-gpu"); do echo "### $(basename $f)"; grep -E "$ev" $f | cut -c1-110; done
