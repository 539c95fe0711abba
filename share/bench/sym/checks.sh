#!/bin/bash
# The checks run1.sh, run5.sh and run6.sh start with: make check-gpu's tests and compute-sanitizer memcheck and
# initcheck on test_gpu's kernels and single cases, with the library in LIBDIR; logs OUT/check-gpu.log, OUT/sanitize.log.
#   source .gpu/env.sh && bash share/bench/sym/checks.sh OUT LIBDIR
set -u
out=$1 lib=$2
here=$(cd "$(dirname "$0")/../../.." && pwd)
(cd "$here" && LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$here" --tests test_gpu --gpu --timeout 300 --extra-args "-dm_vec_type cuda") > "$out/check-gpu.log" 2>&1
tail -1 "$out/check-gpu.log"
(cd "$here" && LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" bash share/fegpu/sanitize.sh "$here" "memcheck initcheck" "kernels single") > "$out/sanitize.log" 2>&1
tail -5 "$out/sanitize.log"
