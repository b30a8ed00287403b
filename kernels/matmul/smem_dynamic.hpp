// kernels/matmul/smem_dynamic.hpp — smem_tiled.hpp with the tile size chosen at run time (seed 004:
// "dynamic shared memory", extern __shared__ sized by the third launch parameter).
//
// What it changes: TILE is block_dim().x (a square block), and the two tiles live in the block's dynamic
// shared memory, 2 * TILE^2 elements, sized by the launcher — one compiled kernel serves every tile size
// the device can hold. The price: indices are computed at run time (TILE is no longer a constant, so the
// inner loop cannot be fully unrolled). CGMA = TILE, as for smem_tiled.
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

template <class T>
TK_KERNEL void matmul_smem_dynamic(std::int64_t M, std::int64_t N, std::int64_t K, T alpha, const T* A,
                                   std::int64_t lda, std::int64_t sa, bool ta, const T* B, std::int64_t ldb,
                                   std::int64_t sb, bool tb, T beta, T* C, std::int64_t ldc, std::int64_t sc) {
  const int S = tk::block_dim().x;
  T* As = tk::dynamic_shared<T>();  // S x S, row-major
  T* Bs = As + S * S;               // S x S, row-major
  tk::Private<T> acc(T(0));
  const int tiles_n = static_cast<int>((N + S - 1) / S);
  const std::int64_t m0 = std::int64_t{tk::block_idx().x / tiles_n} * S;
  const std::int64_t n0 = std::int64_t{tk::block_idx().x % tiles_n} * S;
  const std::int64_t z = tk::block_idx().y;
  A += z * sa;
  B += z * sb;
  C += z * sc;
  for (std::int64_t k0 = 0; k0 < K; k0 += S) {
    TK_THREADS(th) {
      const std::int64_t i = m0 + th.y, j = n0 + th.x;
      As[th.y * S + th.x] = (i < M && k0 + th.x < K) ? matmul_detail::op_at(A, lda, ta, i, k0 + th.x) : T(0);
      Bs[th.y * S + th.x] = (k0 + th.y < K && j < N) ? matmul_detail::op_at(B, ldb, tb, k0 + th.y, j) : T(0);
    }
    TK_BARRIER();  // both tiles are loaded before anyone reads them
    TK_THREADS(th) {
      T s = acc(th.id);
      for (int k = 0; k < S; ++k) s += As[th.y * S + k] * Bs[k * S + th.x];
      acc(th.id) = s;
    }
    TK_BARRIER();  // both tiles are consumed before the next strip overwrites them
  }
  TK_THREADS(th) {
    const std::int64_t i = m0 + th.y, j = n0 + th.x;
    if (i < M && j < N) matmul_detail::store_c(C + i * ldc + j, alpha, beta, acc(th.id));
  }
}

}  // namespace tk::kernels
