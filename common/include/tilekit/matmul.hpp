// tilekit/matmul.hpp — C = alpha * A * B + beta * C, single precision, row-major (BLAS letters: A is
// M x K with leading dimension lda, B is K x N with ldb, C is M x N with ldc). The seeds write the same
// product as M (m x n) times N (n x k) = P: their m, n, k are M, K, N here.
//
// Pointers are in the memory of `dev`. With beta == 0, C is not read (it may hold NaN). M, N or K of 0
// is allowed (K == 0 scales C by beta). Bad arguments throw tk::Error.
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

void matmul(const Device& dev, std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A,
            std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
            MatmulVariant variant = MatmulVariant::best);

// Buffer form: A holds M x K, B K x N, C M x N, all densely packed (lda = K, ldb = ldc = N).
void matmul(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const Buffer<float>& A,
            const Buffer<float>& B, float beta, Buffer<float>& C, MatmulVariant variant = MatmulVariant::best);

}  // namespace tk
