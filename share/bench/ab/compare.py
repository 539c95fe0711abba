#!/usr/bin/env python3
"""Reads share/bench/ab/run.sh's log and prints, per metric, the old and new medians over the passes and new/old
(below 1 is faster for times; for throughputs, above 1).
  python3 share/bench/ab/compare.py ab.log"""
import re
import sys
from statistics import median

vals = {}  # (metric) -> {"old": [...], "new": [...]}
who = case = None
for line in open(sys.argv[1]):
    m = re.match(r"== (old|new) pass \d+ (.*)", line)
    if m:
        who, case = m.group(1), m.group(2).strip()
        continue
    f = line.split()
    if case == "bp3" and len(f) >= 10 and f[1] == "matfree" and f[0].isdigit():
        # N strategy cells/proc dofs mesh_s setup_s solve_s DOFs*its/s ...
        vals.setdefault("BP3 Q%s setup s" % f[0], {}).setdefault(who, []).append(float(f[5]))
        vals.setdefault("BP3 Q%s CG s" % f[0], {}).setdefault(who, []).append(float(f[6]))
    elif case and case.startswith("tet") and len(f) >= 9 and f[0] in ("atomic", "lma") and re.match(r"[\d.]+$", f[3]):
        # strategy dofs setup_s assembly_ms elements/s us/element MatMult_ms ...
        vals.setdefault("%s %s assembly ms" % (case, f[0]), {}).setdefault(who, []).append(float(f[3]))
        vals.setdefault("%s %s MatMult ms" % (case, f[0]), {}).setdefault(who, []).append(float(f[6]))
    elif case == "advdiff" and line.startswith("process seconds"):
        vals.setdefault("advdiff 545k process s", {}).setdefault(who, []).append(float(f[2]))
    elif case == "advdiff" and "total" in line and "times (s)" in line:
        vals.setdefault("advdiff 545k total s", {}).setdefault(who, []).append(float(line.rsplit("total", 1)[1].split()[0]))
print("%-32s %12s %12s %9s %s" % ("metric", "old", "new", "new/old", "passes"))
for k in vals:
    o, n = vals[k].get("old", []), vals[k].get("new", [])
    if not o or not n:
        print("%-32s %12s %12s %9s" % (k, o and "%.4g" % median(o) or "-", n and "%.4g" % median(n) or "-", "-"))
        continue
    print("%-32s %12.4g %12.4g %9.3f %d" % (k, median(o), median(n), median(n) / median(o), min(len(o), len(n))))
