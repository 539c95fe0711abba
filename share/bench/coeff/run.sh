#!/bin/bash
# Pointwise coefficients on the GPU: the same x-dependent diffusivity (1 + |x|^2 on the gradient block's diagonal)
# given by a host pointwise function (evaluated on the host at every quadrature point and uploaded at each assembly)
# and as values at the quadrature points computed on the GPU (FEGDMCreateQuadratureCoordinates + VecPointwiseMult,
# read by the kernels in place); constant C as the floor. Each case runs the three in separate processes of one call.
# Usage: source .gpu/env.sh && bash share/bench/coeff/run.sh OUTDIR
set -u
out=${1:?output directory}
mkdir -p "$out"
csv=$out/coeff.csv
echo "case,coeff,strategy,setup_s,assembly_ms,matmult_ms,process_s" > "$csv"
run_case() { # name, bench options
  local name=$1; shift
  for c in constant host points; do
    local log=$out/$name-$c.log t0 t1
    t0=$(date +%s.%N)
    ./examples/bench -dm_vec_type cuda -bench_strategies atomic,lma,matfree -bench_reps 5 -bench_coeff $c "$@" > "$log" 2>&1
    t1=$(date +%s.%N)
    awk -v n="$name" -v c="$c" -v p="$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")" '($1=="atomic"||$1=="lma"||$1=="matfree") && NF>=7 {print n","c","$1","$3","$4","$7","p}' "$log" >> "$csv"
  done
}
run_case tet-p1 -feg_cell_type tet -feg_faces 55 -order 1
run_case tet-p2 -feg_cell_type tet -feg_faces 28 -order 2
run_case hex-q2 -feg_cell_type hex -feg_faces 40 -order 2
cat "$csv"
