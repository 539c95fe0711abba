#!/usr/bin/env python3
"""Run 18's table from share/bench/abbench.sh's log (strategies atomic,coo): per case the atomic and coo assembly (ms,
each pass) of the old and the new library, old/new, and coo/atomic (issue 15's fused-addto ratio) within each library;
setup (s) of atomic.  python3 share/bench/fused/sorttab.py OUT/ab/bench.log"""
import re, collections, sys, statistics as st
d = collections.defaultdict(list)
setup = collections.defaultdict(list)
who = case = None
for l in open(sys.argv[1]):
    m = re.match(r'== (old|new) pair \d: (.*)', l)
    if m:
        who, case = m.group(1), m.group(2).strip()
        continue
    p = l.split()
    if len(p) >= 7 and p[0] in ('atomic', 'coo'):
        d[(case, p[0], who)].append(float(p[3]))
        if p[0] == 'atomic': setup[(case, who)].append(float(p[2]))
cases = []
for k in d:
    if k[0] not in cases: cases.append(k[0])
print("%-12s | %-22s %-22s %-9s | %-22s %-22s | %-11s %-11s | %s" % ("case", "atomic old ms", "atomic new ms", "old/new", "coo old ms", "coo new ms", "coo/atomic old", "new", "atomic setup s old / new"))
for c in cases:
    ao, an, co, cn = (d[(c, s, w)] for s, w in (('atomic', 'old'), ('atomic', 'new'), ('coo', 'old'), ('coo', 'new')))
    if not (ao and an and co and cn): continue
    f = lambda v: ",".join("%.4g" % x for x in v)
    print("%-12s | %-22s %-22s %-9s | %-22s %-22s | %-11s %-11s | %s / %s" % (c, f(ao), f(an), "%.2f" % (st.median(ao) / st.median(an)), f(co), f(cn),
          "%.2f" % (st.median(co) / st.median(ao)), "%.2f" % (st.median(cn) / st.median(an)), f(setup[(c, 'old')]), f(setup[(c, 'new')])))
