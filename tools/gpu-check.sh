#!/usr/bin/env bash
# The GPU path in one call: builds the `cuda` preset for the GPU of this machine, runs every CPU and CUDA
# test, and runs tk-bench on the GPU. Logs and JSON go to $OUT (default build/gpu-check).
#
#   tools/gpu-check.sh                 build, test (ctest, then the GEMM tests under every CUDA tile
#                                      configuration and with every unaligned product packed), tk-info,
#                                      benchmark
#   TK_SANITIZE=1 tools/gpu-check.sh   also run the whole CUDA test suite (threaded and fuzz tests included)
#                                      under compute-sanitizer memcheck, racecheck and synccheck, and the
#                                      GEMM tests again under memcheck and racecheck with each configuration
#   TK_SANITIZE=only ...               build and the sanitizer runs alone
#   TK_TUNE="cuda_square cuda_mid"   also time the GEMM rows under each listed tile configuration
#                                      (TK_MATMUL_CONFIG; `tk-info --matmul-configs` lists them); with
#                                      TK_TUNE_SWEEP=<MxNxK[xB],...> the SGEMM sweep rows of those shapes instead,
#                                      each beside cuBLAS's same call, in the storages TK_SWEEP_OPS names (default
#                                      NN,NT,TN,TT)
#   TK_TUNE_STENCIL="1 2" ...          also time the best 5-point stencil under each listed shape
#                                      (TK_STENCIL_TUNE, kernels/stencil/launch.cpp)
#   TK_TESTS='<gtest filter>' ...      run only these tests (tk_tests directly), no per-configuration runs
#   TK_BENCH='<regex>' ...             run only these tk-bench rows, and no tk-info
#   TK_SWEEP=1 ...                     after the tests, `tk-bench --sweep` (sweep.json, sweep.txt), and no
#                                      other tk-bench rows; TK_SWEEP_OPS=NN,NT,TN,TT its SGEMM storages
#                                      (tk-bench --ops; default NN)
#   TK_PREBUILT=<dir> ...             no build: run build/cuda's tk-bench, tk-info and tk_tests as carried here
#                                      (built without a GPU, docs/contributing.md), with <dir> (Google Benchmark's
#                                      shared library, a libopenblas.so.0) on LD_LIBRARY_PATH; the tests are
#                                      tk_tests '*cuda*' instead of ctest
#   TK_QUICK=1 ...                     build only tk_tests, tk-bench and tk-info, with one copy of the CPU
#                                      kernels (TK_CPU_ARCH=native): a shorter build for runs in a lease
#   TK_KOKKOS=<Kokkos .tar.gz or tree> ...  first build Kokkos for this GPU (tools/kokkos.sh cuda, into
#                                      build/deps/kokkos-cuda) and build the Kokkos cross-check with it: the
#                                      kokkos tests then run on the GPU (TK_TEST_KOKKOS_SPACE=Cuda), and
#                                      tk-bench's rows run on --device=cuda,kokkos (the Kokkos versions beside
#                                      tilekit's, on the same GPU)
#   (always, after the build: tools/bench_formats_test.sh on this machine's Google Benchmark, tk-bench's JSON
#   context of the GPU, tk-info --json)
#   TK_NCU='<regex>' ...               also profile tk-bench's rows matching <regex> with Nsight Compute
#                                      (ncu.txt): per row the launch of each kernel whose name matches
#                                      TK_NCU_KERNELS (default: tilekit's matmul kernels and cuBLAS's), with
#                                      speed of light, occupancy, launch, warp-stall and memory sections
#
# A machine without a package registry can bring Google Benchmark as Debian packages unpacked under
# .deps/ (dpkg -x libbenchmark-dev*.deb libbenchmark1debian*.deb .deps); GoogleTest may come from
# /usr/src/googletest (tests/CMakeLists.txt builds it).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/build/gpu-check}
mkdir -p "$out"
status=0
step() { echo; echo "== $*"; }

# tk-bench's GPU rows end in /manual_time (Google Benchmark's manual timing), so a row regex that ends in '$' after
# the shape matches none of them: say so before the build rather than after it (^nothing$, to run no rows, is fine)
for var in TK_BENCH TK_NCU; do
  val=${!var:-}
  if [ -n "$val" ] && [ "$val" != '^nothing$' ] && [ "${val%\$}" != "$val" ]; then
    echo "warning: $var='$val' ends in \$, but tk-bench's GPU rows end in /manual_time: end it in '/' or leave the" \
      "\$ out (e.g. '^gemm/sgemm_NN/best/cuda:0/4096x4096x4096')"
  fi
done

[ -n "${TK_TUNE_SWEEP:-}" ] && [ -z "${TK_TUNE:-}" ] && echo "warning: TK_TUNE_SWEEP times the configurations TK_TUNE lists; TK_TUNE is empty"

step "GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/gpu.txt"
nvcc --version | tail -2

prefix=()
if [ -d .deps/usr/lib/x86_64-linux-gnu/cmake ]; then
  prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/usr")
fi

quick=() targets=()
if [ "${TK_QUICK:-0}" != 0 ]; then
  quick=(-DTK_CPU_ARCH=native)
  targets=(--target tk_tests tk-bench tk-info)
fi
kokkos=(-DTK_ENABLE_KOKKOS=OFF) bench_devices=cuda
if [ -n "${TK_KOKKOS:-}" ]; then
  step "Kokkos for this GPU (tools/kokkos.sh cuda $TK_KOKKOS)"
  start=$(date +%s)
  # Kokkos's name for this GPU's architecture (Kokkos_ARCH_<name>), from its compute capability
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
  case "$cap" in
    80) arch=AMPERE80 ;; 86) arch=AMPERE86 ;; 89) arch=ADA89 ;; 90) arch=HOPPER90 ;;
    100) arch=BLACKWELL100 ;; 120) arch=BLACKWELL120 ;;
    *) echo "no Kokkos architecture known for compute capability '$cap'"; exit 1 ;;
  esac
  echo "compute capability $cap: KOKKOS_ARCH=$arch"
  KOKKOS_ARCH=$arch tools/kokkos.sh cuda "$TK_KOKKOS" build/deps/kokkos-cuda >"$out/kokkos.log" 2>&1 \
    || { tail -30 "$out/kokkos.log"; exit 1; }
  grep -E "applying|installed" "$out/kokkos.log"
  echo "Kokkos built in $(( $(date +%s) - start )) s"
  kokkos=(-DTK_ENABLE_KOKKOS=ON -DKokkos_ROOT="$PWD/build/deps/kokkos-cuda") bench_devices=cuda,kokkos
  export TK_TEST_KOKKOS_SPACE=Cuda
fi
# this GPU's architecture: native, except on compute capability 9.0, whose wgmma kernels need sm_90a code
cuda_arch=native
[ "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')" = 90 ] && cuda_arch=90a-real
if [ -n "${TK_PREBUILT:-}" ]; then
  # binaries built on a machine without a GPU (docs/contributing.md) and carried here: no build
  step "prebuilt build/cuda binaries; libraries from $TK_PREBUILT"
  for b in build/cuda/bench/tk-bench build/cuda/bench/tk-info build/cuda/tests/tk_tests; do
    [ -x "$b" ] || { echo "TK_PREBUILT: $b is missing"; exit 1; }
  done
  export LD_LIBRARY_PATH="$(cd "$TK_PREBUILT" && pwd):/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  build/cuda/bench/tk-info --version 2>&1 | head -3
else
  step "configure + build (cuda preset, CMAKE_CUDA_ARCHITECTURES=$cuda_arch)"
  start=$(date +%s)
  cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES=$cuda_arch "${kokkos[@]}" "${prefix[@]}" "${quick[@]}" \
    >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  cmake --build --preset cuda -j "$(nproc)" "${targets[@]}" >"$out/build.log" 2>&1 \
    || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
  echo "built in $(( $(date +%s) - start )) s"
  grep -iE "warning" "$out/build.log" | head -20

fi

step "tk-bench built on this machine's Google Benchmark: every output format, the GPU's context"
[ -f "$out/configure.log" ] && grep -E "tk-bench: Google Benchmark" "$out/configure.log"
bash tools/bench_formats_test.sh build/cuda/bench/tk-bench >"$out/formats.log" 2>&1 && tail -1 "$out/formats.log" \
  || { echo "FAILED"; tail -20 "$out/formats.log"; status=1; }
build/cuda/bench/tk-bench --device=cuda --size-mib=64 --benchmark_filter='^(memcpy|copy)/' --benchmark_format=json \
  >"$out/formats-cuda.json" 2>/dev/null || status=1
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["context"]; k=[x for x in c if x.startswith("tilekit_")]
print("\n".join(f"{x}: {c[x]}" for x in sorted(k))); assert c["tilekit_cuda:0_driver"] and c["tilekit_cuda:0_compiler"]' \
  "$out/formats-cuda.json" || { echo "FAILED: the JSON context lacks the GPU's driver or compiler"; status=1; }
build/cuda/bench/tk-info --json >"$out/tk-info.json" && python3 -m json.tool "$out/tk-info.json" >/dev/null \
  && echo "tk-info --json: $(grep -c '"name"' "$out/tk-info.json") devices" || { echo "tk-info --json FAILED"; status=1; }

step "resources of the matmul kernels as compiled (registers, shared memory, spills)"
# One line per kernel: its name demangled, with its configuration and storage flags, e.g.
# "void matmul_warp_tiled<cuda_mid, float, true, false, false> REG:165 STACK:0 SHARED:13568 LOCAL:0".
objs=build/cuda/libtilekit.a
[ -n "${TK_PREBUILT:-}" ] && objs=build/cuda/bench/tk-bench
cuobjdump --dump-resource-usage "$objs" 2>/dev/null \
  | awk '/Function .*matmul/ { name = $2; sub(/:$/, "", name); getline; res = "";
         for (i = 1; i <= NF; ++i) if ($i ~ /^(REG|STACK|SHARED|LOCAL):/) res = res " " $i; print name res }' \
  | c++filt | sed -E 's/tk::target_cuda::kernels::(matmul_configs::)?//g; s/\(long, [^)]*\)//' | sort -u \
  | tee "$out/resources.txt"

sanitize_only=0
[ "${TK_SANITIZE:-0}" = only ] && sanitize_only=1

if [ "$sanitize_only" = 1 ]; then
  :
elif [ -n "${TK_TESTS:-}" ]; then
  step "tests matching $TK_TESTS"
  build/cuda/tests/tk_tests --gtest_filter="$TK_TESTS" >"$out/tests.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/tests.log" | head -40
else
  step "tests (cpu and cuda labels; kokkos with TK_KOKKOS)"
  if [ -n "${TK_PREBUILT:-}" ]; then
    # no ctest files here: every test instantiated for the cuda backend
    build/cuda/tests/tk_tests --gtest_filter='*cuda*' >"$out/tests.log" 2>&1 || status=1
    grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/tests.log" | head -40
  else
    ctest --preset cuda -j 4 --timeout 600 >"$out/ctest.log" 2>&1 || status=1
    grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | head -40
    grep -cE "Skipped" "$out/ctest.log" | xargs echo "skipped:"
  fi
fi

# The test shapes are small, so the shape rule gives them one CUDA matmul configuration; run the
# warp-tiled GEMM tests once under each configuration forced (kernels/matmul/policy/, listed by tk-info).
# gemm_filter TYPE: the GEMM tests of the CUDA warp_tiled and best variants for float or double.
gemm_filter() {
  if [ "$1" = float ]; then
    echo '*Gemm.*/cuda_warp_tiled_float:*Gemm.*/cuda_best_float:*Matmul.*/cuda_warp_tiled*:*Matmul.*/cuda_best*'
  else
    echo '*Gemm.*/cuda_warp_tiled_double:*Gemm.*/cuda_best_double'
  fi
}
configs=$(build/cuda/bench/tk-info --matmul-configs cuda 2>/dev/null | tr ' ' ':')
[ -n "${TK_TESTS:-}" ] || [ "$sanitize_only" = 1 ] && configs=""
[ -n "$configs" ] && step "GEMM tests under every CUDA tile configuration"
for tc in $configs; do
  type=${tc%%:*} c=${tc#*:}
  printf "%s %s: " "$type" "$c"
  TK_MATMUL_CONFIG=$c build/cuda/tests/tk_tests --gtest_filter="$(gemm_filter "$type")" \
    >"$out/tests-$c.log" 2>&1 && grep -E "^\[  PASSED" "$out/tests-$c.log" \
    || { echo FAILED; grep -E "FAILED|Failure" "$out/tests-$c.log" | head -5; status=1; }
done
# ... and once with every unaligned single product packed (TK_MATMUL_PACK=2; by default only large ones are)
if [ -n "$configs" ]; then
  printf "TK_MATMUL_PACK=2: "
  TK_MATMUL_PACK=2 build/cuda/tests/tk_tests --gtest_filter="$(gemm_filter float):$(gemm_filter double):*GemmContract*/cuda" \
    >"$out/tests-pack.log" 2>&1 && grep -E "^\[  PASSED" "$out/tests-pack.log" \
    || { echo FAILED; grep -E "FAILED|Failure" "$out/tests-pack.log" | head -5; status=1; }
fi

if [ "${TK_SANITIZE:-0}" != 0 ]; then
  step "compute-sanitizer memcheck, racecheck and synccheck over the whole CUDA test suite (three at once)"
  # Every test instantiated for the cuda backend (their names hold "cuda"), the threaded and fuzz ones too.
  # Racecheck leaves out the K = 65536 and 4099 x 17 x 2053 matmul cases: 30-214 s each under it on an
  # H100 (the suite would not finish in 10 minutes), and the same kernels run in the smaller cases.
  for tool in memcheck racecheck synccheck; do
    extra=()
    filter='*cuda*'
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    [ "$tool" = racecheck ] && filter='*cuda*:-*x65536*:*4099x17x2053*'
    ( compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 3 build/cuda/tests/tk_tests \
        --gtest_filter="$filter" >"$out/sanitize-$tool.log" 2>&1; echo $? >"$out/sanitize-$tool.rc" ) &
  done
  wait
  for tool in memcheck racecheck synccheck; do
    rc=$(cat "$out/sanitize-$tool.rc")
    summary=$(grep -E "^========= ERROR SUMMARY|^\[  PASSED|^\[  FAILED" "$out/sanitize-$tool.log" | paste -sd' ')
    if [ "$rc" = 0 ]; then echo "$tool: clean ($summary)"; else
      echo "$tool: FAILED (exit $rc; $summary)"
      grep -m3 -B2 -A8 -E "^========= (Invalid|Error|Race|Program hit|Barrier)" "$out/sanitize-$tool.log"
      tail -5 "$out/sanitize-$tool.log"; status=1
    fi
  done
  # every configuration, which the suite's shapes (small: mostly cuda_mid, some thin tiles) mostly never pick
  for tool in memcheck racecheck; do
    for tc in $(build/cuda/bench/tk-info --matmul-configs cuda | tr ' ' ':'); do
      type=${tc%%:*} c=${tc#*:}
      TK_MATMUL_CONFIG=$c compute-sanitizer --tool "$tool" --error-exitcode 3 build/cuda/tests/tk_tests \
        --gtest_filter="$(gemm_filter "$type" | cut -d: -f1)" >"$out/sanitize-$tool-$c.log" 2>&1 \
        && echo "$tool, $type $c: clean" || { echo "$tool, $type $c: FAILED"; \
        grep -m3 -A8 -E "^========= (Invalid|Error|Race)" "$out/sanitize-$tool-$c.log"; status=1; }
    done
  done
  # ... and memcheck with every unaligned product packed (TK_MATMUL_PACK=2), under each configuration: the
  # products read the packed copies' padded lines to their end (warp_tiled.hpp, m_read and n_read). (A read
  # past a workspace that tilekit's pool carved from a larger block would not show.)
  for tc in $(build/cuda/bench/tk-info --matmul-configs cuda | tr ' ' ':'); do
    type=${tc%%:*} c=${tc#*:}
    TK_MATMUL_PACK=2 TK_MATMUL_CONFIG=$c compute-sanitizer --tool memcheck --error-exitcode 3 build/cuda/tests/tk_tests \
      --gtest_filter="$(gemm_filter "$type" | cut -d: -f1)" >"$out/sanitize-memcheck-pack-$c.log" 2>&1 \
      && echo "memcheck packed, $type $c: clean" || { echo "memcheck packed, $type $c: FAILED"; \
      grep -m3 -A8 -E "^========= (Invalid|Error)" "$out/sanitize-memcheck-pack-$c.log"; status=1; }
  done
  [ "$sanitize_only" = 1 ] && exit $status
fi

# tune VAR "LIST" FILTER FILE: tk-bench's rows matching FILTER once per value of VAR in LIST
tune() {
  local var=$1 list=$2 filter=$3 file=$4 v
  for v in $list; do
    echo "-- $var=$v"
    env "$var=$v" build/cuda/bench/tk-bench --device=cuda --benchmark_filter="$filter" 2>&1 \
      | grep -E "^[a-z_0-9]+/" | tee -a "$out/$file"
  done
}
if [ -n "${TK_TUNE:-}" ] && [ -n "${TK_TUNE_SWEEP:-}" ]; then
  step "GEMM tile configurations on the sweep shapes $TK_TUNE_SWEEP (% of cuBLAS's same call)"
  for c in $TK_TUNE; do
    echo "-- TK_MATMUL_CONFIG=$c"
    TK_MATMUL_CONFIG=$c build/cuda/bench/tk-bench --device=cuda --sweep --ops="${TK_SWEEP_OPS:-NN,NT,TN,TT}" \
      --shapes="$TK_TUNE_SWEEP" --benchmark_filter='^sweep/sgemm' 2>&1 | grep -E "^sweep/" | tee -a "$out/tune.txt"
  done
elif [ -n "${TK_TUNE:-}" ]; then
  step "GEMM tile configurations (% of cuBLAS)"
  tune TK_MATMUL_CONFIG "$TK_TUNE" "${TK_TUNE_ROWS:-gemm/sgemm_NN/best}" tune.txt
fi
if [ -n "${TK_TUNE_STENCIL:-}" ]; then
  step "5-point stencil shapes (% of cudaMemcpy)"
  tune TK_STENCIL_TUNE "$TK_TUNE_STENCIL" 'stencil_5point/best' tune-stencil.txt
fi

if [ -n "${TK_NCU:-}" ]; then
  step "Nsight Compute over tk-bench rows matching $TK_NCU"
  # skip the first launches of each kernel (warm-up), then profile two of each
  ncu --target-processes all -k "regex:${TK_NCU_KERNELS:-matmul|gemm|xmma|cutlass|sm90|sm80}" --launch-skip 6 \
    --launch-count "${TK_NCU_COUNT:-4}" --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis \
    build/cuda/bench/tk-bench --device=cuda --benchmark_filter="$TK_NCU" >"$out/ncu.txt" 2>&1 || status=1
  grep -E "^  [^ ].*\(|Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|DRAM Throughput|L2 Hit|Stall" \
    "$out/ncu.txt" | head -60
fi

if [ "${TK_SWEEP:-0}" != 0 ]; then
  step "tk-bench --sweep on the GPU"
  build/cuda/bench/tk-bench --device=cuda --sweep --ops="${TK_SWEEP_OPS:-NN}" --benchmark_out="$out/sweep.json" --benchmark_out_format=json \
    2>&1 | tee "$out/sweep.txt" || status=1
  exit $status
fi

if [ -n "${TK_BENCH:-}" ]; then
  step "tk-bench rows matching $TK_BENCH"
  build/cuda/bench/tk-bench --device="$bench_devices" --benchmark_filter="$TK_BENCH" 2>&1 \
    | tee "$out/bench.txt" || status=1
  exit $status
fi

step "tk-info"
build/cuda/bench/tk-info --device cuda >"$out/tk-info.txt" 2>&1 || status=1
sed -n '/kernels as compiled/,/granularity/p' "$out/tk-info.txt"

step "tk-bench on the GPU"
build/cuda/bench/tk-bench --device="$bench_devices" --benchmark_out="$out/bench.json" --benchmark_out_format=json \
  2>&1 | tee "$out/bench.txt" || status=1
exit $status
