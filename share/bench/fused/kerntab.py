#!/usr/bin/env python3
"""Table of kernels.sh's bench.log: per case and strategy, the assembly medians (ms) of each pass with
-feg_cuda_kernel auto and entries, and auto/entries (the lowest and highest ratio over the passes).
  python3 share/bench/fused/kerntab.py OUT/bench.log"""
import collections
import re
import sys

times = collections.defaultdict(list)
order = []
cur = None
for line in open(sys.argv[1]):
    m = re.match(r"== (auto|entries) pass \d: (.*)", line)
    if m:
        cur = (m.group(1), m.group(2).strip())
        continue
    m = re.match(r"(addto|atomic|color|gather|coo|lma|lma_single)\s+\d+\s+[\d.]+\s+([\d.]+)", line)
    if m and cur:
        key = (cur[1], m.group(1))
        if key not in order:
            order.append(key)
        times[key + (cur[0],)].append(float(m.group(2)))
print("| case | strategy | auto (ms) | entries (ms) | auto / entries |")
print("| --- | --- | --- | --- | --- |")
for case, strat in order:
    a, e = times[(case, strat, "auto")], times[(case, strat, "entries")]
    if not a or not e:
        continue
    print("| %s | %s | %s | %s | %.2f-%.2f |" % (case, strat, " / ".join("%.3f" % x for x in a), " / ".join("%.3f" % x for x in e), min(a) / max(e), max(a) / min(e)))
