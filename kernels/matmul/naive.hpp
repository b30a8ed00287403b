// kernels/matmul/naive.hpp — one thread per element of C: the seeds' first matrix-multiplication kernel
// (seed 000 "MatrixMulKernel", seed 001 figure 5.1), generalised to M x N x K, leading dimensions,
// op(A) and op(B), alpha and beta, float or double, and batches.
//
// Every iteration of the k loop loads one element of A and one of B from global memory for one multiply
// and one add: CGMA = 2 FLOPs / 2 loads = 1.0, so the kernel runs at the speed of global memory (seed 001,
// section 5.1). Threads of a row of the block read B coalesced and share each A element (a broadcast);
// a transposed operand (run-time flags ta, tb) is read with its strides swapped, uncoalesced.
// Launch: 2D blocks (bx, by) over a grid of ceil(M / by) * ceil(N / bx) tiles (x) by matrices (y).
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

template <class T>
TK_KERNEL void matmul_naive(std::int64_t M, std::int64_t N, std::int64_t K, T alpha, const T* A, std::int64_t lda,
                            std::int64_t sa, bool ta, const T* B, std::int64_t ldb, std::int64_t sb, bool tb, T beta,
                            T* C, std::int64_t ldc, std::int64_t sc) {
  const int tiles_n = static_cast<int>((N + tk::block_dim().x - 1) / tk::block_dim().x);
  const std::int64_t m0 = std::int64_t{tk::block_idx().x / tiles_n} * tk::block_dim().y;
  const std::int64_t n0 = std::int64_t{tk::block_idx().x % tiles_n} * tk::block_dim().x;
  const std::int64_t z = tk::block_idx().y;
  A += z * sa;
  B += z * sb;
  C += z * sc;
  TK_THREADS(th) {
    const std::int64_t i = m0 + th.y, j = n0 + th.x;
    if (i >= M || j >= N) TK_SKIP();
    T acc = 0;
    for (std::int64_t k = 0; k < K; ++k)
      acc += matmul_detail::op_at(A, lda, ta, i, k) * matmul_detail::op_at(B, ldb, tb, k, j);
    matmul_detail::store_c(C + i * ldc + j, alpha, beta, acc);
  }
}

}  // namespace tk::kernels
