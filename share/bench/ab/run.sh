#!/bin/bash
# Two builds of fegpu taking turns on the headline benchmarks in one call, the reference for a change's ratio:
#   source .gpu/env.sh && bash share/bench/ab/run.sh OLDROOT NEWROOT OUT [PASSES]
# A ROOT is a built fegpu tree (lib/libfegpu.so and its programs: bench and bench_matfree in share/bench or, before
# fegpu 0.3, examples; advdiff in examples). Each pass runs old then new:
#   BP3 matfree, orders 2 and 4, 8M unknowns, 50 CG iterations (bench_matfree -mode bp3);
#   addto (atomic) and lma on 998k P1 and P2 tetrahedra, assembly and MatMult (bench, median of 10);
#   advdiff on 545k triangles (square_2128.msh refined 4 times), 200 steps, lma, the whole process timed.
# Then share/bench/ab/compare.py prints new/old per metric, the median over the passes. Meshes come from NEWROOT.
# AB_CASES (default "bp3 tet advdiff") picks the cases. AB_SMALL=1 (and VEC= for host vectors) runs tiny sizes, to try the script on a machine without a GPU.
source "$(dirname "$0")/../common.sh"
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) out=$3 passes=${4:-2}
vec=$FEG_VEC
cases=" ${AB_CASES:-bp3 tet advdiff} "
dofs=8000000 faces=55 refine=4 steps=200
[ -n "${AB_SMALL:-}" ] && dofs=20000 faces=6 refine=0 steps=10
mkdir -p "$out"
log=$out/ab.log
: > "$log"
prog() { # ROOT NAME: the program's path in that tree
  if [ -f "$1/share/bench/$2" ] && [ -x "$1/share/bench/$2" ]; then echo "$1/share/bench/$2"; else echo "$1/examples/$2"; fi
}
names() { # ROOT: the option names that tree reads (fegpu 0.3 renamed them; the old names stay as deprecated aliases)
  if [ -f "$1/share/bench/bench" ]; then echo "-feg_mesh_cell_type -feg_mesh_faces -feg_op_type"; else echo "-feg_cell_type -feg_faces -feg_strategy"; fi
}
for pass in $(seq "$passes"); do
  for who in old new; do
    root=$old
    [ "$who" = new ] && root=$new
    read -r cellopt facesopt typeopt <<< "$(names "$root")"
    export LD_LIBRARY_PATH="$root/lib:${BASE_LD:-${LD_LIBRARY_PATH:-}}"
    if [[ $cases == *" bp3 "* ]]; then
      echo "== $who pass $pass bp3" >> "$log"
      timeout 300 "$(prog "$root" bench_matfree)" $vec -mode bp3 -orders 2,4 -dofs $dofs -its 50 -strategies matfree >> "$log" 2>&1
    fi
    for p in 1 2; do
      [[ $cases == *" tet "* ]] || continue
      echo "== $who pass $pass tet P$p" >> "$log"
      timeout 300 "$(prog "$root" bench)" $vec $cellopt tet $facesopt $faces -order $p -bench_strategies atomic,lma -bench_reps 10 -bench_petsc_coo 0 >> "$log" 2>&1
    done
    [[ $cases == *" advdiff "* ]] || continue
    echo "== $who pass $pass advdiff" >> "$log"
    (cd "$new/examples" && feg_time timeout 300 "$(prog "$root" advdiff)" $vec -feg_mesh_file ../share/meshes/square_2128.msh -dm_refine $refine -advdiff_steps $steps $typeopt lma) >> "$log" 2>&1
  done
done
python3 "$FEG_BENCH/ab/compare.py" "$log" | tee "$out/ab.txt"
