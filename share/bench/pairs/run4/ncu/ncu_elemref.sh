set -x
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats"
cd examples
ncu $S --kernel-name regex:FEGElemRef_Kernel --launch-count 2 ./bench -feg_cell_type tet -feg_faces 30 -order 3 -bench_strategies lma_single,lma -bench_reps 1 -dm_vec_type cuda -bench_petsc_coo 0 > $OUT/ncu-fegpu.txt 2>&1
cd ..
for k in G0 G1 G2; do ncu $S --kernel-name $k --launch-count 1 ./.gbM/refgroup > $OUT/ncu-micro-$k.txt 2>&1; done
cuobjdump -sass /tmp/lN/libfegpu.so 2>/dev/null | awk '/Function : .*FEGElemRef_KernelILi0ELi3E/{p=1} p&&/Function : /&&!/FEGElemRef_KernelILi0ELi3E/{p=0} p' > $OUT/sass-elemref03.txt
wc -l $OUT/sass-elemref03.txt
grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|L1/TEX Hit|Mem Busy|Max Bandwidth|Compute \(SM\) Throughput|Memory Throughput|Stall|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" $OUT/ncu-fegpu.txt | head -60
for k in G0 G1 G2; do echo "== $k"; grep -E "Duration|Registers Per|Achieved Occupancy|L1/TEX Hit|Mem Busy|Compute \(SM\) Throughput|Memory Throughput|No Eligible|Warp Cycles Per Issued" $OUT/ncu-micro-$k.txt | head -12; done
