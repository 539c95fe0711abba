#!/bin/bash
# make check-gpu-sanitize: the GPU tests (tests/test_gpu*, one Check case at a time) under compute-sanitizer's
# memcheck, racecheck, synccheck and initcheck. A tool's report fails the run. Usage:
#   share/fegpu/sanitize.sh ROOT [TOOLS] [CASES]     (defaults: all four tools; the cases listed below)
# A case is PROGRAM:CASE (test_gpu_lma:single) or a case name of tests/test_gpu. Other cases (auto, rhs, qpoints,
# overlap) are named in CASES. oom fills the device on purpose and parallel needs mpiexec; both run in make check-gpu.
# pmat runs under memcheck and synccheck only: its GAMG setup is PETSc's MatMatMult in cuSPARSE (SpGEMM), where
# racecheck and initcheck report NVIDIA's own kernels.
root=${1:?root}
tools=${2:-"memcheck racecheck synccheck initcheck"}
cases=${3:-"test_gpu_integrate:kernels solve deterministic test_gpu_matfree:matfree test_gpu_matfree:geometry equal later test_gpu_lma:single test_gpu_lma:symmetric pmat"}
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "sanitize: compute-sanitizer not found"; exit 1; }
cd "$root/tests" || exit 1
pass=0 fail=0 failed=""
for tool in $tools; do
  for pc in $cases; do
    prog=test_gpu c=$pc
    case $pc in *:*) prog=${pc%%:*} c=${pc#*:} ;; esac
    if [ "$c" = pmat ] && [ -z "${3:-}" ] && { [ "$tool" = racecheck ] || [ "$tool" = initcheck ]; }; then continue; fi
    t0=$(date +%s)
    CK_RUN_CASE=$c "$cs" --tool "$tool" --error-exitcode 97 --print-limit 10 "./$prog" > "sanitize-$tool-$c.log" 2>&1
    rc=$?
    t1=$(date +%s)
    errs=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "sanitize-$tool-$c.log" | tail -1)
    if [ $rc -eq 0 ]; then
      pass=$((pass + 1)); printf "ok     %-10s %-14s %5ss  %s\n" "$tool" "$c" $((t1 - t0)) "$errs"
    else
      fail=$((fail + 1)); failed="$failed $tool/$c"; printf "FAILED %-10s %-14s %5ss  rc %d  %s\n" "$tool" "$c" $((t1 - t0)) $rc "$errs"
      tail -30 "sanitize-$tool-$c.log" | sed 's/^/  | /'
    fi
  done
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
