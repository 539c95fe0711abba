#!/bin/bash
# Run 16: the kernels for what the reference tensors do not cover (a coefficient given at the quadrature points,
# perturbed quadrilaterals and hexahedra): -feg_cuda_kernel auto (one element per thread up to 20 dofs, GEMM above),
# block and gemm taking turns twice on one library, with bench's constant C and with -bench_coeff points.
#   source .gpu/env.sh && bash share/bench/fused/run16.sh OUT LIBDIR
set -u
out=$1 lib=$2
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
KERNELS="auto block gemm" bash "$here/share/bench/fused/kernels.sh" "$out" "$lib" "tet 55 2; tri 300 3; quad 400 2 -feg_perturb 0.2; hex 100 1 -feg_perturb 0.2; tet 30 3; hex 40 2 -feg_perturb 0.2" atomic,coo,lma " ; -bench_coeff points"
python3 "$here/share/bench/fused/kerntab.py" "$out/bench.log"
