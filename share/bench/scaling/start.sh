#!/bin/bash
# The start of a GPU process on one process and on two started at once, each on its own GPU (share/fegpu/gpu-bind):
# the program's load, the CUDA driver's start, the primary context, PetscInitialize() and FEGDeviceInitialize(), timed
# on every process by bench_start. REPS runs of each count (5 by default) after a warm-up run. Needs two GPUs
# (nvidia-h200-x2):
#   bash share/bench/scaling/start.sh [OUTDIR]          -> OUTDIR/start.csv, and the means per process count
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" scaling)
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$ngpu" -ge 2 ] || { echo "start: needs two GPUs, this machine has $ngpu"; exit 1; }
cd "$FEG_BENCH" || exit 1
rm -f "$out/start.csv" "$out/start.log"
$FEG_MPIEXEC -n 2 "$FEG_ROOT/share/fegpu/gpu-bind" ./bench_start > /dev/null 2>&1
for rep in $(seq "${REPS:-5}"); do
  for np in 1 2; do
    $FEG_MPIEXEC -n "$np" "$FEG_ROOT/share/fegpu/gpu-bind" ./bench_start -csv "$out/start.csv" -label "run$rep" >> "$out/start.log" 2>&1 || echo "bench_start failed: $np processes" >> "$out/start.log"
  done
done
# the means over runs and processes, and the mean of each run's slowest process's driver + context
awk -F, 'NR > 1 { n[$1]++; for (i = 3; i <= 7; i++) s[$1, i] += $i; dc = $4 + $5; if (dc > m[$1, $8]) m[$1, $8] = dc }
  END { for (np = 1; np <= 2; np++) if (n[np]) { runs = 0; w = 0; for (k in m) { split(k, a, SUBSEP); if (a[1] == np) { runs++; w += m[k] } }
    printf "processes %d (%d process runs): load %.3f s, driver %.3f s, context %.3f s, PetscInitialize %.3f s, FEGDeviceInitialize %.3f s; slowest process driver + context %.3f s\n",
      np, n[np], s[np, 3] / n[np], s[np, 4] / n[np], s[np, 5] / n[np], s[np, 6] / n[np], s[np, 7] / n[np], w / runs } }' "$out/start.csv"
