// kernels/experiments/launch.cpp — launchers of the coalescing and bank-conflict experiments, compiled
// once per target.
//
// Grid math: tk::coalescing_block (256) threads per block for increment_pattern and strided_read, one
// element per thread (the seed's shape: its "12K blocks x 256 threads"). bank_reads: blocks of 32 x 8
// threads, th.x the lane within a warp of 32, with the shared array sized per pattern (16 KiB or less).
#include <cstdint>

#include "bank_reads.hpp"
#include "increment.hpp"
#include "strided_read.hpp"
#include "tilekit/detail/launchers_experiments.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

constexpr int block_threads = coalescing_block;

Dim3 grid_for(std::int64_t threads, const char* call) {
  const std::int64_t blocks = (threads + block_threads - 1) / block_threads;
  if (blocks > 0x7fffffff) tk::detail::fail(call, ": ", threads, " threads need more than 2^31 - 1 blocks");
  return {static_cast<int>(blocks), 1, 1};
}

template <IncrementPattern P>
void launch_increment(const Device& dev, std::int64_t n, float* a) {
  tk::launch(dev, {"increment", grid_for(n, "tk::increment_pattern"), {block_threads, 1, 1}, 0},
             &tk::kernels::increment<P>, n, a);
}

template <class T, BankPattern P>
void launch_bank_reads(const Device& dev, std::int64_t n, int stride, int reads, std::uint32_t* out) {
  tk::launch(dev, {"bank_reads", grid_for(n, "tk::bank_reads"), {32, block_threads / 32, 1}, 0},
             &tk::kernels::bank_reads<T, bank_elements(P)>, n, stride, reads, out);
}

}  // namespace

void increment_pattern(const Device& dev, IncrementPattern pattern, std::int64_t n, float* a) {
  switch (pattern) {
    case IncrementPattern::coalesced: return launch_increment<IncrementPattern::coalesced>(dev, n, a);
    case IncrementPattern::three_of_four: return launch_increment<IncrementPattern::three_of_four>(dev, n, a);
    case IncrementPattern::fourth_to_a0: return launch_increment<IncrementPattern::fourth_to_a0>(dev, n, a);
    case IncrementPattern::fourth_to_block_start:
      return launch_increment<IncrementPattern::fourth_to_block_start>(dev, n, a);
  }
  tk::detail::fail("tk::increment_pattern: argument 'pattern' is ", static_cast<int>(pattern),
                   "; expected a tk::IncrementPattern");
}

void strided_read(const Device& dev, std::int64_t n, const float* in, std::int64_t stride, std::int64_t offset,
                  float* out) {
  tk::launch(dev, {"strided_read", grid_for(n, "tk::strided_read"), {block_threads, 1, 1}, 0},
             &tk::kernels::strided_read, n, in, stride, offset, out);
}

void bank_reads(const Device& dev, BankPattern pattern, std::int64_t n, int stride, int reads, std::uint32_t* out) {
  using P = BankPattern;
  switch (pattern) {
    case P::word_stride: return launch_bank_reads<std::uint32_t, P::word_stride>(dev, n, stride, reads, out);
    case P::two_words: return launch_bank_reads<tk::kernels::TwoWords, P::two_words>(dev, n, stride, reads, out);
    case P::three_words: return launch_bank_reads<tk::kernels::ThreeWords, P::three_words>(dev, n, stride, reads, out);
    case P::doubles: return launch_bank_reads<double, P::doubles>(dev, n, stride, reads, out);
    case P::bytes: return launch_bank_reads<std::uint8_t, P::bytes>(dev, n, stride, reads, out);
  }
  tk::detail::fail("tk::bank_reads: argument 'pattern' is ", static_cast<int>(pattern), "; expected a tk::BankPattern");
}

}  // namespace tk::launchers::TK_TARGET_ID
