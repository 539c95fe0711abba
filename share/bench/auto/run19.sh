#!/bin/bash
# Run 19: the spread of one type's setup between processes (valid18b: tet P1 matfree 0.082, 0.158, 0.138 s in three
# processes, auto's own 0.075-0.089 s) against the threads of fegpu's host setup loops: tet P1 (42 faces, 444k cells)
# and hex Q1 (80 faces, 512k cells), lma and matfree, with the default threads (16 on this host), 8 and 15, five
# processes each, the variants taking turns; -feg_view ::ascii_info_detail prints each operator's setup phases. Then
# what 8 threads cost where the loops are long: bench_matfree's BP3 at 8M Q2 unknowns, default and 8, two each.
#   source .gpu/env.sh && bash share/bench/auto/run19.sh OUT
set -u
out=$1
mkdir -p "$out"
cd "$(dirname "$0")/../../../examples"
for rep in 1 2 3 4 5; do
  for c in "tet 42 1" "hex 80 1"; do
    for s in lma matfree; do
      for t in default 8 15; do
        set -- $c
        o=; [ $t != default ] && o="-feg_setup_threads $t"
        echo "== $c $s threads $t rep $rep" >> "$out/threads.log"
        timeout 60 ./bench -dm_vec_type cuda -bench_reps 5 -bench_petsc_coo 0 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies $s -feg_view ::ascii_info_detail $o >> "$out/threads.log" 2>&1
      done
    done
  done
done
for rep in 1 2; do
  for t in default 8; do
    o=; [ $t != default ] && o="-feg_setup_threads $t"
    echo "== bp3 Q2 8M threads $t rep $rep" >> "$out/bp3.log"
    timeout 120 ./bench_matfree -mode bp3 -orders 2 -dofs 8000000 -strategies matfree -its 50 -reps 5 -dm_vec_type cuda $o >> "$out/bp3.log" 2>&1
  done
done
python3 - "$out/threads.log" <<'PY'
import re, sys, collections
d = collections.defaultdict(list); key = None
for l in open(sys.argv[1]):
    m = re.match(r"== (\S+ \S+ \S+) (\S+) threads (\S+) rep", l)
    if m: key = m.groups(); continue
    p = l.split()
    if key and p and p[0] == key[1] and len(p) > 3 and p[2][0].isdigit(): d[key].append(float(p[2]))
for k in sorted(d): print(" ".join(k), " ".join("%.3f" % x for x in d[k]))
PY
grep -E "^==|^ *2 .*matfree|setup" "$out/bp3.log" | cut -c1-160
