#!/bin/bash
# Issue 15, fused addto at high order: where the assembly time goes. Atomic addto (the fused kernels), coo (fegpu
# element matrices + PETSc's MatSetValuesCOO) and lma integration in one process per case (KERNELS: -feg_cuda_kernel
# values, default auto), then with NCU="cases" Nsight Compute on the atomic assembly's kernels.
# Usage: source .gpu/env.sh && bash share/bench/fused/profile.sh OUTDIR [cases] (none: NCU only)
set -u
out=${1:?output directory}
shift
mkdir -p "$out"
cases=${*:-"tet-p1 tet-p2 tet-p3 hex-q2 hex-q2p hex-q3 hex-q3p"}
args() {
  case $1 in
    tet-p1) echo "-feg_cell_type tet -feg_faces 55 -order 1" ;;
    tet-p2) echo "-feg_cell_type tet -feg_faces 28 -order 2" ;;
    tet-p3) echo "-feg_cell_type tet -feg_faces 30 -order 3" ;;
    hex-q2) echo "-feg_cell_type hex -feg_faces 40 -order 2" ;;
    hex-q3) echo "-feg_cell_type hex -feg_faces 25 -order 3" ;;
    hex-q2p) echo "-feg_cell_type hex -feg_faces 40 -order 2 -feg_perturb 0.2" ;; # not affine: the GEMM kernel
    hex-q3p) echo "-feg_cell_type hex -feg_faces 25 -order 3 -feg_perturb 0.2" ;;
  esac
}
echo "case,kernel,strategy,assembly_ms" > "$out/fused.csv"
[ "$cases" = none ] && cases=
for c in $cases; do
  for k in ${KERNELS:-auto}; do
    ./examples/bench -dm_vec_type cuda -bench_strategies atomic,coo,lma -bench_reps 10 -feg_view -feg_cuda_kernel $k $(args $c) > "$out/$c-$k.log" 2>&1
    awk -v n="$c" -v k="$k" '($1=="atomic"||$1=="coo"||$1=="lma") && NF>=7 {print n","k","$1","$4}' "$out/$c-$k.log" >> "$out/fused.csv"
  done
done
cat "$out/fused.csv"
if [ -n "${NCU:-}" ]; then
  for c in $NCU; do
    /usr/local/cuda/bin/ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats -k regex:"Elem|Gemm|gemm|sm90" --launch-count 4 \
      ./examples/bench -dm_vec_type cuda -bench_strategies atomic -bench_reps 1 $(args $c) > "$out/ncu-$c.txt" 2>&1
  done
fi
