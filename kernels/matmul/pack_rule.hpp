// kernels/matmul/pack_rule.hpp — when copying GEMM operands into a workspace pays: packing unaligned operands
// (pack.hpp, launch.cpp's run_warp_tiled; launch_mma_units.cpp's with_16_byte_lines) and transposing TF32 operands
// for the warpgroup kernel (launch_mma_units.cpp, run_warpgroup_tf32). Host-side rules, apart from the kernels so
// that tests can check them.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tk::kernels::matmul_packing {

// Whether packing pays for an M x N x K product (launch.cpp, run_warp_tiled), in the kernels' row-major terms: A
// stored transposed (ta: K x M) or not, B likewise (tb: N x K). A copy moves 2 (M + N) K elements, the product does
// 2 M N K flops: the copy's share falls as M N / (M + N), the flops per element moved, and its fixed cost (two
// launches, the workspace) as M N K grows. Measured on an H100, packing gained 2-13 points of cuBLAS from M N / (M +
// N) = 500 (1000 x 1001 x 4003) and M N K = 3.6e9 (1531^3) up
// (docs/history/performance-log.md#nvidia-h100-packed-copies-padded-to-whole-chunks-and-packing-from-smaller-products-2026-11-26).
// Below 2^31 flops' worth (M N K), measured again on 2026-12-07 (H100, interleaved, two rounds each,
// docs/performance.md#h100-pack-rule), packing gained in NN, TN and TT and lost in NT, where both operands lie along
// k; but the kernels' unpacked loads have changed since: an unaligned operand stored along x clamps each scalar load
// on its own, so its blocks at the edge run the loop without bounds tests (common.hpp, Strip::fetch_clamped). Then,
// the same day, unpacked / packed ms: 1021^3 NN 0.080 / 0.085-0.090, TN 0.083-0.086 / 0.092-0.095, TT 0.077 /
// 0.089-0.096; 1279^3 NN 0.162 / 0.158-0.172, TN 0.154-0.155 / 0.158-0.161, TT 0.152-0.153 / 0.156-0.164; 777 x 1999 x
// 1023 TN 0.126-0.127 / 0.129-0.137, TT 0.124-0.125 / 0.132-0.140; but 2039^3 NN 0.471-0.481 / 0.414-0.419, TN
// 0.477-0.480 / 0.417-0.431, TT 0.437-0.439 / 0.415-0.423 (docs/performance.md#h100-unaligned-clamps). So every
// storage is packed from M N / (M + N) >= 500 and M N K >= 2^31 (between 2^31 and 2039^3 unmeasured unpacked).
inline bool pays(std::int64_t M, std::int64_t N, std::int64_t K) {
  const double m = static_cast<double>(M), n = static_cast<double>(N), k = static_cast<double>(K);
  return m * n >= 500 * (m + n) && m * n * k >= 2147483648.0;
}

// Whether the matrix units' kernels (the warpgroup kernel in TF32, BF16 and FP16, the FP64 one) run a single
// product on packed copies of its unaligned operands (launch_mma_units.cpp, with_16_byte_lines): `packed` elements
// copied, of `operands` elements of A and B together. Every side >= 128, where the copy is small beside the
// multiply (2049^3 BF16 on the H200: 33% of cuBLAS unpacked); or, in products of at least 2^22 operand elements (the
// copy's launch and workspace small beside them; smaller ones unmeasured), a copy of at most an eighth of the
// operands, whatever the sides, since then the other operand takes 16-byte copies in flight for a few percent more
// traffic (1 x 4096 x 4096 BF16 TT, A a column of 2-byte values: 31% of cuBLAS unpacked, 40% packed;
// docs/performance.md#h200-tf32-transpose-rule).
inline bool pays_mma(std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t packed, std::int64_t operands) {
  return std::min(M, std::min(N, K)) >= 128 || (operands >= (std::int64_t{1} << 22) && 8 * packed <= operands);
}

// Whether the TF32 warpgroup kernel takes an operand stored MN-major (it reads K-major ones only) from a transposed
// copy made first, rather than transposing it in the strips as it copies them (4-byte copies in flight, slower per
// strip: 4096^3 on the H200 131-163 against 203-204 TFLOP/s). `reads`: the tiles that read each of its strips (for A
// the tile columns of C, for B the tile rows). The copy moves the operand twice more, so it pays where the operand is
// read more than once; an operand read once (1 x 4096 x 4096 NN's B, 4096 x 128 x 4096 TN's A) is transposed in
// the strips.
inline bool tf32_transpose_first(std::int64_t reads) { return reads >= 2; }

}  // namespace tk::kernels::matmul_packing
