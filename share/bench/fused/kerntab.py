#!/usr/bin/env python3
"""Table of kernels.sh's bench.log: per case and strategy, the assembly medians (ms) of each pass with each
-feg_cuda_kernel, and the first kernel's time over each other's (the lowest and highest ratio over the passes).
  python3 share/bench/fused/kerntab.py OUT/bench.log"""
import collections
import re
import sys

times = collections.defaultdict(list)
order, kernels = [], []
cur = None
for line in open(sys.argv[1]):
    m = re.match(r"== (\w+) pass \d: (.*)", line)
    if m:
        cur = (m.group(1), " ".join(m.group(2).split()))
        if cur[0] not in kernels:
            kernels.append(cur[0])
        continue
    m = re.match(r"(addto|atomic|color|gather|coo|lma|lma_single)\s+\d+\s+[\d.]+\s+([\d.]+)", line)
    if m and cur:
        key = (cur[1], m.group(1))
        if key not in order:
            order.append(key)
        times[key + (cur[0],)].append(float(m.group(2)))
base = kernels[0]
print("| case | strategy | " + " | ".join("%s (ms)" % k for k in kernels) + " | " + " | ".join("%s / %s" % (base, k) for k in kernels[1:]) + " |")
print("| --- | --- | " + " | ".join("---" for k in kernels) + " | " + " | ".join("---" for k in kernels[1:]) + " |")
for case, strat in order:
    t = [times[(case, strat, k)] for k in kernels]
    cells = [" / ".join("%.3f" % x for x in v) if v else "-" for v in t]
    ratios = ["%.2f-%.2f" % (min(t[0]) / max(v), max(t[0]) / min(v)) if v and t[0] else "-" for v in t[1:]]
    print("| %s | %s | %s | %s |" % (case, strat, " | ".join(cells), " | ".join(ratios)))
