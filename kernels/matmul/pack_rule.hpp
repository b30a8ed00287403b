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
// docs/performance.md#h100-pack-rule): packing gained in NN (1021^3 69 -> 74%, 1279^3 77 -> 85%), TN (52 -> 70%, 63
// -> 75%) and TT (52 -> 70%, 84 -> 91%) and lost in NT (80 -> 74% at 1021^3, 80 -> 79% at 1279^3), where both
// operands lie along k. So from M N / (M + N) >= 500 every storage but NT is packed from M N K >= 1e9 (1021^3, the
// smallest measured; below it the copy's fixed cost is unmeasured), NT from M N K >= 2^31.
inline bool pays(std::int64_t M, std::int64_t N, std::int64_t K, bool ta, bool tb) {
  const double m = static_cast<double>(M), n = static_cast<double>(N), k = static_cast<double>(K);
  const bool nt = !ta && tb;
  return m * n >= 500 * (m + n) && m * n * k >= (nt ? 2147483648.0 : 1e9);
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
