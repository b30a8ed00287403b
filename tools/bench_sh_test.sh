#!/usr/bin/env bash
# Tests which preset tools/bench.sh picks (ctest: cpu.BenchScript.PicksTheBackendOfTheMachine), with stand-ins
# for nvidia-smi, nvcc and rocminfo and TK_BENCH_DRY_RUN=1: nothing present -> cpu; an NVIDIA GPU and nvcc ->
# cuda for the native architecture (sm_90a on compute capability 9.0); rocminfo naming gfx agents (on the PATH or in $ROCM_PATH/bin) -> hip for
# those architectures; a rocminfo that fails (no /dev/kfd, no driver) -> cpu.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for n in bash sh env cat sed grep sort head paste dirname awk tr; do
  p=$(command -v "$n") && ln -s "$p" "$bin/$n"
done
fail() { echo "bench_sh_test: $*" >&2; exit 1; }
# ROCM_PATH names a folder without rocminfo unless a case gives one: a real /opt/rocm must not answer
pick() { env -i PATH="$1" TK_BENCH_DRY_RUN=1 ROCM_PATH="${2:-/nonexistent}" bash "$here/bench.sh" 2>&1; }
stand_in() {  # stand_in DIR NAME EXIT-CODE [OUTPUT, with \n for its new lines]
  mkdir -p "$1"
  printf '#!/bin/sh\nprintf "%s"\nexit %s\n' "${4:-}" "$3" >"$1/$2"
  chmod +x "$1/$2"
}

out=$(pick "$bin"); [ "$out" = "tools/bench.sh: preset cpu " ] || fail "no GPU: $out"

amd=$(mktemp -d); trap 'rm -rf "$bin" "$amd"' EXIT
# as ROCm 6.2's rocminfo: the CPU agent, each GPU agent's Name, and ISA names with generic targets too
stand_in "$amd/bin" rocminfo 0 "Agent 1\\n  Name:                    AMD EPYC 7763\\nAgent 2\\n  Name:                    gfx90a\\n      Name:                    amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\\nAgent 3\\n  Name:                    gfx1030\\n      Name:                    amdgcn-amd-amdhsa--gfx10-3-generic\\n"
out=$(pick "$bin:$amd/bin"); [ "$out" = "tools/bench.sh: preset hip -DCMAKE_HIP_ARCHITECTURES=gfx1030;gfx90a" ] \
  || fail "rocminfo on the PATH: $out"
out=$(pick "$bin" "$amd"); [ "$out" = "tools/bench.sh: preset hip -DCMAKE_HIP_ARCHITECTURES=gfx1030;gfx90a" ] \
  || fail "rocminfo in ROCM_PATH: $out"
stand_in "$amd/broken" rocminfo 1 "ROCk module is NOT loaded"
out=$(pick "$bin:$amd/broken"); [ "$out" = "tools/bench.sh: preset cpu " ] || fail "a failing rocminfo: $out"

stand_in "$amd/nv" nvidia-smi 0 "GPU 0: NVIDIA A100-SXM4-80GB"
stand_in "$amd/nv" nvcc 0 ""
out=$(pick "$bin:$amd/nv:$amd/bin"); [ "$out" = "tools/bench.sh: preset cuda -DCMAKE_CUDA_ARCHITECTURES=native" ] \
  || fail "an NVIDIA GPU: $out"
# an H100: compute capability 9.0 -> sm_90a (its wgmma kernels)
mkdir -p "$amd/h100"
printf '#!/bin/sh\ncase "$*" in *compute_cap*) printf "9.0\\n" ;; *) printf "GPU 0: NVIDIA H100 80GB HBM3\\n" ;; esac\n' \
  >"$amd/h100/nvidia-smi"
chmod +x "$amd/h100/nvidia-smi"
out=$(pick "$bin:$amd/h100:$amd/nv:$amd/bin"); [ "$out" = "tools/bench.sh: preset cuda -DCMAKE_CUDA_ARCHITECTURES=90a-real" ] \
  || fail "an H100: $out"
echo "bench_sh_test: passed (cpu, cuda, cuda on an H100, hip from the PATH and from ROCM_PATH, a failing rocminfo)"
