#!/bin/bash
# Run 47: the tables keep affine geometry once an integrating operator used it (run 46: bench destroys each operator
# before the next, so a count of users freed it in between). The library before (OLDLIBDIR) and after, in one call:
#  - compute-sanitizer leak check of a small bench (matfree, lma twice, addto) with each library;
#  - bench, 998k P1 tetrahedra, matfree then lma three times, under cudashim.c, alternating twice;
#  - bench_matfree BP3 at 8M unknowns, Q2: mesh, the DM's sections and fegpu's setup, alternating three times.
#   source .gpu/env.sh && bash share/bench/setup/run47.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
gcc -O2 -shared -fPIC -o /tmp/cudashim.so share/bench/setup/cudashim.c -I"$PETSC_DIR"/include -I/usr/local/cuda/include -ldl || exit 1
cd examples
lib() { [ $1 = new ] && echo "$new:${BASE_LD:-}" || echo "$old:${BASE_LD:-}"; }
for who in old new; do
  LD_LIBRARY_PATH=$(lib $who) compute-sanitizer --leak-check full ./bench -dm_vec_type cuda -bench_reps 2 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 8 -order 2 -bench_strategies matfree,lma,lma,addto > "$out/leaks-$who.log" 2>&1
  echo "== leak check, $who: $(grep -c 'Leaked' "$out/leaks-$who.log") leaks; $(grep 'ERROR SUMMARY' "$out/leaks-$who.log")" >> "$out/summary.txt"
done
for rep in 1 2; do
  for who in old new; do
    echo "== $who pass $rep" >> "$out/summary.txt"
    LD_LIBRARY_PATH=$(lib $who) LD_PRELOAD=/tmp/cudashim.so ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies matfree,lma,lma,lma > "$out/shim-$who-$rep.log" 2>&1
    grep -E "^cudashim FEGCreateOperator|^(lma|matfree) " "$out/shim-$who-$rep.log" | cut -c1-330 >> "$out/summary.txt"
  done
done
for rep in 1 2 3; do
  for who in old new; do
    LD_LIBRARY_PATH=$(lib $who) ./bench_matfree -mode bp3 -orders 2 -dofs 8000000 -strategies matfree -its 50 -reps 3 -dm_vec_type cuda -csv "$out/bp3-$who-$rep.csv" > /dev/null 2>&1
    awk -F, -v w=$who -v r=$rep 'NR > 1 {printf "== bp3 %s pass %s, Q%d: mesh %.2f s, setup %.3f s, sections %.3f s, setup + sections %.3f s, CG %.4f s\n", w, r, $3, $10, $11, $13, $11 + $13, $7}' "$out/bp3-$who-$rep.csv" >> "$out/summary.txt"
  done
done
cat "$out/summary.txt"
