#!/bin/bash
# Solve run 4: PETSc's own floor for advdiff's two solvers on the GPU (floor.c, its header says what it runs), with
# the cheapest operator (shell: one pointwise multiply) and a 7-point AIJCUSPARSE one, twice each, beside advdiff's
# own solves with fegpu's operators (matfree, lma, addto) in the same call. BIN holds floor and advdiff.
#   source .gpu/env.sh && bash share/bench/solve/run4.sh OUT LIBDIR BIN
set -u
out=$1 lib=$2 bin=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}"
cd "$here/examples"
for rep in 1 2; do
  for op in shell aij; do "$bin/floor" -vec_type cuda -n 522 -op $op; done
  for s in matfree lma addto; do
    echo "advdiff $s:"
    "$bin/advdiff" -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -advdiff_steps 200 -feg_strategy $s -dm_vec_type cuda | grep -E "iterations|times"
  done
done > "$out/floor.log" 2>&1
cat "$out/floor.log"
