#!/bin/bash
# Run 6: the committed library (87cad89) against the one before the split tensors: make check-gpu's tests and
# memcheck/initcheck, then fused addto against its reference (fegpu's element matrices + MatSetValuesCOO) at P2 and P3
# tetrahedra and Q2 hexahedra, and lma's single/double MatMult at 998k P2 tetrahedra (issue 15's targets).
#   source .gpu/env.sh && bash share/bench/sym/run6.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../../.." && pwd)
bash "$here/share/bench/sym/checks.sh" "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/fused" "$old" "$new" atomic,coo "tet 28 2; tet 30 3; hex 40 2"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/single" "$old" "$new" lma,lma_single "tet 55 2"
