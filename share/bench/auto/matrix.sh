#!/bin/bash
# The bench matrix of -feg_op_type auto: tetrahedra, hexahedra and prisms, continuous P1-P4, each strategy
# in its own process (each pays the DM's discretization setup once, as a user's first operator does), times appended
# to OUT/NAME.csv by share/bench/bench. Run from the repository root after make, with the CUDA PETSc's env.sh sourced.
#   [FEG_HOST=1] [FEG_CELLS="tet hex prism"] [FEG_ORDERS="1 2 3 4"] [FEG_REPS=1] bash share/bench/auto/matrix.sh OUT NAME SCALE DEADLINE_S \
#       "atomic lma matfree [auto@1 auto@10 auto@100]" [BENCH_ARGS]
# SCALE multiplies the mesh subdivisions (1: 10^4 to 1.3x10^6 elements); runs stop starting after DEADLINE_S
# seconds; FEG_HOST=1 times the host (PETSc's default vectors) instead of the GPU. FEG_REPS=r runs every process r
# times, the strategies of a case taking turns, so that fit.py and score.py can take the median of r processes (the
# setup of one process varies by up to 1.5x at these sizes). PETSc's COO baseline is left out (-bench_petsc_coo 0).
out=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); name=$2; scale=${3:-1}; deadline=${4:-300}; strategies=${5:-"atomic lma matfree"}; extra=$6
vec="-dm_vec_type cuda"; [ -n "$FEG_HOST" ] && vec=
mkdir -p "$out"
cd share/bench || exit 1
# cell order faces at scale 1
cases="tet 1 60
tet 2 30
tet 3 20
tet 4 15
hex 1 100
hex 2 50
hex 3 34
hex 4 25
prism 1 80
prism 2 40
prism 3 27
prism 4 20"
echo "$cases" | while read -r c p n; do
  case " ${FEG_CELLS:-tet hex prism} " in *" $c "*) ;; *) continue ;; esac
  case " ${FEG_ORDERS:-1 2 3 4} " in *" $p "*) ;; *) continue ;; esac
  f=$(python3 -c "print(max(2, round($n * $scale)))")
  for rep in $(seq "${FEG_REPS:-1}"); do for s in $strategies; do
    if [ "$SECONDS" -gt "$deadline" ]; then echo "deadline: $c P$p $s not run" >> "$out/$name.log"; continue; fi
    echo "== $c P$p faces $f strategy $s rep $rep at ${SECONDS} s" >> "$out/$name.log"
    # auto@K: -feg_op_type auto for K applications, its rows in NAME-autoK.csv
    csv="$out/$name.csv"; st=$s; more=""
    case $s in auto@*) k=${s#auto@}; st=auto; more="-feg_op_auto_applies $k"; csv="$out/$name-auto$k.csv" ;; esac
    timeout 90 ./bench $vec $extra $more -bench_reps 5 -bench_petsc_coo 0 -feg_mesh_cell_type "$c" -feg_mesh_faces "$f" -order "$p" -bench_strategies "$st" -bench_csv "$csv" -feg_op_view >> "$out/$name.log" 2>&1 || echo "rc $? for $c P$p $s" >> "$out/$name.log"
  done; done
done
