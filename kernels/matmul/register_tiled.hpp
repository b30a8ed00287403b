// kernels/matmul/register_tiled.hpp — each thread computes a TM x TN block of C from registers.
//
// What it changes from smem_tiled.hpp: a block computes a BM x BN tile with BM * BN / (TM * TN) threads,
// each accumulating TM x TN outputs in registers. Per k step a thread reads TM values of A and TN of B from
// shared memory for TM * TN multiply-adds, so shared-memory traffic per FLOP falls by TM * TN / (TM + TN)
// and the tile in global memory is reused BM (for B) and BN (for A) times:
//   CGMA = 2 * BM * BN * BK / ((BM + BN) * BK) = 2 * BM * BN / (BM + BN) FLOPs per float
//   (64 for 64 x 64 tiles, 128 for 128 x 128; smem_tiled's TILE 32 gives 32).
// Loads are VEC floats wide (16-byte accesses when VEC = 4); A is stored transposed in shared memory,
// As[k][m], so a thread's TM values of A for one k are contiguous (one vector read, a broadcast across the
// threads that share them), and each row of As is padded by 4 floats so the transposing stores of
// consecutive threads do not fall in the same bank. A thread's TN columns are strided by TX = BN / TN:
// consecutive threads read consecutive floats of Bs (no bank conflict; on a CPU, one vector).
// Shared memory: BK * (BM + 4 + BN) floats. Launch: (BN / TN) x (BM / TM) threads, 1D grid of tiles. The
// thread's row group is th.y and its column th.x, so on a CPU the row group is fixed across a vector of lanes.
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

// The launch bound is the block's size: without one, an AMD compiler plans for 1024-thread workgroups and
// holds each thread to 128 registers, and the unaligned build spilled (tools/amdgpu-resources).
template <int BM, int BN, int BK, int TM, int TN, int VEC>
TK_KERNEL TK_LAUNCH_BOUNDS((BM / TM) * (BN / TN)) void matmul_register_tiled(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A,
                                     std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C,
                                     std::int64_t ldc) {
  constexpr int TX = BN / TN;             // threads across the tile
  constexpr int NT = TX * (BM / TM);      // threads per block
  constexpr int PAD = 4;                  // keeps As rows 16-byte aligned and staggers their banks
  constexpr int A_LOADS = BM * BK / VEC / NT, B_LOADS = BK * BN / VEC / NT;
  static_assert(BN % TN == 0 && BM % TM == 0, "BM / TM and BN / TN threads");
  static_assert(A_LOADS * VEC * NT == BM * BK && B_LOADS * VEC * NT == BK * BN, "the block loads whole tiles");
  static_assert(BK % VEC == 0 && BN % VEC == 0, "vector loads stay in a tile row");
  TK_SHARED_ARRAY(float, As, [BK][BM + PAD]);  // A transposed
  TK_SHARED_ARRAY(float, Bs, [BK][BN]);
  tk::Private<float, TM * TN> acc(0.f);

  const int tiles_n = static_cast<int>((N + BN - 1) / BN);
  const std::int64_t m0 = std::int64_t{tk::block_idx().x / tiles_n} * BM;
  const std::int64_t n0 = std::int64_t{tk::block_idx().x % tiles_n} * BN;
  for (std::int64_t k0 = 0; k0 < K; k0 += BK) {
    TK_THREADS(th) {
      for (int l = 0; l < A_LOADS; ++l) {  // A tile: BM rows of BK, VEC along k, stored transposed
        const int c = th.id + l * NT, r = c / (BK / VEC), k = (c % (BK / VEC)) * VEC;
        const tk::Vec<float, VEC> v = matmul_detail::fetch<VEC>(A, lda, m0 + r, k0 + k, M, K);
        for (int e = 0; e < VEC; ++e) As[k + e][r] = v.v[e];
      }
      for (int l = 0; l < B_LOADS; ++l) {  // B tile: BK rows of BN, VEC along n
        const int c = th.id + l * NT, r = c / (BN / VEC), n = (c % (BN / VEC)) * VEC;
        tk::store_vec<VEC>(&Bs[r][n], matmul_detail::fetch<VEC>(B, ldb, k0 + r, n0 + n, K, N));
      }
    }
    TK_BARRIER();  // both tiles are loaded before anyone reads them
    TK_THREADS(th) {
      const int tr = th.y, tc = th.x;
      float c[TM][TN];
      TK_UNROLL for (int i = 0; i < TM; ++i)
        TK_UNROLL for (int j = 0; j < TN; ++j) c[i][j] = acc(th.id, i * TN + j);
      TK_UNROLL for (int k = 0; k < BK; ++k) {
        float a[TM], b[TN];
        TK_UNROLL for (int i = 0; i < TM; ++i) a[i] = As[k][tr * TM + i];
        TK_UNROLL for (int j = 0; j < TN; ++j) b[j] = Bs[k][tc + j * TX];
        TK_UNROLL for (int i = 0; i < TM; ++i)
          TK_UNROLL for (int j = 0; j < TN; ++j) c[i][j] += a[i] * b[j];
      }
      TK_UNROLL for (int i = 0; i < TM; ++i)
        TK_UNROLL for (int j = 0; j < TN; ++j) acc(th.id, i * TN + j) = c[i][j];
    }
    TK_BARRIER();  // both tiles are consumed before the next k strip overwrites them
  }
  TK_THREADS(th) {
    const int tr = th.y, tc = th.x;
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j) {
        const std::int64_t gm = m0 + tr * TM + i, gn = n0 + tc + j * TX;
        if (gm < M && gn < N) matmul_detail::store_c(C + gm * ldc + gn, alpha, beta, acc(th.id, i * TN + j));
      }
  }
}

}  // namespace tk::kernels
