#!/usr/bin/env bash
# The GEMM kernels' PTX of this tree against a baseline's, without a GPU: for refactors that must keep the
# machine code (docs/contributing.md). Compiles kernels/matmul/launch.cpp and launch_double.cpp of both trees to
# PTX for sm_90 with the CUDA build's flags, then compares every kernel with its namesake after renaming the
# virtual registers and labels (which carry no meaning for ptxas's input). Needs nvcc and a configured build
# of this tree with CUDA (BUILD, default build/cuda).
#
#   git archive --format=tar --prefix=before/ <commit> | gzip > baseline.tar.gz
#   tools/ptx-compare.sh baseline.tar.gz        prints per file how many kernels are identical, and lists the others
set -euo pipefail
cd "$(dirname "$0")/.."
tarball=${1:?usage: tools/ptx-compare.sh BASELINE.tar.gz}
build=${BUILD:-build/cuda}
[ -f "$build/CMakeFiles/tilekit.dir/includes_CUDA.rsp" ] || { echo "no CUDA build in $build (cmake --preset cuda)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
root=$PWD
# The build's include folders for this tree; the baseline compiles against its own headers (its folders in
# their place; the generated version header is the build's for both).
rsp=$PWD/$build/CMakeFiles/tilekit.dir/includes_CUDA.rsp
sed "s|$root/common/|$work/before/common/|g; s|$root/backends/|$work/before/backends/|g" "$rsp" >"$work/before.rsp"
flags=(-forward-unknown-to-host-compiler -DTK_CPU_DISPATCH -DTK_HAVE_CUDA -O3 -DNDEBUG -arch=sm_90 -std=c++17 -x cu -ptx)
for f in launch launch_double; do
  (cd "$build" && nvcc --options-file "$work/before.rsp" "${flags[@]}" "$work/before/kernels/matmul/$f.cpp" \
    -o "$work/before-$f.ptx") &
  (cd "$build" && nvcc --options-file "$rsp" "${flags[@]}" "$root/kernels/matmul/$f.cpp" -o "$work/after-$f.ptx") &
  wait
  echo "kernels/matmul/$f.cpp:"
  python3 tools/ptx_compare.py "$work/before-$f.ptx" "$work/after-$f.ptx"
done
