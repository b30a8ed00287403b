// kernels/experiments/bank_reads.hpp — seed 003's shared-memory bank experiment: each thread of a warp
// reads a shared array with a given pattern, many times; the time over word_stride with stride 1 is what
// the pattern costs on the target's banks (tk::BankPattern, tk::bank_reads).
//
// Shared memory is split into 32 banks of 4-byte words (bank = word address % 32); a warp's accesses to
// different words of one bank are served one after another. Seed 003's predictions:
//   word_stride s    conflict-free when s is odd (s shares no factor with 32), 2-way for s = 2 mod 4,
//                    ... 32-way for s = 32; s = 33 is conflict-free again (the padded transpose);
//   two_words        a struct {f, c} per thread: 2-way conflicts (two loads, each at stride 2);
//   three_words      a struct {x, y, z}: conflict-free (stride 3 is odd);
//   doubles          8-byte elements: 2-way on 4-byte banks (GPUs since Kepler serve 64-bit accesses in
//                    two passes of 16 threads, which costs the same as the two words they carry);
//   bytes            four threads read bytes of one word: a broadcast, no conflict.
// On a CPU there are no banks: a phase's loop over threads gathers the strided elements from L1, so the
// figures there show the cost of a gather against a contiguous load instead.
// Every element k holds value k (struct words k, k + 1, k + 2; a byte k mod 256), so the sums are defined.
// Block: 32 x 8 threads, th.x the lane. ELEMENTS is a power of two so the index wraps with a mask; the
// wrap keeps the bank pattern, since ELEMENTS words is a multiple of 32 banks.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

struct TwoWords {
  std::uint32_t f, c;
};
struct ThreeWords {
  std::uint32_t x, y, z;
};

TK_DEVICE void make_element(std::uint32_t k, std::uint32_t& e) { e = k; }
TK_DEVICE void make_element(std::uint32_t k, TwoWords& e) { e = {k, k + 1}; }
TK_DEVICE void make_element(std::uint32_t k, ThreeWords& e) { e = {k, k + 1, k + 2}; }
TK_DEVICE void make_element(std::uint32_t k, double& e) { e = static_cast<double>(k); }
TK_DEVICE void make_element(std::uint32_t k, std::uint8_t& e) { e = static_cast<std::uint8_t>(k); }

TK_DEVICE std::uint32_t words_sum(std::uint32_t e) { return e; }
TK_DEVICE std::uint32_t words_sum(const TwoWords& e) { return e.f + e.c; }
TK_DEVICE std::uint32_t words_sum(const ThreeWords& e) { return e.x + e.y + e.z; }
TK_DEVICE double words_sum(double e) { return e; }
TK_DEVICE std::uint32_t words_sum(std::uint8_t e) { return e; }

template <class T, int ELEMENTS>
TK_KERNEL void bank_reads(std::int64_t n, int stride, int reads, std::uint32_t* out) {
  static_assert((ELEMENTS & (ELEMENTS - 1)) == 0, "the index wraps with a mask");
  using Sum = decltype(words_sum(T{}));
  TK_SHARED_ARRAY(T, s, [ELEMENTS]);
  const int threads = tk::block_dim().x * tk::block_dim().y;
  for (int k0 = 0; k0 < ELEMENTS; k0 += threads) {  // block-uniform: the array, a block of threads at a time
    TK_THREADS(th) {
      if (k0 + th.id < ELEMENTS) make_element(static_cast<std::uint32_t>(k0 + th.id), s[k0 + th.id]);
    }
  }
  TK_BARRIER();  // the array is complete before a thread reads elements other threads wrote
  tk::Private<Sum> sum(Sum{0});
  for (int j = 0; j < reads; ++j) {  // block-uniform: one read per thread per phase, the pattern shifted by j
    TK_THREADS(th) { sum(th.id) += words_sum(s[(th.x * stride + j) & (ELEMENTS - 1)]); }
  }
  TK_THREADS(th) {
    const std::int64_t t = std::int64_t{tk::block_idx().x} * threads + th.id;
    if (t < n) out[t] = static_cast<std::uint32_t>(sum(th.id));
  }
}

}  // namespace tk::kernels
