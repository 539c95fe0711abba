#!/bin/bash
# Run 54: what is left of BP3's setup at 8M Q2 unknowns after run 53 (0.45-0.47 s): cudashim's windows around
# FEGCreateOperator() (CUDA runtime calls, PETSc functions timed inside, host time between), and -log_view's fegpu
# phases, two processes.
#   source .gpu/env.sh && bash share/bench/setup/run54.sh OUT
set -u
out=$1
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
gcc -O2 -shared -fPIC -o /tmp/cudashim.so "$here/share/bench/setup/cudashim.c" -I"$PETSC_DIR/include" -I/usr/local/cuda/include -ldl || exit 1
cd "$here/examples"
for rep in 1 2; do
  echo "== bp3 Q2 rep $rep" >> "$out/shim.log"
  LD_PRELOAD=/tmp/cudashim.so timeout 120 ./bench_matfree -mode bp3 -orders 2 -dofs 8000000 -strategies matfree -its 50 -reps 5 -dm_vec_type cuda -log_view >> "$out/shim.log" 2>&1
done
grep -E "^==|^2 +matfree|cudashim FEGCreateOperator|cudashim FEGSetUp|^FEG[A-Za-z]+ " "$out/shim.log" | cut -c1-400
