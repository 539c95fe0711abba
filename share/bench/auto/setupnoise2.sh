#!/bin/bash
# The bimodal setup of auto's run 15 (tet P3 on a 16^3 box: matfree's first operator 0.012-0.017 s in some processes,
# 0.03-0.054 s in others): twelve processes of bench matfree back to back, as matrix.sh runs them, each under
# share/bench/setup/cudashim.c (CUDA calls and PETSc section functions inside FEGCreateOperator()) and
# -feg_view ::ascii_info_detail (fegpu's setup phases):
#   source .gpu/env.sh && bash share/bench/auto/setupnoise2.sh OUT ["THREADS..."]
# With a list of thread counts, each process's -feg_setup_threads takes them in turn (FEG_REPS processes each);
# FEG_LARGE=1 also times BP3 at 8M Q2 unknowns (bench_matfree's setup and sections) with each count, twice.
set -u
out=$1 threads=${2:-}
mkdir -p "$out"
gcc -O2 -shared -fPIC -o /tmp/cudashim.so share/bench/setup/cudashim.c -I"$PETSC_DIR"/include -I/usr/local/cuda/include -ldl || exit 1
cd examples
for rep in $(seq ${FEG_REPS:-12}); do
  for t in ${threads:-default}; do
    more=()
    [ "$t" != default ] && more=(-feg_setup_threads "$t")
    echo "== rep $rep threads $t" >> "$out/noise2.log"
    LD_PRELOAD=/tmp/cudashim.so ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 16 -order 3 -bench_strategies matfree -feg_view ::ascii_info_detail "${more[@]}" >> "$out/noise2.log" 2>&1
  done
done
if [ -n "${FEG_LARGE:-}" ]; then
  for rep in 1 2; do
    for t in ${threads:-default}; do
      more=()
      [ "$t" != default ] && more=(-feg_setup_threads "$t")
      echo "== bp3 rep $rep threads $t" >> "$out/large.log"
      ./bench_matfree -mode bp3 -orders 2 -dofs 8000000 -strategies matfree -its 5 -reps 1 -dm_vec_type cuda "${more[@]}" >> "$out/large.log" 2>&1
    done
  done
  awk '/^== bp3/{t=$5} /^2 +matfree/{print "bp3 Q2 threads", t, "mesh", $5, "setup", $6, "sections", $10}' "$out/large.log" | sort -k4,4 -s
fi
awk '/^== rep/{t=$5} /^matfree /{print "threads", t, "setup", $3}' "$out/noise2.log" | sort -k2,2 -s
