// kernels/matmul/warp_tiled.hpp — tilekit's fastest matmul: register tiles arranged per warp, a
// double-buffered k loop, rasterised blocks and split-K.
//
// What it adds to register_tiled.hpp:
// - Warp tiling: the block's BM x BN tile is split into WM x WN warp tiles, and a warp's tile into
//   WMITER x WNITER sub-tiles of WSUBM x WSUBN in which each lane owns TM x TN outputs. A warp's shared
//   reads then cover a small contiguous footprint (fewer bank conflicts, more broadcast), and the tile
//   shapes line up with the hardware warp (WARP, a template parameter: 32 on NVIDIA, 64 on CDNA, the
//   SIMD width on a CPU, where a "warp" is one vector of lanes).
// - Double buffering: while the block multiplies k strip t from one shared buffer, each thread has already
//   issued the global loads of strip t + 1 into registers; they are stored into the other buffer after the
//   multiply, so global latency hides behind arithmetic and the loop needs one barrier per strip
//   (STAGES = 2; STAGES = 1 reuses one buffer with a second barrier, for targets where memory is no object).
// - Rasterisation: blocks walk the tiles in groups of 8 tile-rows (matmul_detail::grouped_tile), so blocks
//   running together share rows of A and columns of B in L2.
// - Split-K: with `splits` > 1 the grid holds splits x tiles blocks; block s covers k in
//   [s * k_per_split, (s + 1) * k_per_split) and writes its partial tile to `partial` (splits x M x N),
//   which matmul_splitk_reduce sums into C. For skinny C and long K (64 x 64 x 65536) this turns 1 block
//   into hundreds.
// - Loads in VEC-float chunks whatever the alignment: ALIGNED chunks are one vector access, others VEC
//   scalar ones, with the same registers and layout.
// CGMA = 2 * BM * BN / (BM + BN), as register_tiled (128 for 128 x 128 tiles).
// Shared memory: STAGES * BK * (BM + 4 + BN) floats. Launch: a 3D block of (lanes_n, WARP / lanes_n, warps)
// threads: th.z is the warp, (th.y, th.x) the lane's row and column in its sub-tile. Linear ids match a
// hardware warp on a GPU; on a CPU the row, the warp and so the A values are fixed across a vector of lanes.
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int WARP, int STAGES, int VEC>
struct WarpTiling {
  static constexpr int warps_n = BN / WN;
  static constexpr int threads = (BM / WM) * warps_n * WARP;
  static constexpr int wmiter = (WM * WN) / (WARP * TM * TN * WNITER);
  static constexpr int wsubm = WM / wmiter, wsubn = WN / WNITER;
  static constexpr int lanes_n = wsubn / TN;  // lanes across a warp sub-tile
  static constexpr int pad = 4;               // keeps As rows 16-byte aligned and staggers their banks
  static constexpr int a_loads = BM * BK / VEC / threads, b_loads = BK * BN / VEC / threads;
  static constexpr int outputs = wmiter * TM * WNITER * TN;
  static_assert(BM % WM == 0 && BN % WN == 0, "whole warp tiles");
  static_assert(wmiter >= 1 && wmiter * WARP * TM * TN * WNITER == WM * WN, "a warp's lanes cover its tile once");
  static_assert(wsubn % TN == 0 && lanes_n * (wsubm / TM) == WARP, "a sub-tile is WARP lanes of TM x TN");
  static_assert(a_loads * VEC * threads == BM * BK && b_loads * VEC * threads == BK * BN, "whole tiles per load");
  static_assert(BK % VEC == 0 && BN % VEC == 0 && STAGES >= 1 && STAGES <= 2, "");

  // Where a thread's outputs start in the block tile: output (wm, i, wn, j) is at
  // (row0 + wm * wsubm + i, col0 + wn * wsubn + j). Plain ints of the thread's indices, so that a CPU
  // compiler sees them as affine in th.x.
  static TK_DEVICE int row0(int y, int z) { return (z / warps_n) * WM + y * TM; }
  static TK_DEVICE int col0(int x, int z) { return (z % warps_n) * WN + x * TN; }
};

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int WARP, int STAGES, int VEC,
          bool ALIGNED>
TK_KERNEL TK_LAUNCH_BOUNDS((BM / WM) * (BN / WN) * WARP) void matmul_warp_tiled(
    std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A, std::int64_t lda, const float* B,
    std::int64_t ldb, float beta, float* C, std::int64_t ldc, std::int64_t k_per_split, float* partial) {
  using T = WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN, WARP, STAGES, VEC>;
  constexpr int NT = T::threads;
  alignas(16) TK_SHARED float As[STAGES][BK][BM + T::pad];  // A transposed: As[s][k][m]
  alignas(16) TK_SHARED float Bs[STAGES][BK][BN];
  tk::Private<float, T::outputs> acc(0.f);
  // The next strip in flight (STAGES == 2); with one stage the strip goes straight to shared memory.
  tk::Private<float, STAGES == 2 ? T::a_loads * VEC : 1> ra;
  tk::Private<float, STAGES == 2 ? T::b_loads * VEC : 1> rb;

  const int tiles_m = static_cast<int>((M + BM - 1) / BM), tiles_n = static_cast<int>((N + BN - 1) / BN);
  const int tiles = tiles_m * tiles_n;
  const int split = tk::block_idx().x / tiles;
  const matmul_detail::TileCoord tile = matmul_detail::grouped_tile<8>(tk::block_idx().x % tiles, tiles_m, tiles_n);
  const std::int64_t m0 = std::int64_t{tile.m} * BM, n0 = std::int64_t{tile.n} * BN;
  const std::int64_t kbeg = split * k_per_split;
  const std::int64_t kend = K < kbeg + k_per_split ? K : kbeg + k_per_split;
  const int strips = kend > kbeg ? static_cast<int>((kend - kbeg + BK - 1) / BK) : 0;

  // Strip s lives in shared buffer s % STAGES. With two stages, step t fetches strip t + 1 from global
  // memory into registers, multiplies strip t, then stages strip t + 1 into the other buffer; step -1
  // only brings in strip 0. With one stage, step t multiplies strip t, then loads strip t + 1 in its place.
  for (int t = -1; t < strips; ++t) {
    const bool more = t + 1 < strips;
    const std::int64_t k_next = kbeg + std::int64_t{t + 1} * BK;
    if (STAGES == 2 && more) {
      TK_THREADS(th) {  // global -> registers (0 outside A, B and this split's k range)
        TK_UNROLL for (int l = 0; l < T::a_loads; ++l) {
          const int c = th.id + l * NT, r = c / (BK / VEC), k = (c % (BK / VEC)) * VEC;
          const tk::Vec<float, VEC> v = matmul_detail::fetch<VEC, ALIGNED>(A, lda, m0 + r, k_next + k, M, kend);
          TK_UNROLL for (int e = 0; e < VEC; ++e) ra(th.id, l * VEC + e) = v.v[e];
        }
        TK_UNROLL for (int l = 0; l < T::b_loads; ++l) {
          const int c = th.id + l * NT, r = c / (BN / VEC), n = (c % (BN / VEC)) * VEC;
          const tk::Vec<float, VEC> v = matmul_detail::fetch<VEC, ALIGNED>(B, ldb, k_next + r, n0 + n, kend, N);
          TK_UNROLL for (int e = 0; e < VEC; ++e) rb(th.id, l * VEC + e) = v.v[e];
        }
      }
    }
    if (t >= 0) {
      const int cur = t % STAGES;
      TK_THREADS(th) {  // the multiply: WMITER * TM x WNITER * TN outputs per thread, in registers
        const int row0 = T::row0(th.y, th.z), col0 = T::col0(th.x, th.z);
        float c[T::wmiter * TM][WNITER * TN];
        TK_UNROLL for (int i = 0; i < T::wmiter * TM; ++i)
          TK_UNROLL for (int j = 0; j < WNITER * TN; ++j) c[i][j] = acc(th.id, i * WNITER * TN + j);
        TK_UNROLL for (int k = 0; k < BK; ++k) {
          float a[T::wmiter * TM], b[WNITER * TN];
          TK_UNROLL for (int i = 0; i < T::wmiter * TM; ++i)
            a[i] = As[cur][k][row0 + (i / TM) * T::wsubm + i % TM];
          TK_UNROLL for (int j = 0; j < WNITER * TN; ++j) b[j] = Bs[cur][k][col0 + (j / TN) * T::wsubn + j % TN];
          TK_UNROLL for (int i = 0; i < T::wmiter * TM; ++i)
            TK_UNROLL for (int j = 0; j < WNITER * TN; ++j) c[i][j] += a[i] * b[j];
        }
        TK_UNROLL for (int i = 0; i < T::wmiter * TM; ++i)
          TK_UNROLL for (int j = 0; j < WNITER * TN; ++j) acc(th.id, i * WNITER * TN + j) = c[i][j];
      }
      if (STAGES == 1) TK_BARRIER();  // one buffer: everyone has read it before it is refilled
    }
    if (more) {
      const int next = (t + 1) % STAGES;
      TK_THREADS(th) {  // -> shared buffer `next`, A transposed: from the registers, or straight from global
        TK_UNROLL for (int l = 0; l < T::a_loads; ++l) {
          const int c = th.id + l * NT, r = c / (BK / VEC), k = (c % (BK / VEC)) * VEC;
          tk::Vec<float, VEC> v;
          if constexpr (STAGES == 2) {
            TK_UNROLL for (int e = 0; e < VEC; ++e) v.v[e] = ra(th.id, l * VEC + e);
          } else {
            v = matmul_detail::fetch<VEC, ALIGNED>(A, lda, m0 + r, k_next + k, M, kend);
          }
          TK_UNROLL for (int e = 0; e < VEC; ++e) As[next][k + e][r] = v.v[e];
        }
        TK_UNROLL for (int l = 0; l < T::b_loads; ++l) {
          const int c = th.id + l * NT, r = c / (BN / VEC), n = (c % (BN / VEC)) * VEC;
          tk::Vec<float, VEC> v;
          if constexpr (STAGES == 2) {
            TK_UNROLL for (int e = 0; e < VEC; ++e) v.v[e] = rb(th.id, l * VEC + e);
          } else {
            v = matmul_detail::fetch<VEC, ALIGNED>(B, ldb, k_next + r, n0 + n, kend, N);
          }
          tk::store_vec<VEC>(&Bs[next][r][n], v);
        }
      }
    }
    TK_BARRIER();  // strip t + 1 is staged, and nobody reads the buffer of strip t any more
  }
  TK_THREADS(th) {
    const int row0 = T::row0(th.y, th.z), col0 = T::col0(th.x, th.z);
    TK_UNROLL for (int wm = 0; wm < T::wmiter; ++wm)
      TK_UNROLL for (int i = 0; i < TM; ++i) {
        const std::int64_t gm = m0 + row0 + wm * T::wsubm + i;
        if (gm >= M) continue;
        TK_UNROLL for (int wn = 0; wn < WNITER; ++wn)
          TK_UNROLL for (int j = 0; j < TN; ++j) {
            const std::int64_t gn = n0 + col0 + wn * T::wsubn + j;
            const float v = acc(th.id, (wm * TM + i) * WNITER * TN + wn * TN + j);
            if (gn >= N) continue;
            if (partial == nullptr) {
              matmul_detail::store_c(C + gm * ldc + gn, alpha, beta, v);
            } else {
              partial[(std::int64_t{split} * M + gm) * N + gn] = v;
            }
          }
      }
  }
}

// C = alpha * (sum of the `splits` partial products) + beta * C; one thread per element, rows of C over
// grid y-blocks, as in matrix_add.hpp.
TK_KERNEL void matmul_splitk_reduce(std::int64_t M, std::int64_t N, int splits, const float* partial, float alpha,
                                    float beta, float* C, std::int64_t ldc) {
  const std::int64_t j = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  for (std::int64_t i = tk::block_idx().y; i < M; i += tk::grid_dim().y) {
    TK_THREADS(th) {
      if (j + th.x >= N) TK_SKIP();
      float s = 0.f;
      for (int p = 0; p < splits; ++p) s += partial[(p * M + i) * N + j + th.x];
      matmul_detail::store_c(C + i * ldc + j + th.x, alpha, beta, s);
    }
  }
}

}  // namespace tk::kernels
