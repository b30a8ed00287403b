#!/usr/bin/env bash
# tools/check-isa.sh <libtilekit.a> — checks that a static tilekit built with runtime dispatch (TK_CPU_ARCH=
# dispatch) runs on any x86-64-v2 CPU: no archive member but the -v3 and -v4 kernel copies (tk_cpu_v3.o,
# tk_cpu_v4.o) holds an instruction above x86-64-v2 (AVX, AVX2, AVX-512, FMA, BMI1/2, LZCNT, MOVBE: VEX and
# EVEX encodings, ymm/zmm/mask registers), and the two copies do use their instruction sets (ymm in v3, zmm
# in v4, no zmm in v3). Exit 1 with the offending member, function and instruction otherwise.
# Also: each copy's only global definitions are its launchers (tk::launchers::cpu_vN), so that no copy can
# bind to another's code (cmake/TkKernelSources.cmake).
set -euo pipefail
lib=${1:?usage: tools/check-isa.sh path/to/libtilekit.a}
[ -f "$lib" ] || { echo "check-isa: no file $lib" >&2; exit 2; }
command -v objdump >/dev/null || { echo "check-isa: objdump (binutils) is needed" >&2; exit 2; }

objdump -d --no-show-raw-insn "$lib" | awk -v lib="$lib" '
  # "member.o:     file format elf64-x86-64" starts a member; "<symbol>:" a function
  /^[^ \t].*:[ \t]+file format / { member = $1; sub(/:$/, "", member); members[member] = 1; next }
  /^[0-9a-f]+ <.*>:$/ { fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn); next }
  /^[ \t]+[0-9a-f]+:\t/ {
    split($0, f, "\t"); insn = f[2]; split(insn, w, " "); op = w[1]
    above = (op ~ /^v[a-z]/ && op != "verr" && op != "verw") || insn ~ /%[yz]mm|%k[0-7]/ ||
            op ~ /^(andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx|lzcnt|tzcnt|movbe)$/
    if (insn ~ /%zmm/) zmm[member]++
    if (insn ~ /%ymm/) ymm[member]++
    if (!above) next
    count[member]++
    if (member != "tk_cpu_v3.o" && member != "tk_cpu_v4.o" && shown[member]++ < 5)
      printf "check-isa: %s: %s: \"%s\" is above x86-64-v2\n", member, fn, insn
  }
  END {
    bad = 0; n = 0
    for (m in members) {
      n++
      if (m != "tk_cpu_v3.o" && m != "tk_cpu_v4.o" && count[m] > 0) {
        printf "check-isa: %s holds %d instructions above x86-64-v2\n", m, count[m]; bad = 1
      }
    }
    if (!("tk_cpu_v2.o" in members) || !("tk_cpu_v3.o" in members) || !("tk_cpu_v4.o" in members)) {
      print "check-isa: " lib " lacks tk_cpu_v2.o, tk_cpu_v3.o or tk_cpu_v4.o (not a TK_CPU_ARCH=dispatch build?)"; exit 1
    }
    if (ymm["tk_cpu_v3.o"] == 0 || zmm["tk_cpu_v3.o"] > 0) {
      printf "check-isa: tk_cpu_v3.o has %d ymm and %d zmm instructions; expected AVX2 and no AVX-512\n", ymm["tk_cpu_v3.o"], zmm["tk_cpu_v3.o"]; bad = 1
    }
    if (zmm["tk_cpu_v4.o"] == 0) { print "check-isa: tk_cpu_v4.o has no AVX-512 (zmm) instruction"; bad = 1 }
    if (bad) exit 1
    printf "check-isa: %s: %d members; all but the v3 and v4 kernel copies within x86-64-v2; tk_cpu_v3.o %d ymm instructions, tk_cpu_v4.o %d zmm\n", lib, n, ymm["tk_cpu_v3.o"], zmm["tk_cpu_v4.o"]
  }'

abs=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for level in v2 v3 v4; do
  (cd "$tmp" && ar x "$abs" "tk_cpu_$level.o")
  others=$(nm -g --defined-only "$tmp/tk_cpu_$level.o" | awk '{print $NF}' | grep -v "^_ZN2tk9launchers6cpu_$level" || true)
  if [ -n "$others" ]; then
    echo "check-isa: tk_cpu_$level.o defines global symbols besides its launchers:"; echo "$others" | head -5; exit 1
  fi
done
echo "check-isa: each kernel copy's only global symbols are its own launchers"
