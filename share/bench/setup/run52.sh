#!/bin/bash
# Run 52: where a re-assembly's time goes, matfree against lma (run 18 of share/bench/auto: on 444k P1 tetrahedra
# matfree's assembly 0.27-0.34 ms, lma's 0.046 ms): cudashim.c's windows around every FEGOperatorAssemble() of bench's
# timed assemblies (CUDA runtime calls, their counts and the host time between them), tet P1 (42 faces) and hex Q1
# (80 faces), each type in its own process, two processes each.
#   source .gpu/env.sh && bash share/bench/setup/run52.sh OUT
set -u
out=$1
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
gcc -O2 -shared -fPIC -o "$out/cudashim.so" "$here/share/bench/setup/cudashim.c" -I"$PETSC_DIR/include" -I/usr/local/cuda/include -ldl || exit 1
cd "$here/examples"
for rep in 1 2; do
  for c in "tet 42 1" "hex 80 1"; do
    for s in matfree lma; do
      set -- $c
      echo "== $c $s rep $rep" >> "$out/shim.log"
      LD_PRELOAD="$out/cudashim.so" timeout 60 ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies $s >> "$out/shim.log" 2>&1
    done
  done
done
rm -f "$out/cudashim.so"
grep -E "^==|^(lma|matfree) |FEGOperatorAssemble #[2-6]" "$out/shim.log" | cut -c1-330
