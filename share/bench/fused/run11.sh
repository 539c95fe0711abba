#!/bin/bash
# Run 11: -feg_cuda_kernel entries (one element entry per thread from the reference tensors, what auto takes above 10
# dofs) against auto's one element per thread at 10 dofs and below, on one library: make check-gpu's tests and the
# sanitizers first, then bench's assembly of atomic addto, coo (fegpu's element matrices + MatSetValuesCOO) and lma,
# the two kernel choices taking turns twice, for bench's symmetric C and with an advection term.
#   source .gpu/env.sh && bash share/bench/fused/run11.sh OUT LIBDIR
set -u
out=$1 lib=$2
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
bash "$here/share/bench/sym/checks.sh" "$out" "$lib"
bash "$here/share/bench/fused/kernels.sh" "$out" "$lib" "tet 28 2; tet 55 2; tri 300 3; quad 400 2; tet 60 1; tet 30 3" atomic,coo,lma " ; -bench_advection 0.5"
python3 "$here/share/bench/fused/kerntab.py" "$out/bench.log"
