#!/bin/bash
# matfree's per-quadrature-point kernel (qp: prisms, non-affine cells, pointwise coefficients) with the element's dof
# count as a template parameter against the library before, on one GPU, alternating twice (share/bench/abbench.sh):
#   source .gpu/env.sh && bash share/bench/qp/run1.sh OUT OLDLIBDIR NEWLIBDIR
# bench's matfree line (MatMult median of 20) with -feg_matfree_kernel qp on P1 and P2 tetrahedra and prisms, P1
# triangles and Q1 hexahedra.
here=$(cd "$(dirname "$0")/../../.." && pwd)
ARGS="-feg_matfree_kernel qp" bash "$here/share/bench/abbench.sh" "$1" "$2" "$3" matfree "tet 55 1; tet 28 2; prism 60 1; prism 30 2; tri 522 1; hex 100 1"
