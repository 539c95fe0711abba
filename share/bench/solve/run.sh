#!/bin/bash
# Time to a converged solution of BP3 (-div grad u = f, u = 0 on the boundary, zero guess, rtol 1e-8): fegpu's
# p-multigrid (share/fegpu/pmg.opts), CG + Jacobi and PETSc's GAMG on the matrix fegpu assembles
# (share/bench/bench_solve), and libCEED's multigrid example (../shared/peers/mg.sh: PCMG over degrees, Chebyshev-Jacobi,
# GAMG on its assembled degree-1 level) in the same call. Every fegpu solver of every degree is a process of its own,
# timed from outside (process_seconds: start-up, mesh, setup, solve, the L2 error):
#   bash share/bench/solve/run.sh [OUTDIR]          -> OUTDIR/solve.csv, solve.png
# SIZES (default 1000000) the unknowns, DEGREES (2,4,6,8), EPS (1,0.3: the uniform and the Kershaw-deformed box),
# SOLVERS (pmg,jacobi,gamg), GAMG_DEGREES (2,4: the assembled Q6 and Q8 matrices of a million unknowns take tens of GB and
# cuSPARSE's products fail on them), PEER_EPS (the eps values libCEED's multigrid runs at, default 1; empty: none),
# PEER_DEGREES (the degrees it runs at, default 2: at 4 and above it aborts, share/doc/performance.md says why, after
# minutes), PEER_ARGS (its extra options, mg.sh's; default the configuration that runs: its degree-1 matrix on the GPU,
# GAMG without the squared graph), TETS (orders of a tetrahedral pmg run at the first size, default 2,3,4), PMG_LEVELS
# (pmg's level operators as type:precision, default matfree:double; e.g. "matfree:double lma:double lma:single" to
# time the single-precision levels of FEGDMSetMGPrecision() against both double ones).
source "$(dirname "$0")/../common.sh"
out=$(feg_out "${1:-}" solve)
csv=$out/solve.csv
sizes=${SIZES:-1000000} degs=${DEGREES:-2,4,6,8} epss=${EPS:-1,0.3} solvers=${SOLVERS:-pmg,jacobi,gamg} tets=${TETS-2,3,4}
gamgdegs=${GAMG_DEGREES:-2,4} peereps=${PEER_EPS-1} peerdegs=${PEER_DEGREES:-2} pmglevels=${PMG_LEVELS:-matfree:double}
export PEER_ARGS=${PEER_ARGS:--dm_mat_type aijcusparse -coarse_pc_gamg_aggressive_coarsening 0}
peer=$FEG_ROOT/.peer/mg.sh
rm -f "$csv" "$out/peer.csv"
echo "peer,problem,degree,cells,global_nodes,its,solve_seconds,l2_error,eps,rtol,setup_seconds,mesh_seconds,solver,backend,cell,process_seconds" > "$csv"
cd "$FEG_BENCH" || exit 1
# one fegpu process; its CSV line gets the process's seconds
feg_solve() {
  local tmp=$out/one.csv ps
  rm -f "$tmp"
  ps=$(feg_time ./bench_solve $FEG_VEC -warmup 0 -csv "$tmp" "$@" 2>&1 | tee -a "$out/solve.log" | awk '/^process seconds/ { print $3 }')
  [ -s "$tmp" ] && tail -n +2 "$tmp" | sed "s/\$/,$ps/" >> "$csv"
  rm -f "$tmp"
}
for n in ${sizes//,/ }; do
  for eps in ${epss//,/ }; do
    if [ -f "$peer" ] && [[ ",$peereps," == *",$eps,"* ]]; then
      EPS=$eps bash "$peer" bp3 "$peerdegs" "$n" 2>> "$out/solve.log" | tail -n +2 |
        awk -F, -v OFS=, '{ print $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "", "", "libceed-mg", $12, "hex", $11 }' >> "$csv"
    fi
    for p in ${degs//,/ }; do
      for s in ${solvers//,/ }; do
        [ "$s" = gamg ] && [[ ",$gamgdegs," != *",$p,"* ]] && continue
        if [ "$s" = pmg ]; then
          for lv in $pmglevels; do
            feg_solve -orders "$p" -dofs "$n" -kershaw "$eps" -solvers pmg -op_type "${lv%%:*}" -mg_precision "${lv##*:}"
          done
        else
          feg_solve -orders "$p" -dofs "$n" -kershaw "$eps" -solvers "$s"
        fi
      done
    done
  done
done
first=${sizes%%,*}
for p in ${tets//,/ }; do
  feg_solve -cell tet -orders "$p" -dofs "$first" -solvers pmg
done
echo "solve: $(($(wc -l < "$csv") - 1)) rows in $csv ($(feg_gpu))"
bash "$FEG_BENCH/plot.sh" solve "$csv" "$out/solve.png"
