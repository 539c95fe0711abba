#!/bin/bash
# share/fegpu/gpu-bind without a GPU: the GPU each node-local rank gets from CUDA_VISIBLE_DEVICES, and the huge-page
# setting it adds to GLIBC_TUNABLES (kept when the caller set it or FEG_HUGEPAGES=0). Prints "N passed, N failed".
bind=$(cd "$(dirname "$0")/.." && pwd)/share/fegpu/gpu-bind
pass=0 fail=0
# check NAME EXPECTED VARIABLE ENV...: runs gpu-bind under env -i ENV... and compares VARIABLE's value in the child
check() {
  local name=$1 want=$2 var=$3 got
  shift 3
  got=$(env -i PATH="$PATH" "$@" "$bind" printenv "$var")
  if [ "$got" = "$want" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "not ok: $name: $var is '$got', expected '$want'"; fi
}
check "rank 0 of two GPUs" 3 CUDA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES=3,5 MPI_LOCALRANKID=0
check "rank 1 of two GPUs (MPICH)" 5 CUDA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES=3,5 MPI_LOCALRANKID=1
check "rank 2 of two GPUs (Open MPI)" 3 CUDA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES=3,5 OMPI_COMM_WORLD_LOCAL_RANK=2
check "rank 1 (Slurm)" 5 CUDA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES=3,5 SLURM_LOCALID=1
check "no launcher: rank 0" 3 CUDA_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES=3,5
check "huge pages by default" glibc.malloc.hugetlb=1 GLIBC_TUNABLES CUDA_VISIBLE_DEVICES=0
check "huge pages added to other tunables" glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1 GLIBC_TUNABLES CUDA_VISIBLE_DEVICES=0 GLIBC_TUNABLES=glibc.malloc.arena_max=2
check "the caller's hugetlb kept" glibc.malloc.hugetlb=0 GLIBC_TUNABLES CUDA_VISIBLE_DEVICES=0 GLIBC_TUNABLES=glibc.malloc.hugetlb=0
check "FEG_HUGEPAGES=0 leaves GLIBC_TUNABLES unset" "" GLIBC_TUNABLES CUDA_VISIBLE_DEVICES=0 FEG_HUGEPAGES=0
echo "gpu-bind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
