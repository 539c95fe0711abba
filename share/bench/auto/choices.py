#!/usr/bin/env python3
"""What a model table (automodel.h) would choose on a measured matrix, scored by the chosen type's median: for each
case of NAME.csv (matrix.sh's rows of atomic, lma and matfree) and k = 1, 10, 100, the type with the least predicted
setup + k MatMults (auto.c's rows of the case's own cell and order, affine), against the type with the least measured
median. Compares tables on the same processes, which auto's own runs cannot (each runs only its table).
  python3 share/bench/auto/choices.py NAME.csv TABLE.h [TABLE2.h ...]"""
import csv, re, sys
from statistics import median


def rows(h):
    pat = re.compile(r'\s*\{"(\w+)", "(\w+)", (\d), (\d+), "(\w+)", ([-\d.e+]+), ([-\d.e+]+), ([-\d.e+]+), ([-\d.e+]+), ([-\d.e+]+)\}')
    out = {}
    for l in open(h):
        m = pat.match(l)
        if m and m.group(1) == "gpu" and m.group(3) == "1":
            out[(m.group(2), int(m.group(4)), m.group(5))] = tuple(float(m.group(i)) for i in range(6, 10))
    return out


types = {"atomic": "addto", "lma": "lma", "matfree": "matfree"}
runs = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["strategy"] in types:
        runs.setdefault((r["cell"], int(r["order"])), {}).setdefault(types[r["strategy"]], []).append((float(r["setup_s"]), float(r["matmult_ms"]) * 1e-3, int(r["elements"])))
for h in sys.argv[2:]:
    model = rows(h)
    n = within = 0
    worst, misses = 0.0, []
    for (c, p), d in sorted(runs.items()):
        ne = next(iter(d.values()))[0][2]
        med = {t: (median(x[0] for x in v), median(x[1] for x in v)) for t, v in d.items()}
        for k in (1, 10, 100):
            pred = {t: r[0] + r[1] * ne + k * (r[2] + r[3] * ne) for (mc, mp, t), r in model.items() if mc == c and mp == p and t in med}
            if not pred:
                continue
            choice = min(pred, key=pred.get)
            cost = {t: s + k * m for t, (s, m) in med.items()}
            ratio = cost[choice] / min(cost.values())
            n += 1
            within += ratio <= 1.15
            worst = max(worst, ratio)
            if ratio > 1.15:
                misses.append("%s P%d k=%d %s %.2fx" % (c, p, k, choice, ratio))
    print("%s: the chosen type's median within 15%% of the best in %d of %d, worst %.2fx; misses: %s" % (h, within, n, worst, ", ".join(misses) or "none"))
