#!/bin/bash
# glibc's malloc asking for transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1: madvise(MADV_HUGEPAGE) on
# the memory it maps) against the default, alternating twice, every process timed whole: advdiff at 545k triangles on
# the GPU (lma) and on 16 host cores (addto), BP3 at 8M Q2 unknowns (bench_matfree, matfree), bench's 998k P1
# tetrahedra (lma setup column):
#   source .gpu/env.sh && bash share/bench/thp/run1.sh OUT
set -u
out=$1
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
. ../share/bench/setup/timedrun.sh
{
  echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
  echo "THP defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
  ldd --version | head -1
} > "$out/machine.txt"
A="-advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4"
for rep in 1 2; do
  for t in none glibc.malloc.hugetlb=1; do
    tt=$t
    [ $t = none ] && tt=
    run env GLIBC_TUNABLES=$tt ./advdiff $A -feg_strategy lma -dm_vec_type cuda
    run env GLIBC_TUNABLES=$tt mpiexec -n 16 ./advdiff $A -feg_strategy addto
    run env GLIBC_TUNABLES=$tt ./bench_matfree -mode bp3 -orders 2 -dofs 8000000 -strategies matfree -its 50 -reps 5 -dm_vec_type cuda
    run env GLIBC_TUNABLES=$tt ./bench -dm_vec_type cuda -bench_reps 5 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies lma -bench_petsc_coo 0
  done
done
cat "$out/machine.txt"
grep -E "^== (env|rc)|times \(s\)|^2  matfree|^lma " "$out/advdiff.log" | cut -c1-160
