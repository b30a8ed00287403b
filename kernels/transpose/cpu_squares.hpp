// kernels/transpose/cpu_squares.hpp — tk::transpose's `best` on CPUs: each thread moves squares of 16 x 16
// floats from `in` to `out` through vector registers, and streams the lines of `out` past the caches.
//
// Technique: on a CPU the shared tile of smem_padded.hpp costs more than it saves. Its two phases read T rows
// of `in` into the block's array and then write T rows of `out` from the array's columns: the reads and the
// writes do not overlap, the array's column reads go element by element, and every line of `out` is first
// read from DRAM to be owned (the write-allocate), so a transpose moves 3 bytes for every 2 of a memcpy,
// which glibc streams. Here thread (x, y) of a T x T tile's (T / 16)^2 threads takes the square at rows
// r0 + 16 y, columns c0 + 16 x of `in`: 16 line reads, an in-register transpose, 16 line writes
// (tk::transpose_line_square<float, true>: one 16 x 16 transpose with AVX-512, two 8 x 8 with AVX, four
// 4 x 4 with SSE2), the writes non-temporal where `out`'s rows are 64-byte aligned. Each line of `in` and of
// `out` is touched by one square (by two where their rows are not 64-byte aligned), so nothing waits in cache
// for reuse: the tile's side T only orders the squares (a tile row's squares read 16 rows of `in` along T
// floats; cpu_tile.hpp picks T). Measured at 8192^2 on a 2-core EPYC
// in a standalone trial before this kernel, streamed stores gained about 1.5-2x over plain ones, and the
// shared array cost about 40%:
// docs/history/performance-log.md#cpu-transpose-16-x-16-squares-through-registers-streamed-stores-2026-11-25-issue-13.
// A square that crosses the matrix's edge is copied row by row into a zeroed 16 x 16 buffer, transposed
// whole, and its valid part copied out row by row: contiguous runs both ways rather than a strided element
// loop (matrices of fewer than 16 rows or columns are all edge). A block ends with tk::stream_fence().
// Preconditions: as naive.hpp. Block: (T / 16) x (T / 16) threads. Work counted: 8 bytes per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <int TILE>
TK_KERNEL void transpose_squares(std::int64_t rows, std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                                 float* __restrict__ out, std::int64_t ld_out) {
  constexpr int G = 16;  // floats per 64-byte line: a square's side
  static_assert(TILE % G == 0, "whole squares per tile");
  const std::int64_t c0 = std::int64_t{tk::block_idx().x} * TILE;
  const std::int64_t row_tiles = (rows + TILE - 1) / TILE;
  for (std::int64_t t = tk::block_idx().y; t < row_tiles; t += tk::grid_dim().y) {
    const std::int64_t r0 = t * TILE;
    TK_THREADS(th) {
      const std::int64_t r = r0 + std::int64_t{th.y} * G, c = c0 + std::int64_t{th.x} * G;
      if (r + G <= rows && c + G <= cols) {
        tk::transpose_line_square<float, true>(out + c * ld_out + r, ld_out, in + r * ld_in + c, ld_in);
      } else if (r < rows && c < cols) {  // across the edge: through a whole square in the thread's buffers
        const int nr = rows - r < G ? static_cast<int>(rows - r) : G;
        const int nc = cols - c < G ? static_cast<int>(cols - c) : G;
        float a[G][G] = {}, b[G][G];
        for (int i = 0; i < nr; ++i) {
          for (int j = 0; j < nc; ++j) a[i][j] = in[(r + i) * ld_in + c + j];
        }
        tk::transpose_line_square(&b[0][0], G, &a[0][0], G);
        for (int j = 0; j < nc; ++j) {
          for (int i = 0; i < nr; ++i) out[(c + j) * ld_out + r + i] = b[j][i];
        }
      }
    }
  }
  TK_THREADS(th) {
    if (th.id == 0) tk::stream_fence();  // a CPU block runs on one thread: its streamed lines are ordered
  }
}

}  // namespace tk::kernels
