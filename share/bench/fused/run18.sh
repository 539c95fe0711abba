#!/bin/bash
# Run 18: the entries kernel's atomic addto through block-sorted positions (-feg_addto_sort_elements, on by default):
# make check-gpu's tests and the sanitizers on the new library; the old and new library alternating twice on bench's
# atomic and coo assembly (fegpu's element matrices + MatSetValuesCOO, issue 15's reference) on the fused table's
# meshes; then the new library with each number of elements per block (0: positions element-major, as before).
#   source .gpu/env.sh && bash share/bench/fused/run18.sh OUT OLDLIBDIR NEWLIBDIR
set -u
out=$1 old=$2 new=$3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
bash "$here/share/bench/sym/checks.sh" "$out" "$new"
ARGS="-bench_petsc_coo 0" bash "$here/share/bench/abbench.sh" "$out/ab" "$old" "$new" atomic,coo "tet 60 1; tri 500 2; quad 400 2; tri 300 3; prism 40 2; tet 28 2; tet 55 2; tet 30 3; hex 40 2; hex 25 3" > /dev/null
python3 "$here/share/bench/fused/sorttab.py" "$out/ab/bench.log"
cd "$here/examples" || exit 1
while read -r cell faces order gs; do
  for g in $gs; do
    echo "== sort $g: $cell $faces $order" >> "$out/sweep.log"
    LD_LIBRARY_PATH="$new:${LD_LIBRARY_PATH:-}" timeout 120 ./bench -dm_vec_type cuda -bench_reps 20 -bench_petsc_coo 0 -feg_cell_type "$cell" -feg_faces "$faces" -order "$order" -bench_strategies atomic -feg_addto_sort_elements "$g" -feg_view >> "$out/sweep.log" 2>&1
  done
done <<< "tet 55 2 0 16 64 128 256 360
tet 28 2 0 32 128 360
hex 40 2 0 8 32 64 89
tet 30 3 0 8 32 64 163"
grep -E "^== sort|^atomic " "$out/sweep.log"
