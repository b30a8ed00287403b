#!/usr/bin/env bash
# netlib's level-3 BLAS test programs (Debian's libblas-test: xblat3s, xblat3d, xscblat3, xdcblat3) with SGEMM
# and DGEMM, Fortran and CBLAS, routed to libtilekit_blas and every other routine to the reference BLAS.
#   tools/blas-test.sh path/to/libtilekit_blas.so
# The library is preloaded (LD_PRELOAD) in front of the reference libblas.so.3, which the programs find first
# on LD_LIBRARY_PATH (not the one Debian's alternatives pick, e.g. OpenBLAS). Every GEMM is tested with error
# exits, with N, M and K in 0 1 2 3 5 9 16 33 65, op(A) and op(B) N, T and C, alpha 0, 1, 0.7 and beta 0, 1, 1.3
# (and both layouts for CBLAS). The run fails unless each program ends normally, reports PASS for its GEMM's
# error exits and computational tests, reports no failure anywhere, and its sgemm_/dgemm_/cblas_?gemm calls
# were bound to our library (the dynamic linker's own record, LD_DEBUG=bindings); and unless DGEMM, with
# TK_BLAS_DEVICE set to a device that does not exist, aborts with tilekit_blas's message (our code did run).
# TK_BLAS_DEVICE (default cpu) picks the device the GEMMs run on; TK_BLAS_TEST_DIR where the programs are.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 path/to/libtilekit_blas.so" >&2
  exit 2
fi
lib=$(realpath "$1")
[ -f "$lib" ] || { echo "blas-test: no library $1" >&2; exit 2; }

dir=${TK_BLAS_TEST_DIR:-}
if [ -z "$dir" ]; then
  xblat3s=$(dpkg -L libblas-test 2>/dev/null | grep '/xblat3s$' || true)
  dir=$(dirname "${xblat3s:-/usr/lib/x86_64-linux-gnu/blas/xblat3s}")
fi
for p in xblat3s xblat3d xscblat3 xdcblat3; do
  if [ ! -x "$dir/$p" ]; then
    echo "blas-test: no $dir/$p: install libblas-test (tools/setup.sh) or set TK_BLAS_TEST_DIR" >&2
    exit 2
  fi
done
if [ ! -f "$dir/libblas.so.3" ]; then
  echo "blas-test: no reference BLAS $dir/libblas.so.3 (Debian's libblas3)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The input files: the packaged ones' format (sblat3.in, sin3), with more sizes (the programs allow 9, up to 65).
sizes="9                 NUMBER OF VALUES OF N
0 1 2 3 5 9 16 33 65   VALUES OF N
3                 NUMBER OF VALUES OF ALPHA
0.0 1.0 0.7       VALUES OF ALPHA
3                 NUMBER OF VALUES OF BETA
0.0 1.0 1.3       VALUES OF BETA"
fortran_input() {  # $1: S or D
  cat <<EOF
'summary.out'     NAME OF SUMMARY OUTPUT FILE
6                 UNIT NUMBER OF SUMMARY FILE
'snapshot.out'    NAME OF SNAPSHOT OUTPUT FILE
-1                UNIT NUMBER OF SNAPSHOT FILE (NOT USED IF .LT. 0)
F        LOGICAL FLAG, T TO REWIND SNAPSHOT FILE AFTER EACH RECORD.
F        LOGICAL FLAG, T TO STOP ON FAILURES.
T        LOGICAL FLAG, T TO TEST ERROR EXITS.
16.0     THRESHOLD VALUE OF TEST RATIO
$sizes
${1}GEMM  T PUT F FOR NO TEST. SAME COLUMNS.
${1}SYMM  T PUT F FOR NO TEST. SAME COLUMNS.
${1}TRMM  T PUT F FOR NO TEST. SAME COLUMNS.
${1}TRSM  T PUT F FOR NO TEST. SAME COLUMNS.
${1}SYRK  T PUT F FOR NO TEST. SAME COLUMNS.
${1}SYR2K T PUT F FOR NO TEST. SAME COLUMNS.
EOF
}
cblas_input() {  # $1: s or d
  cat <<EOF
'snapshot.out'    NAME OF SNAPSHOT OUTPUT FILE
-1                UNIT NUMBER OF SNAPSHOT FILE (NOT USED IF .LT. 0)
F        LOGICAL FLAG, T TO REWIND SNAPSHOT FILE AFTER EACH RECORD.
F        LOGICAL FLAG, T TO STOP ON FAILURES.
T        LOGICAL FLAG, T TO TEST ERROR EXITS.
2        0 TO TEST COLUMN-MAJOR, 1 TO TEST ROW-MAJOR, 2 TO TEST BOTH
16.0     THRESHOLD VALUE OF TEST RATIO
$sizes
cblas_${1}gemm  T PUT F FOR NO TEST. SAME COLUMNS.
cblas_${1}symm  T PUT F FOR NO TEST. SAME COLUMNS.
cblas_${1}trmm  T PUT F FOR NO TEST. SAME COLUMNS.
cblas_${1}trsm  T PUT F FOR NO TEST. SAME COLUMNS.
cblas_${1}syrk  T PUT F FOR NO TEST. SAME COLUMNS.
cblas_${1}syr2k T PUT F FOR NO TEST. SAME COLUMNS.
EOF
}

# Runs $1 on input $2 in $work/$3/ with our library preloaded; stdout, stderr and the bindings stay there.
run_program() {
  local program=$1 input=$2 out=$work/$3
  mkdir -p "$out"
  (cd "$out" &&
   LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$lib" \
   LD_DEBUG=bindings LD_DEBUG_OUTPUT="$out/bindings" \
   "$dir/$program" < "$input" > stdout.txt 2> stderr.txt)
}

echo "blas-test: $lib (TK_BLAS_DEVICE=${TK_BLAS_DEVICE:-cpu}), the reference BLAS and testers of $dir"
failed=0
fail() {  # $1: program (its run's folder), $2: why; prints the parts of its output that tell what went wrong
  local program=$1 report=$work/$1/stdout.txt
  [ -f "$work/$1/summary.out" ] && report=$work/$1/summary.out
  echo "FAIL  $program: $2"
  echo "----- $program: its GEMM lines and every failure report:"
  grep -nE 'GEMM|gemm|FAIL|FATAL|\*\*|ERROR|NOT DETECTED|INSTEAD OF' "$report" | head -n 60 || true
  if [ -s "$work/$program/stderr.txt" ]; then
    echo "----- $program: stderr (last 20 lines):"
    tail -n 20 "$work/$program/stderr.txt"
  fi
  echo "-----"
  failed=1
}

for spec in "xblat3s SGEMM" "xblat3d DGEMM" "xscblat3 cblas_sgemm" "xdcblat3 cblas_dgemm"; do
  read -r program routine <<< "$spec"
  case "$program" in
    xblat3s) fortran_input S > "$work/$program.in" ;;
    xblat3d) fortran_input D > "$work/$program.in" ;;
    xscblat3) cblas_input s > "$work/$program.in" ;;
    xdcblat3) cblas_input d > "$work/$program.in" ;;
  esac
  rc=0
  run_program "$program" "$work/$program.in" "$program" || rc=$?
  if [ "$program" = xblat3s ] || [ "$program" = xblat3d ]; then
    report=$work/$program/summary.out
    required=("$routine  PASSED THE TESTS OF ERROR-EXITS" "$routine  PASSED THE COMPUTATIONAL TESTS")
  else
    report=$work/$program/stdout.txt
    required=("$routine  PASSED THE TESTS OF ERROR-EXITS" "$routine  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS"
              "$routine  PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS")
  fi
  symbol=$(echo "$routine" | tr 'A-Z' 'a-z'); [ "${symbol#cblas_}" = "$symbol" ] && symbol=${symbol}_
  if [ "$rc" -ne 0 ]; then fail "$program" "exit status $rc"; continue; fi
  if [ ! -f "$report" ]; then fail "$program" "no report $report"; continue; fi
  why=""
  for line in "${required[@]}"; do
    grep -qF " $line" "$report" || why="no line '$line'"
  done
  grep -qF " END OF TESTS" "$report" || why="no END OF TESTS"
  if grep -qE 'FAIL|FATAL|\*\*\*\*' "$report" "$work/$program/stdout.txt"; then why="failures reported"; fi
  # the dynamic linker's record: the program's own calls to the GEMM bound to our library, SSYMM's to the
  # reference BLAS
  bindings=$(cat "$work/$program"/bindings.* 2>/dev/null || true)
  if ! grep -qF "binding file $dir/$program [0] to $lib [0]: normal symbol \`$symbol'" <<< "$bindings"; then
    why="$symbol not bound to $lib (LD_DEBUG=bindings)"
  fi
  other=$(echo "$routine" | sed 's/gemm/symm/; s/GEMM/SYMM/' | tr 'A-Z' 'a-z'); [ "${other#cblas_}" = "$other" ] && other=${other}_
  if ! grep -qF "binding file $dir/$program [0] to $dir/libblas.so.3 [0]: normal symbol \`$other'" <<< "$bindings"; then
    why="$other not bound to the reference $dir/libblas.so.3 (LD_DEBUG=bindings)"
  fi
  if [ -n "$why" ]; then fail "$program" "$why"; continue; fi
  echo "ok    $program:"
  grep -E "^ *($routine) +PASSED" "$report" | sed 's/^ */        /'
done

# Negative control: DGEMM on a device that does not exist must stop the program with our message.
rc=0
TK_BLAS_DEVICE=no-such-device run_program xblat3d "$work/xblat3d.in" no-device 2>/dev/null || rc=$?  # (bash's "Aborted")
if [ "$rc" -ne 0 ] && grep -q "^tilekit_blas: TK_BLAS_DEVICE=no-such-device: " "$work/no-device/stderr.txt"; then
  echo "ok    xblat3d with TK_BLAS_DEVICE=no-such-device: stopped (exit status $rc) by"
  grep "^tilekit_blas: " "$work/no-device/stderr.txt" | sed 's/^/        /'
else
  fail no-device "xblat3d with TK_BLAS_DEVICE=no-such-device: exit status $rc, no 'tilekit_blas: TK_BLAS_DEVICE=' message"
fi

if [ "$failed" -ne 0 ]; then
  echo "blas-test: FAILED"
  exit 1
fi
echo "blas-test: passed"
