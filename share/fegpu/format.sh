#!/bin/sh
# PETSc's clang-format style (.clang-format) on fegpu's C and CUDA sources: share/fegpu/format.sh ROOT check|fix
# (make check-format, make format). clang-format 16 (Debian: apt-get install clang-format-16); CLANG_FORMAT overrides.
root=${1:?root}
mode=${2:-check}
cf=${CLANG_FORMAT:-$(command -v clang-format-16 || true)}
[ -n "$cf" ] || { echo "format: needs clang-format 16 (apt-get install clang-format-16, or set CLANG_FORMAT)"; exit 1; }
"$cf" --version | grep -q "version 16\." || { echo "format: $cf is not clang-format 16: $("$cf" --version)"; exit 1; }
cd "$root" || exit 1
files=$(git ls-files -co --exclude-standard 'src/*.c' 'src/*.cu' 'src/*.h' 'include/*.h' 'tests/*.c' 'tests/*.h' 'examples/*.c' 'examples/*.h' 'share/bench/*.c' 'share/bench/*.h')
bad=0
for f in $files; do
  if [ "$mode" = fix ]; then
    "$cf" -i "$f"
  elif ! "$cf" --dry-run -Werror "$f" > /dev/null 2>&1; then
    echo "format: $f differs from .clang-format (share/fegpu/format.sh $root fix, or make format)"
    bad=$((bad + 1))
  fi
done
[ "$mode" = fix ] && echo "format: $(echo "$files" | wc -w) files formatted" && exit 0
echo "format: $(echo "$files" | wc -w) files, $bad not formatted"
[ $bad -eq 0 ]
