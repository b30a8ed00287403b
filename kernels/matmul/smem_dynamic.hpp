// kernels/matmul/smem_dynamic.hpp — smem_tiled.hpp with the tile size chosen at run time (seed 004:
// "dynamic shared memory", extern __shared__ sized by the third launch parameter).
//
// What it changes: TILE is block_dim().x (a square block), and the two tiles live in the block's dynamic
// shared memory, 2 * TILE^2 floats, sized by the launcher — one compiled kernel serves every tile size the
// device can hold. The price: indices are computed at run time (TILE is no longer a constant, so the
// inner loop cannot be fully unrolled). CGMA = TILE, as for smem_tiled.
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

TK_KERNEL void matmul_smem_dynamic(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A,
                                   std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C,
                                   std::int64_t ldc) {
  const int T = tk::block_dim().x;
  float* As = tk::dynamic_shared<float>();  // T x T, row-major
  float* Bs = As + T * T;                   // T x T, row-major
  tk::Private<float> acc(0.f);
  const int tiles_n = static_cast<int>((N + T - 1) / T);
  const std::int64_t m0 = std::int64_t{tk::block_idx().x / tiles_n} * T;
  const std::int64_t n0 = std::int64_t{tk::block_idx().x % tiles_n} * T;
  for (std::int64_t k0 = 0; k0 < K; k0 += T) {
    TK_THREADS(th) {
      const std::int64_t i = m0 + th.y, j = n0 + th.x;
      As[th.y * T + th.x] = (i < M && k0 + th.x < K) ? A[i * lda + k0 + th.x] : 0.f;
      Bs[th.y * T + th.x] = (k0 + th.y < K && j < N) ? B[(k0 + th.y) * ldb + j] : 0.f;
    }
    TK_BARRIER();  // both tiles are loaded before anyone reads them
    TK_THREADS(th) {
      float s = acc(th.id);
      for (int k = 0; k < T; ++k) s += As[th.y * T + k] * Bs[k * T + th.x];
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
