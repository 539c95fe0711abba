# run CMD...: CMD's output appended to $out/advdiff.log between "== CMD" and "== rc N process wall T ms" (the process
# timed by its wall clock); sourced by run34.sh and run35.sh, which set out
run() {
  echo "== $*" >> "$out/advdiff.log"
  local t0=$(date +%s%N)
  timeout 120 "$@" >> "$out/advdiff.log" 2>&1
  local rc=$? t1=$(date +%s%N)
  echo "== rc $rc process wall $(( (t1 - t0) / 1000000 )) ms" >> "$out/advdiff.log"
}
