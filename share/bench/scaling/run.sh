#!/bin/bash
# Scaling on the GPUs of one host (issue 14), one MPI process per GPU (share/fegpu/gpu-bind), meshes distributed by
# fegpu's METIS partitioner. From the repository root on the GPU machine (run kind nvidia-h100-x4, say):
#   source .gpu/env.sh && bash share/bench/scaling/run.sh check tet bp3weak bp3strong petscsf
#   source .gpu/env.sh && bash share/bench/scaling/run.sh bp3big cpu
# Stages:
#   check      make check-gpu's tests (through runtests.py: make would rebuild carried binaries), then test_gpu's
#              overlap case with one process on every GPU
#   tet        weak: bench, addto (atomic, coo) assembly and lma MatMult, 998,250 P1 tetrahedra per GPU
#   bp3weak    weak: bench_matfree BP3 matfree, 8M unknowns per GPU, orders BP3_ORDERS (default 2,4,8)
#   bp3strong  strong: the same at 8M unknowns in all (one GPU is bp3weak's first run)
#   bp3big     strong: 64M unknowns in all, orders BIG_ORDERS (default 4,8; see the README for order 2)
#   petscsf    the weak and strong runs at the largest GPU count again with -feg_halo_exchange petscsf
#   pinned     the same with -feg_halo_exchange pinned (host-staged messages; the default, auto, moves the ghosts
#              device to device where every process is on one node)
#   cpu        the host cores: BP3 8M strong (one timed solve) and the tetrahedra weak, CPU_PER_GPU ranks (default
#              cores / GPUs) for each GPU count of the GPU runs (CPU_NPS: which counts)
# GPU counts are 1, 2, 4, 8 up to the GPUs the machine has (NPS overrides). Binaries: .gbuild (built elsewhere with the
# same bundle and carried: lib/, examples/, tests/) when it holds them, else this tree is configured and built. Logs and
# CSVs go to $OUT, and all of them into $OUT/0-all.tgz at the end.
set -u
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
ROOT=$PWD
B=${GPU_BIND:-$ROOT/share/fegpu/gpu-bind}
stages=" $* "
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)
[ "$ngpu" -gt 0 ] || ngpu=${NGPU:-1}
ncore=$(nproc)
nvidia-smi -L > "$OUT/gpus.txt" 2>&1
echo "cores $ncore" >> "$OUT/gpus.txt"
if [ -z "${NPS:-}" ]; then
  NPS=""
  for n in 1 2 4 8; do [ "$n" -le "$ngpu" ] && NPS="$NPS $n"; done
fi
if [ -x .gbuild/examples/bench_matfree ]; then
  export LD_LIBRARY_PATH=$ROOT/.gbuild/lib:${LD_LIBRARY_PATH:-}
  BIN=$ROOT/.gbuild/examples
  cp .gbuild/examples/* examples/ && cp .gbuild/tests/* tests/
else
  [ -f lib/fegpu/conf/fegpuvariables ] || ./configure --with-check-dir=.gpu/check > "$OUT/configure.log" 2>&1
  make -j"$ncore" lib examples > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  BIN=$ROOT/examples
fi
COMMON="-dm_vec_type ${VEC:-cuda} -petscpartitioner_type metis"
# sizes (smaller ones only to try the script out: TET_N=10 BP_DOFS=20000 BIG_DOFS=80000 VEC=standard GPU_BIND=env)
TN=${TET_N:-55}
BD=${BP_DOFS:-8000000}
BG=${BIG_DOFS:-64000000}
# one line per run: what, processes, and the process's wall time
T0=0
start() { echo "== $*"; T0=$(date +%s%N); }
stop() { echo "== rc $1 process wall $((($(date +%s%N) - T0) / 1000000)) ms"; }

if [[ $stages == *" check "* ]]; then
  # what make check-gpu runs (make itself would rebuild carried binaries)
  (time MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$ROOT" --tests test_gpu --gpu --timeout 150 --extra-args "-dm_vec_type cuda") > "$OUT/check-gpu.log" 2>&1
  tail -n 3 "$OUT/check-gpu.log"
  # the overlapped apply (both ghost exchanges) on every GPU of the machine, one process each
  (cd tests && CK_RUN_CASE=overlap timeout 120 mpiexec -n "$ngpu" $B ./test_gpu) >> "$OUT/check-gpu.log" 2>&1
  echo "test_gpu overlap on $ngpu GPUs: rc $?" | tee -a "$OUT/check-gpu.log"
fi

cd "$ROOT/examples"
[[ $stages == *" tet "* ]] && {
  for n in $NPS; do
    start "tet P1 weak np $n: $((6 * TN * TN * TN)) tetrahedra per GPU"
    timeout 300 mpiexec -n $n $B $BIN/bench $COMMON -bench_reps 20 -feg_cell_type tet -feg_faces $TN,$TN,$((TN * n)) -order 1 -bench_strategies atomic,coo,lma
    stop $?
  done
} > "$OUT/tet.log" 2>&1
[[ $stages == *" tet "* ]] && grep -E "^==|^(atomic|coo|lma|petsccoo) |^halo" "$OUT/tet.log" | cut -c1-150

BO=${BP3_ORDERS:-2,4,8}
bp() { # csv name, processes, label, bench_matfree arguments
  local csv=$1 n=$2 what=$3
  shift 3
  start "BP3 $what np $n"
  timeout 400 mpiexec -n $n $B $BIN/bench_matfree $COMMON -mode bp3 -its 50 -reps 3 -strategies matfree -csv "$OUT/$csv.csv" "$@"
  stop $?
}
[[ $stages == *" bp3weak "* ]] && {
  for n in $NPS; do bp bp3weak $n "weak, 8M unknowns per GPU" -orders $BO -dofs $BD -dofs_per_process; done
} > "$OUT/bp3weak.log" 2>&1
[[ $stages == *" bp3weak "* ]] && grep -E "^==|^ *[0-9] +matfree" "$OUT/bp3weak.log"
[[ $stages == *" bp3strong "* ]] && {
  for n in $NPS; do [ $n -gt 1 ] && bp bp3strong $n "strong, 8M unknowns" -orders $BO -dofs $BD; done
} > "$OUT/bp3strong.log" 2>&1
[[ $stages == *" bp3strong "* ]] && grep -E "^==|^ *[0-9] +matfree" "$OUT/bp3strong.log"
# the same runs with the ghosts moved another way (PetscSF's, the exchange before fegpu's own; fegpu's host-staged
# one), at the largest GPU count
NMAX=${NPS##* }
for x in petscsf pinned; do
  [[ $stages == *" $x "* ]] || continue
  {
    start "tet P1 weak np $NMAX, -feg_halo_exchange $x"
    timeout 300 mpiexec -n $NMAX $B $BIN/bench $COMMON -bench_reps 20 -feg_cell_type tet -feg_faces $TN,$TN,$((TN * NMAX)) -order 1 -bench_strategies lma -feg_halo_exchange $x
    stop $?
    bp bp3weak-$x $NMAX "weak, 8M unknowns per GPU, -feg_halo_exchange $x," -orders $BO -dofs $BD -dofs_per_process -feg_halo_exchange $x
    bp bp3strong-$x $NMAX "strong, 8M unknowns, -feg_halo_exchange $x," -orders $BO -dofs $BD -feg_halo_exchange $x
  } > "$OUT/$x.log" 2>&1
  grep -E "^==|^ *[0-9] +matfree|^lma " "$OUT/$x.log" | cut -c1-150
done

[[ $stages == *" bp3big "* ]] && {
  for n in $NPS; do bp bp3big $n "strong, 64M unknowns" -orders ${BIG_ORDERS:-4,8} -dofs $BG; done
} > "$OUT/bp3big.log" 2>&1
[[ $stages == *" bp3big "* ]] && grep -E "^==|^ *[0-9] +matfree" "$OUT/bp3big.log"

# the host cores: PETSc's host vectors and fegpu's host operators, CPU_PER_GPU ranks standing for each GPU
CPG=${CPU_PER_GPU:-$((ncore / ngpu))}
[[ $stages == *" cpu "* ]] && {
  for n in ${CPU_NPS:-$NPS}; do
    r=$((n * CPG))
    start "CPU BP3 strong, 8M unknowns, $r ranks (for np $n)"
    timeout 400 mpiexec -n $r $BIN/bench_matfree -petscpartitioner_type metis -mode bp3 -its 50 -reps 1 -strategies matfree -csv "$OUT/cpu-bp3.csv" -orders $BO -dofs $BD
    stop $?
  done
  for n in ${CPU_NPS:-$NPS}; do
    r=$((n * CPG))
    start "CPU tet P1 weak, $r ranks (for np $n): $((6 * TN * TN * TN)) tetrahedra per $CPG ranks"
    timeout 300 mpiexec -n $r $BIN/bench -petscpartitioner_type metis -bench_reps 20 -feg_cell_type tet -feg_faces $TN,$TN,$((TN * n)) -order 1 -bench_strategies atomic,coo,lma
    stop $?
  done
} > "$OUT/cpu.log" 2>&1
[[ $stages == *" cpu "* ]] && grep -E "^==|^ *[0-9] +matfree|^(atomic|coo|lma) " "$OUT/cpu.log" | cut -c1-150
# at most 8 files come back from the device machine: everything in one archive that sorts first
(cd "$OUT" && tar czf 0-all.tgz --exclude 0-all.tgz -- *)
exit 0
