// tilekit/memory_ops.hpp — the memory-bound kernels of seeds 003 and 004 (transpose, array of structs,
// stencils) and the access-pattern experiments (coalescing, shared-memory banks).
//
// Every pointer is in the memory of `dev`; matrices are row-major with leading dimensions (element (i, j)
// of A is A[i * lda + j]). Calls on a GPU are queued on the device and return at once; calls on the CPU
// return when done. Every argument is checked: bad input throws tk::Error; a size of 0 is a no-op.
// Each op's variants are listed, with what each teaches, by its *_variants() registry.
#pragma once

#include <cstdint>
#include <vector>

#include "tilekit/device.hpp"

namespace tk {

// ---- Transpose (seed 003) -------------------------------------------------------------------------------

enum class TransposeVariant { naive, smem, smem_padded, best };

// out = in^T, out of place: in is rows x cols (ld_in >= cols), out is cols x rows (ld_out >= rows);
// out(j, i) = in(i, j). in and out must share no element; out's padding columns are left alone. `best` is
// the fastest kernel for the device (kernels/transpose/multi_element.hpp).
void transpose(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
               float* out, std::int64_t ld_out, TransposeVariant variant = TransposeVariant::best);

// ---- Array of structs (seed 003) ------------------------------------------------------------------------

enum class AosVariant { direct, smem_staged };

// The seed's float3 update on n structs {x, y, z} of 3 floats (3n floats, interleaved):
// out[i] = {in[i].x + value, in[i].y + value, in[i].z + value} (the seed adds 2). out may be in, or
// share no element with it.
void float3_add(const Queue& queue, std::int64_t n, const float* in, float* out, float value = 2.f,
                AosVariant variant = AosVariant::smem_staged);

// The same update on the struct-of-arrays layout: in and out hold the n x's, then the n y's, then the
// n z's (3n floats). out may be in, or share no element with it.
void float3_add_soa(const Queue& queue, std::int64_t n, const float* in, float* out, float value = 2.f);

// ---- Stencils (seed 000: the moving average as an example of data reuse) --------------------------------
//
// Boundary: every element outside the array reads as 0 (zero padding), so each output has the same
// formula everywhere. Sums run in the order written below, in float; the result differs from an exact sum
// by rounding only (the tests state the bound). in and out must share no element.

// best: the fastest for the device — for the 5-point stencil its own kernel (kernels/stencil/
// stencil5_streamed.hpp: each thread streams a strip of rows through registers); for the others the faster
// of naive and smem_tiled on the target.
enum class StencilVariant { naive, smem_tiled, best };

// 1D moving average of radius `radius` (0 <= radius <= 1024):
// out[i] = (x[i - radius] + ... + x[i + radius]) * (1 / (2 * radius + 1)), x[j] = in[j] for 0 <= j < n, else 0.
void moving_average(const Queue& queue, std::int64_t n, const float* in, float* out, int radius,
                    StencilVariant variant = StencilVariant::best);

// 2D 5-point stencil on a rows x cols matrix:
// out(i, j) = center * x(i, j) + side * (x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1)),
// x(i, j) = in(i, j) inside the matrix, else 0. (center = side = 0.2: the 5-point average.)
void stencil_5point(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                    float* out, std::int64_t ld_out, float center, float side,
                    StencilVariant variant = StencilVariant::best);

// General 2D convolution with a small (2r + 1) x (2r + 1) filter, r = radius (0 <= r <= 8), row-major in
// device memory. As in image processing and CNNs the filter is not flipped (a cross-correlation):
// out(i, j) = sum over a, b in [-r, r] (a outer, b inner) of filter[(a + r) * (2r + 1) + b + r] * x(i + a, j + b).
void convolve_2d(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                 const float* filter, int radius, float* out, std::int64_t ld_out,
                 StencilVariant variant = StencilVariant::best);

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
  return pattern == BankPattern::three_words                                          ? 1024
         : pattern == BankPattern::two_words || pattern == BankPattern::doubles ? 2048
                                                                                : 4096;
}
// 1 <= stride <= 1024, 1 <= reads <= 2^20.
void bank_reads(const Queue& queue, std::int64_t n, BankPattern pattern, int stride, int reads, std::uint32_t* out);

// ---- Registries: the tests, the benchmark and the docs iterate these ------------------------------------

template <class Variant>
struct VariantInfo {
  Variant variant;
  const char* name;     // "smem_padded"
  const char* teaches;  // one line: the technique and what it improves
  const char* seed;     // the source document it comes from
};

const std::vector<VariantInfo<TransposeVariant>>& transpose_variants();  // every variant except best
const std::vector<VariantInfo<AosVariant>>& aos_variants();
const std::vector<VariantInfo<StencilVariant>>& stencil_variants();
const std::vector<VariantInfo<IncrementPattern>>& increment_patterns();
const std::vector<VariantInfo<BankPattern>>& bank_patterns();

const char* to_string(TransposeVariant v);
const char* to_string(AosVariant v);
const char* to_string(StencilVariant v);
const char* to_string(IncrementPattern p);
const char* to_string(BankPattern p);

}  // namespace tk
