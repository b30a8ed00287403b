#!/usr/bin/env bash
# tools/tk_info_test.sh <tk-info> — tk-info's command-line conventions (ctest cpu.TkInfo.CommandLine): --help
# exits 0 with the usage on stdout; --version names tilekit's version and commit; an unknown argument exits 2;
# --json is one JSON document whose CPU has its peak FLOP/s and a measured bandwidth, and which names why each
# absent backend is absent; the CPU's text names its peak, measured bandwidth and vendor; --device=kokkos describes the
# Kokkos device where the build has one, or says why not.
set -uo pipefail
info=${1:?tk-info}
fail() { echo "tk_info_test: $*" >&2; exit 1; }
out=$("$info" --help) || fail "--help: exit $?"
grep -q "^usage: tk-info" <<<"$out" || fail "--help: no usage: $out"
"$info" --version | grep -qE '^tk-info \(tilekit [0-9]+\.[0-9]+\.[0-9]+, commit ([0-9a-f]{12}(-dirty)?|unknown)\)$' \
  || fail "--version: $("$info" --version)"
"$info" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown argument does not exit 2"
"$info" --device=cpu --json >"${TMPDIR:-/tmp}/tk-info-$$.json" || fail "--json: exit $?"
python3 - "${TMPDIR:-/tmp}/tk-info-$$.json" <<'PY' || { rm -f "${TMPDIR:-/tmp}/tk-info-$$.json"; fail "--json"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tilekit"]["version"] and d["tilekit"]["commit"], d["tilekit"]
cpu = d["devices"][0]
assert cpu["name"] == "cpu", cpu
assert cpu["memory_bandwidth_gbs"] > 0, cpu
assert isinstance(cpu["vendor"], str), cpu  # /proc/cpuinfo's vendor_id, "" where there is none
assert cpu["clock_khz"] == 0 or cpu["peak_fp32_gflops"] > 0, cpu
# the FMA pipes' width: at most the ISA's vector, and a known one (the stencil's row sweeps read it)
assert cpu["simd_datapath_bits"] in (128, 256, 512) and cpu["simd_datapath_bits"] <= cpu["simd_width_bits"], cpu
assert all(isinstance(v, str) and v for v in d["absent"].values()), d["absent"]
PY
rm -f "${TMPDIR:-/tmp}/tk-info-$$.json"
text=$("$info" --device=cpu) || fail "--device=cpu: exit $?"
grep -qE "^  peak \(FMA = 2 FLOPs\) +([0-9.]+ GFLOP/s FP32|unknown)" <<<"$text" || fail "no CPU peak: $text"
grep -qE "^  memory bandwidth, measured +[0-9.]+ GB/s" <<<"$text" || fail "no measured bandwidth: $text"
if grep -qs "^vendor_id" /proc/cpuinfo; then  # the rules that differ by vendor (the stencil's order) read it
  grep -qE "^  vendor +$(grep -m1 '^vendor_id' /proc/cpuinfo | sed 's/.*: *//')$" <<<"$text" || fail "no vendor: $text"
fi
if out=$("$info" --device=kokkos 2>&1); then
  grep -q "^kokkos: the Kokkos cross-check" <<<"$out" || fail "--device=kokkos: $out"
else
  grep -q "kokkos backend is not built in" <<<"$out" || fail "--device=kokkos refused without the reason: $out"
fi
# a backend without a device: the reason (not built, no driver, no GPU), exit 2; or its device's table
if out=$("$info" --device=hip 2>&1); then
  grep -q "^hip:0" <<<"$out" || fail "--device=hip: exit 0 without a hip device: $out"
else
  grep -qE "^tk-info: no device 'hip' here: ." <<<"$out" || fail "--device=hip refused without a reason: $out"
fi
"$info" --device=h100 --json >/dev/null 2>&1 && fail "--json with a datasheet device accepted"
echo "tk_info_test: passed"
