#!/bin/bash
# Run 11: what limits lma's product, by Nsight Compute, on the library as committed: 998k P2 tetrahedra in single
# precision with the tiles (-feg_lma_tiles true) and without (the pair kernel, the default), 998k P1 tetrahedra in
# double with the tiles (the default) and without (FEGLMASmall_Kernel), and P2 in double (FEGLMASmall_Kernel, packed).
#   source .gpu/env.sh && bash share/bench/lma/ncu11.sh OUT
set -u
out=$1
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples" || exit 1
prof() { # NAME ORDER STRATEGY KERNEL-REGEX TILES
  timeout 150 ncu --kernel-name regex:"$4" --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats ./bench -dm_vec_type cuda -bench_petsc_coo 0 -bench_reps 3 -feg_cell_type tet -feg_faces 55 -order "$2" -bench_strategies "$3" -feg_lma_tiles "$5" > "$out/ncu-$1.txt" 2>&1
  echo "== $1"; grep -E "^ +(Duration|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Shared Memory Configuration Size)" "$out/ncu-$1.txt" | sed 's/  */ /g'
  grep -E "Stall|stall" "$out/ncu-$1.txt" | head -4 | cut -c1-200
}
prof p2-single-tiles 2 lma_single FEGLMATile_Kernel true
prof p2-single-pair 2 lma_single FEGLMAPair_Kernel false
prof p1-double-tiles 1 lma FEGLMATile_Kernel true
prof p1-double-small 1 lma FEGLMASmall_Kernel false
prof p2-double-small 2 lma FEGLMASmall_Kernel false
