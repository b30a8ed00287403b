// kernels/transpose/cpu_strips.hpp — tk::transpose's `best` on CPUs when `out`'s rows are not 64-byte aligned
// (a user's std::vector, whose data malloc aligns to 16 bytes; an odd leading dimension, where each row of `out`
// starts elsewhere in its line): the squares of cpu_squares.hpp would write every line of `out` in two
// halves through the cache, reading it from DRAM first (3 bytes moved for 2 of a memcpy, and each line
// touched twice).
//
// Technique: a block is one thread that takes up to 256 columns of `in` (16 strips of 16) and H rows (a
// multiple of 16; the last block the rest), that is up to 256 rows of `out`, H elements of each.
// tk::transpose_strips16 goes down the rows a row of 16 x 16 squares at a time (16 rows of `in` read along 256
// floats, as the squares do; the edge squares loaded with masks) and cuts each of `out`'s whole 64-byte lines
// out of two vertically consecutive squares (a two-source permute whose window is that row's offset in its
// line), so every whole line is written once, streamed past the caches, whatever the alignment. Only the
// partial lines at the ends of each run of `out` a block writes take plain (masked) stores: about 2 / (H / 16)
// of the lines, so H is long (cpu_tile.hpp). A block ends with tk::stream_fence().
// Preconditions: as naive.hpp (H a multiple of 16 keeps blocks in whole squares; any H is correct). Block: 1 thread. Work counted:
// 8 bytes per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

constexpr int strips_per_block = 16;  // 256 columns of `in` a block

// STRIPS: strips_per_block (a template parameter, so that a GPU build, which never runs it, does not compile it).
template <int STRIPS>
TK_KERNEL void transpose_strips(std::int64_t rows, std::int64_t cols, std::int64_t rows_per_block,
                                const float* __restrict__ in, std::int64_t ld_in, float* __restrict__ out,
                                std::int64_t ld_out) {
  const std::int64_t c = std::int64_t{tk::block_idx().x} * 16 * STRIPS;
  const int nc = cols - c < 16 * STRIPS ? static_cast<int>(cols - c) : 16 * STRIPS;
  const std::int64_t row_blocks = (rows + rows_per_block - 1) / rows_per_block;
  for (std::int64_t t = tk::block_idx().y; t < row_blocks; t += tk::grid_dim().y) {
    const std::int64_t r = t * rows_per_block;
    const std::int64_t n = rows - r < rows_per_block ? rows - r : rows_per_block;
    TK_THREADS(th) {
      if (th.id == 0 && nc > 0) tk::transpose_strips16(out + c * ld_out + r, ld_out, in + r * ld_in + c, ld_in, n, nc);
    }
  }
  TK_THREADS(th) {
    if (th.id == 0) tk::stream_fence();
  }
}

}  // namespace tk::kernels
