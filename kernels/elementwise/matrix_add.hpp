// kernels/elementwise/matrix_add.hpp — C = A + B for row-major matrices with leading dimensions
// (exercise 5.1 of seed 001: can shared memory cut the global traffic of matrix addition? No: each element
// of A and B is used by exactly one output, so there is no reuse for a tile to capture; CGMA stays at 1/3).
//
// Technique: a block of threads covers VEC * block_dim.x consecutive columns of a row (coalesced, VEC-wide
// accesses); blocks step over rows by grid_dim.y, since a grid's y extent is limited to 65535 on GPUs.
// Preconditions: lda, ldb, ldc >= cols; for VEC > 1 the pointers are aligned to 4 * VEC bytes and every
// leading dimension is a multiple of VEC. Indices are 64-bit: rows * ld may pass 2^31.
// Work counted by the benchmark: 1 FLOP and 12 bytes per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"
#include "tilekit/vec.hpp"

namespace tk::kernels {

template <int VEC>
TK_KERNEL void matrix_add(std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda, const float* B,
                          std::int64_t ldb, float* C, std::int64_t ldc) {
  TK_THREADS(th) {
    const std::int64_t j = (std::int64_t{tk::block_idx().x} * tk::block_dim().x + th.x) * VEC;
    if (j >= cols) TK_SKIP();
    for (std::int64_t r = tk::block_idx().y; r < rows; r += tk::grid_dim().y) {
      const float* a = A + r * lda + j;
      const float* b = B + r * ldb + j;
      float* c = C + r * ldc + j;
      if (j + VEC <= cols) {
        const tk::Vec<float, VEC> x = tk::load_vec<VEC>(a), y = tk::load_vec<VEC>(b);
        tk::Vec<float, VEC> z;
        for (int k = 0; k < VEC; ++k) z.v[k] = x.v[k] + y.v[k];
        tk::store_vec<VEC>(c, z);
      } else {
        for (std::int64_t k = 0; k < cols - j; ++k) c[k] = a[k] + b[k];
      }
    }
  }
}

}  // namespace tk::kernels
