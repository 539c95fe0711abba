#!/bin/bash
# fegpu's matfree against libCEED's bps (the peer, ../shared/peers) on the CEED benchmark problems, in one run:
#   source .gpu/env.sh && bash share/bench/bp/run.sh OUTDIR "bp1 bp3 bp5" 2,4,6,8 1000000 [8000000 ...]
# For each problem, size and degree: the peer's process (bp.sh: libCEED /gpu/cuda/gen, or $BACKEND), then fegpu's
# (examples/bench_matfree -mode <problem> -strategies matfree), each timed as a whole process. Writes OUTDIR/peer.csv,
# OUTDIR/fegpu.csv (the peer's columns), OUTDIR/process.csv (whole-process seconds), fegpu.log, peer.err and ratio.csv:
# fegpu / peer for the CG rate (higher is better for fegpu) and peer / fegpu for the process time.
set -u
out=$1 probs=$2 degs=$3
shift 3
sizes=${*:-1000000}
here=$(cd "$(dirname "$0")/../../.." && pwd)
peer=${PEER:-$here/.peer/bp.sh}
mkdir -p "$out"
rm -f "$out/peer.csv" "$out/fegpu.csv" "$out/fegpu.log" "$out/peer.err"
echo "who,problem,degree,dofs,process_seconds" > "$out/process.csv"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
for dofs in $sizes; do
  for prob in $probs; do
    for p in ${degs//,/ }; do
      t0=$(now)
      bash "$peer" "$prob" "$p" "$dofs" > "$out/peer.tmp" 2>> "$out/peer.err"
      t1=$(now)
      if [ ! -s "$out/peer.csv" ]; then head -1 "$out/peer.tmp" | sed 's/$/,dofs_requested/' > "$out/peer.csv"; fi
      tail -n +2 "$out/peer.tmp" | sed "s/\$/,$dofs/" >> "$out/peer.csv"
      echo "libceed,$prob,$p,$dofs,$(secs "$t0" "$t1")" >> "$out/process.csv"
      t0=$(now)
      rm -f "$out/fegpu.tmp"
      "$here/examples/bench_matfree" -mode "$prob" -orders "$p" -dofs "$dofs" -strategies matfree -its 50 -reps 5 \
        -dm_vec_type "${VEC_TYPE:-cuda}" -csv "$out/fegpu.tmp" ${FEGPU_ARGS:-} >> "$out/fegpu.log" 2>&1
      t1=$(now)
      if [ ! -s "$out/fegpu.csv" ]; then head -1 "$out/fegpu.tmp" | sed 's/$/,dofs_requested/' > "$out/fegpu.csv"; fi
      tail -n +2 "$out/fegpu.tmp" | sed "s/\$/,$dofs/" >> "$out/fegpu.csv"
      echo "fegpu,$prob,$p,$dofs,$(secs "$t0" "$t1")" >> "$out/process.csv"
    done
  done
done
rm -f "$out/peer.tmp" "$out/fegpu.tmp"
# both CSVs carry the requested size last; ratio.py joins them on (problem, degree, size)
python3 "$(dirname "$0")/ratio.py" "$out"
