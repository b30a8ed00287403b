#!/usr/bin/env bash
# Tests tools/setup.sh beyond Debian's package tools (ctest: cpu.Setup.*): on a PATH without dpkg-query,
# apt-get or dnf, where every tool is present, it passes, installs nothing and prints where it found each part;
# with a required part missing it names it and exits 1; headers under a CMAKE_PREFIX_PATH prefix or in CPATH
# are found (and only there, when the system's folders are hidden); hipcc is found in $ROCM_PATH/bin; a CMake
# older than the presets' 3.25 is refused; with apt-get present, it says what it will install, and for what,
# before installing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
# the commands setup.sh and a compiler use, and nothing of dpkg, apt or dnf
for n in bash sh env cat sed grep sort head mktemp rm id ldconfig basename dirname sudo \
         c++ g++ gcc cc clang++ as ld ld.bfd ld.gold cmake make ninja hipcc; do
  p=$(command -v "$n" 2>/dev/null) || p=""
  [ -z "$p" ] && [ -x "/sbin/$n" ] && p=/sbin/$n
  [ -n "$p" ] && ln -s "$p" "$bin/$n"
done
fail() { echo "setup_test: $*" >&2; exit 1; }
env PATH="$bin" bash -c 'command -v dpkg-query || command -v apt-get' >/dev/null && fail "the test PATH still has dpkg-query or apt-get"

out=$(env PATH="$bin" bash "$here/setup.sh" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "every tool present, no dpkg-query: exit $rc, expected 0: $out"
grep -q "installing" <<<"$out" && fail "it tried to install with no package manager: $out"

out=$(env PATH="$bin" CXX=/nonexistent/c++ bash "$here/setup.sh" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "no compiler: exit $rc, expected 1: $out"
grep -q "C++17 compiler with OpenMP" <<<"$out" || fail "no compiler: the message does not name it: $out"
grep -q "Install them" <<<"$out" || fail "no compiler: no advice: $out"
grep -q "^tools/setup.sh: GoogleTest: found (/" <<<"$out" || fail "no line saying where GoogleTest is: $out"
grep -q "^tools/setup.sh: CMake >= 3.25: found (/" <<<"$out" || fail "no line saying where CMake is: $out"

# headers only in a prefix: found through CMAKE_PREFIX_PATH (either separator) or CPATH, missing without them
prefix=$(mktemp -d)
trap 'rm -rf "$bin" "$prefix"' EXIT
mkdir -p "$prefix/include/gtest" "$prefix/include/benchmark" "$prefix/rocm/bin"
touch "$prefix/include/gtest/gtest.h" "$prefix/include/benchmark/benchmark.h"
hidden=(env PATH="$bin" TK_SETUP_SYSTEM_DIRS=/nonexistent)
for how in "CMAKE_PREFIX_PATH=/elsewhere;$prefix" "CMAKE_PREFIX_PATH=$prefix:/elsewhere" "CPATH=$prefix/include"; do
  out=$("${hidden[@]}" "$how" bash "$here/setup.sh" 2>&1); rc=$?
  [ $rc -eq 0 ] || fail "$how: exit $rc, expected 0: $out"
  grep -q "Google Benchmark: found ($prefix/include/benchmark/benchmark.h)" <<<"$out" || fail "$how: not found there: $out"
done
out=$("${hidden[@]}" bash "$here/setup.sh" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "headers hidden, no prefix: exit $rc, expected 1: $out"
grep -q "GoogleTest: missing (required)" <<<"$out" || fail "headers hidden: GoogleTest not reported missing: $out"

# hipcc in $ROCM_PATH/bin (not on the PATH)
rm -f "$bin/hipcc"
printf '#!/bin/sh\necho HIP version: 6.0\n' >"$prefix/rocm/bin/hipcc"
chmod +x "$prefix/rocm/bin/hipcc"
out=$(env PATH="$bin" ROCM_PATH="$prefix/rocm" bash "$here/setup.sh" hip 2>&1); rc=$?
[ $rc -eq 0 ] || fail "hipcc in ROCM_PATH: exit $rc, expected 0: $out"
grep -q "HIP compiler (hipcc): found ($prefix/rocm/bin/hipcc)" <<<"$out" || fail "hipcc in ROCM_PATH not found: $out"
out=$(env PATH="$bin" ROCM_PATH="$prefix/none" bash "$here/setup.sh" hip 2>&1); rc=$?
if [ -x /opt/rocm/bin/hipcc ]; then :; else
  [ $rc -eq 1 ] || fail "no hipcc anywhere: exit $rc, expected 1: $out"
fi

# a CMake older than the presets need
fake=$(mktemp -d)
trap 'rm -rf "$bin" "$prefix" "$fake"' EXIT
cp -a "$bin/." "$fake/"
rm -f "$fake/cmake"
printf '#!/bin/sh\necho "cmake version 3.24.4"\n' >"$fake/cmake"
chmod +x "$fake/cmake"
out=$(env PATH="$fake" bash "$here/setup.sh" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "CMake 3.24: exit $rc, expected 1: $out"
grep -q "CMake >= 3.25: missing (found $fake/cmake (3.24.4))" <<<"$out" || fail "CMake 3.24 not named: $out"

# with apt-get: what it will install, and for which part, before it runs apt-get (a stand-in that logs; and a
# stand-in sudo, so that a run by another user than root never reaches the real apt-get)
printf '#!/bin/sh\necho "apt-get ran: $*"\n' >"$fake/apt-get"
rm -f "$fake/sudo"
printf '#!/bin/sh\nexec "$@"\n' >"$fake/sudo"
chmod +x "$fake/apt-get" "$fake/sudo"
out=$(env PATH="$fake" TK_SETUP_SYSTEM_DIRS=/nonexistent bash "$here/setup.sh" 2>&1)
grep -q "about to install with apt-get: .*libbenchmark-dev (Google Benchmark)" <<<"$out" || fail "no install notice: $out"
[ "$(grep -n "about to install" <<<"$out" | cut -d: -f1)" -lt "$(grep -n "apt-get ran: install" <<<"$out" | cut -d: -f1)" ] \
  || fail "the notice does not come before the install: $out"
echo "setup_test: passed (no dpkg-query: exit 0; a missing compiler named, exit 1; CMAKE_PREFIX_PATH, CPATH," \
     "ROCM_PATH honoured; CMake 3.24 refused; the install announced first)"
