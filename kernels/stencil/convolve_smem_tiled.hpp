// kernels/stencil/convolve_smem_tiled.hpp — the general 2D convolution from a shared tile with an r-element
// halo, loaded once per tile, and the filter in shared memory.
//
// Technique: a block of TX x BY threads computes a TX x TY tile of out, each thread TY / BY rows. It loads
// the filter and the (TY + 2r) x (TX + 2r) window of `in` (zero outside) into dynamic shared memory, then
// accumulates every tap from there: global loads per output fall from (2r + 1)^2 to
// (TY + 2r)(TX + 2r) / (TY TX) (1.27 for r = 2 and 32 x 32). The taps run in the order of
// convolve_naive.hpp. A warp reads a tile row at consecutive words, and all its threads read the same
// filter word (a broadcast): no bank conflicts.
// Preconditions: block (TX, BY); dynamic shared memory of ((2r + 1)^2 + (TY + 2r)(TX + 2r)) floats; in and
// out do not overlap. Work counted by the benchmark: 8 bytes per element, 2 (2r + 1)^2 FLOPs.
#pragma once

#include <cstdint>

#include "halo.hpp"
#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <bool EDGE, int TX, int TY, int BY>
TK_DEVICE void convolve_tiled_block(const float* taps, float* tile, std::int64_t i0, std::int64_t j0, std::int64_t rows,
                                    std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in, int radius,
                                    float* __restrict__ out, std::int64_t ld_out) {
  const int width = 2 * radius + 1, w = TX + 2 * radius;
  load_window<EDGE>(tile, TY + 2 * radius, w, in, ld_in, rows, cols, i0 - radius, j0 - radius);
  TK_BARRIER();  // the window (and, before the first tile, the filter) is loaded before a thread reads others'
  tk::Private<float, TY / BY> acc(0.f);
  for (int a = 0; a < width; ++a) {    // block-uniform: the filter's rows
    for (int b = 0; b < width; ++b) {  // and columns, one phase per tap
      const float f = taps[a * width + b];
      TK_THREADS(th) {
        TK_UNROLL
        for (int k = 0; k < TY / BY; ++k) acc(th.id, k) += f * tile[(th.y + k * BY + a) * w + th.x + b];
      }
    }
  }
  TK_THREADS(th) {
    TK_UNROLL
    for (int k = 0; k < TY / BY; ++k) {
      const std::int64_t i = i0 + th.y + k * BY, j = j0 + th.x;
      if (!EDGE || (i < rows && j < cols)) out[i * ld_out + j] = acc(th.id, k);
    }
  }
  TK_BARRIER();  // every thread has read the tile before the block's next tile overwrites it
}

template <int TX, int TY, int BY>
TK_KERNEL void convolve_smem_tiled(std::int64_t rows, std::int64_t cols, const float* __restrict__ in,
                                   std::int64_t ld_in, const float* __restrict__ filter, int radius,
                                   float* __restrict__ out, std::int64_t ld_out) {
  static_assert(TY % BY == 0, "each thread computes TY / BY rows of the tile");
  const int taps = (2 * radius + 1) * (2 * radius + 1);
  float* filter_s = tk::dynamic_shared<float>();  // the (2r + 1)^2 weights, then the window
  float* tile = filter_s + taps;
  for (int k0 = 0; k0 < taps; k0 += TX * BY) {  // block-uniform: the filter, one block of threads at a time
    TK_THREADS(th) {
      if (k0 + th.id < taps) filter_s[k0 + th.id] = filter[k0 + th.id];
    }
  }
  const std::int64_t j0 = std::int64_t{tk::block_idx().x} * TX;
  const std::int64_t row_tiles = (rows + TY - 1) / TY;
  for (std::int64_t t = tk::block_idx().y; t < row_tiles; t += tk::grid_dim().y) {
    const std::int64_t i0 = t * TY;
    if (i0 >= radius && i0 + TY + radius <= rows && j0 >= radius && j0 + TX + radius <= cols)  // block-uniform
      convolve_tiled_block<false, TX, TY, BY>(filter_s, tile, i0, j0, rows, cols, in, ld_in, radius, out, ld_out);
    else convolve_tiled_block<true, TX, TY, BY>(filter_s, tile, i0, j0, rows, cols, in, ld_in, radius, out, ld_out);
  }
}

}  // namespace tk::kernels
