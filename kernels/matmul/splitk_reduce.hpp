// kernels/matmul/splitk_reduce.hpp — the second kernel of split-K (warp_tiled.hpp): the sum of the partial
// products into C.
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

// C = alpha * (sum of the `splits` partial products) + beta * C; one thread per element, rows of C over
// grid y-blocks, as in matrix_add.hpp.
template <class T>
TK_KERNEL void matmul_splitk_reduce(std::int64_t M, std::int64_t N, int splits, const T* partial, T alpha, T beta,
                                    T* C, std::int64_t ldc) {
  const std::int64_t j = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  for (std::int64_t i = tk::block_idx().y; i < M; i += tk::grid_dim().y) {
    TK_THREADS(th) {
      if (j + th.x >= N) TK_SKIP();
      T s = 0;
      for (int p = 0; p < splits; ++p) s += partial[(p * M + i) * N + j + th.x];
      matmul_detail::store_c(C + i * ldc + j + th.x, alpha, beta, s);
    }
  }
}

}  // namespace tk::kernels
