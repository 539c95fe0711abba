#!/bin/bash
# Run 13: auto's kernel choice from runs 11-12 (the reference tensors one entry per thread into COO values at every
# size, into CSR positions above 4 dofs, into lma's storage at 9 and 10 dofs): make check-gpu's tests and the
# sanitizers on the new library, then the old and new library alternating twice on bench's assembly (every addto mode,
# coo, lma in both precisions), the fused table's meshes included; then lma at 15-20 dofs with each kernel choice.
#   source .gpu/env.sh && bash share/bench/fused/run13.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
bash "$here/share/bench/sym/checks.sh" "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/ab" "$old" "$new" addto,atomic,color,gather,coo,lma,lma_single "tri 700 1; quad 1000 1; tet 60 1; tri 500 2; prism 60 1; hex 100 1; quad 400 2; tet 28 2; tet 55 2; tri 300 3; tet 30 3; hex 40 2; hex 25 3" > /dev/null
python3 "$here/share/bench/sym/abtab.py" "$out/ab/bench.log"
bash "$here/share/bench/fused/kernels.sh" "$out/lma" "$new" "tri 200 4; quad 300 3; prism 40 2; tet 30 3" lma,lma_single
python3 "$here/share/bench/fused/kerntab.py" "$out/lma/bench.log"
