#!/usr/bin/env python3
"""Old/new table of share/bench/abbench.sh logs: per case and strategy, the assembly (ms) of each pass, the ratio
old/new (worst to best pass), and MatMult (ms).  python3 share/bench/sym/abtab.py OUT/bench.log [...]"""
import re,collections,sys
for f in sys.argv[1:]:
    d=collections.defaultdict(list)
    who=case=None
    for l in open(f):
        m=re.match(r'== (old|new) pair \d: (.*)',l)
        if m: who,case=m.group(1),m.group(2).strip(); continue
        p=l.split()
        if len(p)>=7 and p[0] in ('addto','atomic','color','gather','coo','lma','lma_single'):
            d[(case,p[0],who)].append((float(p[3]),float(p[6])))
    print(f)
    cases=[]
    for k in d:
        if (k[0],k[1]) not in cases: cases.append((k[0],k[1]))
    for c,s in cases:
        o=d[(c,s,'old')]; n=d[(c,s,'new')]
        print("%-12s %-10s asm old %-16s new %-16s ratio %.2f-%.2f | mm old %s new %s"%(c,s,[x[0] for x in o],[x[0] for x in n], min(x[0] for x in o)/max(x[0] for x in n), max(x[0] for x in o)/min(x[0] for x in n), [x[1] for x in o],[x[1] for x in n]))
