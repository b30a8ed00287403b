#!/usr/bin/env bash
# The C++ sources in the project's format (.clang-format; clang-format 16, Debian 12's clang-format-16).
#   tools/format.sh           formats every tracked C++ file in place
#   tools/format.sh --check   fails, naming the files, when one is not formatted (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-$(command -v clang-format-16 || command -v clang-format || true)}
[ -n "$cf" ] || { echo "tools/format.sh: no clang-format-16 (apt-get install clang-format-16)"; exit 2; }
# another major version formats some constructs differently (and would rewrite files nobody touched)
"$cf" --version | grep -q 'version 16\.' || {
  echo "tools/format.sh: $cf is not clang-format 16 ($("$cf" --version)); apt-get install clang-format-16, or set CLANG_FORMAT to a clang-format 16"
  exit 2
}
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    "$cf" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  [ ${#bad[@]} -eq 0 ] && { echo "format: ${#files[@]} files as .clang-format says"; exit 0; }
  echo "format: not formatted (run tools/format.sh): ${bad[*]}"
  exit 1
fi
"$cf" -i "${files[@]}"
