// The public entries of tilekit/experiments.hpp: the pattern registries, argument checks, dispatch.
#include "tilekit/experiments.hpp"

#include <cstdint>

#include "checks.hpp"
#include "dispatch.hpp"
#include "tilekit/detail/launchers_experiments.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"

namespace tk {

using detail::Operand;
using detail::require;
using detail::require_nonnegative;

const std::vector<VariantInfo<IncrementPattern>>& increment_patterns() {
  static const std::vector<VariantInfo<IncrementPattern>>& all = *new std::vector<VariantInfo<IncrementPattern>>{
      // never destroyed: usable during exit
      {IncrementPattern::coalesced, "coalesced", "a[i]++: one segment per warp (seed: t = 1.0)", "003"},
      {IncrementPattern::three_of_four, "three_of_four", "idle lanes cost nothing (seed: t = 1.0)", "003"},
      {IncrementPattern::fourth_to_a0, "fourth_to_a0", "a quarter of all threads update a[0] (seed: t = 24.6)", "003"},
      {IncrementPattern::fourth_to_block_start, "fourth_to_block_start",
       "a quarter of each block updates its first element (seed: t = 3.7)", "003"},
  };
  return all;
}

const std::vector<VariantInfo<BankPattern>>& bank_patterns() {
  static const std::vector<VariantInfo<BankPattern>>& all = *new std::vector<VariantInfo<BankPattern>>{
      // never destroyed: usable during exit
      {BankPattern::word_stride, "word_stride", "words `stride` apart: conflict-free when the stride is odd", "003"},
      {BankPattern::two_words, "two_words", "a two-word struct per thread: 2-way conflicts", "003"},
      {BankPattern::three_words, "three_words", "a three-word struct per thread: conflict-free", "003"},
      {BankPattern::doubles, "doubles", "8-byte elements on 4-byte banks: 2-way", "003"},
      {BankPattern::bytes, "bytes", "four threads per word: a broadcast, no conflict", "003"},
  };
  return all;
}

const char* to_string(IncrementPattern p) { return detail::variant_name(increment_patterns(), p); }
const char* to_string(BankPattern p) { return detail::variant_name(bank_patterns(), p); }

void increment_pattern(const Queue& queue, std::int64_t n, float* a, IncrementPattern pattern) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::increment_pattern";
  require_nonnegative(call, "n", n);
  require(detail::variant_listed(increment_patterns(), pattern), call, "pattern", static_cast<int>(pattern),
          "a tk::IncrementPattern");
  if (n == 0) return;
  detail::check_pointer(dev, a, call, "a");
  detail::require_addressable(call, detail::vector_operand("a", a, n));
  TK_DISPATCH(dev, increment_pattern, dev, pattern, n, a);
}

void strided_read(const Queue& queue, std::int64_t n, const float* in, std::int64_t stride, std::int64_t offset,
                  float* out) {
  const detail::OnQueue on(queue, __func__);
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
  detail::require_out_in(call, detail::vector_operand("out", out, n),
                         {"in", in + offset, n, 1, stride, "n", "1", "stride"});
  TK_DISPATCH(dev, strided_read, dev, n, in, stride, offset, out);
}

void bank_reads(const Queue& queue, std::int64_t n, BankPattern pattern, int stride, int reads, std::uint32_t* out) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::bank_reads";
  require_nonnegative(call, "n", n);
  require(detail::variant_listed(bank_patterns(), pattern), call, "pattern", static_cast<int>(pattern),
          "a tk::BankPattern");
  require(stride >= 1 && stride <= 1024, call, "stride", stride, "1 <= stride <= 1024");
  require(reads >= 1 && reads <= (1 << 20), call, "reads", reads, "1 <= reads <= 2^20");
  if (n == 0) return;
  detail::check_pointer(dev, out, call, "out", alignof(std::uint32_t));
  detail::require_addressable(call, detail::vector_operand("out", out, n));
  TK_DISPATCH(dev, bank_reads, dev, pattern, n, stride, reads, out);
}

}  // namespace tk
