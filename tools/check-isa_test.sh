#!/usr/bin/env bash
# tools/check-isa_test.sh <libtilekit.a> <c++ compiler> — tools/check-isa.sh passes the library as built, and
# fails it, naming the member and the function, once an AVX2 object (not a kernel copy) is added to it.
set -euo pipefail
lib=${1:?libtilekit.a} cxx=${2:?c++ compiler}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/check-isa.sh" "$lib"
cp "$lib" "$tmp/lib.a"
printf 'void tk_isa_probe(float* x, int n) { for (int i = 0; i < n; ++i) x[i] = x[i] * 2.0f + 1.0f; }\n' >"$tmp/probe.cpp"
"$cxx" -O2 -march=x86-64-v3 -c "$tmp/probe.cpp" -o "$tmp/probe.o"
ar r "$tmp/lib.a" "$tmp/probe.o" 2>/dev/null
if out=$("$here/check-isa.sh" "$tmp/lib.a" 2>&1); then
  echo "check-isa_test: an AVX2 member was not flagged:"; echo "$out"; exit 1
fi
echo "$out" | grep -q "probe.o: _Z12tk_isa_probePfi" || { echo "check-isa_test: the report does not name probe.o and its function:"; echo "$out"; exit 1; }
echo "check-isa_test: the AVX2 member is flagged: $(echo "$out" | tail -1)"
