#!/bin/bash
# Two builds of libfegpu alternating on the same problems in one run, the reference for a change's ratio:
#   source .gpu/env.sh && bash share/bench/bp/ab.sh OUTDIR OLDLIBDIR NEWLIBDIR "bp1 bp3 bp5" 2,4,6,8 8000000 [PAIRS]
# Runs examples/bench_matfree (one binary: the libraries share the public API) with LD_LIBRARY_PATH set to each
# library's folder in turn, old then new, PAIRS times (default 2), and writes OUTDIR/{old,new}-<i>.csv and OUTDIR/ab.csv:
# the CG rate of each build (MDOF/s, mean over the pairs) and new / old for each pair and their mean.
set -u
out=$1 old=$2 new=$3 probs=$4 degs=$5 dofs=$6 pairs=${7:-2}
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
for i in $(seq 1 "$pairs"); do
  for who in old new; do
    lib=$old
    [ "$who" = new ] && lib=$new
    rm -f "$out/$who-$i.csv"
    for prob in $probs; do
      rm -f "$out/$who.tmp" # bench_matfree -csv appends
      LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" "$here/examples/bench_matfree" -mode "$prob" -orders "$degs" -dofs "$dofs" \
        -strategies matfree -its 50 -reps 3 -dm_vec_type cuda -csv "$out/$who.tmp" ${FEGPU_ARGS:-} >> "$out/$who.log" 2>&1
      if [ ! -s "$out/$who-$i.csv" ]; then head -1 "$out/$who.tmp" > "$out/$who-$i.csv"; fi
      tail -n +2 "$out/$who.tmp" >> "$out/$who-$i.csv"
    done
  done
done
rm -f "$out/old.tmp" "$out/new.tmp"
python3 - "$out" "$pairs" << 'EOF'
import csv, sys
out, pairs = sys.argv[1], int(sys.argv[2])
rate = {}
for who in ("old", "new"):
    for i in range(1, pairs + 1):
        for r in csv.DictReader(open("%s/%s-%d.csv" % (out, who, i))):
            rate.setdefault((r["problem"], int(r["degree"])), {}).setdefault(who, []).append(float(r["mdofs_per_s"]))
hdr = ["problem", "degree", "old_mdofs_per_s", "new_mdofs_per_s"] + ["new_over_old_%d" % (i + 1) for i in range(pairs)] + ["new_over_old"]
with open(out + "/ab.csv", "w") as fp:
    w = csv.writer(fp)
    w.writerow(hdr)
    print(",".join(hdr))
    for key in sorted(rate):
        o, n = rate[key].get("old", []), rate[key].get("new", [])
        if len(o) != pairs or len(n) != pairs:
            row = [key[0], key[1], "-", "-"] + ["-"] * (pairs + 1)
        else:
            q = [b / a for a, b in zip(o, n)]
            row = [key[0], key[1], "%.0f" % (sum(o) / pairs), "%.0f" % (sum(n) / pairs)] + ["%.3f" % v for v in q] + ["%.3f" % (sum(q) / pairs)]
        w.writerow(row)
        print(",".join(str(v) for v in row))
EOF
