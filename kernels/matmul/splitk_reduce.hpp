// kernels/matmul/splitk_reduce.hpp — the second kernel of split-K (warp_tiled.hpp): the sum of the partial
// products into C. A header of its own, included once per target by launch.cpp: it is not a template, so
// a second translation unit that includes it would define it twice.
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

// C = alpha * (sum of the `splits` partial products) + beta * C; one thread per element, rows of C over
// grid y-blocks, as in matrix_add.hpp.
TK_KERNEL void matmul_splitk_reduce(std::int64_t M, std::int64_t N, int splits, const float* partial, float alpha,
                                    float beta, float* C, std::int64_t ldc) {
  const std::int64_t j = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  for (std::int64_t i = tk::block_idx().y; i < M; i += tk::grid_dim().y) {
    TK_THREADS(th) {
      if (j + th.x >= N) TK_SKIP();
      float s = 0.f;
      for (int p = 0; p < splits; ++p) s += partial[(p * M + i) * N + j + th.x];
      matmul_detail::store_c(C + i * ldc + j + th.x, alpha, beta, s);
    }
  }
}

}  // namespace tk::kernels
