#!/bin/bash
# Run 14: run 13's choice with two changes, lma's storage from the entries kernel at 15 dofs too (P4 triangles, 1.3-1.45x
# in run 13) and addto's gather mode at up to 8 dofs back to one element per thread (entries were 1.1-1.25x slower for
# it there): make check-gpu's tests and the sanitizers, then the old (the stop's) and new library alternating twice.
#   source .gpu/env.sh && bash share/bench/fused/run14.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
bash "$here/share/bench/sym/checks.sh" "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/ab" "$old" "$new" addto,atomic,gather,coo,lma,lma_single "tri 500 2; prism 60 1; hex 100 1; tri 200 4; tet 28 2; quad 400 2; quad 300 3; prism 40 2" > /dev/null
python3 "$here/share/bench/sym/abtab.py" "$out/ab/bench.log"
