#!/usr/bin/env bash
# Tests tools/setup.sh beyond Debian's package tools (ctest: cpu.Setup.*): on a PATH without dpkg-query,
# apt-get or dnf, where every tool is present, it passes and installs nothing; with a required part missing
# it names it and exits 1.
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
echo "setup_test: passed (no dpkg-query: exit 0; a missing compiler named, exit 1)"
