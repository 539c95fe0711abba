#!/bin/bash
# Run 17: auto without reference tensors takes GEMM above 10 dofs (was one element per thread up to 20): make
# check-gpu's tests on the new library, then the old (run 14's choice) and new library alternating twice on bench's
# assembly with a coefficient at the quadrature points (P4 triangles, P2 prisms, P3 tetrahedra; P2 tetrahedra,
# unchanged) and on perturbed Q3 quadrilaterals with constant C.
#   source .gpu/env.sh && bash share/bench/fused/run17.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
. "$here/share/bench/ablib.sh"
ab_check_gpu "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/ab" "$old" "$new" atomic,coo,lma,lma_single "tri 200 4 -bench_coeff points; prism 40 2 -bench_coeff points; tet 30 3 -bench_coeff points; quad 300 3 -feg_perturb 0.2; tet 28 2 -bench_coeff points" > /dev/null
python3 "$here/share/bench/sym/abtab.py" "$out/ab/bench.log"
