// kernels/stencil/stencil5_naive.hpp — the 2D 5-point stencil, each thread reading its five inputs from
// global memory.
//
// Technique: thread (x, y) of a block computes out(i, j), i = i0 + y, j = j0 + x:
//   center * x(i, j) + side * (x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1)), zero outside.
// Every input is loaded by five threads (its own and four neighbours'), from cache after the first: a
// warp's five loads are five coalesced rows. Grid: x over column blocks, y over row blocks, which each
// block steps through by grid_dim.y (GPU grids stop at 65535 in y).
// Preconditions: in and out do not overlap. Work counted by the benchmark: 8 bytes per element.
#pragma once

#include <cstdint>

#include "halo.hpp"
#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <bool EDGE>
TK_DEVICE void stencil5_naive_block(std::int64_t i0, std::int64_t j0, std::int64_t rows, std::int64_t cols,
                                    const float* __restrict__ in, std::int64_t ld_in, float* __restrict__ out,
                                    std::int64_t ld_out, float center, float side) {
  TK_THREADS(th) {
    const std::int64_t i = i0 + th.y, j = j0 + th.x;
    if (EDGE && (i >= rows || j >= cols)) TK_SKIP();
    const float around =
        read_or_zero<EDGE>(in, ld_in, rows, cols, i - 1, j) + read_or_zero<EDGE>(in, ld_in, rows, cols, i + 1, j) +
        read_or_zero<EDGE>(in, ld_in, rows, cols, i, j - 1) + read_or_zero<EDGE>(in, ld_in, rows, cols, i, j + 1);
    out[i * ld_out + j] = center * in[i * ld_in + j] + side * around;
  }
}

TK_KERNEL void stencil5_naive(std::int64_t rows, std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                              float* __restrict__ out, std::int64_t ld_out, float center, float side) {
  const int bx = tk::block_dim().x, by = tk::block_dim().y;
  const std::int64_t j0 = std::int64_t{tk::block_idx().x} * bx;
  const std::int64_t row_blocks = (rows + by - 1) / by;
  for (std::int64_t t = tk::block_idx().y; t < row_blocks; t += tk::grid_dim().y) {
    const std::int64_t i0 = t * by;
    if (i0 >= 1 && i0 + by + 1 <= rows && j0 >= 1 && j0 + bx + 1 <= cols)  // block-uniform: all reads inside
      stencil5_naive_block<false>(i0, j0, rows, cols, in, ld_in, out, ld_out, center, side);
    else stencil5_naive_block<true>(i0, j0, rows, cols, in, ld_in, out, ld_out, center, side);
  }
}

}  // namespace tk::kernels
