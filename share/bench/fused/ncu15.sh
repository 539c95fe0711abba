#!/bin/bash
# Run 15: Nsight Compute on P2 tetrahedra's assembly (185k dofs, bench's symmetric C), atomic addto and lma, with
# auto's kernel (one thread per entry; lma: a warp per row of 32 elements) and with -feg_cuda_kernel thread (one
# element per thread, auto's choice before runs 11-14): one assembly launch each, its throughput, memory, warp-state
# and occupancy sections, in OUT/ncu-STRATEGY-KERNEL.txt.
#   source .gpu/env.sh && bash share/bench/fused/ncu15.sh OUT LIBDIR
set -u
out=$1 lib=$2
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for s in atomic lma; do
  for k in auto thread; do
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 200 ncu --kernel-name regex:FEGElemRef --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 28 -order 2 -bench_strategies $s -feg_cuda_kernel $k > "$out/ncu-$s-$k.txt" 2>&1
    echo "== $s $k: rc $?"
    grep -E "^  void|Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|L2 Hit Rate|Mem Busy|Max Bandwidth" "$out/ncu-$s-$k.txt"
  done
done
