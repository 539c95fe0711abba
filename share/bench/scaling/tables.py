#!/usr/bin/env python3
"""Tables and a plot from the logs and CSVs of share/bench/scaling/run.sh.

    python3 share/bench/scaling/tables.py DIR [DIR ...] [--out DIR] [--plot scaling.png]

Each DIR holds what one run of run.sh wrote (bp3weak.csv, bp3strong.csv, bp3big.csv, cpu-bp3.csv, tet.log, cpu.log,
petscsf.log); each file is taken from the first DIR that has it. A ratio compares figures of one run, or with --same-machine of
runs made on one warm machine.
Writes scaling.csv (every figure with its reference and the ratio) into --out (default: the first DIR) and prints a
Markdown table."""
import argparse
import csv
import os
import re
import sys


def read_bp(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for r in csv.DictReader(f):
                rows.append({'p': int(r['processes']), 'N': int(r['degree']), 'dofs': int(r['global_nodes']),
                             'cg': float(r['cg_seconds']), 'mesh': float(r['mesh_seconds']),
                             'setup': float(r['setup_seconds'])})
    return rows


def read_bench(path):
    """bench's lines under each '== ... np N' or '== ... R ranks (for np N)' heading: {(np, strategy): values}"""
    out = {}
    if not os.path.exists(path):
        return out
    np_ = None
    for line in open(path):
        m = re.match(r'== .*?(?:for )?np (\d+)', line)
        if m:
            np_ = int(m.group(1))
            continue
        f = line.split()
        if np_ is not None and len(f) >= 10 and f[0] in ('atomic', 'coo', 'lma', 'matfree') and re.match(r'^\d+$', f[1]):
            out[(np_, f[0])] = {'dofs': int(f[1]), 'setup': float(f[2]), 'asm_ms': float(f[3]), 'mult_ms': float(f[6])}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dirs', nargs='+')
    ap.add_argument('--out')
    ap.add_argument('--plot')
    ap.add_argument('--same-machine', action='store_true', help='the DIRs are runs on one warm machine: compare across them')
    a = ap.parse_args()

    def first(name):
        """the file name of the first directory that has it"""
        for x in a.dirs:
            if os.path.exists(os.path.join(x, name)):
                return os.path.join(x, name)
        return os.path.join(a.dirs[0], name)

    rows = []  # case, hardware, processes, order, unknowns, quantity, seconds, reference, ratio kind, ratio

    def samerun(*names):
        return a.same_machine or len(set(os.path.dirname(first(n)) for n in names)) == 1

    def card(name):
        """the GPU model of the run that name's figures come from (its gpus.txt), e.g. 'H200'"""
        g = os.path.join(os.path.dirname(first(name)), 'gpus.txt')
        m = re.search(r'NVIDIA (\S+)', open(g).read()) if os.path.exists(g) else None
        return m.group(1) if m else 'GPU'

    def add(case, hw, p, N, dofs, qty, t, ref, kind):
        ratio = ref / t if t > 0 else float('nan')
        rows.append([case, hw, p, N, dofs, qty, '%.6g' % t, '%.6g' % ref, kind, '%.4f' % ratio])

    def against(runs, one, case, kind):
        """each BP3 run against the one-GPU run of its order"""
        for r in runs:
            if r['N'] in one:
                add(case, 'gpu', r['p'], r['N'], r['dofs'], 'cg 50 its', r['cg'], one[r['N']]['cg'], kind)

    weak = read_bp(first('bp3weak.csv'))
    one = {r['N']: r for r in weak if r['p'] == 1}
    against(weak, one, 'bp3 weak 8M/GPU', 'efficiency')
    strong = read_bp(first('bp3strong.csv'))
    against(strong, one, 'bp3 strong 8M', 'speedup')
    big = read_bp(first('bp3big.csv'))
    against(big, {r['N']: r for r in big if r['p'] == 1}, 'bp3 strong 64M', 'speedup')
    # fegpu's default ghost exchange against another way, same GPU count, same call: the ratio is the other's time
    # over the default's (runs before auto's device-to-device path: the default was pinned)
    tet = read_bench(first('tet.log'))
    for x in ('petscsf', 'pinned'):
        for name, ref in (('bp3weak', weak), ('bp3strong', strong)):
            if not samerun(name + '.csv', name + '-' + x + '.csv'):
                continue
            for r in read_bp(first(name + '-' + x + '.csv')):
                mine = [q for q in ref if q['p'] == r['p'] and q['N'] == r['N']]
                if mine:
                    add('bp3 ' + name[3:] + ' default vs ' + x, 'gpu', r['p'], r['N'], r['dofs'], 'cg 50 its, default exchange', mine[0]['cg'], r['cg'], x + ' / default')
        for (p, s_), v in sorted(read_bench(first(x + '.log')).items()):
            if s_ == 'lma' and (p, s_) in tet and samerun('tet.log', x + '.log'):
                add('tet P1 weak default vs ' + x, 'gpu', p, 1, v['dofs'], 'lma MatMult, default exchange', tet[(p, s_)]['mult_ms'] * 1e-3, v['mult_ms'] * 1e-3, x + ' / default')
    for r in weak + strong + big:
        rows.append(['bp3 process', 'gpu', r['p'], r['N'], r['dofs'], 'mesh+distribution / fegpu setup', '%.4g' % r['mesh'], '%.4g' % r['setup'], 'mesh/setup', '%.2f' % (r['mesh'] / r['setup'] if r['setup'] else 0)])
    cpu = read_bp(first('cpu-bp3.csv'))
    gpu8 = {(1, r['N']): r for r in weak if r['p'] == 1}
    gpu8.update({(r['p'], r['N']): r for r in strong})
    cone = {r['N']: r for r in cpu if r['p'] == min(c['p'] for c in cpu)} if cpu else {}
    for r in cpu:
        if r['N'] in cone:
            add('bp3 strong 8M', 'cpu', r['p'], r['N'], r['dofs'], 'cg 50 its', r['cg'], cone[r['N']]['cg'], 'speedup over fewest ranks')
    for (p, s), v in sorted(tet.items()):
        if (1, s) not in tet:
            continue
        if s in ('atomic', 'coo'):
            add('tet P1 weak 998k/GPU', 'gpu', p, 1, v['dofs'], s + ' assembly', v['asm_ms'] * 1e-3, tet[(1, s)]['asm_ms'] * 1e-3, 'efficiency')
        if s in ('lma', 'atomic'):
            add('tet P1 weak 998k/GPU', 'gpu', p, 1, v['dofs'], (s if s == 'lma' else 'aijcusparse') + ' MatMult', v['mult_ms'] * 1e-3, tet[(1, s)]['mult_ms'] * 1e-3, 'efficiency')
    ctet = read_bench(first('cpu.log'))
    for (p, s), v in sorted(ctet.items() if samerun('cpu.log', 'tet.log') else []):
        if (p, s) in tet and s == 'lma':
            add('tet P1 weak 998k/GPU', 'cpu vs gpu', p, 1, v['dofs'], 'lma MatMult (cpu ranks for np)', tet[(p, s)]['mult_ms'] * 1e-3, v['mult_ms'] * 1e-3, 'gpu speedup')
        if (p, s) in tet and s == 'atomic':
            add('tet P1 weak 998k/GPU', 'cpu vs gpu', p, 1, v['dofs'], 'atomic assembly (cpu ranks for np)', tet[(p, s)]['asm_ms'] * 1e-3, v['asm_ms'] * 1e-3, 'gpu speedup')
    # the GPU against the host cores on the same 8M-unknown problem: cpu ranks r = p * (cores / GPUs)
    if cpu and samerun('cpu-bp3.csv', 'bp3weak.csv', 'bp3strong.csv'):
        cps = sorted(set(r['p'] for r in cpu))
        for i, r in enumerate(sorted(cpu, key=lambda r: (r['N'], r['p']))):
            k = cps.index(r['p'])
            p = [1, 2, 4, 8][k]
            if (p, r['N']) in gpu8:
                add('bp3 strong 8M', 'cpu vs gpu', p, r['N'], r['dofs'], 'cg 50 its (%d cpu ranks)' % r['p'], gpu8[(p, r['N'])]['cg'], r['cg'], 'gpu speedup')
    with open(os.path.join(a.out or a.dirs[0], 'scaling.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['case', 'hardware', 'processes', 'order', 'unknowns', 'quantity', 'seconds', 'reference_seconds', 'ratio_kind', 'ratio'])
        w.writerows(rows)
    print('| case | hardware | processes | order | unknowns | quantity | seconds | reference s | ratio |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for r in rows:
        print('| %s | %s | %s | %s | %s | %s | %s | %s | %s %s |' % (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[9], r[8]))
    if a.plot:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        import matplotlib.ticker
        fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
        for case, lab in (('bp3 weak 8M/GPU', 'BP3 Q%d matfree'), ('tet P1 weak 998k/GPU', '%s')):
            series = {}
            for r in rows:
                if r[0] == case and r[1] == 'gpu':
                    key = lab % r[3] if case.startswith('bp3') else r[5]
                    series.setdefault(key, []).append((r[2], float(r[9])))
            for k, v in sorted(series.items()):
                v.sort()
                ax[0].plot([x for x, _ in v], [100 * y for _, y in v], 'o-', label=k)
        ax[0].axhline(85, color='grey', ls='--', lw=1, label='target 85%')
        cards = sorted(set(card(n) for n in ('bp3weak.csv', 'tet.log') if first(n)))
        ax[0].set_xlabel('GPUs (BP3 on %s, tetrahedra on %s; one process each)' % (card('bp3weak.csv'), card('tet.log'))
                         if len(cards) > 1 else 'GPUs (%s, one process each)' % (cards[0] if cards else 'GPU'))
        ax[0].set_ylabel('weak scaling efficiency %')
        ax[0].set_xscale('log', base=2)
        ax[0].xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter('%g'))
        ax[0].set_ylim(0, 110)
        ax[0].legend(fontsize=7)
        for case, ls in (('bp3 strong 8M', '-'), ('bp3 strong 64M', '--')):
            series = {}
            for r in rows:
                if r[0] == case and r[1] == 'gpu':
                    series.setdefault(r[3], [(1, 1.0)]).append((r[2], float(r[9])))
            for k, v in sorted(series.items()):
                v = sorted(set(v))
                ax[1].plot([x for x, _ in v], [y for _, y in v], 'o' + ls, label='%s Q%d' % (case[11:], k))
        xs = sorted(set(r[2] for r in rows if r[0].startswith('bp3 strong') and r[1] == 'gpu') | {1})
        ax[1].plot(xs, xs, color='grey', lw=1, label='ideal')
        c8, c64 = card('bp3strong.csv'), card('bp3big.csv')
        ax[1].set_xlabel('GPUs (%s, one process each)' % c8 if c8 == c64 else 'GPUs (8M on %s, 64M on %s; one process each)' % (c8, c64))
        ax[1].set_ylabel('BP3 strong scaling speedup (50 CG its)')
        ax[1].set_xscale('log', base=2)
        ax[1].set_yscale('log', base=2)
        for axis in (ax[1].xaxis, ax[1].yaxis):
            axis.set_major_formatter(matplotlib.ticker.FormatStrFormatter('%g'))
        ax[1].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)
    return 0


if __name__ == '__main__':
    sys.exit(main())
