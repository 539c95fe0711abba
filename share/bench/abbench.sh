#!/bin/bash
# Two builds of libfegpu alternating on bench lines in one run, the reference for a kernel change's ratio:
#   source .gpu/env.sh && bash share/bench/abbench.sh OUT OLDLIBDIR NEWLIBDIR STRATEGY "CASE; CASE; ..." [ARGS]
# A CASE is "cell faces order [more bench options]". examples/bench (one binary: the libraries share the public API)
# runs every case with -bench_strategies STRATEGY and ARGS, LD_LIBRARY_PATH set to the old library's folder, then the
# new one's, twice; the lines go to OUT/bench.log under "== old|new pair N: CASE".
set -u
out=$1 old=$2 new=$3 strategy=$4 cases=$5
shift 5
mkdir -p "$out"
cd "$(dirname "$0")/../../examples"
IFS=';' read -ra list <<< "$cases"
for pair in 1 2; do
  for who in old new; do
    lib=$old
    [ "$who" = new ] && lib=$new
    for c in "${list[@]}"; do
      set -- $c
      [ $# -ge 3 ] || continue
      cell=$1 faces=$2 order=$3
      shift 3
      echo "== $who pair $pair: $cell $faces $order $*" >> "$out/bench.log"
      LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type "$cell" -feg_faces "$faces" -order "$order" -bench_strategies "$strategy" "$@" ${ARGS:-} >> "$out/bench.log" 2>&1
    done
  done
done
grep -E "^==|^(${strategy//,/|}) " "$out/bench.log" | cut -c1-140
