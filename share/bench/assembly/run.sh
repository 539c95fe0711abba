#!/bin/bash
# Assembly and MatMult on the GPU against PETSc's device assembly (MatSetPreallocationCOO + MatSetValuesCOO of the same
# element matrices on AIJCUSPARSE, the petsccoo rows) and against the host implementation on every core of the node:
#   bash share/bench/assembly/run.sh [OUTDIR]          -> OUTDIR/assembly.csv, assembly.png
# Tetrahedra P1 and P2 (998k), P3 (162k); hexahedra Q1 (1M), Q2 (64k); the form of bench (a full constant C); median of
# 10 (GPU) and 5 (host) repetitions; host rows: mpiexec -n NCORES (default all cores) on host vectors.
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" assembly)
csv=$out/assembly.csv
rm -f "$csv"
ncores=${NCORES:-$(nproc)}
cd "$FEG_BENCH" || exit 1
while read -r cell faces order; do
  ./bench $FEG_VEC -feg_mesh_cell_type "$cell" -feg_mesh_faces "$faces" -order "$order" -bench_strategies atomic,coo,lma,matfree -bench_reps 10 -bench_csv "$csv" >> "$out/assembly.log" 2>&1 || echo "bench failed: $cell P$order" >> "$out/assembly.log"
done << 'CASES'
tet 55 1
tet 55 2
tet 30 3
hex 100 1
hex 40 2
CASES
for order in 1 2; do
  $FEG_MPIEXEC -n "$ncores" ./bench -feg_mesh_cell_type tet -feg_mesh_faces 55 -order $order -bench_strategies atomic,lma -bench_reps 5 -bench_csv "$csv" >> "$out/assembly.log" 2>&1 || echo "host bench failed: P$order" >> "$out/assembly.log"
done
echo "assembly: $(($(wc -l < "$csv") - 1)) rows in $csv ($(feg_gpu), $ncores host processes)"
bash "$FEG_BENCH/plot.sh" assembly "$csv" "$out/assembly.png"
