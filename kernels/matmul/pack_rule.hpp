// kernels/matmul/pack_rule.hpp — when packing unaligned GEMM operands pays (pack.hpp, launch.cpp's
// run_warp_tiled): a host-side rule, apart from the kernels so that tests can check it.
#pragma once

#include <cstdint>

namespace tk::kernels::matmul_packing {

// Whether packing pays for an M x N x K product (launch.cpp, run_warp_tiled). A copy moves 2 (M + N) K
// elements, the product does 2 M N K flops: the copy's share falls as M N / (M + N), the flops per element
// moved, and its fixed cost (two launches, the workspace) as M N K grows. Measured on an H100
// (
// docs/history/performance-log.md#nvidia-h100-packed-copies-padded-to-whole-chunks-and-packing-from-smaller-products-2026-11-26), packing gained 2-13 points of cuBLAS from M N / (M + N) = 500 (1000 x 1001 x 4003)
// and M N K = 3.6e9 (1531^3) up, tied at 1279^3 and lost 4 at 1021^3: it starts from M N / (M + N) >= 500
// and M N K >= 2^31.
inline bool pays(std::int64_t M, std::int64_t N, std::int64_t K) {
  const double m = static_cast<double>(M), n = static_cast<double>(N), k = static_cast<double>(K);
  return m * n >= 500 * (m + n) && m * n * k >= 2147483648.0;
}

}  // namespace tk::kernels::matmul_packing
