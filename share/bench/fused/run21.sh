#!/bin/bash
# Run 21: the atomics into CSR positions through the entries kernel's held form (each thread's M^rs_ab in registers
# across the block's elements) at the old block of about 4096 entries (run 19 took 8192, and measured 0.92-1.05x), and
# at smaller blocks. XLIB is a build whose launcher takes the held form for the atomics when FEG_X_HELD is set (1: G =
# 4096/entries, else G = FEG_X_HELD elements; the patch is run21/held-atomics.patch); unset, the per-entry form as
# committed. Each variant in turn on bench's atomic assembly, two passes. Then the SASS of the reference-tensor
# kernels of OLDLIB and NEWLIB (a helper that names FEGRefSym + FEGRefSkew must not change the code).
#   source .gpu/env.sh && bash share/bench/fused/run21.sh OUT XLIBDIR OLDLIBDIR NEWLIBDIR
set -u
out=$1 xlib=$2 old=$3 new=$4
mkdir -p "$out"
for l in old new; do
  lib=$old; [ $l = new ] && lib=$new
  cuobjdump -sass "$lib/libfegpu.so" | awk '/Function : /{f = ($0 ~ /FEGElemRef/)} f' | sed 's|/\*[0-9a-f]*\*/||g; s/[[:space:]]*$//' > "$out/sass-$l.txt"
done
echo "sass lines old $(wc -l < "$out/sass-old.txt") new $(wc -l < "$out/sass-new.txt") differing $(diff "$out/sass-old.txt" "$out/sass-new.txt" | grep -c '^[<>]')" | tee "$out/sass.txt"
cd "$(dirname "$0")/../../../examples"
for pass in 1 2; do
  for g in none 1 20; do
    for c in "tet 55 2" "tet 28 2" "tet 30 3" "hex 100 1" "hex 40 2" "hex 25 3" "prism 40 2"; do
      set -- $c
      echo "== pass $pass held $g: $c" >> "$out/bench.log"
      if [ $g = none ]; then e=; else e="FEG_X_HELD=$g"; fi
      env $e LD_LIBRARY_PATH="$xlib:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -feg_cell_type $1 -feg_faces $2 -order $3 -bench_strategies atomic -bench_petsc_coo 0 >> "$out/bench.log" 2>&1
    done
  done
done
grep -E "^==|^atomic " "$out/bench.log" | cut -c1-100
