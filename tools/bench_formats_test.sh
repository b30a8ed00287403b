#!/usr/bin/env bash
# tools/bench_formats_test.sh <tk-bench> — every output format of tk-bench on a few small CPU rows whose counters
# differ (memcpy and copy: GB/s; vector_add: GB/s and GFLOP/s; a GEMM row: GFLOP/s and OpenBLAS's), where Google
# Benchmark's own CSV writer aborts:
#   --benchmark_format=json   stdout is one JSON document; its context names tilekit's version, commit, devices,
#                             CPU kernel copy and threads; every row's real_time is its `ms` (the median) and it
#                             carries `noisy`
#   --benchmark_format=csv    stdout is CSV, every line as many fields as the header, with the counters' columns
#   --benchmark_out=F --benchmark_out_format=json|csv   the file as above, the table still on the console
#   --benchmark_repetitions=3 the table has one line per row ("median of 3"); the JSON has the aggregates with
#                             repeat_spread_pct
#   --sweep, --experiments    CSV and JSON as well
#   --version                 tilekit's version and commit
set -euo pipefail
bench=${1:?tk-bench}
py=$(command -v python3) || { echo "bench_formats_test: needs python3 (json, csv)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "bench_formats_test: $*" >&2; exit 1; }
rows=(--device=cpu --size-mib=2 --benchmark_filter='^(memcpy|copy|vector_add|gemm/sgemm_NN/best/cpu/1024)')

"$bench" --version | grep -qE '^tk-bench \(tilekit [0-9]+\.[0-9]+\.[0-9]+, commit ([0-9a-f]{12}(-dirty)?|unknown)\)' \
  || fail "--version: $("$bench" --version)"

"$bench" "${rows[@]}" --benchmark_format=json >"$dir/out.json" 2>"$dir/err.txt" || fail "json: exit $?"
"$py" - "$dir/out.json" <<'PY' || fail "json: $(head -c 2000 "$dir/out.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
ctx = doc["context"]
for key in ("tilekit_version", "tilekit_commit", "tilekit_devices", "tilekit_cpu_isa", "tilekit_cpu_threads",
            "tilekit_cpu_compiler"):
    assert ctx.get(key), f"context lacks {key}: {ctx}"
names = [b["name"] for b in doc["benchmarks"]]
assert any(n.startswith("memcpy/") for n in names) and any(n.startswith("gemm/") for n in names), names
for b in doc["benchmarks"]:
    assert "noisy" in b, b
    assert abs(b["real_time"] - b["ms"]) <= 1e-9 * max(1.0, b["ms"]), f"real_time is not the median: {b}"
    assert b["time_unit"] == "ms", b
print("json ok:", len(names), "rows")
PY
grep -q "^device cpu" "$dir/err.txt" || fail "json: the device line is not on stderr"

"$bench" "${rows[@]}" --benchmark_format=csv >"$dir/out.csv" 2>/dev/null || fail "csv: exit $?"
check_csv() {
  "$py" - "$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
assert head[:4] == ["name", "iterations", "real_time", "cpu_time"], head
for col in ("GB/s", "GFLOP/s", "noisy", "ms", "pct_of_memcpy"):
    assert col in head, f"no {col} column: {head}"
assert len(rows) >= 4, rows
for r in rows[1:]:
    assert len(r) == len(head), f"{len(r)} fields, header {len(head)}: {r}"
    assert abs(float(r[2]) - float(r[head.index("ms")])) <= 1e-6 * float(r[2]), f"real_time is not the median: {r}"
print("csv ok:", len(rows) - 1, "rows")
PY
}
check_csv "$dir/out.csv" || fail "csv: $(head -c 2000 "$dir/out.csv")"

for f in json csv; do
  "$bench" "${rows[@]}" --benchmark_out="$dir/file.$f" --benchmark_out_format=$f >"$dir/table.txt" 2>/dev/null \
    || fail "--benchmark_out_format=$f: exit $?"
  grep -q "^row .* ms .*% of ceiling" "$dir/table.txt" || fail "--benchmark_out_format=$f: no table on the console"
done
check_csv "$dir/file.csv" || fail "csv file: $(head -c 2000 "$dir/file.csv")"
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["benchmarks"] and d["context"]["tilekit_commit"]' \
  "$dir/file.json" || fail "json file"

"$bench" --device=cpu --size-mib=2 --benchmark_filter='^copy' --benchmark_repetitions=3 \
  --benchmark_out="$dir/rep.json" --benchmark_out_format=json >"$dir/rep.txt" 2>/dev/null || fail "repetitions: exit $?"
cat "$dir/rep.txt"
[ "$(grep -c '^copy/' "$dir/rep.txt")" = 1 ] || fail "repetitions: not one line per row"
grep -qE '^copy/cpu/2MiB \(median of 3\) +[0-9.]+ ' "$dir/rep.txt" || fail "repetitions: no median line"
"$py" - "$dir/rep.json" <<'PY' || fail "repetitions json"
import json, sys
bs = json.load(open(sys.argv[1]))["benchmarks"]
aggs = {b.get("aggregate_name"): b for b in bs if b.get("run_type") == "aggregate"}
assert {"mean", "median", "stddev"} <= set(aggs), aggs.keys()
assert "repeat_spread_pct" in aggs["median"] and "noisy" in aggs["median"], aggs["median"]
assert sum(1 for b in bs if b.get("run_type") == "iteration") == 3
PY
# the sweep and the experiments in CSV and JSON too (their rows carry other counters again)
"$bench" --device=cpu --shapes=33x17x9,5x7 --benchmark_format=csv >"$dir/sweep.csv" 2>/dev/null || fail "sweep csv: exit $?"
check_csv "$dir/sweep.csv" || fail "sweep csv: $(cat "$dir/sweep.csv")"
"$bench" --device=cpu --experiments --benchmark_filter='^strided_read/stride:(1|2)/offset:0/' --benchmark_format=json \
  >"$dir/exp.json" 2>/dev/null || fail "experiments json: exit $?"
"$py" -c 'import json,sys; b=json.load(open(sys.argv[1]))["benchmarks"]; assert len(b) == 2 and all("x_baseline" in r for r in b), b' \
  "$dir/exp.json" || fail "experiments json: $(head -c 2000 "$dir/exp.json")"
for bad in --benchmark_format=xml --benchmark_out_format=console; do
  if "$bench" "${rows[@]}" "$bad" >/dev/null 2>&1; then fail "$bad accepted"; fi
done
echo "bench_formats_test: ok"
