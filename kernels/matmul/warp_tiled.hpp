// kernels/matmul/warp_tiled.hpp — tilekit's fastest matmul: the warp tiles of warp_tiling.hpp fed by a
// double-buffered k loop, with rasterised blocks and split-K. Its tile shapes are named configurations
// (configs.hpp); docs/performance.md has what each measured.
//
// What it adds to register_tiled.hpp:
// - Double buffering (Cfg::stages = 2): while the block multiplies k strip t from one shared buffer, each
//   thread has already issued the global loads of strip t + 1 into registers; they are stored into the
//   other buffer after the multiply, so global latency hides behind arithmetic and the loop needs one
//   barrier per strip. With one stage the strip goes straight to the one buffer, with a second barrier:
//   for CPUs, where there is no global-memory latency for a second buffer to hide.
// - Constant buffer indices (Cfg::unroll): the loop runs two steps per iteration, so that every shared
//   address is a constant offset once inlined, and the steps whose next strip lies inside K run in a loop
//   of their own whose global loads have no bounds test (rows and chunks past M and N clamped to the last
//   valid ones: they feed only outputs that are never stored). Address arithmetic and a branch per load
//   otherwise cost issue slots at every strip.
// - Rasterisation: blocks walk the tiles in groups of 8 tile-rows (matmul_detail::grouped_tile), so blocks
//   running together share rows of A and columns of B in L2.
// - Split-K: with `splits` > 1 the grid holds splits x tiles blocks; block s covers k in
//   [s * k_per_split, (s + 1) * k_per_split) and writes its partial tile to `partial` (splits x M x N),
//   which matmul_splitk_reduce (splitk_reduce.hpp) sums into C. For skinny C and long K
//   (64 x 64 x 65536) this turns 1 block into hundreds. Batches (grid y) are not split.
// - Either storage of A and B (TRANS_A, TRANS_B): the strips are loaded by common.hpp's Strip, so the
//   multiply never knows.
// - Loads in VEC-element chunks (16 bytes) whatever the alignment: ALIGNED chunks are one vector access,
//   others VEC scalar ones, with the same registers and layout.
// Shared memory: stages * BK * (BM + pad + BN (+ pad when B is transposed)) elements.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "warp_tiling.hpp"

namespace tk::kernels {

// The loads of one operand's strip, for one thread, into its staging registers (global -> registers).
// INSIDE: the strip is known to lie inside the k range and the operand to clamp (Strip::fetch_clamped).
template <class S, bool ALIGNED, bool INSIDE, class E, class Regs, class Th>
TK_DEVICE void warp_tiled_fetch(Regs& regs, const Th& th, const E* X, std::int64_t ld, std::int64_t x0,
                                std::int64_t k0, std::int64_t xs, std::int64_t kend, int nt) {
  constexpr int VEC = S::vec;
  TK_UNROLL for (int l = 0; l < S::loads; ++l) {
    int x, k;
    S::place(th.id + l * nt, x, k);
    tk::Vec<E, VEC> v;
    if constexpr (INSIDE) {
      v = S::template fetch_clamped<ALIGNED>(X, ld, x0 + x, k0 + k, xs);
    } else {
      v = S::template fetch<ALIGNED>(X, ld, x0 + x, k0 + k, xs, kend);
    }
    TK_UNROLL for (int e = 0; e < VEC; ++e) regs(th.id, l * VEC + e) = v.v[e];
  }
}

// Registers -> shared: one operand's staged strip into S[k][x].
template <class S, class E, class Regs, class Buf, class Th>
TK_DEVICE void warp_tiled_stage(Buf& s, const Regs& regs, const Th& th, int nt) {
  constexpr int VEC = S::vec;
  TK_UNROLL for (int l = 0; l < S::loads; ++l) {
    int x, k;
    S::place(th.id + l * nt, x, k);
    tk::Vec<E, VEC> v;
    TK_UNROLL for (int e = 0; e < VEC; ++e) v.v[e] = regs(th.id, l * VEC + e);
    S::store(s, x, k, v);
  }
}

// Global -> shared directly (one stage): one operand's strip into S[k][x].
template <class S, bool ALIGNED, class E, class Buf, class Th>
TK_DEVICE void warp_tiled_load(Buf& s, const Th& th, const E* X, std::int64_t ld, std::int64_t x0, std::int64_t k0,
                               std::int64_t xs, std::int64_t kend, int nt) {
  TK_UNROLL for (int l = 0; l < S::loads; ++l) {
    int x, k;
    S::place(th.id + l * nt, x, k);
    S::store(s, x, k, S::template fetch<ALIGNED>(X, ld, x0 + x, k0 + k, xs, kend));
  }
}

// Step t of the k loop, with strip t in buffer `cur` (a literal when unrolled, so every shared address is a
// fixed offset once inlined): with two stages, fetch strip t + 1 into registers, multiply strip t, then
// stage strip t + 1 into the other buffer; with one stage, multiply strip t, then load strip t + 1 in its
// place. Step -1 only brings in strip 0.
template <class W, int STAGES, class SA, class SB, bool ALIGNED, bool INSIDE, class E, class Acc, class RA, class RB,
          class BufA, class BufB>
TK_DEVICE void warp_tiled_step(int t, int cur, int strips, Acc& acc, RA& ra, RB& rb, BufA& As, BufB& Bs, const E* A,
                               std::int64_t lda, const E* B, std::int64_t ldb, std::int64_t M, std::int64_t N,
                               std::int64_t m0, std::int64_t n0, std::int64_t kbeg, std::int64_t kend) {
  constexpr int NT = W::threads;
  const bool more = INSIDE || t + 1 < strips;
  const std::int64_t k_next = kbeg + std::int64_t{t + 1} * W::bk;
  if (STAGES == 2 && more) {
    TK_THREADS(th) {  // global -> registers (0 outside A, B and this split's k range unless INSIDE)
      warp_tiled_fetch<SA, ALIGNED, INSIDE>(ra, th, A, lda, m0, k_next, M, kend, NT);
      warp_tiled_fetch<SB, ALIGNED, INSIDE>(rb, th, B, ldb, n0, k_next, N, kend, NT);
    }
  }
  const int next = (cur + 1) % STAGES;
  if (t >= 0) {
    constexpr int bpad = static_cast<int>(sizeof(Bs[0][0]) / sizeof(E)) - W::bn;  // Bs[s][k] holds BN + pad
    warp_tiled_multiply<W, bpad>(acc, As[cur], Bs[cur]);
    if (STAGES == 1) TK_BARRIER();  // one buffer: everyone has read it before it is refilled
  }
  if (more) {
    TK_THREADS(th) {  // -> shared buffer `next`: from the registers, or (one stage) straight from global
      if constexpr (STAGES == 1) {
        warp_tiled_load<SA, ALIGNED>(As[next], th, A, lda, m0, k_next, M, kend, NT);
        warp_tiled_load<SB, ALIGNED>(Bs[next], th, B, ldb, n0, k_next, N, kend, NT);
      } else {
        warp_tiled_stage<SA, E>(As[next], ra, th, NT);
        warp_tiled_stage<SB, E>(Bs[next], rb, th, NT);
      }
    }
  }
  TK_BARRIER();  // strip t + 1 is staged, and nobody reads the buffer of strip t any more
}

// Cfg: a configuration of configs.hpp (tile shapes, stages, minimum blocks per multiprocessor, unroll).
template <class Cfg, class E, bool ALIGNED, bool TRANS_A, bool TRANS_B>
TK_KERNEL TK_LAUNCH_BOUNDS_MIN(Cfg::Tiling::threads, Cfg::min_blocks) void matmul_warp_tiled(
    std::int64_t M, std::int64_t N, std::int64_t K, E alpha, const E* A, std::int64_t lda, std::int64_t sa,
    const E* B, std::int64_t ldb, std::int64_t sb, E beta, E* C, std::int64_t ldc, std::int64_t sc,
    std::int64_t k_per_split, E* partial) {
  using W = typename Cfg::Tiling;
  constexpr int BM = W::bm, BN = W::bn, BK = W::bk, TM = W::tm, TN = W::tn, WNITER = W::wniter;
  constexpr int STAGES = Cfg::stages, VEC = 16 / sizeof(E);
  static_assert(STAGES == 1 || STAGES == 2, "one buffer, or double buffering");
  using SA = matmul_detail::Strip<E, BM, BK, VEC, W::threads, matmul_detail::a_kmajor<TRANS_A>>;
  using SB = matmul_detail::Strip<E, BN, BK, VEC, W::threads, matmul_detail::b_kmajor<TRANS_B>>;
  TK_SHARED_ARRAY(E, As, [STAGES][BK][BM + W::pad]);
  // B's strip is padded on a GPU when it is transposed on its way in, on a CPU by a cache line (common.hpp,
  // strip_pad), or for tensor-core fragment reads (warp_tiling.hpp: four k rows of eight elements, 4 apart
  // in the banks)
  constexpr int BPAD = W::mma_layout && tk::this_target == tk::Target::cuda
                           ? 4
                           : matmul_detail::strip_pad<E, matmul_detail::b_kmajor<TRANS_B>, true>;
  TK_SHARED_ARRAY(E, Bs, [STAGES][BK][BN + BPAD]);
  tk::Private<E, W::outputs> acc(E(0));
  // the next strip on its way to shared memory (two stages; one stage loads it straight in)
  tk::Private<E, STAGES == 2 ? SA::loads * VEC : 1> ra;
  tk::Private<E, STAGES == 2 ? SB::loads * VEC : 1> rb;

  const int tiles_m = static_cast<int>((M + BM - 1) / BM), tiles_n = static_cast<int>((N + BN - 1) / BN);
  const int tiles = tiles_m * tiles_n;
  const int split = tk::block_idx().x / tiles;
  const matmul_detail::TileCoord tile = matmul_detail::grouped_tile<8>(tk::block_idx().x % tiles, tiles_m, tiles_n);
  const std::int64_t m0 = std::int64_t{tile.m} * BM, n0 = std::int64_t{tile.n} * BN;
  const std::int64_t kbeg = split * k_per_split;
  const std::int64_t kend = K < kbeg + k_per_split ? K : kbeg + k_per_split;
  const int strips = kend > kbeg ? static_cast<int>((kend - kbeg + BK - 1) / BK) : 0;
  const std::int64_t z = tk::block_idx().y;
  A += z * sa;
  B += z * sb;
  C += z * sc;

  // Strip s lives in shared buffer s % STAGES.
  warp_tiled_step<W, STAGES, SA, SB, ALIGNED, false>(-1, STAGES - 1, strips, acc, ra, rb, As, Bs, A, lda, B, ldb, M,
                                                     N, m0, n0, kbeg, kend);
  if constexpr (Cfg::unroll) {
    // Steps whose next strip is a full strip inside the k range (all but the last one to three) run in a
    // loop of their own, two steps per iteration, with no bounds test and no branch but the loop's; the
    // rest, with tests. Step t uses buffer t % 2 in both. The form of this loop matters to the compiler:
    // an inner unrolled loop over the steps with a bounds test each, or four steps per iteration, measured
    // slower (docs/performance.md).
    const bool clamps = SA::clamps(m0, M) && SB::clamps(n0, N);
    const int unchecked = clamps ? static_cast<int>((kend - kbeg) / BK) - 1 : 0;  // steps 0 .. unchecked - 1
    int t = 0;
    if constexpr (STAGES == 2) {
      for (; t + 1 < unchecked; t += 2) {
        warp_tiled_step<W, STAGES, SA, SB, ALIGNED, true>(t, 0, strips, acc, ra, rb, As, Bs, A, lda, B, ldb, M, N, m0,
                                                          n0, kbeg, kend);
        warp_tiled_step<W, STAGES, SA, SB, ALIGNED, true>(t + 1, 1, strips, acc, ra, rb, As, Bs, A, lda, B, ldb, M, N,
                                                          m0, n0, kbeg, kend);
      }
    }
    for (; t < strips; t += STAGES) {
      warp_tiled_step<W, STAGES, SA, SB, ALIGNED, false>(t, 0, strips, acc, ra, rb, As, Bs, A, lda, B, ldb, M, N, m0,
                                                         n0, kbeg, kend);
      if constexpr (STAGES == 2) {
        if (t + 1 < strips)
          warp_tiled_step<W, STAGES, SA, SB, ALIGNED, false>(t + 1, 1, strips, acc, ra, rb, As, Bs, A, lda, B, ldb, M,
                                                             N, m0, n0, kbeg, kend);
      }
    }
  } else {
    for (int t = 0; t < strips; ++t)
      warp_tiled_step<W, STAGES, SA, SB, ALIGNED, false>(t, t % STAGES, strips, acc, ra, rb, As, Bs, A, lda, B, ldb, M,
                                                         N, m0, n0, kbeg, kend);
  }
  TK_THREADS(th) {
    const int row0 = W::row0(th.y, th.z), col0 = W::col0(th.x, th.z);
    TK_UNROLL for (int wm = 0; wm < W::wmiter; ++wm)
      TK_UNROLL for (int i = 0; i < TM; ++i) {
        const std::int64_t gm = m0 + row0 + wm * W::wsubm + i;
        if (gm >= M) continue;
        TK_UNROLL for (int wn = 0; wn < WNITER; ++wn)
          TK_UNROLL for (int j = 0; j < TN; ++j) {
            const std::int64_t gn = n0 + col0 + wn * W::wsubn + j;
            const E v = acc(th.id, (wm * TM + i) * WNITER * TN + wn * TN + j);
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

}  // namespace tk::kernels
