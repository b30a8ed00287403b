#!/usr/bin/env bash
# tools/bench_table_test.sh <tk-bench> — tk-bench's table on a few small CPU rows: a header, every line within
# 120 columns, plain numbers (no SI suffixes such as 6.77m), one memcpy row per size at 100% of itself, every
# other memory row set against it by name, the experiments absent from the suite (they have --experiments),
# --shapes: the sweep's rows for the shapes given, and an error for a malformed one; --ops: the SGEMM
# storages asked for, each transposed one summed up against NN, and an error for a malformed one.
set -euo pipefail
bench=${1:?tk-bench}
out=$("$bench" --device=cpu --size-mib=4 --benchmark_filter='^(memcpy|copy|vector_add|strided_read)' 2>/dev/null)
echo "$out"
fail() { echo "bench_table_test: $*"; exit 1; }
echo "$out" | grep -q "^row .* ms .*% of ceiling" || fail "no header"
[ "$(echo "$out" | awk 'length > 120' | wc -l)" = 0 ] || fail "lines over 120 columns"
[ "$(echo "$out" | grep -c '^memcpy/cpu/4MiB ')" = 1 ] || fail "not exactly one memcpy row"
echo "$out" | grep -qE '^memcpy/cpu/4MiB .* 100\.0 memcpy' || fail "the memcpy row is not its own ceiling"
echo "$out" | grep -qE '^copy/cpu/4MiB .* [0-9]+\.[0-9] memcpy' || fail "the copy row is not set against memcpy"
if echo "$out" | grep -E '^[a-z]' | grep -qE '[0-9](k|m|M|G|u)( |$)'; then fail "a number with an SI suffix"; fi
if echo "$out" | grep -q '^strided_read'; then fail "an experiment in the suite"; fi
exp=$("$bench" --device=cpu --experiments --benchmark_filter='^strided_read/stride:1/' 2>/dev/null)
echo "$exp" | grep -qE '^strided_read/stride:1/offset:0/cpu/[0-9]+ .*x[0-9.]+ the baseline' || fail "--experiments: $exp"
sw=$("$bench" --device=cpu --shapes=33x17x9,5x7 2>/dev/null)
echo "$sw"
# (sgemm_vector, transpose_vector and stencil_vector: std::vector data, CPU rows)
for row in sweep/sgemm/cpu/33x17x9 sweep/sgemm_vector/cpu/33x17x9 sweep/transpose/cpu/5x7 sweep/transpose_vector/cpu/5x7 \
  sweep/stencil_5point/cpu/5x7 sweep/stencil_vector/cpu/5x7; do
  echo "$sw" | grep -q "^$row " || fail "--shapes: no $row row"
done
[ "$(echo "$sw" | grep -c '^sweep/')" = 6 ] || fail "--shapes: rows other than the six asked for"
echo "$sw" | grep -q "geometric mean" || fail "--shapes: no summary"
# --ops: SGEMM in the storages asked for, NN's row named as before, and each transposed one summed up
# against NN shape by shape
so=$("$bench" --device=cpu --shapes=33x17x9 --ops=NN,TN,NT 2>/dev/null)
echo "$so"
for row in sweep/sgemm/cpu/33x17x9 sweep/sgemm_TN/cpu/33x17x9 sweep/sgemm_NT/cpu/33x17x9 sweep/sgemm_vector/cpu/33x17x9 \
  sweep/sgemm_TN_vector/cpu/33x17x9 sweep/sgemm_NT_vector/cpu/33x17x9; do
  echo "$so" | grep -q "^$row " || fail "--ops: no $row row"
done
[ "$(echo "$so" | grep -c '^sweep/sgemm')" = 6 ] || fail "--ops: SGEMM rows other than the three asked for (and their std::vector rows)"
for op in NT TN NT_vector; do
  echo "$so" | grep -qE "^  sgemm_$op \(NN, cpu\) +1 shapes  geometric mean +[0-9.]+%" || fail "--ops: no $op summary against NN"
done
for bad in NX N TTT nn NN,,TT; do
  if "$bench" --device=cpu --ops="$bad" --shapes=5x5x5 >/dev/null 2>&1; then fail "--ops=$bad accepted"; fi
done
# a fourth number is a strided batch of SGEMMs (the name carries it)
sb=$("$bench" --device=cpu --shapes=9x7x5x3 2>/dev/null)
echo "$sb" | grep -q '^sweep/sgemm/cpu/9x7x5x3 ' || fail "--shapes: no batched row: $sb"
for bad in 33x0x9 33 1x2x3x4x5 9x7x5x0 33xx9 12a x5; do
  if "$bench" --device=cpu --shapes="$bad" >/dev/null 2>&1; then fail "--shapes=$bad accepted"; fi
done
echo "bench_table_test: ok"
