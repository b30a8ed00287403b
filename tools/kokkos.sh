#!/usr/bin/env bash
# Builds and installs Kokkos from its sources, for tilekit's Kokkos cross-check on more than one host thread
# (OpenMP) or on an NVIDIA GPU (CUDA):
#   tools/kokkos.sh openmp|cuda SOURCE PREFIX
# SOURCE is a Kokkos source tree or its .tar.gz (github.com/kokkos/kokkos: a release, or develop); PREFIX is
# where it is installed. An OpenMP build is what tilekit's cpu preset takes with -DKokkos_ROOT=PREFIX, in place
# of Debian's Kokkos 3.4 (libtrilinos-kokkos-dev, Serial only), which stays the no-build option. A CUDA build
# is what the cuda preset takes with -DKokkos_ROOT=PREFIX: tilekit's Kokkos versions are then compiled by nvcc
# and run on the GPU, on that GPU's memory (tools/gpu-check.sh with TK_KOKKOS=SOURCE).
#
# CUDA 13: Kokkos before 4.7.01 calls cudaGraphAddDependencies and cudaMemPrefetchAsync with their CUDA 12
# signatures, which CUDA 13 changed. tools/patches/kokkos-4.6.99-cuda13.patch adapts those two call sites
# (the new arguments given their old meaning); it is applied when the tree has the old calls and nvcc is 13 or
# later. Kokkos 4.7.01 and later need no patch. The CUDA build names the GPU's architecture (KOKKOS_ARCH,
# default HOPPER90: Kokkos_ARCH_<name>).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
backend="${1:?usage: tools/kokkos.sh openmp|cuda SOURCE PREFIX}"
source="${2:?usage: tools/kokkos.sh openmp|cuda SOURCE PREFIX}"
prefix="${3:?usage: tools/kokkos.sh openmp|cuda SOURCE PREFIX}"
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
work="$prefix.build"
rm -rf "$work" && mkdir -p "$work"
if [ -f "$source" ]; then
  tar xzf "$source" -C "$work"
  src="$(find "$work" -mindepth 2 -maxdepth 2 -name CMakeLists.txt -printf '%h\n' | head -n 1)"
else
  cp -a "$source" "$work/src"  # patched in a copy: the given tree is left as it is
  src="$work/src"
fi
[ -f "$src/core/src/Kokkos_Core.hpp" ] || { echo "tools/kokkos.sh: no Kokkos sources in $source" >&2; exit 1; }

args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17
      -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON)  # static, and linkable into shared libraries (libtilekit_blas.so)
case "$backend" in
  openmp)
    args+=(-DKokkos_ENABLE_OPENMP=ON) ;;
  cuda)
    # the nvcc tilekit's configure takes (cmake/TkBackends.cmake): CUDACXX, else /usr/local/cuda's, else PATH's
    nvcc="${CUDACXX:-}"
    [ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; } || nvcc="$(command -v nvcc || true)"
    [ -n "$nvcc" ] || { echo "tools/kokkos.sh: no nvcc (set CUDACXX)" >&2; exit 1; }
    major="$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
    if [ "${major:-0}" -ge 13 ] && grep -q "cudaGraphAddDependencies(graph, from, to, numDependencies)" \
         "$src/core/src/Cuda/Kokkos_Cuda_Instance.hpp"; then
      echo "tools/kokkos.sh: nvcc $major and a Kokkos before 4.7.01: applying tools/patches/kokkos-4.6.99-cuda13.patch"
      patch -d "$src" -p1 < "$here/patches/kokkos-4.6.99-cuda13.patch"
    fi
    # CUDA as a CMake language (nvcc compiles Kokkos's sources, and a consumer's marked LANGUAGE CUDA), not
    # nvcc_wrapper as the C++ compiler, whose sm_70 default nvcc 13 refuses
    args+=(-DKokkos_ENABLE_CUDA=ON "-DKokkos_ARCH_${KOKKOS_ARCH:-HOPPER90}=ON"
           -DKokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON -DCMAKE_CUDA_COMPILER="$nvcc") ;;
  *) echo "tools/kokkos.sh: backend '$backend'; expected openmp or cuda" >&2; exit 1 ;;
esac
cmake -S "$src" -B "$work/build" "${args[@]}" >/dev/null
cmake --build "$work/build" -j "$(nproc)"
cmake --install "$work/build" >/dev/null
rm -rf "$work"
echo "tools/kokkos.sh: Kokkos ($backend) installed in $prefix: use Kokkos_ROOT=$prefix"
