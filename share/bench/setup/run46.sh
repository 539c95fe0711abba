#!/bin/bash
# Run 46: a DM's later lma operators without -log_view_gpu_time (whose event syncs made run 45's FEGSetUp times wait on
# earlier device work): bench, 998k P1 tetrahedra, matfree then lma three times, under cudashim.c (each
# FEGCreateOperator(): its CUDA runtime calls and host time), the library before and after, alternating twice; and
# compute-sanitizer's leak check of a small bench with both libraries.
#   source .gpu/env.sh && bash share/bench/setup/run46.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
gcc -O2 -shared -fPIC -o /tmp/cudashim.so share/bench/setup/cudashim.c -I"$PETSC_DIR"/include -I/usr/local/cuda/include -ldl || exit 1
cd examples
for who in old new; do
  lib=$old
  [ $who = new ] && lib=$new
  LD_LIBRARY_PATH="$lib:${BASE_LD:-}" compute-sanitizer --leak-check full ./bench -dm_vec_type cuda -bench_reps 2 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 8 -order 2 -bench_strategies matfree,lma,lma > "$out/leaks-$who.log" 2>&1
  echo "== leak check, $who: $(grep -c 'Leaked' "$out/leaks-$who.log") leaks; $(grep 'ERROR SUMMARY' "$out/leaks-$who.log")" >> "$out/summary.txt"
done
for rep in 1 2; do
  for who in old new; do
    lib=$old
    [ $who = new ] && lib=$new
    echo "== $who pass $rep" >> "$out/summary.txt"
    LD_LIBRARY_PATH="$lib:${BASE_LD:-}" LD_PRELOAD=/tmp/cudashim.so ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies matfree,lma,lma,lma > "$out/shim-$who-$rep.log" 2>&1
    grep -E "^cudashim FEGCreateOperator|^(lma|matfree) " "$out/shim-$who-$rep.log" | cut -c1-400 >> "$out/summary.txt"
  done
done
cat "$out/summary.txt"
