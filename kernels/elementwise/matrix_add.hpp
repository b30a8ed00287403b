// kernels/elementwise/matrix_add.hpp — C = A + B for row-major matrices with leading dimensions
// (exercise 5.1 of seed 001: can shared memory cut the global traffic of matrix addition? No: each element
// of A and B is used by exactly one output, so there is no reuse for a tile to capture; CGMA stays at 1/3).
//
// Technique: a block covers VEC * block_dim.x consecutive columns of a row (coalesced, VEC-wide accesses)
// and steps over rows by grid_dim.y, since a grid's y extent is limited to 65535 on GPUs. The row loop and
// the whole-or-partial test are block-uniform, outside the phases, as in copy.hpp.
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
  const std::int64_t j0 = std::int64_t{tk::block_idx().x} * tk::block_dim().x * VEC;
  const bool whole = j0 + std::int64_t{tk::block_dim().x} * VEC <= cols;
  for (std::int64_t r = tk::block_idx().y; r < rows; r += tk::grid_dim().y) {
    const float* a = A + r * lda + j0;
    const float* b = B + r * ldb + j0;
    float* c = C + r * ldc + j0;
    if (whole) {
      TK_THREADS(th) {
        const tk::Vec<float, VEC> x = tk::load_vec<VEC>(a + th.x * VEC), y = tk::load_vec<VEC>(b + th.x * VEC);
        tk::Vec<float, VEC> z;
        for (int k = 0; k < VEC; ++k) z.v[k] = x.v[k] + y.v[k];
        tk::store_vec<VEC>(c + th.x * VEC, z);
      }
    } else {
      TK_THREADS(th) {
        for (int k = 0; k < VEC; ++k) {
          const std::int64_t j = std::int64_t{th.x} * VEC + k;
          if (j0 + j < cols) c[j] = a[j] + b[j];
        }
      }
    }
  }
}

}  // namespace tk::kernels
