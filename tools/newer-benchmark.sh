#!/usr/bin/env bash
# tools/newer-benchmark.sh DIR — builds Google Benchmark 1.9.1, the version Debian 13 ("trixie") ships, from
# Debian's source package, and installs it into DIR (CI builds tk-bench against it as well as against the
# system's, so that an API change of Google Benchmark cannot break the README's first command unseen). Debian
# 13's binary package cannot be used on Debian 12: it needs glibc 2.38. Fetches with apt-get from a trixie
# source list of its own (the system's apt configuration is not touched); builds with the system's compiler.
set -euo pipefail
dest=${1:?install folder}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
[ -f "$dest/lib/cmake/benchmark/benchmarkConfig.cmake" ] && { echo "tools/newer-benchmark.sh: $dest has it"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb-src http://deb.debian.org/debian trixie main" >"$work/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
apt-get "${apt[@]}" update -q >/dev/null
(cd "$work" && apt-get "${apt[@]}" source --download-only -q benchmark >/dev/null)  # trixie's: 1.9.1
tar -xzf "$(ls "$work"/benchmark_*.orig.tar.* | head -1)" -C "$work"
src=$(find "$work" -maxdepth 1 -type d -name 'benchmark-*' | head -1)
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBENCHMARK_ENABLE_TESTING=OFF \
  -DBENCHMARK_ENABLE_GTEST_TESTS=OFF -DBENCHMARK_ENABLE_WERROR=OFF -DCMAKE_INSTALL_PREFIX="$dest" \
  -DCMAKE_INSTALL_LIBDIR=lib >/dev/null
cmake --build "$work/build" -j "$(nproc)" >/dev/null
cmake --install "$work/build" >/dev/null
echo "tools/newer-benchmark.sh: Google Benchmark $(basename "$src" | sed s/benchmark-//) in $dest"
