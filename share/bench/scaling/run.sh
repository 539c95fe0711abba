#!/bin/bash
# BP3 (Q2, matrix-free, 50 CG iterations) on one GPU and on two of one host, whole processes in the same call: for each
# size S in SIZES (unknowns per GPU), one GPU with S, two GPUs with S each (weak) and two GPUs with S in all (strong).
# Needs a machine with two GPUs (nvidia-h200-x2):
#   bash share/bench/scaling/run.sh [OUTDIR]           -> OUTDIR/scaling.csv   (SIZES="8000000 31000000" by default)
# Each process gets one GPU through share/fegpu/gpu-bind; rssmax_mb is the largest process's peak resident memory
# (-memory_view); sections_s, rhs_s and solves_s (the 11 CG runs: one warm-up and 10 timed, of which cg_s is the median)
# come from bench_matfree -phases.
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" scaling)
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$ngpu" -ge 2 ] || { echo "scaling: needs two GPUs, this machine has $ngpu"; exit 1; }
cd "$FEG_BENCH" || exit 1
rm -f "$out/scaling.log"
# a small run on both GPUs first: a fresh machine's first CUDA start-up (driver and library loads) is not the run's
$FEG_MPIEXEC -n 2 "$FEG_ROOT/share/fegpu/gpu-bind" ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 2 -dofs 100000 -its 5 -strategies matfree > /dev/null 2>&1
echo "gpus,unknowns,per_gpu,process_s,mesh_s,setup_s,cg_s,rssmax_mb,sections_s,rhs_s,solves_s" > "$out/scaling.csv"
for size in ${SIZES:-8000000 31000000}; do
  for run in "1 0" "2 1" "2 0"; do
    read -r np per <<< "$run"
    log=$(feg_time $FEG_MPIEXEC -n "$np" "$FEG_ROOT/share/fegpu/gpu-bind" ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 2 -dofs "$size" -dofs_per_process "$per" -its 50 -strategies matfree -phases -memory_view 2>&1)
    echo "$log" >> "$out/scaling.log"
    echo "$log" | awk -v np="$np" -v per="$per" '$2 == "matfree" && $1 == 2 { d = $4; m = $5; s = $6; c = $7 } /^process seconds/ { p = $3 } /Maximum \(over computational time\) process memory/ { for (i = 1; i < NF; i++) if ($i == "max") r = $(i + 1) } /^phases s: mesh [0-9]/ { gsub(",", ""); sec = $6; rhs = $13; sol = $19 + $23 } END { printf "%s,%s,%s,%s,%s,%s,%s,%.0f,%s,%s,%s\n", np, d, per ? "yes" : "no", p, m, s, c, r / 1048576, sec, rhs, sol }' >> "$out/scaling.csv"
  done
done
cat "$out/scaling.csv"
bash "$FEG_BENCH/plot.sh" scaling "$out/scaling.csv" "$out/scaling.png"
