#!/bin/bash
# Run 6: why the grouped single-precision kernel (run 5) is slower than the pair kernel at 4 and 10 dofs. ncu on each
# library's kernel (P2 tetrahedra), then the landed library against a third one alternating on bench.
#   source .gpu/env.sh && bash share/bench/precision/run6.sh OUT OLDLIBDIR GROUPLIBDIR THIRDLIBDIR
set -u
out=$1 old=$2 grp=$3 third=$4
mkdir -p "$out"
cd examples
for who in old grp third; do
  eval lib=\$$who
  for p in 2 1; do
    LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ncu --kernel-name regex:"FEGLMA(Pair|Group)" --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats ./bench -dm_vec_type cuda -bench_petsc_coo 0 -bench_reps 5 -feg_cell_type tet -feg_faces 55 -order $p -bench_strategies lma_single > "$out/ncu-$who-p$p.txt" 2>&1
    echo "== ncu $who P$p"; grep -E "^  [A-Za-z].*(Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Achieved Occupancy|Registers Per Thread|Compute \(SM\) Throughput|Issued Ipc Active|Mem Busy|Max Bandwidth|L2 Hit Rate|Warp Cycles Per Issued)" "$out/ncu-$who-p$p.txt" | sed 's/  */ /g'
    grep -E "^ +(OPT|INF) +.*(stall|Stall)" "$out/ncu-$who-p$p.txt" | head -3 | cut -c1-300
  done
done
cd ..
ARGS="-bench_petsc_coo 0" bash share/bench/abbench.sh "$out" "$old" "$third" lma_single,lma "tet 55 2; tet 55 1; tri 700 3"
