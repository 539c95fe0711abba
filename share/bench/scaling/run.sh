#!/bin/bash
# BP3 (Q2, matrix-free, 50 CG iterations) on one GPU and on two of one host, whole processes in the same call: weak
# scaling at 8M unknowns per GPU and strong scaling at 8M in all. Needs a machine with two GPUs (nvidia-h200-x2):
#   bash share/bench/scaling/run.sh [OUTDIR]           -> OUTDIR/scaling.csv
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" scaling)
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$ngpu" -ge 2 ] || { echo "scaling: needs two GPUs, this machine has $ngpu"; exit 1; }
cd "$FEG_BENCH" || exit 1
echo "gpus,unknowns,per_gpu,process_s,mesh_s,setup_s,cg_s" > "$out/scaling.csv"
for run in "1 8000000 0" "2 8000000 1" "2 8000000 0"; do
  read -r np dofs per <<< "$run"
  log=$(feg_time $FEG_MPIEXEC -n "$np" "$FEG_ROOT/share/fegpu/gpu-bind" ./bench_matfree -dm_vec_type cuda -mode bp3 -orders 2 -dofs "$dofs" -dofs_per_process "$per" -its 50 -strategies matfree 2>&1)
  echo "$log" >> "$out/scaling.log"
  echo "$log" | awk -v np="$np" -v per="$per" '$2 == "matfree" && $1 == 2 { d = $4; m = $5; s = $6; c = $7 } /^process seconds/ { p = $3 } END { printf "%s,%s,%s,%s,%s,%s,%s\n", np, d, per ? "yes" : "no", p, m, s, c }' >> "$out/scaling.csv"
done
cat "$out/scaling.csv"
