#!/usr/bin/env bash
# Tests of tools/plot on small tk-bench-shaped JSON files (no build, no device): the charts it must write,
# the rows it must skip with a message, and the files it must refuse. Needs /usr/bin/python3 with
# matplotlib (apt-get install -y python3-matplotlib). Usage: tools/plot_test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
plot=tools/plot
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

/usr/bin/python3 - "$tmp" <<'EOF'
import json, sys
d = sys.argv[1]
ctx = {"date": "2026-01-01T00:00:00+00:00", "host_name": "test", "executable": "tk-bench", "num_cpus": 2}

def row(name, run_type="iteration", **counters):
    r = {"name": name, "run_name": name, "run_type": run_type, "repetitions": 1, "repetition_index": 0,
         "threads": 1, "iterations": 10, "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ms"}
    r.update(counters)
    return r

def mm(variant, dev, size, gflops, vendor, base, gbs=True):
    M, N, K = map(int, size.split("x"))
    c = {"GFLOP/s": gflops, vendor + "_GFLOP/s": base, "pct_of_" + vendor: 100 * gflops / base}
    if gbs:
        t = 2 * M * N * K / (gflops * 1e9)
        c["GB/s"] = 4 * (M * K + K * N + M * N) / t / 1e9
    return row(f"matmul/{variant}/{dev}/{size}/manual_time", **c)

def mem(name, gbs, base, gflops=None):
    c = {"GB/s": gbs, "memcpy_GB/s": base, "pct_of_memcpy": 100 * gbs / base}
    if gflops:
        c["GFLOP/s"] = gflops
    return row(name, **c)

full = [
    mem("memcpy/cuda:0/1024MiB/manual_time", 2990, 2995),
    mem("copy/cuda:0/1024MiB/manual_time", 3000, 2995),
    mem("vector_add/cuda:0/1024MiB/manual_time", 3040, 2995, 253),
    mem("transpose/naive/cuda:0/8192x8192/min_time:0.500/manual_time", 470, 2920),
    mem("transpose/smem/cuda:0/8192x8192/min_time:0.500/manual_time", 1000, 2920),
    mem("transpose/best/cuda:0/8192x8192/min_time:0.500/manual_time", 2540, 2920),
    mem("moving_average/naive/r8/cuda:0/268435456/min_time:0.500/manual_time", 1600, 2990, 3400),
    row("increment/coalesced/cuda:0/67108864/min_time:0.200/manual_time", ms=0.2, baseline_ms=0.2, x_baseline=1.0),
    row("bank_reads/word_stride:2/cuda:0/min_time:0.200/manual_time", ms=4.1, baseline_ms=2.7, x_baseline=1.5),
    row("bank_reads/word_stride:4/cuda:0/min_time:0.200/manual_time", ms=8.2, baseline_ms=2.7, x_baseline=3.0),
    mm("naive", "cuda:0", "4096x4096x4096", 3100, "cuBLAS", 51000),
    mm("smem_tiled16", "cuda:0", "4096x4096x4096", 8100, "cuBLAS", 51000),
    mm("warp_tiled", "cuda:0", "4096x4096x4096", 38000, "cuBLAS", 51000),
    mm("best", "cuda:0", "1024x1024x1024", 22000, "cuBLAS", 32000),
    mm("best", "cuda:0", "8192x8192x8192", 39000, "cuBLAS", 51300),
    mem("copy/cpu/64MiB/manual_time", 10, 11),
    mm("naive", "cpu", "512x512x512", 1.0, "OpenBLAS", 77),
    mm("register_tiled", "cpu", "1024x1024x1024", 50, "OpenBLAS", 66),
    mm("warp_tiled", "cpu", "1024x1024x1024", 30, "OpenBLAS", 66),
]
# Repetitions: three iteration rows and their aggregates for one row; the median must be the one used.
for i, g in enumerate((9.0, 12.0, 13.0)):
    r = mem("vector_add/cpu/64MiB/manual_time", g, 11, g / 12)
    r["repetition_index"] = i
    full.append(r)
for agg, g in (("mean", 11.3), ("median", 12.0), ("stddev", 2.0)):
    r = mem("vector_add/cpu/64MiB/manual_time_" + agg, g, 11, g / 12)
    r.update(run_type="aggregate", aggregate_name=agg, run_name="vector_add/cpu/64MiB/manual_time")
    full.append(r)
json.dump({"context": ctx, "benchmarks": full}, open(f"{d}/full.json", "w"), indent=1)

# An older tk-bench: matmul rows without GB/s (no intensity), one row in error.
old = [mm("naive", "cuda:0", "4096x4096x4096", 3100, "cuBLAS", 51000, gbs=False),
       mm("warp_tiled", "cuda:0", "4096x4096x4096", 38000, "cuBLAS", 51000, gbs=False),
       mem("copy/cuda:0/1024MiB/manual_time", 3000, 2995),
       dict(row("matrix_add/cuda:0/1024MiB/manual_time"), error_occurred=True, error_message="out of memory")]
json.dump({"context": ctx, "benchmarks": old}, open(f"{d}/old.json", "w"))

# tk-bench --sweep: two ops on one device, SGEMM against its vendor, transpose against memcpy.
sw = [row(f"sweep/sgemm/cuda:0/{s}/manual_time", **{"GFLOP/s": g, "cuBLAS_GFLOP/s": 50000,
                                                   "pct_of_cuBLAS": g / 500}) for s, g in
      (("4096x4096x4096", 46000), ("4095x4095x4095", 43000), ("1x8192x8192", 900))]
sw += [mem(f"sweep/transpose/cuda:0/{s}/manual_time", g, 3000) for s, g in (("8192x8192", 2800), ("16x1048576", 600))]
json.dump({"context": ctx, "benchmarks": sw}, open(f"{d}/sweep.json", "w"))

json.dump({"context": ctx, "benchmarks": [row("increment/coalesced/cpu/3145728/iterations:5/manual_time",
                                              ms=1.0, baseline_ms=1.0, x_baseline=1.0)]}, open(f"{d}/experiments.json", "w"))
json.dump({"context": ctx, "benchmarks": [row("BM_Foo/1024", GB_s=1.0)]}, open(f"{d}/foreign.json", "w"))
json.dump({"rows": []}, open(f"{d}/notbench.json", "w"))
open(f"{d}/notjson.json", "w").write("Benchmark  Time  CPU\n---\n")
EOF

expect_files() {  # label dir files...
  local label=$1 dir=$2 missing=()
  shift 2
  for f in "$@"; do
    for ext in png svg; do
      [[ -s "$dir/$f.$ext" ]] || missing+=("$f.$ext")
    done
    head -c 8 "$dir/$f.png" 2>/dev/null | grep -q PNG || missing+=("$f.png (not a PNG)")
    grep -q "<svg" "$dir/$f.svg" 2>/dev/null || missing+=("$f.svg (not an SVG)")
  done
  if ((${#missing[@]})); then fail "$label: missing ${missing[*]}"; else pass "$label"; fi
}

# 1. A complete file: a roofline and the progressions of every device.
if "$plot" "$tmp/full.json" --out "$tmp/full" --title "test" >"$tmp/full.out" 2>"$tmp/full.err"; then
  expect_files "full: charts written" "$tmp/full" roofline-cuda0 roofline-cpu progression-matmul-cuda0 \
    progression-transpose-cuda0 progression-matmul-cpu
  [[ $(grep -c . "$tmp/full.out") == 10 ]] && pass "full: prints the 10 paths" || fail "full: paths printed: $(cat "$tmp/full.out")"
  [[ ! -e "$tmp/full/progression-copy-cuda0.png" ]] && pass "full: no progression for a single-variant op" \
    || fail "full: progression for copy"
  grep -q "bank_reads.*skipped" "$tmp/full.err" && pass "full: experiment op skipped with a message" \
    || fail "full: no message for bank_reads: $(cat "$tmp/full.err")"
else
  fail "full: exit status $? ($(cat "$tmp/full.err"))"
fi

# The rows as parsed: op/variant/device/size from the name, the median aggregate over repetitions.
if /usr/bin/python3 - "$plot" "$tmp/full.json" <<'EOF'
import importlib.machinery, sys
plot = importlib.machinery.SourceFileLoader("plot", sys.argv[1]).load_module()
_, rows = plot.load_rows(sys.argv[2])
by = {r.run_name: r for r in rows}
t = by["transpose/smem/cuda:0/8192x8192/min_time:0.500/manual_time"]
assert (t.op, t.variant, t.device, t.size) == ("transpose", "smem", "cuda:0", "8192x8192"), vars(t)
m = by["moving_average/naive/r8/cuda:0/268435456/min_time:0.500/manual_time"]
assert (m.op, m.variant, m.size) == ("moving_average", "naive/r8", "268435456"), vars(m)
b = by["bank_reads/word_stride:2/cuda:0/min_time:0.200/manual_time"]
assert (b.variant, b.device, b.size, b.main()) == ("word_stride:2", "cuda:0", "", None), vars(b)
c = by["copy/cpu/64MiB/manual_time"]
assert (c.variant, c.main()[0], c.main()[2]) == ("-", "GB/s", "memcpy"), vars(c)
v = by["vector_add/cpu/64MiB/manual_time"]
assert v.gbs == 12.0 and len([r for r in rows if r.run_name == v.run_name]) == 1, v.gbs
w = by["matmul/warp_tiled/cpu/1024x1024x1024/manual_time"]
assert w.main()[0] == "GFLOP/s" and w.main()[2] == "OpenBLAS" and abs(w.main()[4] - 100 * 30 / 66) < 1e-9
EOF
then pass "parsing: names and median aggregates"; else fail "parsing"; fi

# 2. Missing counters: charts still written, the rows without GB/s named on stderr, the error row skipped.
if "$plot" "$tmp/old.json" --out "$tmp/old" >"$tmp/old.out" 2>"$tmp/old.err"; then
  expect_files "old: charts written" "$tmp/old" roofline-cuda0 progression-matmul-cuda0
  grep -q "no GB/s" "$tmp/old.err" && pass "old: rows without GB/s reported" || fail "old: $(cat "$tmp/old.err")"
  grep -q "out of memory" "$tmp/old.err" && pass "old: error row reported" || fail "old: error row not reported"
else
  fail "old: exit status $? ($(cat "$tmp/old.err"))"
fi

# 2b. A sweep: one chart per op and device, none of the suite's (no roofline, no progression from it).
if "$plot" "$tmp/sweep.json" --out "$tmp/sweep" >"$tmp/sweep.out" 2>"$tmp/sweep.err"; then
  expect_files "sweep: a chart per op" "$tmp/sweep" sweep-sgemm-cuda0 sweep-transpose-cuda0
  [[ ! -e "$tmp/sweep/roofline-cuda0.png" && ! -e "$tmp/sweep/progression-sweep-cuda0.png" ]] \
    && pass "sweep: no roofline or progression from sweep rows" || fail "sweep: suite charts drawn from sweep rows"
else
  fail "sweep: exit status $? ($(cat "$tmp/sweep.err"))"
fi

# 3. Files that must be refused, with a message naming the problem.
refuse() {  # label file pattern
  if "$plot" "$2" --out "$tmp/refused" >/dev/null 2>"$tmp/err"; then
    fail "$1: accepted"
  elif grep -q "$3" "$tmp/err"; then
    pass "$1: refused ($(head -c 90 "$tmp/err"))"
  else
    fail "$1: message $(cat "$tmp/err")"
  fi
}
refuse "not JSON" "$tmp/notjson.json" "is not JSON"
refuse "not Google Benchmark JSON" "$tmp/notbench.json" "not Google Benchmark JSON"
refuse "no tk-bench rows" "$tmp/foreign.json" "no tk-bench rows"
refuse "nothing to draw" "$tmp/experiments.json" "no chart could be drawn"
refuse "missing file" "$tmp/absent.json" "cannot read"

if ((fails)); then echo "$fails failed"; exit 1; fi
echo "all passed"
