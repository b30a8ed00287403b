// kernels/stencil/stencil5_smem_tiled.hpp — the 2D 5-point stencil from a shared tile with a one-element
// halo, loaded once per tile.
//
// Technique: a block of TX x BY threads computes a TX x TY tile of out, each thread TY / BY rows of it.
// It first loads the (TY + 2) x (TX + 2) window of `in` (the tile and a ring of one element, zero outside)
// into shared memory, rows of consecutive floats per warp; then every output reads its five inputs from
// the tile. Global loads per output: (TY + 2)(TX + 2) / (TY TX), 1.13 for 32 x 32, against 5 for the naive
// kernel's (cached) loads. The sum is formed in the same order as stencil5_naive.hpp.
// A warp reads a tile row at consecutive words (rows are TX + 2 long): no bank conflicts.
// Preconditions: block (TX, BY); in and out do not overlap. Work counted by the benchmark: 8 bytes per element.
#pragma once

#include <cstdint>

#include "halo.hpp"
#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <bool EDGE, int TX, int TY, int BY>
TK_DEVICE void stencil5_tiled_block(float (*tile)[TX + 2], std::int64_t i0, std::int64_t j0, std::int64_t rows,
                                    std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                                    float* __restrict__ out, std::int64_t ld_out, float center, float side) {
  load_window<EDGE>(&tile[0][0], TY + 2, TX + 2, in, ld_in, rows, cols, i0 - 1, j0 - 1);
  TK_BARRIER();  // the tile and its halo are loaded before a thread reads its neighbours' inputs
  TK_THREADS(th) {
    TK_UNROLL
    for (int k = 0; k < TY / BY; ++k) {
      const int r = th.y + k * BY + 1, c = th.x + 1;  // the output's place in the tile (the halo is row/column 0)
      const std::int64_t i = i0 + r - 1, j = j0 + c - 1;
      if (EDGE && (i >= rows || j >= cols)) continue;
      const float around = tile[r - 1][c] + tile[r + 1][c] + tile[r][c - 1] + tile[r][c + 1];
      out[i * ld_out + j] = center * tile[r][c] + side * around;
    }
  }
  TK_BARRIER();  // every thread has read the tile before the block's next tile overwrites it
}

template <int TX, int TY, int BY>
TK_KERNEL void stencil5_smem_tiled(std::int64_t rows, std::int64_t cols, const float* __restrict__ in,
                                   std::int64_t ld_in, float* __restrict__ out, std::int64_t ld_out, float center,
                                   float side) {
  static_assert(TY % BY == 0, "each thread computes TY / BY rows of the tile");
  TK_SHARED_ARRAY(float, tile, [TY + 2][TX + 2]);  // +2 in each direction: the one-element halo ring, not padding
  const std::int64_t j0 = std::int64_t{tk::block_idx().x} * TX;
  const std::int64_t row_tiles = (rows + TY - 1) / TY;
  for (std::int64_t t = tk::block_idx().y; t < row_tiles; t += tk::grid_dim().y) {
    const std::int64_t i0 = t * TY;
    if (i0 >= 1 && i0 + TY + 1 <= rows && j0 >= 1 && j0 + TX + 1 <= cols)  // block-uniform: the window is inside
      stencil5_tiled_block<false, TX, TY, BY>(tile, i0, j0, rows, cols, in, ld_in, out, ld_out, center, side);
    else stencil5_tiled_block<true, TX, TY, BY>(tile, i0, j0, rows, cols, in, ld_in, out, ld_out, center, side);
  }
}

}  // namespace tk::kernels
