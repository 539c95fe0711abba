#!/usr/bin/env python3
# ratio.csv of one share/bench/bp/run.sh output folder: fegpu / peer for the CG rate, peer / fegpu for the whole process
import csv, sys
out = sys.argv[1]
peer = {(r["problem"], r["degree"], r["dofs_requested"]): r for r in csv.DictReader(open(out + "/peer.csv"))}
feg = {(r["problem"], r["degree"], r["dofs_requested"]): r for r in csv.DictReader(open(out + "/fegpu.csv"))}
proc = {(r["who"], r["problem"], r["degree"], r["dofs"]): float(r["process_seconds"]) for r in csv.DictReader(open(out + "/process.csv"))}
hdr = ["problem", "degree", "dofs_requested", "peer_nodes", "fegpu_nodes", "peer_mdofs_per_s", "fegpu_mdofs_per_s", "rate_fegpu_over_peer",
       "peer_process_s", "fegpu_process_s", "process_peer_over_fegpu"]
rows = []
for key in sorted(set(peer) | set(feg), key=lambda k: (int(k[2]), k[0], int(k[1]))):
    p, f = peer.get(key), feg.get(key)
    rp = float(p["mdofs_per_s"]) if p else 0.0
    rf = float(f["mdofs_per_s"]) if f else 0.0
    pc, fc = proc.get(("libceed",) + key, 0.0), proc.get(("fegpu",) + key, 0.0)
    rows.append(list(key) + [p["global_nodes"] if p else "-", f["global_nodes"] if f else "-", "%.4g" % rp, "%.4g" % rf,
                             "%.3f" % (rf / rp) if rp and rf else "-", "%.2f" % pc, "%.2f" % fc, "%.3f" % (pc / fc) if p and f and fc else "-"])
with open(out + "/ratio.csv", "w") as fp:
    w = csv.writer(fp)
    w.writerow(hdr)
    w.writerows(rows)
print(",".join(hdr))
for r in rows:
    print(",".join(r))
