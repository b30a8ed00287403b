// The public entries of tilekit/memory_ops.hpp: the variant registries, argument checks, dispatch.
#include "tilekit/memory_ops.hpp"

#include <cstdint>

#include "dispatch.hpp"
#include "tilekit/detail/launchers.hpp"
#include "tilekit/detail/launchers_memory.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"
#include "checks.hpp"

namespace tk {

const std::vector<VariantInfo<TransposeVariant>>& transpose_variants() {
  static const std::vector<VariantInfo<TransposeVariant>> all{
      {TransposeVariant::naive, "naive", "one element per thread: coalesced reads, writes a float per burst", "003"},
      {TransposeVariant::smem, "smem", "through a 32 x 32 shared tile: coalesced both ways, 32-way bank conflict",
       "003"},
      {TransposeVariant::smem_padded, "smem_padded", "one padding float per tile row: conflict-free column reads",
       "003"},
  };
  return all;
}

const std::vector<VariantInfo<AosVariant>>& aos_variants() {
  static const std::vector<VariantInfo<AosVariant>> all{
      {AosVariant::direct, "direct", "three 4-byte loads 12 bytes apart per struct: uncoalesced", "003"},
      {AosVariant::smem_staged, "smem_staged", "coalesced loads and stores staged through shared memory", "003"},
  };
  return all;
}

const std::vector<VariantInfo<StencilVariant>>& stencil_variants() {
  static const std::vector<VariantInfo<StencilVariant>> all{
      {StencilVariant::naive, "naive", "every tap read from global memory (caches catch the reuse)", "000"},
      {StencilVariant::smem_tiled, "smem_tiled", "tile and halo loaded into shared memory once, taps from there",
       "000, 003"},
      {StencilVariant::best, "best",
       "5-point: rows streamed through registers, wide loads, no barrier; others: the faster of the two here",
       "000, 004"},
  };
  return all;
}

const std::vector<VariantInfo<IncrementPattern>>& increment_patterns() {
  static const std::vector<VariantInfo<IncrementPattern>> all{
      {IncrementPattern::coalesced, "coalesced", "a[i]++: one segment per warp (seed: t = 1.0)", "003"},
      {IncrementPattern::three_of_four, "three_of_four", "idle lanes cost nothing (seed: t = 1.0)", "003"},
      {IncrementPattern::fourth_to_a0, "fourth_to_a0", "a quarter of all threads update a[0] (seed: t = 24.6)",
       "003"},
      {IncrementPattern::fourth_to_block_start, "fourth_to_block_start",
       "a quarter of each block updates its first element (seed: t = 3.7)", "003"},
  };
  return all;
}

const std::vector<VariantInfo<BankPattern>>& bank_patterns() {
  static const std::vector<VariantInfo<BankPattern>> all{
      {BankPattern::word_stride, "word_stride", "words `stride` apart: conflict-free when the stride is odd", "003"},
      {BankPattern::two_words, "two_words", "a two-word struct per thread: 2-way conflicts", "003"},
      {BankPattern::three_words, "three_words", "a three-word struct per thread: conflict-free", "003"},
      {BankPattern::doubles, "doubles", "8-byte elements on 4-byte banks: 2-way", "003"},
      {BankPattern::bytes, "bytes", "four threads per word: a broadcast, no conflict", "003"},
  };
  return all;
}

namespace {

template <class V>
const char* name_in(const std::vector<VariantInfo<V>>& all, V v) {
  for (const auto& info : all)
    if (info.variant == v) return info.name;
  return "unknown";
}

template <class V>
bool listed(const std::vector<VariantInfo<V>>& all, V v) {
  for (const auto& info : all)
    if (info.variant == v) return true;
  return false;
}

using detail::Operand;
using detail::require;
using detail::require_nonnegative;

// A vector of n elements as an operand: one row.
Operand vec(const char* name, const void* p, std::int64_t n, const char* n_arg = "n") {
  return {name, p, 1, n, n, "1", n_arg, n_arg};
}

// Checks rows, cols and the two leading dimensions of a rows x cols in -> out stencil.
void require_matrix(std::int64_t rows, std::int64_t cols, std::int64_t ld_in, std::int64_t ld_out, const char* call) {
  require_nonnegative(call, "rows", rows);
  require_nonnegative(call, "cols", cols);
  detail::require_ld(call, "ld_in", ld_in, "cols", cols);
  detail::require_ld(call, "ld_out", ld_out, "cols", cols);
}

// Both operands fit in memory and `out` shares no element with `in`.
void require_out_in(const char* call, const Operand& out, const Operand& in) {
  detail::require_addressable(call, out);
  detail::require_addressable(call, in);
  detail::require_disjoint(call, out, in);
}

// n float3 structs in and out: the same array (an in-place update) or no element shared.
void require_float3s(const Device& dev, const char* call, std::int64_t n, const float* in, float* out) {
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  const Operand o_in{"in", in, n, 3, 3, "n", "3", "3"}, o_out{"out", out, n, 3, 3, "n", "3", "3"};
  detail::require_addressable(call, o_in);
  detail::require_addressable(call, o_out);
  detail::require_same_or_disjoint(call, o_out, o_in);
}

}  // namespace

const char* to_string(TransposeVariant v) {
  return v == TransposeVariant::best ? "best" : name_in(transpose_variants(), v);
}
const char* to_string(AosVariant v) { return name_in(aos_variants(), v); }
const char* to_string(StencilVariant v) { return name_in(stencil_variants(), v); }
const char* to_string(IncrementPattern p) { return name_in(increment_patterns(), p); }
const char* to_string(BankPattern p) { return name_in(bank_patterns(), p); }

void transpose(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in, float* out,
               std::int64_t ld_out, TransposeVariant variant) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::transpose";
  require_nonnegative(call, "rows", rows);
  require_nonnegative(call, "cols", cols);
  detail::require_ld(call, "ld_in", ld_in, "cols", cols);
  detail::require_ld(call, "ld_out", ld_out, "rows", rows);
  require(variant == TransposeVariant::best || listed(transpose_variants(), variant), call, "variant",
          static_cast<int>(variant), "a tk::TransposeVariant");
  if (rows == 0 || cols == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  require_out_in(call, {"out", out, cols, rows, ld_out, "cols", "rows", "ld_out"},
                 {"in", in, rows, cols, ld_in, "rows", "cols", "ld_in"});
  // `best` of a single row or column whose elements are adjacent on both sides: the transpose is a copy of
  // rows * cols elements, run as one (a tile kernel leaves 31 of 32 rows of every tile empty: 0.3% of
  // memcpy for 1 x 2^24 on a CPU, docs/performance.md).
  if (variant == TransposeVariant::best && ((rows == 1 && ld_out == 1) || (cols == 1 && ld_in == 1))) {
    TK_DISPATCH(dev, copy, dev, rows * cols, in, out);
  }
  TK_DISPATCH(dev, transpose, dev, variant, rows, cols, in, ld_in, out, ld_out);
}

void float3_add(const Queue& queue, std::int64_t n, const float* in, float* out, float value, AosVariant variant) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::float3_add";
  require_nonnegative(call, "n", n);
  require(listed(aos_variants(), variant), call, "variant", static_cast<int>(variant), "a tk::AosVariant");
  if (n == 0) return;
  require_float3s(dev, call, n, in, out);
  TK_DISPATCH(dev, float3_add, dev, variant, n, in, out, value);
}

void float3_add_soa(const Queue& queue, std::int64_t n, const float* in, float* out, float value) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::float3_add_soa";
  require_nonnegative(call, "n", n);
  if (n == 0) return;
  require_float3s(dev, call, n, in, out);
  TK_DISPATCH(dev, float3_add_soa, dev, n, in, out, value);
}

void moving_average(const Queue& queue, std::int64_t n, const float* in, float* out, int radius,
                    StencilVariant variant) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::moving_average";
  require_nonnegative(call, "n", n);
  require(radius >= 0 && radius <= 1024, call, "radius", radius, "0 <= radius <= 1024");
  require(listed(stencil_variants(), variant), call, "variant", static_cast<int>(variant), "a tk::StencilVariant");
  if (n == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  require_out_in(call, vec("out", out, n), vec("in", in, n));
  TK_DISPATCH(dev, moving_average, dev, variant, n, in, out, radius);
}

void stencil_5point(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                    float* out, std::int64_t ld_out, float center, float side, StencilVariant variant) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::stencil_5point";
  require_matrix(rows, cols, ld_in, ld_out, call);
  require(listed(stencil_variants(), variant), call, "variant", static_cast<int>(variant), "a tk::StencilVariant");
  if (rows == 0 || cols == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  require_out_in(call, {"out", out, rows, cols, ld_out, "rows", "cols", "ld_out"},
                 {"in", in, rows, cols, ld_in, "rows", "cols", "ld_in"});
  TK_DISPATCH(dev, stencil_5point, dev, variant, rows, cols, in, ld_in, out, ld_out, center, side);
}

void convolve_2d(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                 const float* filter, int radius, float* out, std::int64_t ld_out, StencilVariant variant) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::convolve_2d";
  require_matrix(rows, cols, ld_in, ld_out, call);
  require(radius >= 0 && radius <= 8, call, "radius", radius, "0 <= radius <= 8");
  require(listed(stencil_variants(), variant), call, "variant", static_cast<int>(variant), "a tk::StencilVariant");
  if (rows == 0 || cols == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, filter, call, "filter");
  detail::check_pointer(dev, out, call, "out");
  const Operand o_out{"out", out, rows, cols, ld_out, "rows", "cols", "ld_out"};
  require_out_in(call, o_out, {"in", in, rows, cols, ld_in, "rows", "cols", "ld_in"});
  const std::int64_t side = 2 * radius + 1;
  detail::require_disjoint(call, o_out, {"filter", filter, side, side, side, "2 * radius + 1", "2 * radius + 1", "2 * radius + 1"});
  TK_DISPATCH(dev, convolve_2d, dev, variant, rows, cols, in, ld_in, filter, radius, out, ld_out);
}

void increment_pattern(const Queue& queue, std::int64_t n, float* a, IncrementPattern pattern) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::increment_pattern";
  require_nonnegative(call, "n", n);
  require(listed(increment_patterns(), pattern), call, "pattern", static_cast<int>(pattern),
          "a tk::IncrementPattern");
  if (n == 0) return;
  detail::check_pointer(dev, a, call, "a");
  detail::require_addressable(call, vec("a", a, n));
  TK_DISPATCH(dev, increment_pattern, dev, pattern, n, a);
}

void strided_read(const Queue& queue, std::int64_t n, const float* in, std::int64_t stride, std::int64_t offset,
                  float* out) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::strided_read";
  require_nonnegative(call, "n", n);
  require(stride >= 1, call, "stride", stride, "stride >= 1");
  require_nonnegative(call, "offset", offset);
  if (n == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  // The elements read: in[offset + i * stride] for i < n, an n x 1 matrix with leading dimension `stride`
  // that starts `offset` elements in (offset is checked against overflow as part of the pointer sum).
  const Operand o_in{"in", in, 1, offset, offset, "1", "offset", "offset"};
  if (offset > 0) detail::require_addressable(call, o_in);
  require_out_in(call, vec("out", out, n), {"in", in + offset, n, 1, stride, "n", "1", "stride"});
  TK_DISPATCH(dev, strided_read, dev, n, in, stride, offset, out);
}

void bank_reads(const Queue& queue, std::int64_t n, BankPattern pattern, int stride, int reads, std::uint32_t* out) {
  const detail::OnQueue on(queue);
  const Device& dev = queue.device();
  const char* call = "tk::bank_reads";
  require_nonnegative(call, "n", n);
  require(listed(bank_patterns(), pattern), call, "pattern", static_cast<int>(pattern), "a tk::BankPattern");
  require(stride >= 1 && stride <= 1024, call, "stride", stride, "1 <= stride <= 1024");
  require(reads >= 1 && reads <= (1 << 20), call, "reads", reads, "1 <= reads <= 2^20");
  if (n == 0) return;
  detail::check_pointer(dev, out, call, "out", alignof(std::uint32_t));
  detail::require_addressable(call, vec("out", out, n));
  TK_DISPATCH(dev, bank_reads, dev, pattern, n, stride, reads, out);
}

}  // namespace tk
