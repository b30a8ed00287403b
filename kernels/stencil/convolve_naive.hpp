// kernels/stencil/convolve_naive.hpp — general 2D convolution with a small (2r + 1) x (2r + 1) filter, every
// input and filter weight read from global memory.
//
// Technique: thread (x, y) computes out(i, j) = sum over a, b in [-r, r] of f(a, b) * x(i + a, j + b)
// (cross-correlation, zero outside). The filter loops are block-uniform: each weight is read once per
// thread outside the phase (the same address for the whole block: a broadcast), and one phase per tap
// accumulates into a tk::Private, which on a CPU is one vector loop over the block's threads per tap.
// Each input is loaded (2r + 1)^2 times, mostly from cache.
// Preconditions: in and out do not overlap. Work counted by the benchmark: 8 bytes per element,
// 2 (2r + 1)^2 FLOPs.
#pragma once

#include <cstdint>

#include "halo.hpp"
#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <bool EDGE>
TK_DEVICE void convolve_naive_block(std::int64_t i0, std::int64_t j0, std::int64_t rows, std::int64_t cols,
                                    const float* __restrict__ in, std::int64_t ld_in, const float* __restrict__ filter,
                                    int radius, float* __restrict__ out, std::int64_t ld_out) {
  const int width = 2 * radius + 1;
  tk::Private<float> acc(0.f);
  for (int a = -radius; a <= radius; ++a) {    // block-uniform: the filter's rows
    for (int b = -radius; b <= radius; ++b) {  // and columns, one phase per tap
      const float w = filter[(a + radius) * width + b + radius];
      TK_THREADS(th) { acc(th.id) += w * read_or_zero<EDGE>(in, ld_in, rows, cols, i0 + th.y + a, j0 + th.x + b); }
    }
  }
  TK_THREADS(th) {
    const std::int64_t i = i0 + th.y, j = j0 + th.x;
    if (EDGE && (i >= rows || j >= cols)) TK_SKIP();
    out[i * ld_out + j] = acc(th.id);
  }
}

TK_KERNEL void convolve_naive(std::int64_t rows, std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                              const float* __restrict__ filter, int radius, float* __restrict__ out,
                              std::int64_t ld_out) {
  const int bx = tk::block_dim().x, by = tk::block_dim().y;
  const std::int64_t j0 = std::int64_t{tk::block_idx().x} * bx;
  const std::int64_t row_blocks = (rows + by - 1) / by;
  for (std::int64_t t = tk::block_idx().y; t < row_blocks; t += tk::grid_dim().y) {
    const std::int64_t i0 = t * by;
    if (i0 >= radius && i0 + by + radius <= rows && j0 >= radius && j0 + bx + radius <= cols)  // block-uniform
      convolve_naive_block<false>(i0, j0, rows, cols, in, ld_in, filter, radius, out, ld_out);
    else convolve_naive_block<true>(i0, j0, rows, cols, in, ld_in, filter, radius, out, ld_out);
  }
}

}  // namespace tk::kernels
