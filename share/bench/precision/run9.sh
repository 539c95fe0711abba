#!/bin/bash
# Run 9: test_gpu's single case under compute-sanitizer (new library), then ncu on the affine integration kernel of
# single-precision lma on P3 tetrahedra, old and new library (the grouped stores' assembly was 1.3x slower in run 8).
#   source .gpu/env.sh && bash share/bench/precision/run9.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
for tool in memcheck initcheck synccheck racecheck; do
  LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" timeout 170 bash share/fegpu/sanitize.sh "$PWD" "$tool" single > "$out/sanitize-$tool.txt" 2>&1
  echo "sanitize $tool rc $?: $(grep -E '^(ok|FAILED)' "$out/sanitize-$tool.txt")"
  cp tests/sanitize-$tool-single.log "$out/" 2>/dev/null
done
cd examples
for who in old new; do
  eval lib=\$$who
  LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ncu --kernel-name regex:"FEGElemRef_Kernel" --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats ./bench -dm_vec_type cuda -bench_petsc_coo 0 -bench_reps 3 -feg_cell_type tet -feg_faces 30 -order 3 -bench_strategies lma_single > "$out/ncu-elemref-$who.txt" 2>&1 || true
  echo "== ncu ElemRef $who"; grep -E "Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Registers Per Thread|Achieved Occupancy|Warp Cycles Per Issued|Executed Ipc A|Block Size|Grid Size" "$out/ncu-elemref-$who.txt" | sed 's/  */ /g'
done
