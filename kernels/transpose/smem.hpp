// kernels/transpose/smem.hpp — out = in^T through a shared-memory tile: coalesced reads and writes (seed 003,
// "Coalesced transpose").
//
// Technique: a block reads a TILE x TILE tile of `in` row by row into shared memory (coalesced), and after a
// barrier writes the tile's columns as rows of `out` (coalesced): thread (x, y) writes out(c0 + y, r0 + x) =
// tile[x][y]. The global traffic is now whole bursts both ways; the cost moves into shared memory, where a
// warp reading tile[x][y] for x = 0..31 touches 32 floats TILE apart: with TILE = 32 all in one bank, a
// 32-way bank conflict, served one float at a time. Seed 003 at 512 x 512: naive t = 8, this kernel t = 4,
// the padded tile t = 1.
// Parameters: the block is TILE x ROWS threads, each moving TILE / ROWS rows of the tile (rows y, y + ROWS,
// ...): the seed's kernel is ROWS = TILE (one element per thread); GPUs run ROWS = 8, NVIDIA's
// transposeCoalesced shape (4 elements per thread, 256 threads); CPUs keep one element per thread, the only
// form whose strided tile reads gcc vectorises. PAD floats end each tile row: 0 here; smem_padded.hpp and
// multi_element.hpp are this kernel with PAD = 1.
// Tiles at the right and bottom edges are partial: `whole` is block-uniform, so each phase's loop is
// compiled twice on the CPU (unswitched), and only edge tiles test each element. (Written inline rather than
// in a helper that takes the tile by pointer, which cost the CPU 20%.)
// Preconditions: as naive.hpp. Work counted: 8 bytes per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <int TILE, int ROWS, int PAD = 0>
TK_KERNEL void transpose_smem(std::int64_t rows, std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                              float* __restrict__ out, std::int64_t ld_out) {
  static_assert(TILE % ROWS == 0, "each thread moves TILE / ROWS rows of the tile");  // TILE / ROWS
  static_assert(PAD == 0 || TILE % 32 == 0, "the padding spreads a column over 32 banks when TILE % 32 == 0");
  TK_SHARED_ARRAY(float, tile, [TILE][TILE + PAD]);  // PAD = 0: the bank conflict; PAD = 1: see smem_padded.hpp
  const std::int64_t c0 = std::int64_t{tk::block_idx().x} * TILE;
  const std::int64_t row_tiles = (rows + TILE - 1) / TILE;
  for (std::int64_t t = tk::block_idx().y; t < row_tiles; t += tk::grid_dim().y) {
    const std::int64_t r0 = t * TILE;
    const bool whole = r0 + TILE <= rows && c0 + TILE <= cols;  // block-uniform: no per-element test
    TK_THREADS(th) {
      TK_UNROLL
      for (int k = 0; k < TILE / ROWS; ++k) {
        const int y = th.y + k * ROWS;
        if (whole || (r0 + y < rows && c0 + th.x < cols)) tile[y][th.x] = in[(r0 + y) * ld_in + c0 + th.x];
      }
    }
    TK_BARRIER();  // the whole tile is loaded before any thread reads another thread's element
    TK_THREADS(th) {
      TK_UNROLL
      for (int k = 0; k < TILE / ROWS; ++k) {
        const int y = th.y + k * ROWS;
        if (whole || (c0 + y < cols && r0 + th.x < rows)) out[(c0 + y) * ld_out + r0 + th.x] = tile[th.x][y];
      }
    }
    TK_BARRIER();  // every thread has read the tile before the block's next tile overwrites it
  }
}

}  // namespace tk::kernels
