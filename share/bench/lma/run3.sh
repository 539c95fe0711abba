#!/bin/bash
# Streaming loads of the element matrices (lma.cu's FEGLMAKe) against the library before, both precisions, alternating
# twice (share/bench/abbench.sh): the dof counts where they are taken (4: P1 tetrahedra and Q1 quadrilaterals; 20: P3
# tetrahedra) and ones where they are not, as controls:
#   source .gpu/env.sh && bash share/bench/lma/run3.sh OUT OLDLIBDIR NEWLIBDIR
here=$(cd "$(dirname "$0")/../../.." && pwd)
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$1" "$2" "$3" lma_single,lma "tet 55 1; quad 1000 1; tet 28 3; tet 55 2; hex 100 1; tri 300 1; prism 30 2; hex 40 2"
