#!/bin/bash
# FEGComputeRHS against the element-matrix integration of the same elements, per element, every cell type, on the GPU:
#   source .gpu/env.sh && bash share/bench/setup/rhs-cells.sh OUTDIR [cells, e.g. "hex tet"; all by default]
# cdr_integration (full 4x4 C, perturbed cells, continuous for p = 1, discontinuous for every p; medians of 10), one
# process per cell type and order on a mesh of 2M (p = 1) down to 15k (hexahedra p = 4) elements, so that the element
# matrices lma keeps stay under 2 GB and launch latencies are amortised as on a user's mesh:
# OUTDIR/rhs-cells.log and rhs-cells.csv (cell, p, space, elements, element matrix us, rhs us, rhs / element matrix).
set -u
out=$1 only=${2:-}
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
: > "$out/rhs-cells.log"
echo "cell,p,space,elements,element_matrix_us,rhs_us,ratio" > "$out/rhs-cells.csv"
# cell, then the faces per direction for p = 1, 2, 3, 4
for c in "tri 1000 700 700 700" "quad 1400 1000 1000 700" "tet 70 55 44 32" "hex 125 67 40 25" "prism 100 63 42 27"; do
  set -- $c
  cell=$1
  shift
  if [ -n "$only" ] && [[ " $only " != *" $cell "* ]]; then continue; fi
  for p in 1 2 3 4; do
    f=$1
    shift
    echo "== $cell faces $f p $p" >> "$out/rhs-cells.log"
    "$here/examples/cdr_integration" -feg_cell_type "$cell" -feg_faces "$f" -cdr_orders "$p" -cdr_reps 10 -cdr_timing 1 -dm_vec_type cuda > "$out/tmp.log" 2>&1
    cat "$out/tmp.log" >> "$out/rhs-cells.log"
    awk -v cell="$cell" '/^p [0-9]/ { p = $2; sp = $3; ne = $9 } /element matrix/ { km = $3; rh = $6; printf "%s,%s,%s,%s,%s,%s,%.3f\n", cell, p, sp, ne, km, rh, rh / km }' "$out/tmp.log" >> "$out/rhs-cells.csv"
  done
done
rm -f "$out/tmp.log"
cat "$out/rhs-cells.csv"
