// kernels/matmul/epilogue.hpp — how warp_tiled's accumulators leave the registers: C = alpha * acc + beta * C,
// or a split's partial tile as it is.
//
// - The lean epilogue (lean_epilogue, config.hpp): a tile inside C is stored with no bounds test per output
//   and beta tested once for the tile. It shortens the code a block runs once per tile, which is what
//   batches of small matrices and short K pay for (
//   docs/history/performance-log.md#nvidia-h100-the-code-a-block-runs-once-per-tile-and-128-x-64-tiles-for-batches-and-short-k-2026-11-25-evening).
// - Otherwise every output is tested against M and N (and, for a tile shifted in by the pair pipeline, against
//   the tile's own first row and column: its first rows are the previous tile's, computed again and not
//   stored), and with split-K written to `partial` (splits x M x N) for the reduction kernel.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "warp_tiling.hpp"

namespace tk::kernels::matmul_detail {

// Where a block's outputs go: C (this matrix's), its shape and leading dimension, alpha and beta, and the
// partial tiles of split-K (null: none). Filled from the kernel's parameters by value: a kernel parameter
// passed by reference has its address taken, and its fields are then loaded again after every store.
template <class E>
struct Outputs {
  E* C;
  std::int64_t M, N, ldc;
  E alpha, beta;
  E* partial;
};
// The block's tile: its first row and column of C as computed (m0, n0) and as owned (m_first, n_first: the
// same unless shifted in), and its split (split-K only).
struct TileOrigin {
  std::int64_t m0, n0, m_first, n_first;
  int split;
};

// A thread's outputs into C at c (its first output), for a tile inside C: no bounds tests; beta's test is the
// template parameter READ_C.
template <class W, bool READ_C, class E, class Acc, class Th>
TK_DEVICE void store_tile_inside(const Acc& acc, const Th& th, E* c, std::int64_t ldc, E alpha, E beta) {
  TK_UNROLL
  for (int wm = 0; wm < W::wmiter; ++wm) {
    TK_UNROLL
    for (int i = 0; i < W::tm; ++i) {
      E* crow = c + std::int64_t{wm * W::wsubm + i} * ldc;
      TK_UNROLL
      for (int wn = 0; wn < W::wniter; ++wn) {
        TK_UNROLL
        for (int j = 0; j < W::tn; ++j) {
          const E v = alpha * acc(th.id, (wm * W::tm + i) * W::wniter * W::tn + wn * W::tn + j);
          E* p = crow + wn * W::wsubn + j;
          if constexpr (READ_C) *p = v + beta * *p;
          else *p = v;
        }
      }
    }
  }
}

// The block's outputs: LEAN, the lean epilogue where it applies; SHIFTED, the tile may have been shifted in
// (the pair pipeline).
template <class W, bool LEAN, bool SHIFTED, class E, class Acc>
TK_DEVICE void warp_tiled_epilogue(const Acc& acc, const Outputs<E> out, const TileOrigin o) {
  E* const C = out.C;
  E* const partial = out.partial;
  const std::int64_t M = out.M, N = out.N, ldc = out.ldc;
  const E alpha = out.alpha, beta = out.beta;
  if constexpr (LEAN) {
    // the tile lies inside C: no bounds test per output, and beta tested once for all of them
    if (partial == nullptr && o.m_first + W::bm <= M && o.n_first + W::bn <= N) {
      const bool read_c = beta != E(0);
      TK_THREADS(th) {
        E* c = C + (o.m0 + W::row0(th.y, th.z)) * ldc + o.n0 + W::col0(th.x, th.z);
        if (read_c) store_tile_inside<W, true>(acc, th, c, ldc, alpha, beta);
        else store_tile_inside<W, false>(acc, th, c, ldc, alpha, beta);
      }
      return;
    }
  }
  TK_THREADS(th) {
    const int row0 = W::row0(th.y, th.z), col0 = W::col0(th.x, th.z);
    TK_UNROLL
    for (int wm = 0; wm < W::wmiter; ++wm) {
      TK_UNROLL
      for (int i = 0; i < W::tm; ++i) {
        const std::int64_t gm = o.m0 + row0 + wm * W::wsubm + i;
        if (gm >= M || (SHIFTED && gm < o.m_first)) continue;
        TK_UNROLL
        for (int wn = 0; wn < W::wniter; ++wn) {
          TK_UNROLL
          for (int j = 0; j < W::tn; ++j) {
            const std::int64_t gn = o.n0 + col0 + wn * W::wsubn + j;
            const E v = acc(th.id, (wm * W::tm + i) * W::wniter * W::tn + wn * W::tn + j);
            if (gn >= N || (SHIFTED && gn < o.n_first)) continue;
            if (partial == nullptr) {
              store_c(C + gm * ldc + gn, alpha, beta, v);
            } else {
              partial[(std::int64_t{o.split} * M + gm) * N + gn] = v;
            }
          }
        }
      }
    }
  }
}

}  // namespace tk::kernels::matmul_detail
