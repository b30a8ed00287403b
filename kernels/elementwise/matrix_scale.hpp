// kernels/elementwise/matrix_scale.hpp — C = beta * C for a row-major matrix with a leading dimension; with
// beta == 0, C = 0 whatever it held (NaN included), as the BLAS defines it. tk::matmul runs it when the
// product term vanishes (alpha == 0 or K == 0), so that A and B are not read at all.
//
// Technique: matrix_add's grid (a block covers block_dim.x consecutive columns of a row and steps over rows
// by grid_dim.y), one element per thread: it runs once per degenerate GEMM call, not in a hot loop.
// Preconditions: ldc >= cols. Indices are 64-bit.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <class T>
TK_KERNEL void matrix_scale(std::int64_t rows, std::int64_t cols, T beta, T* C, std::int64_t ldc) {
  const std::int64_t j0 = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  for (std::int64_t r = tk::block_idx().y; r < rows; r += tk::grid_dim().y) {
    T* c = C + r * ldc + j0;
    TK_THREADS(th) {
      if (j0 + th.x >= cols) TK_SKIP();
      c[th.x] = beta == T(0) ? T(0) : beta * c[th.x];
    }
  }
}

}  // namespace tk::kernels
