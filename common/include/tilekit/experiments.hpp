// tilekit/experiments.hpp — the access-pattern experiments (seed 003): coalescing (strided, misaligned and
// racing updates) and shared-memory banks.
//
// Every pointer is in the memory of the queue's device; matrices are row-major with leading dimensions
// (element (i, j) of A is A[i * lda + j]). Calls on a GPU are queued on the device and return at once; calls
// on the CPU return when done. Every argument is checked: bad input throws tk::Error; a size of 0 is a
// no-op. The contract shared by every op (threads, aliasing, overflow) is in tilekit/elementwise.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/variants.hpp"

namespace tk {

// ---- The coalescing experiment (seed 003) ---------------------------------------------------------------
//
// One thread per element, blocks of 256 threads (coalescing_block); thread i of the grid:
enum class IncrementPattern {
  coalesced,             // a[i] += 1
  three_of_four,         // a[i] += 1 where i % 4 != 0; the other threads idle
  fourth_to_a0,          // as three_of_four, and each thread with i % 4 == 0 adds 1 to a[0]
  fourth_to_block_start  // as three_of_four, and each thread with i % 4 == 0 adds 1 to a[256 * (i / 256)]
};
constexpr int coalescing_block = 256;

// Applies the pattern to a[0, n). The seed's `a[0]++` from many threads is a race with an undefined result;
// here those updates are atomic (tk::atomic_add), so the result is defined: every a[i] with i % 4 != 0 gains 1
// (coalesced: every a[i]), and in fourth_to_a0 a[0] gains ceil(n / 4), in fourth_to_block_start the first
// element of each 256-element block gains one per multiple of 4 in its block. Exact while the values stay
// integers below 2^24.
void increment_pattern(const Queue& queue, std::int64_t n, float* a, IncrementPattern pattern);

// out[i] = in[offset + i * stride] for 0 <= i < n: stride-s reads (stride 1 is coalesced) and misaligned
// reads (offset not a multiple of 32 floats); writes are coalesced. in must hold offset + (n - 1) * stride + 1
// floats, which must share no element with out. stride >= 1, offset >= 0.
void strided_read(const Queue& queue, std::int64_t n, const float* in, std::int64_t stride, std::int64_t offset,
                  float* out);

// ---- The shared-memory bank experiment (seed 003) -------------------------------------------------------
//
// Each block (256 threads) fills a shared array of `bank_elements(pattern)` elements, element k holding
// value k (the words of a struct: k, k + 1, k + 2; a byte: k mod 256), then thread t (lane = t % 32) reads
// element (lane * stride + j) mod bank_elements(pattern) for j = 0 .. reads - 1 and writes the sum of the
// words it read (mod 2^32; doubles are summed as doubles, then converted) to out[t], 0 <= t < n.
// The time, relative to word_stride with stride 1, is the cost of the access pattern on the target's banks.
enum class BankPattern {
  word_stride,  // 4-byte words at `stride` words apart: conflict-free when stride is odd (32 banks)
  two_words,    // a struct of two 4-byte words per thread (seed: 2-way conflicts)
  three_words,  // a struct of three 4-byte words (seed: conflict-free, 3 is odd)
  doubles,      // 8-byte elements (seed: 2-way conflicts on 4-byte banks)
  bytes         // 1-byte elements: four threads share a word (seed: broadcast, no conflict)
};
// The shared array's length: 16 KiB of words, structs of two words or doubles; 12 KiB of three-word structs
// (a power of two of them); 4 KiB of bytes.
constexpr int bank_elements(BankPattern pattern) {
  return pattern == BankPattern::three_words                                    ? 1024
         : pattern == BankPattern::two_words || pattern == BankPattern::doubles ? 2048
                                                                                : 4096;
}
// 1 <= stride <= 1024, 1 <= reads <= 2^20.
void bank_reads(const Queue& queue, std::int64_t n, BankPattern pattern, int stride, int reads, std::uint32_t* out);

// The variants, with what each teaches (tests, tk-bench and tk-info iterate these).
const std::vector<VariantInfo<IncrementPattern>>& increment_patterns();
const std::vector<VariantInfo<BankPattern>>& bank_patterns();
const char* to_string(IncrementPattern p);
const char* to_string(BankPattern p);

}  // namespace tk
