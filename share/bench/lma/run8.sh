#!/bin/bash
# Packed symmetric element matrices at 15-27 dofs too (P4 triangles, P2 prisms, P3 tetrahedra in double, Q2
# hexahedra; Q3 quadrilaterals, 16 dofs, full in both as a control) and P2 tetrahedra again, against the library
# before run 6 (59c132f's), both precisions, alternating twice; first test_gpu's symmetric case with a library whose
# packed product drops the lower triangle (MUTLIB), and make check-gpu's tests on the new library:
#   source .gpu/env.sh && bash share/bench/lma/run8.sh OUT OLDLIBDIR NEWLIBDIR MUTLIBDIR
set -u
out=$1 old=$2 new=$3 mut=$4
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_case "$out" "$mut" symmetric
ab_check_gpu "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out" "$old" "$new" lma,lma_single "tri 200 4; prism 30 2; tet 30 3; hex 40 2; quad 300 3; tet 55 2"
