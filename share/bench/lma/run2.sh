#!/bin/bash
# lma MatMult for elements of 15-27 dofs (P4 triangles, Q3 quadrilaterals, P2 prisms, P3 tetrahedra, Q2 hexahedra;
# P1 tetrahedra as a control) against the library before, alternating twice (share/bench/abbench.sh):
#   source .gpu/env.sh && bash share/bench/lma/run2.sh OUT OLDLIBDIR NEWLIBDIR
here=$(cd "$(dirname "$0")/../../.." && pwd)
bash "$here/share/bench/abbench.sh" "$1" "$2" "$3" lma "tri 200 4; quad 300 3; prism 30 2; tet 30 3; hex 40 2; tet 55 1"
