// tilekit/matmul.hpp — C = alpha * A * B + beta * C, single precision, row-major (BLAS letters: A is
// M x K with leading dimension lda, B is K x N with ldb, C is M x N with ldc). The seeds write the same
// product as M (m x n) times N (n x k) = P: their m, n, k are M, K, N here.
//
// Pointers are in the memory of `dev`. The BLAS's semantics:
// - M == 0 or N == 0: nothing is done. (alpha == 0 or K == 0) and beta == 1: nothing is done, and no
//   pointer is looked at.
// - alpha == 0 or K == 0 (the product term vanishes): C = beta * C; A and B are neither checked nor read
//   (they may be null or hold NaN or Inf).
// - beta == 0: C is written, never read (it may hold NaN); C = alpha * A * B exactly, not 0 * NaN.
// - Aliasing is decided on elements: C may share no element with A or B (A and B may share elements).
//   Disjoint blocks of one array are fine: the blocks of a blocked LU, interleaved column blocks, a matrix
//   and its own padding columns. A shared element throws tk::Error naming it.
// - Every size, leading dimension and matrix extent is checked without overflow: a matrix that cannot fit
//   in the address space throws tk::Error naming its arguments. Pointers must be aligned to 4 bytes.
// Thread safety: any number of host threads may call tk::matmul at once (README, "The contract"); each
// split-K call takes scratch memory of its own.
#pragma once

#include <cstdint>
#include <vector>

#include "tilekit/buffer.hpp"
#include "tilekit/device.hpp"

namespace tk {

// The seeds' progression, one kernel file each (kernels/matmul/): see tk::matmul_variants() for what
// each teaches. `best` picks the fastest for the device and shape.
enum class MatmulVariant { naive, smem_tiled16, smem_tiled32, smem_dynamic, register_tiled, warp_tiled, best };

struct MatmulVariantInfo {
  MatmulVariant variant;
  const char* name;     // "smem_tiled16"
  const char* teaches;  // one line: the technique and what it improves
  const char* seed;     // the source document it comes from
};

// Every variant except `best`, in the order of the progression.
const std::vector<MatmulVariantInfo>& matmul_variants();
const char* to_string(MatmulVariant v);

void matmul(const Queue& queue, std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A,
            std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
            MatmulVariant variant = MatmulVariant::best);

// Buffer form: A holds M x K, B K x N, C M x N, all densely packed (lda = K, ldb = ldc = N).
void matmul(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const Buffer<float>& A,
            const Buffer<float>& B, float beta, Buffer<float>& C, MatmulVariant variant = MatmulVariant::best);

}  // namespace tk
