# Sourced by the A/B bench scripts: two builds of libfegpu taking turns in one call.
#   ab_alternate PASSES OLDLIBDIR NEWLIBDIR FUNCTION
# calls FUNCTION WHO PASS (WHO: old, then new) in each of PASSES passes, with LD_LIBRARY_PATH exported as that
# library's folder followed by BASE_LD (the rest of the search path: the one in force when this file is sourced,
# unless the caller sets BASE_LD).
: "${BASE_LD:=${LD_LIBRARY_PATH:-}}"
ab_alternate() {
  local passes=$1 old=$2 new=$3 fn=$4 rep who lib
  for rep in $(seq "$passes"); do
    for who in old new; do
      lib=$old
      [ "$who" = new ] && lib=$new
      export LD_LIBRARY_PATH="$lib:${BASE_LD:-}"
      "$fn" "$who" "$rep"
    done
  done
}

# ab_check_gpu OUT LIBDIR: make check-gpu's tests (tests/test_gpu through the test driver, GPU vectors) with the
# library in LIBDIR, their log in OUT/check-gpu.log and its last line ("N passed, N failed") printed
ab_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ab_check_gpu() {
  (cd "$ab_root" && LD_LIBRARY_PATH="$2:${BASE_LD:-}" MPIEXEC=mpiexec python3 share/fegpu/runtests.py --root "$ab_root" --tests test_gpu --gpu --timeout 300 --extra-args "-dm_vec_type cuda") > "$1/check-gpu.log" 2>&1
  tail -1 "$1/check-gpu.log"
}

# ab_check_case OUT LIBDIR CASE: tests/test_gpu's Check case CASE alone with the library in LIBDIR (a mutant's, to see
# the case fail), its log in OUT/mutant.log; prints the number of failed GPU-host comparisons and the log's last lines
ab_check_case() {
  (cd "$ab_root/tests" && CK_RUN_CASE="$3" LD_LIBRARY_PATH="$2:${BASE_LD:-}" timeout 300 ./test_gpu > "$1/mutant.log" 2>&1; echo "rc $?" >> "$1/mutant.log")
  grep -c "GPU differs from host" "$1/mutant.log"
  tail -2 "$1/mutant.log"
}
