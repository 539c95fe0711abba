#!/bin/bash
# GPU run for the box mesh and the BP3 setup (issue 11). Phases, as arguments, in order:
#   build    this tree (with the tests) and the old one (.old, the commit before this work) side by side
#   check    make check-gpu; test_space and test_parallel under the CUDA PETSc (3.22)
#   meshref  bench -bench_mesh_reference: fegpu's box mesh against PETSc's DMPlexCreateFromCellListPetsc (interpolated)
#            + DMPlexMarkBoundaryFaces/DMPlexLabelComplete of the same cells, in the same process, 1M tetrahedra and
#            970k hexahedra; then the old build's bench on the same boxes (its "mesh" column)
#   bp3oN    bench_matfree BP3 at 8M unknowns, order N, old then new, with -log_view -log_view_gpu_time
# Logs go to $OUT.
source .gpu/env.sh
lv="-log_view -log_view_gpu_time"
pair() { label=$1; to=$2; shift 2; for tree in old new; do d=examples; [ $tree = old ] && d=.old/examples; echo "== $tree: $*" >> $OUT/$label.log; t0=$(date +%s%N); (cd $d && timeout $to "$@") >> $OUT/$label.log 2>&1; echo "== $tree rc $? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> $OUT/$label.log; done; }
for phase in "$@"; do
  ph0=$(date +%s)
  case $phase in
    build)
      nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt 2>&1
      ( ./configure --with-check-dir=.gpu/check > $OUT/build.log 2>&1 && make -j12 >> $OUT/build.log 2>&1; echo "new build rc $?" >> $OUT/build.log ) &
      ( cd .old && ./configure --with-check=0 > ../.old-build.log 2>&1 && make -j4 lib examples >> ../.old-build.log 2>&1; echo "old build rc $?" >> ../.old-build.log ) &
      wait
      tail -1 $OUT/build.log; tail -1 .old-build.log ;;
    check)
      make check-gpu > $OUT/check-gpu.log 2>&1; echo "check-gpu rc $?"; grep -v "^ok" $OUT/check-gpu.log | tail -3
      (cd tests && ./test_space && mpiexec -n 2 ./test_space && ./test_parallel) > $OUT/check-host-tests.log 2>&1; echo "test_space/test_parallel rc $?"; grep -E "Checks|FAIL|Error" $OUT/check-host-tests.log | head ;;
    meshref)
      for c in "tet 55" "hex 99"; do set -- $c
        (cd examples && ./bench -dm_vec_type cuda -feg_cell_type $1 -feg_faces $2 -bench_mesh_reference -bench_strategies lma -bench_reps 1 -log_view) >> $OUT/meshref.log 2>&1
        echo "== old bench $1 $2" >> $OUT/meshref.log
        (cd .old/examples && ./bench -dm_vec_type cuda -feg_cell_type $1 -feg_faces $2 -bench_strategies lma -bench_reps 1) >> $OUT/meshref.log 2>&1
      done
      grep -E "reference|^bench: [0-9]|^== |^FEG(BoxMesh|Plex)" $OUT/meshref.log | cut -c1-100 ;;
    bp3o*)
      o=${phase#bp3o}
      pair bench_matfree-bp3-o$o 100 ./bench_matfree -dm_vec_type cuda -mode bp3 -orders $o -dofs 8000000 -its 50 -reps 1 -strategies matfree $lv
      grep -E "^== |^ *[0-9] +matfree|^FEG(SetUp|RHS)|^DMPlex|^--- Event Stage" $OUT/bench_matfree-bp3-o$o.log | cut -c1-110 ;;
  esac
  echo "phase $phase: $(( $(date +%s) - ph0 )) s"
done
