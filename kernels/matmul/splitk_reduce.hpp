// kernels/matmul/splitk_reduce.hpp — the second kernel of split-K (warp_tiled.hpp): the sum of the partial
// products into C.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common.hpp"

namespace tk::kernels {

// The partial products are `splits` slabs of M x N (row-major, one after the other); their element (i, j) is
// C's element at C[i * ci + j * cj]: C's (i, j) (ci = ldc, cj = 1), or its (j, i) (ci = 1, cj = ldc), where
// the first kernel's coordinates are C's transposed (gemv.hpp with few columns of C), so that its partial
// stores stay coalesced. C = alpha * (the sum of the partial products) + beta * C, computed in T and stored as
// Out (T, or a 16-bit C whose partial products are float: the warpgroup kernel's, launch_mma_units.cpp); C is not
// read when beta == 0. One thread per element, consecutive threads along a slab's rows, its rows over grid
// y-blocks, as in matrix_add.hpp.
template <class T, class Out = T>
TK_KERNEL void matmul_splitk_reduce(std::int64_t M, std::int64_t N, int splits, const T* partial, T alpha, T beta,
                                    Out* C, std::int64_t ci, std::int64_t cj) {
  const std::int64_t j = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  for (std::int64_t i = tk::block_idx().y; i < M; i += tk::grid_dim().y) {
    TK_THREADS(th) {
      if (j + th.x >= N) TK_SKIP();
      T s = 0;
      for (int p = 0; p < splits; ++p) s += partial[(p * M + i) * N + j + th.x];
      Out* const c = C + i * ci + (j + th.x) * cj;
      if constexpr (std::is_same_v<T, Out>) {
        matmul_detail::store_c(c, alpha, beta, s);
      } else {
        T v = alpha * s;
        if (beta != T(0)) v += beta * static_cast<T>(*c);
        *c = static_cast<Out>(v);
      }
    }
  }
}

}  // namespace tk::kernels
