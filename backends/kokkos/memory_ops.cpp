// The Kokkos backend's memory-bound operations and experiments, written independently with
// Kokkos::parallel_for on Kokkos's default execution space (kokkos_init.hpp), straight from the definitions in
// tilekit/{transpose,aos,stencil,experiments}.hpp: no tiles and no shared memory, so every variant of an op runs the same code here.
// They are the test suite's second opinion; sums run in the order the definitions give.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "kokkos_init.hpp"
#include "tilekit/detail/launchers_aos.hpp"
#include "tilekit/detail/launchers_experiments.hpp"
#include "tilekit/detail/launchers_stencil.hpp"
#include "tilekit/detail/launchers_transpose.hpp"

namespace tk::launchers::kokkos {
namespace {

using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
using Range2 = Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;

// x(i, j) of a rows x cols matrix, 0 outside.
KOKKOS_INLINE_FUNCTION float at(const float* in, std::int64_t ld, std::int64_t rows, std::int64_t cols, std::int64_t i,
                                std::int64_t j) {
  return i >= 0 && i < rows && j >= 0 && j < cols ? in[i * ld + j] : 0.f;
}

// The sum of the words of element e of a bank_reads pattern (element k holds k, k + 1, ...).
KOKKOS_INLINE_FUNCTION std::uint32_t bank_words_sum(BankPattern p, std::uint32_t e) {
  switch (p) {
    case BankPattern::two_words: return 2 * e + 1;
    case BankPattern::three_words: return 3 * e + 3;
    case BankPattern::bytes: return e & 0xffu;
    default: return e;
  }
}

}  // namespace

void transpose(const Device&, TransposeVariant, std::int64_t rows, std::int64_t cols, const float* in,
               std::int64_t ld_in, float* out, std::int64_t ld_out) {
  ensure_initialized();
  Kokkos::parallel_for(
      "tk::transpose", Range2({0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { out[j * ld_out + i] = in[i * ld_in + j]; });
  Space().fence();
}

std::string transpose_tile_choice(const Device&, std::int64_t, std::int64_t) {
  return "Kokkos: one thread per element (no tiles; the cross-check)";
}

void float3_add(const Device&, AosVariant, std::int64_t n, const float* in, float* out, float value) {
  ensure_initialized();
  Kokkos::parallel_for(
      "tk::float3_add", Range(0, n), KOKKOS_LAMBDA(std::int64_t i) {
        for (int k = 0; k < 3; ++k) out[3 * i + k] = in[3 * i + k] + value;
      });
  Space().fence();
}

void float3_add_soa(const Device&, std::int64_t n, const float* in, float* out, float value) {
  ensure_initialized();
  Kokkos::parallel_for(
      "tk::float3_add_soa", Range(0, n), KOKKOS_LAMBDA(std::int64_t i) {
        for (int k = 0; k < 3; ++k) out[k * n + i] = in[k * n + i] + value;
      });
  Space().fence();
}

void moving_average(const Device&, StencilVariant, std::int64_t n, const float* in, float* out, int radius) {
  ensure_initialized();
  const float scale = 1.f / static_cast<float>(2 * radius + 1);
  Kokkos::parallel_for(
      "tk::moving_average", Range(0, n), KOKKOS_LAMBDA(std::int64_t i) {
        float sum = 0.f;
        for (std::int64_t j = i - radius; j <= i + radius; ++j) sum += j >= 0 && j < n ? in[j] : 0.f;
        out[i] = sum * scale;
      });
  Space().fence();
}

void stencil_5point(const Device&, StencilVariant, std::int64_t rows, std::int64_t cols, const float* in,
                    std::int64_t ld_in, float* out, std::int64_t ld_out, float center, float side) {
  ensure_initialized();
  Kokkos::parallel_for(
      "tk::stencil_5point", Range2({0, 0}, {rows, cols}), KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
        const float around = at(in, ld_in, rows, cols, i - 1, j) + at(in, ld_in, rows, cols, i + 1, j) +
                             at(in, ld_in, rows, cols, i, j - 1) + at(in, ld_in, rows, cols, i, j + 1);
        out[i * ld_out + j] = center * in[i * ld_in + j] + side * around;
      });
  Space().fence();
}

void convolve_2d(const Device&, StencilVariant, std::int64_t rows, std::int64_t cols, const float* in,
                 std::int64_t ld_in, const float* filter, int radius, float* out, std::int64_t ld_out) {
  ensure_initialized();
  const int width = 2 * radius + 1;
  Kokkos::parallel_for(
      "tk::convolve_2d", Range2({0, 0}, {rows, cols}), KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
        float acc = 0.f;
        for (int a = -radius; a <= radius; ++a) {
          for (int b = -radius; b <= radius; ++b)
            acc += filter[(a + radius) * width + b + radius] * at(in, ld_in, rows, cols, i + a, j + b);
        }
        out[i * ld_out + j] = acc;
      });
  Space().fence();
}

void increment_pattern(const Device&, IncrementPattern pattern, std::int64_t n, float* a) {
  ensure_initialized();
  Kokkos::parallel_for(
      "tk::increment_pattern", Range(0, n), KOKKOS_LAMBDA(std::int64_t i) {
        if (pattern == IncrementPattern::coalesced || i % 4 != 0) a[i] += 1.f;
        else if (pattern == IncrementPattern::fourth_to_a0) Kokkos::atomic_add(&a[0], 1.f);
        else if (pattern == IncrementPattern::fourth_to_block_start)
          Kokkos::atomic_add(&a[i / coalescing_block * coalescing_block], 1.f);
      });
  Space().fence();
}

void strided_read(const Device&, std::int64_t n, const float* in, std::int64_t stride, std::int64_t offset,
                  float* out) {
  ensure_initialized();
  Kokkos::parallel_for(
      "tk::strided_read", Range(0, n), KOKKOS_LAMBDA(std::int64_t i) { out[i] = in[offset + i * stride]; });
  Space().fence();
}

void bank_reads(const Device&, BankPattern pattern, std::int64_t n, int stride, int reads, std::uint32_t* out) {
  ensure_initialized();
  const std::uint32_t mask = static_cast<std::uint32_t>(bank_elements(pattern)) - 1;
  Kokkos::parallel_for(
      "tk::bank_reads", Range(0, n), KOKKOS_LAMBDA(std::int64_t t) {
        const std::uint32_t lane = static_cast<std::uint32_t>(t % 32);
        std::uint32_t sum = 0;
        double dsum = 0;
        for (int j = 0; j < reads; ++j) {
          const std::uint32_t e = (lane * static_cast<std::uint32_t>(stride) + static_cast<std::uint32_t>(j)) & mask;
          if (pattern == BankPattern::doubles) dsum += static_cast<double>(e);
          else sum += bank_words_sum(pattern, e);
        }
        out[t] = pattern == BankPattern::doubles ? static_cast<std::uint32_t>(dsum) : sum;
      });
  Space().fence();
}

}  // namespace tk::launchers::kokkos
