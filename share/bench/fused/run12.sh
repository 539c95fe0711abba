#!/bin/bash
# Run 12: as run 11 (the entries kernel's shared memory now capped at 384 elements, which P1 triangles' launch
# exceeded in run 11), at every element size up to 10 dofs, with addto's auto mode, gather and single-precision lma too.
#   source .gpu/env.sh && bash share/bench/fused/run12.sh OUT LIBDIR
set -u
out=$1 lib=$2
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
bash "$here/share/bench/sym/checks.sh" "$out" "$lib"
bash "$here/share/bench/fused/kernels.sh" "$out" "$lib" "tri 700 1; quad 1000 1; tet 60 1; tri 500 2; prism 60 1; hex 100 1; quad 400 2; tet 55 2; tri 300 3" addto,atomic,gather,coo,lma,lma_single
python3 "$here/share/bench/fused/kerntab.py" "$out/bench.log"
