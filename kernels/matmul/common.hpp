// kernels/matmul/common.hpp — what every matmul variant shares: the C update and the order of tiles.
//
// Conventions (BLAS letters, row-major): C = alpha * A * B + beta * C with A M x K (lda), B K x N (ldb),
// C M x N (ldc). The seeds write the product as M (m x n) times N (n x k) = P: their m, n, k are our
// M, K, N. With beta == 0, C is never read (it may hold NaN).
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"
#include "tilekit/vec.hpp"

namespace tk::kernels::matmul_detail {

TK_DEVICE void store_c(float* c, float alpha, float beta, float acc) {
  *c = beta == 0.f ? alpha * acc : alpha * acc + beta * *c;
}

struct TileCoord {
  int m, n;
};

// Block b's tile in "grouped" order: GROUP tile-rows are swept column by column, so consecutive blocks
// share the same few rows of A and columns of B while those are still in L2 (block rasterisation).
template <int GROUP>
TK_DEVICE TileCoord grouped_tile(int b, int tiles_m, int tiles_n) {
  const int per_group = GROUP * tiles_n;
  const int first_m = (b / per_group) * GROUP;
  const int rows = tiles_m - first_m < GROUP ? tiles_m - first_m : GROUP;
  const int r = b % per_group;
  return {first_m + r % rows, r / rows};
}

}  // namespace tk::kernels::matmul_detail

namespace tk::kernels::matmul_detail {

// The VEC floats at row r, columns [c, c + VEC) of a row-major matrix, without a bounds test (the caller
// knows them inside). ALIGNED as below.
template <int VEC, bool ALIGNED = true>
TK_DEVICE tk::Vec<float, VEC> fetch_unchecked(const float* X, std::int64_t ld, std::int64_t r, std::int64_t c) {
  if constexpr (ALIGNED) {
    return tk::load_vec<VEC>(X + r * ld + c);
  } else {
    tk::Vec<float, VEC> v;
    TK_UNROLL for (int e = 0; e < VEC; ++e) v.v[e] = X[r * ld + c + e];
    return v;
  }
}

// The VEC floats at row r, columns [c, c + VEC) of a row-major matrix, 0 outside rows x cols. ALIGNED:
// X and ld are multiples of VEC floats, so a whole chunk is one vector access; otherwise the chunk is
// VEC scalar accesses (same registers, same shared-memory layout, so one kernel serves both).
template <int VEC, bool ALIGNED = true>
TK_DEVICE tk::Vec<float, VEC> fetch(const float* X, std::int64_t ld, std::int64_t r, std::int64_t c, std::int64_t rows,
                                    std::int64_t cols) {
  tk::Vec<float, VEC> v;
  if (r < rows && c + VEC <= cols) {
    if constexpr (ALIGNED) {
      return tk::load_vec<VEC>(X + r * ld + c);
    } else {
      TK_UNROLL for (int e = 0; e < VEC; ++e) v.v[e] = X[r * ld + c + e];
      return v;
    }
  }
  TK_UNROLL for (int e = 0; e < VEC; ++e) v.v[e] = (r < rows && c + e < cols) ? X[r * ld + c + e] : 0.f;
  return v;
}

}  // namespace tk::kernels::matmul_detail
