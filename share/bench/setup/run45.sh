#!/bin/bash
# Run 45: the shared device geometry and global dof map (a DM's later operators), and fegpu's label completion in the
# local section, against the library before (OLDLIB), alternating in one call:
#  - bench, 998k P1 tetrahedra: matfree (reads the DM), then lma three times, under -log_view -log_view_gpu_time: each
#    operator stage's FEGSetUp (the type's setup) and FEGIntegrate; twice per library;
#  - bench_matfree BP3 at 8M unknowns, Q2 and Q3: the DM's sections ("sections s") and fegpu's setup; twice per library;
#  - advdiff at 545k triangles, GPU lma: the example's setup and the process; twice per library.
#   source .gpu/env.sh && bash share/bench/setup/run45.sh OUT OLDLIBDIR NEWLIBDIR   (binaries in examples/, this tree's)
set -u
out=$1 old=$2 new=$3
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
. ../share/bench/ablib.sh
pass() {
  local who=$1 rep=$2 f="$out/bench-$1-$2.log" t0 t1 rc
  ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type tet -feg_faces 55 -order 1 -bench_strategies matfree,lma,lma,lma -log_view -log_view_gpu_time > "$f" 2>&1
  echo "== bench $who pass $rep" >> "$out/summary.txt"
  awk '/^--- Event Stage [1-9]/{st=$5} /^(FEGSetUp|FEGIntegrate) /{if (st != "") print "  stage", st, $1, $2, "calls", $4, "s"}' "$f" >> "$out/summary.txt"
  t0=$(date +%s%N)
  ./bench_matfree -mode bp3 -orders 2,3 -dofs 8000000 -strategies matfree -its 50 -reps 3 -dm_vec_type cuda -csv "$out/bp3-$who-$rep.csv" > "$out/bp3-$who-$rep.log" 2>&1
  rc=$? t1=$(date +%s%N)
  echo "== bp3 $who pass $rep: rc $rc process wall $(( (t1 - t0) / 1000000 )) ms" >> "$out/summary.txt"
  awk -F, 'NR > 1 {printf "  Q%d: mesh %.2f s, setup %.3f s, sections %.3f s, setup + sections %.3f s, CG %.4f s\n", $3, $10, $11, $13, $11 + $13, $7}' "$out/bp3-$who-$rep.csv" >> "$out/summary.txt"
  t0=$(date +%s%N)
  ./advdiff -advdiff_steps 200 -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -feg_strategy lma -dm_vec_type cuda > "$out/advdiff-$who-$rep.log" 2>&1
  t1=$(date +%s%N)
  echo "== advdiff $who pass $rep: process wall $(( (t1 - t0) / 1000000 )) ms" >> "$out/summary.txt"
  grep -E "times|last step" "$out/advdiff-$who-$rep.log" >> "$out/summary.txt"
}
ab_alternate 2 "$old" "$new" pass
cat "$out/summary.txt"
