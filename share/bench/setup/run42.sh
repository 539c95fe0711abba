#!/bin/bash
# BP3 at 8M unknowns, orders 2-8, with the library before and after the one-process global section (run 41's change),
# alternating twice in one call: bench_matfree (this tree's: its "sections s" column times the DM's first global
# vector, local and global sections) one process per library and pass, CSV per process, whole process timed.
#   source .gpu/env.sh && bash share/bench/setup/run42.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for rep in 1 2; do
  for who in old new; do
    lib=$old
    [ $who = new ] && lib=$new
    t0=$(date +%s%N)
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" ./bench_matfree -mode bp3 -orders 2,3,4,5,6,7,8 -dofs 8000000 -strategies matfree -its 50 -reps 3 -dm_vec_type cuda -csv "$out/$who-$rep.csv" > "$out/$who-$rep.log" 2>&1
    rc=$? t1=$(date +%s%N)
    echo "== $who pass $rep: rc $rc process wall $(( (t1 - t0) / 1000000 )) ms" >> "$out/summary.txt"
    awk -F, 'NR > 1 {printf "  Q%d: mesh %.2f s, setup %.3f s, sections %.3f s, setup + sections %.3f s, CG %.4f s\n", $3, $10, $11, $13, $11 + $13, $7}' "$out/$who-$rep.csv" >> "$out/summary.txt"
  done
done
cat "$out/summary.txt"
