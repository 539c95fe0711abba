#!/bin/bash
# The transient advection-diffusion example (Markall et al.) end to end: 544,768 triangles (square_2128.msh refined 4
# times), 200 steps of RK4 advection and Crank-Nicolson diffusion, whole processes on the GPU (lma; addto with the mass
# solves fused, FEGCreateChebyshevInverse(), and with PETSc's KSPCHEBYSHEV) against the host on every core of the node
# (addto, CG), REPS (default 2) of each, alternating:
#   bash share/bench/advdiff/run.sh [OUTDIR]           -> OUTDIR/advdiff.csv
# process_s: the whole process; setup_s and total_s (setup and the 200 steps) as the example reports them.
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" advdiff)
ncores=${NCORES:-$(nproc)}
args="-feg_mesh_file ../share/meshes/square_2128.msh -dm_refine 4 -advdiff_steps 200"
cd "$FEG_ROOT/examples" || exit 1
echo "run,processes,vectors,type,mass_solver,process_s,setup_s,total_s" > "$out/advdiff.csv"
for rep in $(seq 1 "${REPS:-2}"); do
  for run in "1 cuda lma auto" "1 cuda addto auto" "1 cuda addto chebyshev" "$ncores standard addto auto"; do
    read -r np vec type ms <<< "$run"
    launch=""
    [ "$np" -gt 1 ] && launch="$FEG_MPIEXEC -n $np"
    log=$(feg_time $launch ./advdiff $args -dm_vec_type "$vec" -feg_op_type "$type" -advdiff_mass_solver "$ms" 2>&1)
    echo "$log" >> "$out/advdiff.log"
    p=$(echo "$log" | awk '/^process seconds/ { print $3 }')
    s=$(echo "$log" | sed -n 's/.*setup and integration\/assembly \([0-9.]*\),.*/\1/p')
    t=$(echo "$log" | sed -n 's/.*total \([0-9.]*\).*/\1/p')
    m=$(echo "$log" | sed -n 's/.*in mass solves (\([a-z]*\)).*/\1/p')
    echo "$rep,$np,$vec,$type,$m,$p,$s,$t" >> "$out/advdiff.csv"
  done
done
echo "advdiff: $out/advdiff.csv ($(feg_gpu), $ncores host processes)"
