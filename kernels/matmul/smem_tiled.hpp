// kernels/matmul/smem_tiled.hpp — the seeds' shared-memory tiled kernel (seed 001 figure 5.12, seed 002
// for general sizes): a block of TILE x TILE threads computes a TILE x TILE tile of C; the k dimension is
// walked one TILE-wide strip at a time, each strip of op(A) and op(B) loaded once into shared memory by
// the whole block and then used TILE times.
//
// What it improves on naive.hpp: every element loaded from global memory serves TILE multiply-adds, so
// CGMA = 2 * TILE^3 / (2 * TILE^2) = TILE FLOPs per element (16 for TILE 16, 32 for TILE 32; seed 000's
// tile-size discussion). General sizes (seed 002): a thread loads 0 outside A or B, so partial tiles need
// no special case in the inner loop, and only threads inside C store. A transposed operand (run-time
// flags ta, tb) is loaded with its strides swapped: the tile in shared memory is the same.
// Shared memory: 2 * TILE^2 elements. Launch: TILE x TILE threads, grid of tiles (x) by matrices (y).
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

template <class T, int TILE>
TK_KERNEL void matmul_smem_tiled(std::int64_t M, std::int64_t N, std::int64_t K, T alpha, const T* A, std::int64_t lda,
                                 std::int64_t sa, bool ta, const T* B, std::int64_t ldb, std::int64_t sb, bool tb,
                                 T beta, T* C, std::int64_t ldc, std::int64_t sc) {
  TK_SHARED_ARRAY(T, As, [TILE][TILE]);
  TK_SHARED_ARRAY(T, Bs, [TILE][TILE]);
  tk::Private<T> acc(T(0));
  const int tiles_n = static_cast<int>((N + TILE - 1) / TILE);
  const std::int64_t m0 = std::int64_t{tk::block_idx().x / tiles_n} * TILE;
  const std::int64_t n0 = std::int64_t{tk::block_idx().x % tiles_n} * TILE;
  const std::int64_t z = tk::block_idx().y;
  A += z * sa;
  B += z * sb;
  C += z * sc;
  for (std::int64_t k0 = 0; k0 < K; k0 += TILE) {
    TK_THREADS(th) {  // collaborative load: one element of each tile per thread, 0 outside the matrices
      const std::int64_t i = m0 + th.y, j = n0 + th.x;
      As[th.y][th.x] = (i < M && k0 + th.x < K) ? matmul_detail::op_at(A, lda, ta, i, k0 + th.x) : T(0);
      Bs[th.y][th.x] = (k0 + th.y < K && j < N) ? matmul_detail::op_at(B, ldb, tb, k0 + th.y, j) : T(0);
    }
    TK_BARRIER();  // both tiles are loaded before anyone reads them
    TK_THREADS(th) {
      T s = acc(th.id);
      for (int k = 0; k < TILE; ++k) s += As[th.y][k] * Bs[k][th.x];
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
