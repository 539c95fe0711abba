#!/bin/bash
# Run 5: a variant (run5.patch, not kept: the M^rs kept beside the split tensors for a non-symmetric C, the grouped rows'
# kernel compiled once per case) against the library
# before the split tensors: make check-gpu's tests and memcheck/initcheck, then run1.sh's bench cases where the kernels
# changed since run 4 (grouped rows: P3 tetrahedra, Q3 quadrilaterals; COO values: P2 tetrahedra), both forms.
#   source .gpu/env.sh && bash share/bench/sym/run5.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../../.." && pwd)
bash "$here/share/bench/sym/checks.sh" "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/sym" "$old" "$new" lma,lma_single,coo "tet 30 3; quad 700 3; tet 55 2"
ARGS="-bench_petsc_coo 0 -bench_advection 0.5" bash "$here/share/bench/abbench.sh" "$out/adv" "$old" "$new" lma,lma_single,coo "tet 30 3; quad 700 3; tet 55 2"
