#!/bin/bash
# Run 58: where advdiff's GPU process goes at 545k triangles, outside and inside its timed part. BIN holds advdiff
# (with its -log_view stages) and advdiffp, the same program printing wall-clock stamps ("PROBE main|init|prefinal|
# final", gettimeofday) at main's entry, after PetscInitialize, before and after PetscFinalize; the script stamps the
# process's start and end, so loading, PetscInitialize, the timed part and PetscFinalize are each measured.
#   source .gpu/env.sh && bash share/bench/setup/run58.sh OUT LIBDIR BIN
set -u
out=$1 lib=$2 bin=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}"
cd "$here/examples"
A="-feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4"
G="$A -feg_strategy matfree -dm_vec_type cuda"
stamp() {
  echo "== $*"
  echo "PROBE start $(date +%s.%N)"
  timeout 120 "$@" 2>&1
  echo "== rc $?"
  echo "PROBE end $(date +%s.%N)"
}
for rep in 1 2; do
  stamp "$bin/advdiffp" -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 0
  stamp "$bin/advdiffp" -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 0 -dm_vec_type cuda
  stamp "$bin/advdiffp" $G -advdiff_steps 0
  stamp "$bin/advdiffp" $G -advdiff_steps 0 -device_enable eager
  stamp "$bin/advdiffp" $G -advdiff_steps 200
  stamp mpiexec -n 16 "$bin/advdiffp" $A -feg_strategy addto -advdiff_steps 200
done > "$out/probes.log"
LD_DEBUG=statistics "$bin/advdiffp" -feg_mesh_file ../share/meshes/square.msh -advdiff_steps 0 > "$out/lddebug.log" 2>&1
"$bin/advdiff" $G -advdiff_steps 200 -log_view > "$out/logview-matfree.txt" 2>&1
"$bin/advdiff" $A -feg_strategy addto -dm_vec_type cuda -advdiff_steps 200 -log_view > "$out/logview-addto.txt" 2>&1
mpiexec -n 16 "$bin/advdiff" $A -feg_strategy addto -advdiff_steps 200 -log_view > "$out/logview-cpu16.txt" 2>&1
python3 - "$out/probes.log" <<'PY'
import sys
cmd = None; st = {}
for line in open(sys.argv[1]):
    if line.startswith('== ') and not line.startswith('== rc'):
        cmd = line[3:].strip(); st = {}
    elif line.startswith('PROBE'):
        _, w, t = line.split(); st.setdefault(w, float(t))
        if w == 'end' and 'main' in st:
            d = lambda a, b: 1000 * (st[b] - st[a])
            print('%-110s load %4.0f init %4.0f run %5.0f finalize %4.0f exit %4.0f ms' % (cmd[-110:], d('start', 'main'), d('main', 'init'), d('init', 'prefinal'), d('prefinal', 'final'), d('final', 'end')))
    elif 'times (s)' in line: print('   ', line.strip())
PY
grep -A12 "Summary of Stages" "$out/logview-matfree.txt" "$out/logview-cpu16.txt"
