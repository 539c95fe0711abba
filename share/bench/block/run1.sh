#!/bin/bash
# -feg_lma_scatter block (a block of 256 elements summed per distinct dof in shared memory, one atomic add per
# distinct dof) against the atomic scatter, one library (NEW), the two options taking turns twice, and the library
# before (OLD) once per pass as a control; then ncu of both kernels at P2 on tetrahedra in both precisions:
#   source .gpu/env.sh && bash share/bench/block/run1.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
cases=("tet 55 2" "tet 55 1" "tri 300 2" "hex 100 1" "quad 700 2")
for rep in 1 2; do
  for who in old atomic block; do
    lib=$new opt=""
    [ $who = old ] && lib=$old
    [ $who = block ] && opt="-feg_lma_scatter block"
    for c in "${cases[@]}"; do
      set -- $c
      echo "== $who rep $rep: $c" >> "$out/bench.log"
      LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies lma_single,lma -bench_petsc_coo 0 $opt >> "$out/bench.log" 2>&1
    done
  done
done
grep -E "^==|^(lma|lma_single) " "$out/bench.log" | cut -c1-140
for opt in atomic block; do
  LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" timeout 200 ncu --kernel-name regex:"FEGLMA(Pair|Small|Block)_Kernel" --launch-skip 2 --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats ./bench -dm_vec_type cuda -bench_petsc_coo 0 -bench_reps 3 -feg_cell_type tet -feg_faces 55 -order 2 -bench_strategies lma_single,lma -feg_lma_scatter $opt > "$out/ncu-$opt.txt" 2>&1
  echo "== ncu $opt"; grep -E "^  [A-Za-z_]+.*Kernel|^ +(Duration|DRAM Throughput|L2 Cache Throughput|Achieved Occupancy|Registers Per Thread)" "$out/ncu-$opt.txt" | sed 's/  */ /g'
done
