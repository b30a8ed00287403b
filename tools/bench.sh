#!/usr/bin/env bash
# tilekit's main job: builds tk-bench for the best backend on this machine and runs its quick suite.
# An NVIDIA GPU with nvcc: the `cuda` preset for that GPU; otherwise the CPU. Arguments go to tk-bench
# (--full, --device=all, --benchmark_format=json, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
preset=cpu
extra=()
if nvidia-smi -L >/dev/null 2>&1 && { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  preset=cuda
  extra=(-DCMAKE_CUDA_ARCHITECTURES=native)
fi
cmake --preset "$preset" "${extra[@]}" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target tk-bench
exec "build/$preset/bench/tk-bench" "$@"
