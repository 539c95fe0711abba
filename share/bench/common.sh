# Sourced by the benchmark scripts (share/bench/*/run.sh): the tree, the programs, the output folder, the launcher.
# Run them from a built fegpu tree on the GPU machine after `source .gpu/env.sh`; each writes its CSV into the folder it
# is given (default: its own folder, share/bench/NAME/) and draws its PNG there with share/bench/plot.sh when gnuplot
# is at hand (else run plot.sh later where it is).
set -u
FEG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FEG_BENCH=$FEG_ROOT/share/bench
FEG_MPIEXEC=${MPIEXEC:-mpiexec}
# the GPU runs' vector type; VEC= runs them on the host (to try a script on a machine without a GPU)
FEG_VEC=${VEC--dm_vec_type cuda}
# the output folder: the script's first argument, else its own folder
feg_out() {
  local d=${1:-$FEG_BENCH/$2}
  mkdir -p "$d" && cd "$d" && pwd
}
# the whole process's wall seconds of a command, printed as "process seconds S" after its output
feg_time() {
  local t0=$EPOCHREALTIME rc
  "$@"
  rc=$?
  echo "process seconds $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')"
  return $rc
}
# this machine's GPU, for the CSVs
feg_gpu() {
  nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ',' ' ' || echo "no GPU"
}
