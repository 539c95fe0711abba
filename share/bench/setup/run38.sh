#!/bin/bash
# lma and matfree setup against their own first assembly, as the second operator on a DM (the first, matfree or lma,
# reads the DM): bench on 998k P1 and 185k P2 tetrahedra under -log_view -log_view_gpu_time, each twice:
#   source .gpu/env.sh && bash share/bench/setup/run38.sh OUT
set -u
out=$1
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for rep in 1 2; do
  for c in "55 1" "28 2"; do
    set -- $c
    for order in matfree,lma lma,matfree; do
      f="$out/tet$2-${order/,/-}-$rep.log"
      ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces $1 -order $2 -bench_strategies $order -log_view -log_view_gpu_time > "$f" 2>&1
      echo "== P$2 $order rep $rep"
      awk '/^--- Event Stage 2/{p=1} /^--- Event Stage 3/{p=0} p && /^(FEGSetUp|FEGIntegrate) /{print "  second operator:", $1, $2, "calls", $4, "s"}' "$f" | head -2
      grep -E "^(lma|matfree) " "$f" | awk '{print "  "$1, "setup s", $3, "assembly ms", $4}'
    done
  done
done
