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
