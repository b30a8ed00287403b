// kernels/transpose/multi_element.hpp — the padded shared-tile transpose with larger tiles and several
// elements per thread: tk::transpose's `best`.
//
// Technique: smem_padded.hpp, with a TILE x TILE tile moved by a TILE x ROWS block, each thread moving
// TILE / ROWS elements in each phase (rows y, y + ROWS, ...). Seed 004's advice for saturating the bus:
// several elements per thread, so each thread has several independent loads in flight and the index
// arithmetic is shared; fewer, larger tiles also halve the edge work per element. The padding column
// keeps a column read conflict-free for any TILE that is a multiple of 32 (bank (x * (TILE + 1) + y) % 32
// = (x + y) % 32 for a warp's 32 consecutive x).
// Shapes (kernels/transpose/launch.cpp): GPU TILE = 64, ROWS = 8 (512 threads, 8 elements each, 16.6 KiB
// of shared memory: 4 blocks fill an SM's 2048 threads). CPU TILE = 128, ROWS = 128: one element per
// thread, since gcc vectorises a phase's strided tile reads only one per thread; a row of 128 threads is
// eight 16-lane vectors, and 128-float runs of `in` and `out` (512 bytes) use DRAM better than 64.
// The phases are written inline with a block-uniform `whole` (rather than in a helper taking the tile by
// pointer, which cost the CPU 20%): on the CPU the compiler unswitches each loop on it.
// Preconditions: as naive.hpp. Work counted: 8 bytes per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <int TILE, int ROWS>
TK_KERNEL void transpose_multi_element(std::int64_t rows, std::int64_t cols, const float* __restrict__ in,
                                       std::int64_t ld_in, float* __restrict__ out, std::int64_t ld_out) {
  static_assert(TILE % ROWS == 0, "each thread moves TILE / ROWS rows of the tile");  // TILE / ROWS
  static_assert(TILE % 32 == 0, "the padding argument needs TILE a multiple of the 32 banks");
  TK_SHARED float tile[TILE][TILE + 1];  // +1: a column's floats fall in 32 different banks (smem_padded.hpp)
  const std::int64_t c0 = std::int64_t{tk::block_idx().x} * TILE;
  const std::int64_t row_tiles = (rows + TILE - 1) / TILE;
  for (std::int64_t t = tk::block_idx().y; t < row_tiles; t += tk::grid_dim().y) {
    const std::int64_t r0 = t * TILE;
    const bool whole = r0 + TILE <= rows && c0 + TILE <= cols;  // block-uniform: no per-element test
    TK_THREADS(th) {
      TK_UNROLL for (int k = 0; k < TILE / ROWS; ++k) {
        const int y = th.y + k * ROWS;
        if (whole || (r0 + y < rows && c0 + th.x < cols)) tile[y][th.x] = in[(r0 + y) * ld_in + c0 + th.x];
      }
    }
    TK_BARRIER();  // the whole tile is loaded before any thread reads another thread's element
    TK_THREADS(th) {
      TK_UNROLL for (int k = 0; k < TILE / ROWS; ++k) {
        const int y = th.y + k * ROWS;
        if (whole || (c0 + y < cols && r0 + th.x < rows)) out[(c0 + y) * ld_out + r0 + th.x] = tile[th.x][y];
      }
    }
    TK_BARRIER();  // every thread has read the tile before the block's next tile overwrites it
  }
}

}  // namespace tk::kernels
