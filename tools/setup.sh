#!/usr/bin/env bash
# Installs, with apt-get, what building and testing tilekit needs on Debian/Ubuntu, skipping what is there.
#   tools/setup.sh            the CPU build: compiler, CMake, GoogleTest, Google Benchmark, Kokkos, OpenBLAS, and
#                             netlib's BLAS test programs (libblas-test, for tools/blas-test.sh)
#   tools/setup.sh hip        and Debian's HIP compiler (hipcc, clang 15)
set -euo pipefail
packages=(g++ cmake make libgtest-dev libbenchmark-dev libtrilinos-kokkos-dev libopenblas-dev libblas-test)
for extra in "$@"; do
  case "$extra" in
    hip) packages+=(hipcc) ;;
    *) echo "tools/setup.sh: unknown extra '$extra' (expected: hip)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
  echo "tools/setup.sh: missing ${missing[*]}, and no apt-get to install them with" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "tools/setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
