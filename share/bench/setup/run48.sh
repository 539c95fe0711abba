#!/bin/bash
# Run 48: this stop's final library end to end: advdiff against `mpiexec -n 16` on the host cores (run35.sh: 60k and
# 545k triangles, three passes alternating), then BP3 at 8M unknowns, orders 2-8, one process (setup, the DM's
# sections, CG), twice.
#   source .gpu/env.sh && bash share/bench/setup/run48.sh OUT
set -u
out=$1
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/run35.sh" "$out" > "$out/advdiff-summary.txt" 2>&1
cd "$here/../../../examples"
for rep in 1 2; do
  t0=$(date +%s%N)
  ./bench_matfree -mode bp3 -orders 2,3,4,5,6,7,8 -dofs 8000000 -strategies matfree -its 50 -reps 3 -dm_vec_type cuda -csv "$out/bp3-$rep.csv" > "$out/bp3-$rep.log" 2>&1
  rc=$? t1=$(date +%s%N)
  echo "== bp3 pass $rep: rc $rc process wall $(( (t1 - t0) / 1000000 )) ms" >> "$out/bp3-summary.txt"
  awk -F, 'NR > 1 {printf "  Q%d: mesh %.2f s, setup %.3f s, sections %.3f s, setup + sections %.3f s, CG %.4f s\n", $3, $10, $11, $13, $11 + $13, $7}' "$out/bp3-$rep.csv" >> "$out/bp3-summary.txt"
done
grep -E "^== |times" "$out/advdiff.log"
cat "$out/bp3-summary.txt"
