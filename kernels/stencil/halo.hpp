// kernels/stencil/halo.hpp — what the stencil kernels share: the zero-outside read of the input, and the
// load of a tile with its halo into shared memory.
//
// Boundary semantics (every stencil): an element outside the array reads as 0, so every output has the
// same formula. EDGE (a template parameter) says whether the block's reads may leave the array; blocks
// whose window is inside skip the tests (the choice is block-uniform).
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

// x(j) of a 1D array of n floats: in[j] for 0 <= j < n, else 0.
template <bool EDGE>
TK_DEVICE float read_or_zero(const float* in, std::int64_t n, std::int64_t j) {
  if (EDGE && (j < 0 || j >= n)) return 0.f;
  return in[j];
}

// x(i, j) of a rows x cols matrix: in(i, j) inside, else 0.
template <bool EDGE>
TK_DEVICE float read_or_zero(const float* in, std::int64_t ld, std::int64_t rows, std::int64_t cols, std::int64_t i,
                             std::int64_t j) {
  if (EDGE && (i < 0 || i >= rows || j < 0 || j >= cols)) return 0.f;
  return in[i * ld + j];
}

// tile[r * w + c] = x(i0 + r, j0 + c) for the h x w window whose corner is (i0, j0): the output tile and its
// halo. The block's threads cover the window block_dim.y rows by block_dim.x columns at a time (block-
// uniform loops, a phase each), so a warp reads consecutive floats of a row. Whole chunks (block-uniform)
// store without a test, which keeps their CPU loops vectorised; only the window's last rows and columns
// test each thread. The caller's barrier follows.
template <bool EDGE>
TK_DEVICE void load_window(float* tile, int h, int w, const float* in, std::int64_t ld, std::int64_t rows,
                           std::int64_t cols, std::int64_t i0, std::int64_t j0) {
  const int by = tk::block_dim().y, bx = tk::block_dim().x;
  for (int r0 = 0; r0 < h; r0 += by) {
    for (int c0 = 0; c0 < w; c0 += bx) {
      if (r0 + by <= h && c0 + bx <= w) {  // block-uniform: the chunk lies inside the window
        TK_THREADS(th) {
          tile[std::int64_t{r0 + th.y} * w + c0 + th.x] =
              read_or_zero<EDGE>(in, ld, rows, cols, i0 + r0 + th.y, j0 + c0 + th.x);
        }
      } else {
        TK_THREADS(th) {
          const int r = r0 + th.y, c = c0 + th.x;
          // 64-bit index: with an int product gcc cannot prove the store contiguous and scatters it
          if (r < h && c < w) tile[std::int64_t{r} * w + c] = read_or_zero<EDGE>(in, ld, rows, cols, i0 + r, j0 + c);
        }
      }
    }
  }
}

}  // namespace tk::kernels
