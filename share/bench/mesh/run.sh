#!/bin/bash
# Mesh construction on 1, 2 and 4 processes of one host (share/bench/bench_mesh), the same global mesh each time: boxes
# of hexahedra and of tetrahedra (Q2/P2 fields of 8.1M unknowns), built block by block (FEGCreateBoxMesh()), and a Gmsh
# shell of curved tetrahedra read, distributed and refined four times after distribution (1M cells). Each line: the
# slowest process's seconds for the mesh and for the discretization (sections, global numbering, a global vector), and
# rank 0's peak resident memory:
#   bash share/bench/mesh/run.sh [OUTDIR]             -> OUTDIR/mesh.csv    (NPS="1 2 4" by default)
# fegpu's setup loops use the node's cores divided among its processes; THREADS=n gives every process n threads instead
# (the same cores per process at every process count: what a process on a node of one GPU each would have)
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" mesh)
rm -f "$out/mesh.csv" "$out/mesh.log"
cd "$FEG_BENCH" || exit 1
for np in ${NPS:-1 2 4}; do
  for run in "hex-box -feg_mesh_cell_type hex -feg_mesh_faces 100" "tet-box -feg_mesh_cell_type tet -feg_mesh_faces 100" \
             "shell-refined-4 -feg_mesh_file $FEG_ROOT/share/meshes/shell_tet2.msh -dm_refine 4"; do
    read -r label args <<< "$run"
    # shellcheck disable=SC2086
    $FEG_MPIEXEC -n "$np" ./bench_mesh $args ${THREADS:+-feg_setup_threads $THREADS} -order 2 -label "$label${THREADS:+-t$THREADS}" -csv "$out/mesh.csv" >> "$out/mesh.log" 2>&1 || echo "bench_mesh failed: $np $label" >> "$out/mesh.log"
  done
done
cat "$out/mesh.csv"
