#!/usr/bin/env python3
"""The target of -feg_op_type auto: on the bench matrix, for k = 1, 10, 100 applications, the measured time
of setup (first assembly included) + k MatMults of auto's operator against the best of addto (atomic), lma and matfree
measured in the same call (the median of a case's processes where it was run several times). Prints a table and the counts; writes CSV to stdout with --csv.
  python3 share/bench/auto/score.py NAME.csv NAME-auto1.csv NAME-auto10.csv NAME-auto100.csv"""
import csv, sys
from statistics import median

base, autos = sys.argv[1], sys.argv[2:]
ks = [1, 10, 100]
# several processes of one case (matrix.sh's FEG_REPS): the median setup and MatMult of each
runs = {}
for r in csv.DictReader(open(base)):
    runs.setdefault((r["cell"], int(r["order"]), r["strategy"]), []).append((float(r["setup_s"]), float(r["matmult_ms"]) * 1e-3))
meas = {}
for (c, o, st), v in runs.items():
    meas.setdefault((c, o), {})[st] = (median([q[0] for q in v]), median([q[1] for q in v]))
aruns = {}
for k, f in zip(ks, autos):
    for r in csv.DictReader(open(f)):
        aruns.setdefault((r["cell"], int(r["order"]), k), []).append((r["strategy"].split(":")[1], float(r["setup_s"]), float(r["matmult_ms"]) * 1e-3))
auto = {key: (v[0][0], median([q[1] for q in v]), median([q[2] for q in v])) for key, v in aruns.items()}
print("cell,order,k,auto_choice,best,best_s,auto_s,auto_over_best,choice_over_best")
n = within = 0
worst = 0.0
for key in sorted(meas):
    for k in ks:
        if (key[0], key[1], k) not in auto or len(meas[key]) < 3:
            continue
        cost = {s: v[0] + k * v[1] for s, v in meas[key].items()}
        best = min(cost, key=cost.get)
        t, s, m = auto[(key[0], key[1], k)]
        a = s + k * m
        chosen = {"addto": "atomic"}.get(t, t)
        r = a / cost[best]
        rc = cost[chosen] / cost[best]  # the chosen type's own run: the model's choice without the auto run's noise
        n += 1
        within += r <= 1.15
        worst = max(worst, r)
        print("%s,%d,%d,%s,%s,%.4f,%.4f,%.3f,%.3f" % (key[0], key[1], k, t, best, cost[best], a, r, rc))
print("# %d cases, auto within 15%% of the best in %d (%.0f%%), worst %.2fx" % (n, within, 100.0 * within / max(n, 1), worst))
