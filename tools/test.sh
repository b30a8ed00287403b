#!/usr/bin/env bash
# Builds tilekit's `cpu` preset (the CPU backend, and Kokkos when installed) and runs the whole test suite.
# Extra arguments go to ctest (e.g. -R VectorAdd, -L kokkos).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake --preset cpu
cmake --build --preset cpu -j "$(nproc)"
ctest --preset cpu -j "$(nproc)" "$@"
