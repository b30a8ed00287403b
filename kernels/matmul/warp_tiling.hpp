// kernels/matmul/warp_tiling.hpp — the register tiles of warp_tiled.hpp arranged per warp: the block's
// BM x BN tile is split into WM x WN warp tiles, and a warp's tile into WMITER x WNITER sub-tiles of
// WSUBM x WSUBN in which each lane owns TM x TN outputs. A warp's shared-memory reads then cover a small
// contiguous footprint (fewer bank conflicts, more broadcast), and the tile shapes line up with the
// hardware warp (WARP, a template parameter: 32 on NVIDIA, 64 on CDNA, the SIMD width on a CPU, where a
// "warp" is one vector of lanes).
//
// CGMA = 2 * BM * BN / (BM + BN), as register_tiled (128 for 128 x 128 tiles). Threads: a 3D block of
// (lanes_n, WARP / lanes_n, warps): th.z is the warp, (th.y, th.x) the lane's row and column in its
// sub-tile. Linear ids match a hardware warp on a GPU; on a CPU the row, the warp and so the A values are
// fixed across a vector of lanes.
//
// Tensor cores (double, CUDA sm_80+): a tiling of 32-lane warps with TM = 1, TN = 2 and 8 x 8 sub-tiles
// (lanes_n = 4) gives each lane exactly the outputs of the DMMA fragment, D(l / 4, 2 (l % 4) + {0, 1}) of
// every 8 x 8 sub-tile (mma_layout). warp_tiled_multiply then issues one mma per two sub-tiles and 4 k
// (m16n8k4 on sm_90, two m8n8k4 on sm_80) where the target has the instruction (tilekit/mma.hpp), and the
// same products as FMAs elsewhere: the CPU executor runs the tiling, the GPU the instruction.
#pragma once

#include <type_traits>

#include "common.hpp"
#include "tilekit/mma.hpp"

namespace tk::kernels {

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int WARP>
struct WarpTiling {
  static constexpr int bm = BM, bn = BN, bk = BK, tm = TM, tn = TN, wniter = WNITER, warp = WARP;
  static constexpr int warps_n = BN / WN;
  static constexpr int threads = (BM / WM) * warps_n * WARP;
  static constexpr int wmiter = (WM * WN) / (WARP * TM * TN * WNITER);
  static constexpr int wsubm = WM / wmiter, wsubn = WN / WNITER;
  static constexpr int lanes_n = wsubn / TN;  // lanes across a warp sub-tile
  static constexpr int pad = 4;  // keeps rows of a transposed strip 16-byte aligned and staggers their banks
  static constexpr int outputs = wmiter * TM * WNITER * TN;
  // Each lane's outputs are the DMMA fragment's (see the top of this file).
  static constexpr bool mma_layout = WARP == 32 && TM == 1 && TN == 2 && lanes_n == 4 && wsubm == 8 && BK % 4 == 0;
  static_assert(BM % WM == 0 && BN % WN == 0, "whole warp tiles");
  static_assert(wmiter >= 1 && wmiter * WARP * TM * TN * WNITER == WM * WN, "a warp's lanes cover its tile once");
  static_assert(wsubn % TN == 0 && lanes_n * (wsubm / TM) == WARP, "a sub-tile is WARP lanes of TM x TN");

  // Where a thread's outputs start in the block tile: output (wm, i, wn, j) is at
  // (row0 + wm * wsubm + i, col0 + wn * wsubn + j). Plain ints of the thread's indices, so that a CPU
  // compiler sees them as affine in th.x.
  static TK_DEVICE int row0(int y, int z) { return (z / warps_n) * WM + y * TM; }
  static TK_DEVICE int col0(int x, int z) { return (z % warps_n) * WN + x * TN; }
};

// The multiply of one k strip from shared memory (a phase): WMITER * TM x WNITER * TN outputs per thread,
// in registers. As[k][m] and Bs[k][n] are the block's strips, k-major; Bs rows padded by BPAD elements.
// The strip's multiply on tensor cores, for a mma_layout tiling: per 4 k, lane (x, y) of a warp reads A's
// fragment A(y, x) of each 8-row sub-tile and B's B(x, y) of each 8-column one (As and Bs are k-major, so
// a fragment read is As[k + x][...]: four k rows of eight elements, spread over the banks by the rows'
// padding of 4), then one mma per sub-tile pair.
template <class W, int BPAD, class E, class Acc>
TK_DEVICE void warp_mma_multiply(Acc& acc, const E (*As)[W::bm + W::pad], const E (*Bs)[W::bn + BPAD]) {
  constexpr int FA = W::wmiter, FB = W::wniter * 2;
  TK_THREADS(th) {
    const int row0 = W::row0(th.y, th.z), bcol = W::col0(th.x, th.z) - th.x * W::tn + th.y;
    E c[FA][FB];
    TK_UNROLL
    for (int i = 0; i < FA; ++i) {
      TK_UNROLL
      for (int j = 0; j < FB; ++j) c[i][j] = acc(th.id, i * FB + j);
    }
    TK_UNROLL
    for (int k = 0; k < W::bk; k += 4) {
      E a[FA], b[W::wniter];
      TK_UNROLL
      for (int i = 0; i < FA; ++i) a[i] = As[k + th.x][row0 + i * W::wsubm];
      TK_UNROLL
      for (int j = 0; j < W::wniter; ++j) b[j] = Bs[k + th.x][bcol + j * W::wsubn];
      if constexpr (FA % 2 == 0) {  // sub-tiles i and i + 1 are rows r and r + 8 of one m16n8k4
        TK_UNROLL
        for (int i = 0; i < FA; i += 2) {
          TK_UNROLL
          for (int j = 0; j < W::wniter; ++j)
            tk::mma_f64_16x8x4(c[i][2 * j], c[i][2 * j + 1], c[i + 1][2 * j], c[i + 1][2 * j + 1], a[i], a[i + 1],
                               b[j]);
        }
      } else {
        TK_UNROLL
        for (int i = 0; i < FA; ++i) {
          TK_UNROLL
          for (int j = 0; j < W::wniter; ++j) tk::mma_f64_8x8x4(c[i][2 * j], c[i][2 * j + 1], a[i], b[j]);
        }
      }
    }
    TK_UNROLL
    for (int i = 0; i < FA; ++i) {
      TK_UNROLL
      for (int j = 0; j < FB; ++j) acc(th.id, i * FB + j) = c[i][j];
    }
  }
}

// K0, K1: only the strip's k rows [K0, K1) (the tensor-core form takes whole strips).
template <class W, int BPAD, int K0 = 0, int K1 = W::bk, class E, class Acc>
TK_DEVICE void warp_tiled_multiply(Acc& acc, const E (*As)[W::bm + W::pad], const E (*Bs)[W::bn + BPAD]) {
  if constexpr (W::mma_layout && tk::has_mma_f64 && std::is_same_v<E, double>) {
    static_assert(K0 == 0 && K1 == W::bk, "the tensor-core multiply takes whole strips");
    warp_mma_multiply<W, BPAD>(acc, As, Bs);
  } else {
    constexpr int FA = W::wmiter * W::tm, FB = W::wniter * W::tn;
    TK_THREADS(th) {
      const int row0 = W::row0(th.y, th.z), col0 = W::col0(th.x, th.z);
      E c[FA][FB];
      TK_UNROLL
      for (int i = 0; i < FA; ++i) {
        TK_UNROLL
        for (int j = 0; j < FB; ++j) c[i][j] = acc(th.id, i * FB + j);
      }
      TK_UNROLL
      for (int k = K0; k < K1; ++k) {
        E a[FA], b[FB];
        TK_UNROLL
        for (int i = 0; i < FA; ++i) a[i] = As[k][row0 + (i / W::tm) * W::wsubm + i % W::tm];
        TK_UNROLL
        for (int j = 0; j < FB; ++j) b[j] = Bs[k][col0 + (j / W::tn) * W::wsubn + j % W::tn];
        TK_UNROLL
        for (int i = 0; i < FA; ++i) {
          TK_UNROLL
          for (int j = 0; j < FB; ++j) c[i][j] += a[i] * b[j];
        }
      }
      TK_UNROLL
      for (int i = 0; i < FA; ++i) {
        TK_UNROLL
        for (int j = 0; j < FB; ++j) acc(th.id, i * FB + j) = c[i][j];
      }
    }
  }
}

}  // namespace tk::kernels
