#!/usr/bin/env bash
# A change against its baseline on this machine's GPU, back to back: for refactors that must keep behaviour
# and speed (docs/contributing.md). The baseline is a source tarball made with
#   git archive --format=tar --prefix=before/ <commit> | gzip > baseline.tar.gz
#
#   tools/gpu-baseline.sh build TARBALL   build tk-bench for both trees (and this tree's tk_tests), in parallel:
#                                         build/baseline/before (the tarball) and build/cuda (this tree)
#   tools/gpu-baseline.sh bench [ROUNDS]  time the same tk-bench rows with each build in turn, ROUNDS times
#                                         (default 2): before, after, before, after, ...; TK_BASELINE_ROWS is the
#                                         rows' regex (default: the SGEMM sweep in all four storages;
#                                         TK_BASELINE_OPS and TK_BASELINE_SHAPES narrow it, as --ops and --shapes), and
#                                         TK_BASELINE_SUITE='<regex>' adds rows of the ordinary suite (DGEMM,
#                                         batches). Each run's table goes to $OUT (default build/baseline) as
#                                         <before|after>-<round>.txt, and a summary of the ratios to summary.txt.
#   tools/gpu-baseline.sh sass            the machine code of both builds' matmul kernels (cuobjdump): per kernel
#                                         its instruction mix, registers and spills, before and after (sass.txt)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/build/baseline}
mkdir -p "$out"

# this GPU's architecture: native, except on compute capability 9.0, whose wgmma kernels need sm_90a code
cuda_arch=native
[ "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')" = 90 ] && cuda_arch=90a-real

configure_build() {  # SRC BUILD_DIR TARGET...
  local src=$1 dir=$2
  shift 2
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DTK_ENABLE_CUDA=ON -DTK_ENABLE_HIP=OFF -DTK_ENABLE_KOKKOS=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="$cuda_arch" -DTK_CPU_ARCH=native -DTK_BUILD_TESTS=ON -DTK_BUILD_BENCH=ON >"$dir.configure.log" 2>&1 &&
    cmake --build "$dir" -j "$(( $(nproc) / 2 ))" --target "$@" >"$dir.build.log" 2>&1
}

case "${1:-}" in
  build)
    tarball=${2:?usage: tools/gpu-baseline.sh build TARBALL}
    rm -rf build/baseline && mkdir -p build/baseline && tar -xzf "$tarball" -C build/baseline || exit 1
    [ -d build/baseline/before ] || { echo "the tarball has no before/ folder (git archive --prefix=before/)"; exit 1; }
    start=$(date +%s)
    configure_build build/baseline/before build/baseline/before-build tk-bench & b=$!
    configure_build . build/cuda tk-bench tk-info tk_tests & a=$!
    status=0
    wait $b || { echo "baseline build FAILED"; grep -m5 -A3 error build/baseline/before-build.build.log; status=1; }
    wait $a || { echo "build FAILED"; grep -m5 -A3 error build/cuda.build.log; status=1; }
    echo "both built in $(( $(date +%s) - start )) s"
    exit $status
    ;;
  bench)
    rounds=${2:-2}
    rows=${TK_BASELINE_ROWS:-sweep/sgemm}
    status=0
    for r in $(seq 1 "$rounds"); do
      for side in before after; do
        bin=build/cuda/bench/tk-bench
        [ "$side" = before ] && bin=build/baseline/before-build/bench/tk-bench
        shapes=()
        [ -n "${TK_BASELINE_SHAPES:-}" ] && shapes=(--shapes="$TK_BASELINE_SHAPES")
        "$bin" --device=cuda --sweep --ops="${TK_BASELINE_OPS:-NN,NT,TN,TT}" "${shapes[@]}" --benchmark_filter="$rows" \
          >"$out/$side-$r.txt" 2>&1 || status=1
        if [ -n "${TK_BASELINE_SUITE:-}" ]; then
          "$bin" --device=cuda --benchmark_filter="$TK_BASELINE_SUITE" >>"$out/$side-$r.txt" 2>&1 || status=1
        fi
      done
    done
    # per row: the after build's median % of the vendor over the rounds against the before build's
    python3 - "$out" "$rounds" <<'EOF' | tee "$out/summary.txt"
import re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def rows(path):  # tk-bench's table: row, ms, GB/s, GFLOP/s, % of ceiling, ceiling, notes
    res = {}
    for line in open(path):
        cols = line.split()
        if len(cols) >= 6 and '/' in cols[0] and re.fullmatch(r'\d+(\.\d+)?', cols[4]):
            res[cols[0]] = float(cols[4])
    return res
before = [rows(f"{out}/before-{r}.txt") for r in range(1, rounds + 1)]
after = [rows(f"{out}/after-{r}.txt") for r in range(1, rounds + 1)]
names = [n for n in before[0] if all(n in b for b in before) and all(n in a for a in after)]
ratios = []
print(f"{'row':70s} {'before %':>9s} {'after %':>9s} {'after/before':>12s}")
for n in names:
    b = statistics.median(x[n] for x in before)
    a = statistics.median(x[n] for x in after)
    ratios.append(a / b)
    print(f"{n:70s} {b:9.1f} {a:9.1f} {a / b:12.3f}")
if ratios:
    g = statistics.geometric_mean(ratios)
    print(f"{len(ratios)} rows: geometric mean of after/before {g:.3f}, lowest {min(ratios):.3f}, highest {max(ratios):.3f}")
EOF
    exit $status
    ;;
  sass)
    for side in before after; do
      lib=build/cuda/libtilekit.a
      [ "$side" = before ] && lib=build/baseline/before-build/libtilekit.a
      cuobjdump -sass "$lib" >"$out/$side.sass" 2>/dev/null || { echo "cuobjdump -sass $lib FAILED"; exit 1; }
      cuobjdump --dump-resource-usage "$lib" >"$out/$side.res" 2>/dev/null
    done
    python3 - "$out" <<'EOF' | tee "$out/sass.txt"
import collections, re, subprocess, sys
out = sys.argv[1]
def names(mangled):
    d = subprocess.run(['c++filt'], input='\n'.join(mangled), capture_output=True, text=True).stdout.splitlines()
    return [re.sub(r'\(.*\)$', '', x).replace('tk::target_cuda::kernels::', '').replace('matmul_configs::', '') for x in d]
def kernels(path):
    res, cur = {}, None
    for line in open(path):
        m = re.match(r'\s+Function : (\S+)', line)
        if m:
            cur = m.group(1) if 'matmul' in m.group(1) else None
            if cur: res[cur] = collections.Counter()
            continue
        m = re.match(r'\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
        if cur and m: res[cur][m.group(2)] += 1
    return dict(zip(names(list(res)), res.values()))
def resources(path):
    res, cur = {}, None
    for line in open(path):
        m = re.search(r'Function (\S+):', line)
        if m: cur = m.group(1); continue
        if cur and 'REG:' in line:
            res[cur] = ' '.join(f for f in line.split() if f.split(':')[0] in ('REG', 'STACK', 'LOCAL'))
    return dict(zip(names(list(res)), res.values()))
a, b = kernels(f'{out}/before.sass'), kernels(f'{out}/after.sass')
ra, rb = resources(f'{out}/before.res'), resources(f'{out}/after.res')
same = 0
for k in sorted(a):
    if k not in b: print('only before:', k); continue
    if a[k] == b[k]: same += 1; continue
    da, db = sum(a[k].values()), sum(b[k].values())
    ops = sorted(set(a[k]) | set(b[k]), key=lambda o: -abs(a[k][o] - b[k][o]))[:6]
    print(f'{k}: {da} -> {db} instructions ({ra.get(k, "?")} -> {rb.get(k, "?")}); ' +
          ', '.join(f'{o} {a[k][o]}->{b[k][o]}' for o in ops if a[k][o] != b[k][o]))
print(f'{same} of {len(a)} matmul kernels have the same instruction mix before and after')
EOF
    ;;
  *)
    sed -n '2,18p' "$0"
    exit 2
    ;;
esac
