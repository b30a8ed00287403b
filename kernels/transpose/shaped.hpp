// kernels/transpose/shaped.hpp — the shared-tile transpose (smem_padded.hpp) with a tile shaped to the
// matrix, and writes that start on the memory's 32-byte sectors: `best` on GPUs for skinny matrices and for
// rows of `out` that are not sector aligned (odd leading dimensions).
//
// Technique, two lessons from taking the square tile off its tuned shapes:
// - A tile that follows the matrix. A 32 x 32 tile over a matrix of 16 rows leaves half of every tile, and
//   half of the block's threads, empty; over 16 columns the same. Here the tile is TR rows x TC columns of
//   `in`, TR * TC elements per block whatever its shape (TR = 16, TC = 64 for 16 rows; TR = 64, TC = 16 for
//   16 columns), moved by a flat block of THREADS threads: element i of the tile is (i / TC, i % TC) as it is
//   read from `in` and (i % TR, i / TR) as it is written to `out`, so consecutive threads touch consecutive
//   addresses on both sides; where a side of the tile is narrower than a warp, one warp covers several rows
//   of it (of `out`, which are adjacent when ld_out = rows: the whole block writes one contiguous run).
// - Whole sectors. DRAM is written in 32-byte sectors; a warp that writes 32 floats starting mid-sector
//   writes five sectors, two of them in part, and a partly written sector costs the memory a read as well
//   (measured on an H100 at 8191 x 8193: 61% of cudaMemcpy against 94% at 8192 x 8192). With ALIGN = 8
//   (floats in a sector), row c of `out` is written in windows that start on a sector boundary: the
//   window of row tile t is [t * TR - s_c, t * TR - s_c + TR), s_c being how many floats past a boundary
//   out(c, t * TR) lies (0..7, different for every row when ld_out is odd). The windows of consecutive row
//   tiles still meet exactly, so every element is written once; the block reads 8 more rows of `in` (those
//   the windows reach back into, which the block before it also read: L2 hits) than it writes.
// Shared tile: (TR + ALIGN) x (TC + PAD) floats (25 KB at most, launch.cpp's shapes), PAD chosen so that the
// 32 reads of a warp in the write phase fall in 32 banks (TransposeShapedTile); the read phase then has a
// few 2-way conflicts when TC < 32.
// Grid: x over column tiles, y over row tiles up to 65535 (the kernel steps through the rest); block
// THREADS x 1 x 1. Preconditions: as naive.hpp, and `out` 4-byte aligned. Work counted: 8 bytes per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

// The tile's constants (a struct, so that host and device code both read them). `pad` floats end each tile
// row so that the write phase's reads fall in 32 banks: a warp reads min(TR, 32) rows of the tile at
// 32 / min(TR, 32) adjacent columns, which are 32 different banks when the row stride is that column count
// times an odd number (the rows then land on distinct multiples of it); the stride is the smallest such
// number at or above TC. The windows of a row may start up to `reach` rows before the row tile, so a
// `rows`-row matrix has (rows + reach + TR - 1) / TR row tiles.
template <int TR, int TC, int ALIGN>
struct TransposeShapedTile {
  static constexpr int cols_per_warp = 32 / (TR < 32 ? TR : 32);
  static constexpr int odd = (TC + cols_per_warp - 1) / cols_per_warp | 1;  // the least odd number >= TC / cols
  static constexpr int pad = cols_per_warp * odd - TC;
  static constexpr int reach = ALIGN > 0 ? ALIGN - 1 : 0;
};

template <int TR, int TC, int THREADS, int ALIGN>
TK_KERNEL void transpose_shaped(std::int64_t rows, std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                                float* __restrict__ out, std::int64_t ld_out) {
  static_assert((TR & (TR - 1)) == 0 && (TC & (TC - 1)) == 0, "tile sides are powers of two (shifts, not divisions)");
  static_assert(ALIGN == 0 || ALIGN == 8, "ALIGN: 0, or 8 floats (a 32-byte sector)");
  constexpr int LR = TR + ALIGN;  // rows of `in` in the tile
  constexpr int PAD = TransposeShapedTile<TR, TC, ALIGN>::pad;
  constexpr int LOADS = (LR * TC + THREADS - 1) / THREADS;   // elements per thread, read phase
  constexpr int STORES = (TR * TC + THREADS - 1) / THREADS;  // write phase
  TK_SHARED_ARRAY(float, tile, [LR][TC + PAD]);
  const std::int64_t c0 = std::int64_t{tk::block_idx().x} * TC;
  const std::uint64_t out_word = reinterpret_cast<std::uintptr_t>(out) / sizeof(float);  // out's address in floats
  const std::int64_t row_tiles = (rows + TransposeShapedTile<TR, TC, ALIGN>::reach + TR - 1) / TR;
  for (std::int64_t t = tk::block_idx().y; t < row_tiles; t += tk::grid_dim().y) {
    const std::int64_t r0 = t * TR - ALIGN;  // the row of `in` in the tile's row 0
    TK_THREADS(th) {
      TK_UNROLL
      for (int k = 0; k < LOADS; ++k) {
        const unsigned i = th.x + k * THREADS;  // unsigned: / and % by powers of two are shifts and masks
        const int y = static_cast<int>(i / TC), x = static_cast<int>(i % TC);
        const std::int64_t r = r0 + y, c = c0 + x;
        if ((LR * TC % THREADS == 0 || i < LR * TC) && r >= 0 && r < rows && c < cols) tile[y][x] = in[r * ld_in + c];
      }
    }
    TK_BARRIER();  // the whole tile is loaded before any thread reads another thread's element
    TK_THREADS(th) {
      TK_UNROLL
      for (int k = 0; k < STORES; ++k) {
        const unsigned i = th.x + k * THREADS;
        const int x = static_cast<int>(i / TR), y = static_cast<int>(i % TR);  // element y of out row c0 + x's window
        const std::int64_t c = c0 + x;
        // floats from the sector boundary at or before out(c, t * TR) to it (integer arithmetic on the address:
        // no pointer is formed for rows past the matrix)
        const int s =
            ALIGN ? static_cast<int>((out_word + static_cast<std::uint64_t>(c * ld_out + t * TR)) % ALIGN) : 0;
        const std::int64_t r = t * TR - s + y;
        if ((TR * TC % THREADS == 0 || i < TR * TC) && r >= 0 && r < rows && c < cols)
          out[c * ld_out + r] = tile[y + ALIGN - s][x];
      }
    }
    TK_BARRIER();  // every thread has read the tile before the block's next tile overwrites it
  }
}

// transpose_shaped for large matrices whose rows of `out` are not sector aligned (odd leading dimensions):
// the tiles that lie inside the matrix, all but the edges, move with no bounds test per element (each
// thread steps a pointer by whole passes of the block), and the kernel is compiled for MINB blocks per
// multiprocessor (launch.cpp: a full multiprocessor, 32 registers a thread at 256). The 64-bit tests and
// index arithmetic per element were most of the instructions of this issue-bound kernel, and its 48
// registers held it to 5 blocks per SM; with both gone the odd shapes went from 80% to 92% of cudaMemcpy on
// an H100 (
// docs/history/performance-log.md#nvidia-h100-the-odd-shape-transpose-at-92-of-cudamemcpy-element-wise-loads-for-unaligned-gemm-operands-not-kept-2026-11-25-night). The skinny tiles keep transpose_shaped: a side of their matrix is under the
// tile's, so no tile is ever inside, and the fast path compiled in, or 32 registers, cost them 10-30 points.
template <int TR, int TC, int THREADS, int ALIGN, int MINB>
TK_KERNEL TK_LAUNCH_BOUNDS_MIN(THREADS, MINB) void transpose_shaped_fast(std::int64_t rows, std::int64_t cols,
                                                                         const float* __restrict__ in,
                                                                         std::int64_t ld_in, float* __restrict__ out,
                                                                         std::int64_t ld_out) {
  static_assert((TR & (TR - 1)) == 0 && (TC & (TC - 1)) == 0, "tile sides are powers of two (shifts, not divisions)");
  static_assert(ALIGN == 0 || ALIGN == 8, "ALIGN: 0, or 8 floats (a 32-byte sector)");
  static_assert(THREADS % TC == 0 && THREADS % TR == 0, "the threads cover whole rows of the tile");
  constexpr int LR = TR + ALIGN;  // rows of `in` in the tile
  constexpr int PAD = TransposeShapedTile<TR, TC, ALIGN>::pad;
  constexpr int LOADS = (LR * TC + THREADS - 1) / THREADS;   // elements per thread, read phase
  constexpr int STORES = (TR * TC + THREADS - 1) / THREADS;  // write phase
  TK_SHARED_ARRAY(float, tile, [LR][TC + PAD]);
  const std::int64_t c0 = std::int64_t{tk::block_idx().x} * TC;
  const std::uint64_t out_word = reinterpret_cast<std::uintptr_t>(out) / sizeof(float);  // out's address in floats
  const std::int64_t row_tiles = (rows + TransposeShapedTile<TR, TC, ALIGN>::reach + TR - 1) / TR;
  for (std::int64_t t = tk::block_idx().y; t < row_tiles; t += tk::grid_dim().y) {
    const std::int64_t r0 = t * TR - ALIGN;  // the row of `in` in the tile's row 0
    // A tile whose rows of `in` and windows of `out` lie inside the matrix (all but the edges: the windows
    // reach rows t TR - ALIGN + 1 .. t TR + TR - 1) moves with no bounds test per element, each thread
    // stepping by whole passes of the block; the edges as transpose_shaped moves them.
    const bool inside = r0 >= 0 && r0 + LR <= rows && c0 + TC <= cols;
    TK_THREADS(th) {
      if (inside) {
        constexpr int STEP = THREADS / TC;  // rows of `in` per pass
        const int x = static_cast<int>(th.x % TC), y0 = static_cast<int>(th.x / TC);
        const float* src = in + (r0 + y0) * ld_in + c0 + x;
        const std::int64_t pass = std::int64_t{STEP} * ld_in;
        TK_UNROLL
        for (int k = 0; k < LOADS; ++k) {
          if (LR * TC % THREADS == 0 || y0 + k * STEP < LR) tile[y0 + k * STEP][x] = src[k * pass];
        }
      } else {
        TK_UNROLL
        for (int k = 0; k < LOADS; ++k) {
          const unsigned i = th.x + k * THREADS;  // unsigned: / and % by powers of two are shifts and masks
          const int y = static_cast<int>(i / TC), x = static_cast<int>(i % TC);
          const std::int64_t r = r0 + y, c = c0 + x;
          if ((LR * TC % THREADS == 0 || i < LR * TC) && r >= 0 && r < rows && c < cols) tile[y][x] = in[r * ld_in + c];
        }
      }
    }
    TK_BARRIER();  // the whole tile is loaded before any thread reads another thread's element
    TK_THREADS(th) {
      TK_UNROLL
      for (int k = 0; k < STORES; ++k) {
        const unsigned i = th.x + k * THREADS;
        const int x = static_cast<int>(i / TR), y = static_cast<int>(i % TR);  // element y of out row c0 + x's window
        const std::int64_t c = c0 + x;
        // floats from the sector boundary at or before out(c, t * TR) to it: integer arithmetic on the address
        // (no pointer is formed for rows past the matrix), in 32 bits, which keep the low 3 bits exact
        const int s = ALIGN ? static_cast<int>((static_cast<std::uint32_t>(out_word) +
                                                static_cast<std::uint32_t>(c) * static_cast<std::uint32_t>(ld_out) +
                                                static_cast<std::uint32_t>(t * TR)) %
                                               ALIGN)
                            : 0;
        const std::int64_t r = t * TR - s + y;
        if (inside) {
          if (TR * TC % THREADS == 0 || i < TR * TC) out[c * ld_out + r] = tile[y + ALIGN - s][x];
        } else if ((TR * TC % THREADS == 0 || i < TR * TC) && r >= 0 && r < rows && c < cols) {
          out[c * ld_out + r] = tile[y + ALIGN - s][x];
        }
      }
    }
    TK_BARRIER();  // every thread has read the tile before the block's next tile overwrites it
  }
}

}  // namespace tk::kernels
