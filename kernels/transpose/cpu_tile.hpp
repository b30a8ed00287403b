// kernels/transpose/cpu_tile.hpp — the side of the CPU `best` transpose's tile, from the matrix and the
// threads: a stated model, as kernels/matmul/cpu_block.hpp is for the matmul.
//
// On a CPU a block moves a T x T tile as 16 x 16 squares through registers (cpu_squares.hpp): a row of
// squares reads 16 rows of `in` along T floats, and writes 64-byte lines of `out` that go straight to
// memory (streamed) or, when `out`'s rows are not 64-byte aligned, through the cache, 2 T lines at a time.
// Each line of `in` and `out` is touched once, so the caches hold no tile: the L2 sets no limit up to
// T = 256 (32 KiB of partial `out` lines), and longer runs stream better. So:
//   - T = 256, the longest runs (measured at 8192^2 on a 2-core EPYC, 1 MiB L2, 2 threads: 256 -> 32.7-36.6
//     GB/s, 128 -> 29.8-31.1, 64 -> 25.6-27.3;
// docs/history/performance-log.md#cpu-transpose-16-x-16-squares-through-registers-streamed-stores-2026-11-25-issue-13);
//   - then halved, down to 64, while the grid would have fewer than `slots` tiles (4 per thread of the
//     executor's team), so that small matrices keep every thread busy.
// (The kernel before the squares read the tile into the block's array and wrote `out` through the cache:
// its model kept 2 T^2 floats within a quarter of L2, which gave 128 on a 1 MiB L2.)
// TK_TRANSPOSE_TUNE=64, 128 or 256 forces the side (tuning runs and the tests of each side); =1 sends unaligned
// `out` rows to the squares too (instead of cpu_strips.hpp), 512 to 4096 sets the strips' rows per block.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"  // tk::kernels is the target's namespace

namespace tk::kernels::transpose_cpu {

struct Tile {
  int side;         // 64, 128 or 256
  const char* why;  // the rule that settled it
};

// rows x cols the matrix, `slots` the tiles that keep the threads busy.
constexpr Tile tile_for(std::int64_t rows, std::int64_t cols, std::int64_t slots) {
  Tile t{256, "the longest runs"};
  const auto tiles = [&](std::int64_t s) { return ((rows + s - 1) / s) * ((cols + s - 1) / s); };
  while (t.side > 64 && tiles(t.side) < slots) t = {t.side / 2, "halved toward 4 tiles per thread (64 at least)"};
  return t;
}

// The rows of a block of transpose_strips (cpu_strips.hpp, 256 columns a block), where `out`'s rows are not
// 64-byte aligned: each row of `out` a block writes has a partial line at either end, written through the cache,
// so a block takes as many rows as keep `slots` blocks for the threads, from 2048 (1 partial line in 64) down to
// 256 (1 in 8); a whole number of squares (16 rows).
constexpr std::int64_t strip_rows_for(std::int64_t rows, std::int64_t cols, std::int64_t slots) {
  std::int64_t h = 2048;
  const auto blocks = [&](std::int64_t x) { return ((cols + 255) / 256) * ((rows + x - 1) / x); };
  while (h > 256 && blocks(h) < slots) h /= 2;
  const std::int64_t whole = (rows + 15) / 16 * 16;
  return h < whole ? h : whole;
}

}  // namespace tk::kernels::transpose_cpu
