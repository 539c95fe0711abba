#!/bin/bash
# Run 20: the final library of this round: the entries kernel keeps M^rs_ab in registers for COO values only (run 19:
# faster there, slower for the atomics). make check-gpu's tests and the sanitizers on the new library, the kernels'
# registers, then the old and new library alternating twice on bench's atomic, coo and gather assembly (gather and coo
# store element matrices through the entries kernel's COO form above 8 dofs).
#   source .gpu/env.sh && bash share/bench/fused/run20.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
bash "$here/share/bench/sym/checks.sh" "$out" "$new"
for l in "$old" "$new"; do cuobjdump --dump-resource-usage "$l/libfegpu.so" 2>&1 | grep -A1 "FEGElemRefEntries" | grep -o "REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*" | sort | uniq -c | sed "s|^|$l |"; done | tee "$out/registers.txt"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/ab" "$old" "$new" atomic,coo,gather "tri 700 1; tet 60 1; tri 500 2; hex 100 1; quad 400 2; tet 28 2; tet 55 2; tri 300 3; prism 40 2; tet 30 3; hex 40 2; hex 25 3" > /dev/null
python3 "$here/share/bench/fused/sorttab.py" "$out/ab/bench.log"
python3 "$here/share/bench/sym/abtab.py" "$out/ab/bench.log" | grep gather
