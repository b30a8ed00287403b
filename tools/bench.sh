#!/usr/bin/env bash
# tilekit's main job: builds tk-bench for the best backend on this machine and runs its quick suite.
#   an NVIDIA GPU (nvidia-smi lists one) and nvcc:        the `cuda` preset, for this machine's GPUs (native)
#   an AMD GPU (rocminfo lists a gfx agent; it needs the amdgpu driver's /dev/kfd) and hipcc, or the HIP
#   packages tools/setup.sh can install:                  the `hip` preset, for the GPUs rocminfo names
#   otherwise:                                            the `cpu` preset
# Arguments go to tk-bench (--full, --device=all, --benchmark_format=json, ...).
# TK_BENCH_DRY_RUN=1: print the preset and its CMake arguments, and stop (nothing is installed or built).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=cpu
extra=()
setup=()
find_tool() {  # the PATH, then ${ROCM_PATH:-/opt/rocm}/bin
  command -v "$1" 2>/dev/null && return 0
  local r=${ROCM_PATH:-/opt/rocm}
  [ -x "$r/bin/$1" ] && { echo "$r/bin/$1"; return 0; }
  return 1
}
if nvidia-smi -L >/dev/null 2>&1 && { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  preset=cuda
  # this machine's GPUs (native), but sm_90a on compute capability 9.0 (H100, H200): its wgmma kernels need it
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
  if [ "$cap" = 90 ]; then extra=(-DCMAKE_CUDA_ARCHITECTURES=90a-real); else extra=(-DCMAKE_CUDA_ARCHITECTURES=native); fi
elif rocminfo=$(find_tool rocminfo) &&
     gfx=$("$rocminfo" 2>/dev/null | awk '$1 == "Name:" && $2 ~ /^gfx[0-9a-f]+$/ { print $2 }' | sort -u | paste -sd';') &&
     [ -n "$gfx" ]; then  # the GPU agents' names (gfx90a), not the generic ISA targets that ROCm 6.2 lists too
  preset=hip
  extra=(-DCMAKE_HIP_ARCHITECTURES="$gfx")
  setup=(hip)
fi
if [ "${TK_BENCH_DRY_RUN:-0}" != 0 ]; then
  echo "tools/bench.sh: preset $preset ${extra[*]+${extra[*]}}"
  exit 0
fi
tools/setup.sh ${setup[@]+"${setup[@]}"}
cmake --preset "$preset" ${extra[@]+"${extra[@]}"} >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target tk-bench
exec "build/$preset/bench/tk-bench" "$@"
