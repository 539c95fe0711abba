#!/bin/bash
# A later operator's setup on the same DM, before and after FEGDiscLayout() is kept per discretization: bench on 998k P1
# tetrahedra with lma, matfree and atomic in one process (lma reads the DM, the others reuse it) under
# -log_view -log_view_gpu_time, the old and new library alternating three times:
#   source .gpu/env.sh && bash share/bench/setup/run37.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for rep in 1 2 3; do
  for who in old new; do
    lib=$old
    [ $who = new ] && lib=$new
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies lma,matfree,atomic -log_view -log_view_gpu_time > "$out/$who-$rep.log" 2>&1
    echo "== $who rep $rep"
    grep -E "^(lma|matfree|atomic) " "$out/$who-$rep.log" | awk '{print $1, "setup", $3, "s"}'
    awk '/^--- Event Stage [123]/{st=$4} /^FEGSetUp /{print "  stage", st, "FEGSetUp", $2, "calls", $4, "s"}' "$out/$who-$rep.log"
  done
done
