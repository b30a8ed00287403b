// kernels/matmul/warp_tiled.hpp — tilekit's fastest matmul: the warp tiles of warp_tiling.hpp fed by a
// double-buffered k loop, with rasterised blocks and split-K. Its tile shapes are named configurations
// (configs.hpp); docs/performance.md#h100-sgemm has what each measured.
//
// What it adds to register_tiled.hpp:
// - Double buffering (Cfg::stages = 2): while the block multiplies k strip t from one shared buffer, each
//   thread has already issued the global loads of strip t + 1 into registers; they are stored into the
//   other buffer after the multiply, so global latency hides behind arithmetic and the loop needs one
//   barrier per strip. With one stage the strip goes straight to the one buffer, with a second barrier:
//   for CPUs, where there is no global-memory latency for a second buffer to hide. With three stages
//   (Cfg::stages = 3) two strips are on their way at once, in two sets of registers: step t issues the
//   loads of strip t + 2 while strip t + 1's, issued a step earlier, wait to be stored, so a load has two
//   multiplies' time to arrive (operands that come from DRAM, as in batches of small matrices, whose
//   latency one strip does not cover). Shared memory still holds two buffers.
// - Strips in pairs (Cfg::pairs, strip_pairs.hpp; three stages' registers): two strips of 8 k are fetched
//   together, so that a warp's loads of an operand stored along k read 64 bytes of 8 lines, not 32 bytes of
//   16, and each is staged amid a step's multiply (after Cfg::stage_at k rows on even steps, stage_odd on
//   odd ones), where its scalar stores meet fewer fragment reads queued behind them. An edge tile computes
//   the last whole tile of C instead (shift_in), so no load needs a bounds test or a clamped address. This
//   pays where both strips lie along k (SGEMM NT).
// - Constant buffer indices (Cfg::unroll): the loop runs two steps per iteration, so that every shared
//   address is a constant offset once inlined, and the steps whose next strip lies inside K run in a loop
//   of their own whose global loads have no bounds test (rows and chunks past M and N clamped to the last
//   valid ones, or in a packed copy to the last chunk of its padded line: they feed only outputs that are
//   never stored). Address arithmetic and a branch per load otherwise cost issue slots at every strip.
// - Short code per tile (Cfg::whole, Cfg::lean): a block whose strips are all full runs every step in the
//   unchecked loop (the last steps fetch the last strip again), and a tile inside C is stored with no bounds
//   test per output and beta tested once. With a short K (batches of small matrices) a block runs little
//   more than its prologue, 16-32 steps and its epilogue, and the checked steps' and the epilogue's
//   instructions, run once per tile, missed the instruction cache at every block's end.
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
// Shared memory: buffers (1 or 2) * BK * (BM + pad + BN (+ pad when B is transposed)) elements.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "strip_pairs.hpp"
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
// stage strip t + 1 into the other buffer; with three, fetch strip t + 2 into the register set (fa, fb)
// while strip t + 1 waits in (sa, sb) (the two sets alternate: with two stages they are one); with one
// stage, multiply strip t, then load strip t + 1 in its place. Step -1 only brings in strip 0 (with three
// stages the caller has fetched it into (sa, sb) first). INSIDE: strip t + stages - 1 lies inside the k
// range (no bounds tests).
template <class W, int STAGES, class SA, class SB, bool ALIGNED, bool INSIDE, class E, class Acc, class RA, class RB,
          class BufA, class BufB>
TK_DEVICE void warp_tiled_step(int t, int cur, int strips, Acc& acc, RA& fa, RB& fb, RA& sa, RB& sb, BufA& As,
                               BufB& Bs, const E* A, std::int64_t lda, const E* B, std::int64_t ldb, std::int64_t M,
                               std::int64_t N, std::int64_t m0, std::int64_t n0, std::int64_t kbeg,
                               std::int64_t kend) {
  constexpr int NT = W::threads, AHEAD = STAGES > 1 ? STAGES - 1 : 1;  // strips fetched ahead of the multiply
  const bool fetch = INSIDE || t + AHEAD < strips, more = INSIDE || t + 1 < strips;
  // unchecked steps past the last strip (a block's last steps when every strip is full) re-read the last one
  const int fetched = INSIDE && t + AHEAD >= strips ? strips - 1 : t + AHEAD;
  const std::int64_t k_fetch = kbeg + std::int64_t{fetched} * W::bk, k_next = kbeg + std::int64_t{t + 1} * W::bk;
  if (STAGES >= 2 && fetch) {
    TK_THREADS(th) {  // global -> registers (0 outside A, B and this split's k range unless INSIDE)
      warp_tiled_fetch<SA, ALIGNED, INSIDE>(fa, th, A, lda, m0, k_fetch, M, kend, NT);
      warp_tiled_fetch<SB, ALIGNED, INSIDE>(fb, th, B, ldb, n0, k_fetch, N, kend, NT);
    }
  }
  const int next = STAGES == 1 ? 0 : 1 - cur;
  constexpr int bpad = static_cast<int>(sizeof(Bs[0][0]) / sizeof(E)) - W::bn;  // Bs[s][k] holds BN + pad
  if (t >= 0) {
    warp_tiled_multiply<W, bpad>(acc, As[cur], Bs[cur]);
    if (STAGES == 1) TK_BARRIER();  // one buffer: everyone has read it before it is refilled
  }
  if (more) {
    TK_THREADS(th) {  // -> shared buffer `next`: from the registers, or (one stage) straight from global
      if constexpr (STAGES == 1) {
        warp_tiled_load<SA, ALIGNED>(As[next], th, A, lda, m0, k_next, M, kend, NT);
        warp_tiled_load<SB, ALIGNED>(Bs[next], th, B, ldb, n0, k_next, N, kend, NT);
      } else {
        warp_tiled_stage<SA, E>(As[next], sa, th, NT);
        warp_tiled_stage<SB, E>(Bs[next], sb, th, NT);
      }
    }
  }
  TK_BARRIER();  // strip t + 1 is staged, and nobody reads the buffer of strip t any more
}

// Step t of the k loop with the strips fetched in pairs (Cfg::pairs, strip_pairs.hpp): strip t is in buffer
// CUR = t % 2, and the registers (ra, rb) hold the pair of strips t - CUR and t - CUR + 1. Even t: the
// multiply's first Cfg::stage_at k rows, then strip t + 1 (the pair's second) staged, then the next pair
// (strips t + 2 and t + 3) fetched into the registers it leaves, then the rest of the multiply. Odd t: the
// first Cfg::stage_odd rows, then strip t + 1 (the new pair's first) staged, then the rest. Step -1 (odd) only
// stages strip 0. INSIDE: the fetched pair lies inside the k range (no bounds tests).
template <class Cfg, int CUR, class SA, class SB, bool ALIGNED, bool INSIDE, class E, class Acc, class RA, class RB,
          class BufA, class BufB>
TK_DEVICE void warp_tiled_pair_step(int t, int strips, Acc& acc, RA& ra, RB& rb, BufA& As, BufB& Bs, const E* A,
                                    std::int64_t lda, const E* B, std::int64_t ldb, std::int64_t M, std::int64_t N,
                                    std::int64_t m0, std::int64_t n0, std::int64_t kbeg, std::int64_t kend) {
  using W = typename Cfg::Tiling;
  constexpr int AT = CUR == 0 ? Cfg::stage_at : Cfg::stage_odd;
  static_assert(AT >= 0 && AT <= W::bk, "k rows of the multiply before the stores");
  constexpr int bpad = static_cast<int>(sizeof(Bs[0][0]) / sizeof(E)) - W::bn;
  if (t >= 0) warp_tiled_multiply<W, bpad, 0, AT>(acc, As[CUR], Bs[CUR]);
  if (INSIDE || t + 1 < strips) {
    TK_THREADS(th) {
      matmul_detail::pair_stage<SA, 1 - CUR, E>(As[1 - CUR], ra, th);
      matmul_detail::pair_stage<SB, 1 - CUR, E>(Bs[1 - CUR], rb, th);
    }
  }
  if constexpr (CUR == 0) {
    if (INSIDE || t + 2 < strips) {
      const std::int64_t k = kbeg + std::int64_t{t + 2} * W::bk;
      TK_THREADS(th) {
        matmul_detail::pair_fetch<SA, ALIGNED, INSIDE>(ra, th, A, lda, m0, k, M, kend);
        matmul_detail::pair_fetch<SB, ALIGNED, INSIDE>(rb, th, B, ldb, n0, k, N, kend);
      }
    }
  }
  if (t >= 0) warp_tiled_multiply<W, bpad, AT, W::bk>(acc, As[CUR], Bs[CUR]);
  TK_BARRIER();  // strip t + 1 is staged, and nobody reads the buffer of strip t any more
}

// A thread's outputs into C at c (its first output), for a tile inside C: no bounds tests; beta's test is
// the template parameter READ_C.
template <class W, bool READ_C, class E, class Acc, class Th>
TK_DEVICE void warp_tiled_store_inside(const Acc& acc, const Th& th, E* c, std::int64_t ldc, E alpha, E beta) {
  TK_UNROLL for (int wm = 0; wm < W::wmiter; ++wm)
    TK_UNROLL for (int i = 0; i < W::tm; ++i) {
      E* crow = c + std::int64_t{wm * W::wsubm + i} * ldc;
      TK_UNROLL for (int wn = 0; wn < W::wniter; ++wn)
        TK_UNROLL for (int j = 0; j < W::tn; ++j) {
          const E v = alpha * acc(th.id, (wm * W::tm + i) * W::wniter * W::tn + wn * W::tn + j);
          E* p = crow + wn * W::wsubn + j;
          if constexpr (READ_C) *p = v + beta * *p;
          else *p = v;
        }
    }
}

// Cfg: a configuration of configs.hpp (tile shapes, stages, minimum blocks per multiprocessor, unroll, whole,
// lean).
template <class Cfg, class E, bool ALIGNED, bool TRANS_A, bool TRANS_B>
TK_KERNEL TK_LAUNCH_BOUNDS_MIN(Cfg::Tiling::threads, Cfg::min_blocks) void matmul_warp_tiled(
    std::int64_t M, std::int64_t N, std::int64_t K, E alpha, const E* A, std::int64_t lda, std::int64_t sa,
    const E* B, std::int64_t ldb, std::int64_t sb, E beta, E* C, std::int64_t ldc, std::int64_t sc,
    std::int64_t k_per_split, E* partial, std::int64_t m_read, std::int64_t n_read) {
  using W = typename Cfg::Tiling;
  constexpr int BM = W::bm, BN = W::bn, BK = W::bk, TM = W::tm, TN = W::tn, WNITER = W::wniter;
  constexpr int STAGES = Cfg::stages, VEC = 16 / sizeof(E);
  static_assert(STAGES >= 1 && STAGES <= 3, "one buffer, double buffering, or two strips on their way");
  static_assert(STAGES < 3 || Cfg::unroll, "three stages alternate two register sets: constant indices");
  constexpr int BUFS = STAGES == 1 ? 1 : 2;  // shared buffers
  using SA = matmul_detail::Strip<E, BM, BK, VEC, W::threads, matmul_detail::a_kmajor<TRANS_A>>;
  using SB = matmul_detail::Strip<E, BN, BK, VEC, W::threads, matmul_detail::b_kmajor<TRANS_B>>;
  TK_SHARED_ARRAY(E, As, [BUFS][BK][BM + W::pad]);
  // B's strip is padded on a GPU when it is transposed on its way in, on a CPU by a cache line (common.hpp,
  // strip_pad), or for tensor-core fragment reads (warp_tiling.hpp: four k rows of eight elements, 4 apart
  // in the banks)
  constexpr int BPAD = W::mma_layout && tk::this_target == tk::Target::cuda
                           ? 4
                           : matmul_detail::strip_pad<E, matmul_detail::b_kmajor<TRANS_B>, true>;
  TK_SHARED_ARRAY(E, Bs, [BUFS][BK][BN + BPAD]);
  tk::Private<E, W::outputs> acc(E(0));
  // The strips on their way to shared memory (one stage loads them straight in): with two stages one set of
  // registers, with three two sets, strip s in set s % 2 (ra1 and rb1 name set 0 again below three stages).
  // With pairs (Cfg::pairs) one set holds a pair of strips.
  constexpr bool PAIRS = Cfg::pairs;
  static_assert(!PAIRS || (STAGES == 3 && Cfg::unroll), "pairs: two strips on their way, constant buffer indices");
  tk::Private<E, PAIRS ? 2 * SA::loads * VEC : STAGES >= 2 ? SA::loads * VEC : 1> ra0;
  tk::Private<E, PAIRS ? 2 * SB::loads * VEC : STAGES >= 2 ? SB::loads * VEC : 1> rb0;
  tk::Private<E, STAGES == 3 && !PAIRS ? SA::loads * VEC : 1> ra_odd;
  tk::Private<E, STAGES == 3 && !PAIRS ? SB::loads * VEC : 1> rb_odd;
  auto& ra1 = matmul_detail::odd_set<STAGES == 3>(ra0, ra_odd);
  auto& rb1 = matmul_detail::odd_set<STAGES == 3>(rb0, rb_odd);

  const int tiles_m = static_cast<int>((M + BM - 1) / BM), tiles_n = static_cast<int>((N + BN - 1) / BN);
  const int tiles = tiles_m * tiles_n;
  const int split = tk::block_idx().x / tiles;
  const matmul_detail::TileCoord tile = matmul_detail::grouped_tile<8>(tk::block_idx().x % tiles, tiles_m, tiles_n);
  // The tile's first row and column of C; with pairs an edge tile computes the last whole tile of C instead
  // (m0, n0: strip_pairs.hpp, shift_in), and stores only from here on.
  const std::int64_t m_first = std::int64_t{tile.m} * BM, n_first = std::int64_t{tile.n} * BN;
  const std::int64_t m0 =
      PAIRS ? matmul_detail::shift_in<matmul_detail::a_kmajor<TRANS_A>, VEC>(m_first, BM, M) : m_first;
  const std::int64_t n0 =
      PAIRS ? matmul_detail::shift_in<matmul_detail::b_kmajor<TRANS_B>, VEC>(n_first, BN, N) : n_first;
  const std::int64_t kbeg = split * k_per_split;
  const std::int64_t kend = K < kbeg + k_per_split ? K : kbeg + k_per_split;
  const int strips = kend > kbeg ? static_cast<int>((kend - kbeg + BK - 1) / BK) : 0;
  // How far the strips' loads may reach along m and n: M and N, except along the lines of an operand stored
  // k-major (A transposed, B as stored), whose lines may be read to m_read and n_read (>= M and N: more
  // where a packed copy's lines are padded to whole chunks, launch.cpp). The last column (row) of tiles then
  // clamps its loads like the others (Strip::clamps); values read past M or N feed only outputs that are
  // never stored. (The parameters themselves, not a maximum computed here: cuda_square has no register to
  // spare for one, and spilled in TN.)
  const std::int64_t xa = matmul_detail::a_kmajor<TRANS_A> ? m_read : M;
  const std::int64_t xb = matmul_detail::b_kmajor<TRANS_B> ? n_read : N;
  const std::int64_t z = tk::block_idx().y;
  A += z * sa;
  B += z * sb;
  C += z * sc;

  if constexpr (PAIRS) {
    if (strips > 0) {
      TK_THREADS(th) {  // strips 0 and 1; step -1 stages strip 0
        matmul_detail::pair_fetch<SA, ALIGNED, false>(ra0, th, A, lda, m0, kbeg, xa, kend);
        matmul_detail::pair_fetch<SB, ALIGNED, false>(rb0, th, B, ldb, n0, kbeg, xb, kend);
      }
    }
    warp_tiled_pair_step<Cfg, 1, SA, SB, ALIGNED, false>(-1, strips, acc, ra0, rb0, As, Bs, A, lda, B, ldb, xa, xb, m0,
                                                         n0, kbeg, kend);
    // Even steps t < unchecked fetch a pair of full strips inside the k range (t + 4 <= full) for a tile whose
    // strips lie inside A and B: no bounds tests. Only a C of fewer than BM rows or BN columns, or an operand
    // stored k-major whose edge tiles cannot shift (shift_in), runs every step of a tile checked.
    const bool inside = m0 + BM <= xa && n0 + BN <= xb;
    const int full = static_cast<int>((kend - kbeg) / BK);
    const int unchecked = inside ? (full - 2) / 2 * 2 : 0;
    int t = 0;
    for (; t < unchecked; t += 2) {
      warp_tiled_pair_step<Cfg, 0, SA, SB, ALIGNED, true>(t, strips, acc, ra0, rb0, As, Bs, A, lda, B, ldb, xa, xb,
                                                          m0, n0, kbeg, kend);
      warp_tiled_pair_step<Cfg, 1, SA, SB, ALIGNED, true>(t + 1, strips, acc, ra0, rb0, As, Bs, A, lda, B, ldb, xa,
                                                          xb, m0, n0, kbeg, kend);
    }
    for (; t < strips; t += 2) {
      warp_tiled_pair_step<Cfg, 0, SA, SB, ALIGNED, false>(t, strips, acc, ra0, rb0, As, Bs, A, lda, B, ldb, xa, xb, m0,
                                                           n0, kbeg, kend);
      if (t + 1 < strips)
        warp_tiled_pair_step<Cfg, 1, SA, SB, ALIGNED, false>(t + 1, strips, acc, ra0, rb0, As, Bs, A, lda, B, ldb,
                                                             xa, xb, m0, n0, kbeg, kend);
    }
  } else {
    // Strip s lives in shared buffer s % 2 (one stage: the one buffer). Step t with t even fetches into set 0
    // (three stages: strip t + 2) and stages set 1 (strip t + 1); with t odd the other way round.
    if constexpr (STAGES == 3) {
      if (strips > 0) {
        TK_THREADS(th) {  // strip 0 into set 0; step -1 fetches strip 1 and stages strip 0
          warp_tiled_fetch<SA, ALIGNED, false>(ra0, th, A, lda, m0, kbeg, xa, kend, W::threads);
          warp_tiled_fetch<SB, ALIGNED, false>(rb0, th, B, ldb, n0, kbeg, xb, kend, W::threads);
        }
      }
    }
    warp_tiled_step<W, STAGES, SA, SB, ALIGNED, false>(-1, BUFS - 1, strips, acc, ra1, rb1, ra0, rb0, As, Bs, A, lda, B,
                                                       ldb, xa, xb, m0, n0, kbeg, kend);
    if constexpr (Cfg::unroll) {
      // Steps whose fetched strip is a full strip inside the k range (all but the last few) run in a loop of
      // their own, two steps per iteration, with no bounds test and no branch but the loop's; the rest, with
      // tests. Step t uses buffer t % 2 in both. The form of this loop matters to the compiler: an inner
      // unrolled loop over the steps with a bounds test each, or four steps per iteration, measured slower
      // (docs/history/performance-log.md#nvidia-h100-80gb-hbm3-4096-x-4096-x-4096--the-progression).
      const bool clamps = SA::clamps(m0, xa) && SB::clamps(n0, xb);
      const int full = static_cast<int>((kend - kbeg) / BK);  // strips of BK inside the k range
      // When every strip is full, all steps run unchecked (Cfg::whole): the last STAGES - 1 fetch the last
      // strip again, and the last stages it into the buffer nobody reads any more; the block runs one copy
      // of the step code, not two.
      const bool whole = Cfg::whole && STAGES >= 2 && clamps && full == strips;
      // steps 0 .. unchecked - 1
      const int unchecked = !clamps ? 0 : whole ? strips : full - (BUFS == 1 ? 1 : STAGES - 1);
      int t = 0;
      if constexpr (STAGES >= 2) {
        for (; t + 1 < unchecked; t += 2) {
          warp_tiled_step<W, STAGES, SA, SB, ALIGNED, true>(t, 0, strips, acc, ra0, rb0, ra1, rb1, As, Bs, A, lda, B,
                                                            ldb, xa, xb, m0, n0, kbeg, kend);
          warp_tiled_step<W, STAGES, SA, SB, ALIGNED, true>(t + 1, 1, strips, acc, ra1, rb1, ra0, rb0, As, Bs, A,
                                                            lda, B, ldb, xa, xb, m0, n0, kbeg, kend);
        }
      }
      for (; t < strips; t += BUFS) {
        warp_tiled_step<W, STAGES, SA, SB, ALIGNED, false>(t, 0, strips, acc, ra0, rb0, ra1, rb1, As, Bs, A, lda, B,
                                                           ldb, xa, xb, m0, n0, kbeg, kend);
        if constexpr (STAGES >= 2) {
          if (t + 1 < strips)
            warp_tiled_step<W, STAGES, SA, SB, ALIGNED, false>(t + 1, 1, strips, acc, ra1, rb1, ra0, rb0, As, Bs, A,
                                                               lda, B, ldb, xa, xb, m0, n0, kbeg, kend);
        }
      }
    } else {
      for (int t = 0; t < strips; ++t)
        warp_tiled_step<W, STAGES, SA, SB, ALIGNED, false>(t, t % BUFS, strips, acc, ra0, rb0, ra0, rb0, As, Bs, A, lda,
                                                           B, ldb, xa, xb, m0, n0, kbeg, kend);
    }
  }
  if constexpr (Cfg::lean) {
    // the tile lies inside C: no bounds test per output, and beta tested once for all of them
    if (partial == nullptr && m_first + BM <= M && n_first + BN <= N) {
      const bool read_c = beta != E(0);
      TK_THREADS(th) {
        E* c = C + (m0 + W::row0(th.y, th.z)) * ldc + n0 + W::col0(th.x, th.z);
        if (read_c) warp_tiled_store_inside<W, true>(acc, th, c, ldc, alpha, beta);
        else warp_tiled_store_inside<W, false>(acc, th, c, ldc, alpha, beta);
      }
      return;
    }
  }
  TK_THREADS(th) {
    const int row0 = W::row0(th.y, th.z), col0 = W::col0(th.x, th.z);
    TK_UNROLL for (int wm = 0; wm < W::wmiter; ++wm)
      TK_UNROLL for (int i = 0; i < TM; ++i) {
        const std::int64_t gm = m0 + row0 + wm * W::wsubm + i;
        if (gm >= M || (PAIRS && gm < m_first)) continue;
        TK_UNROLL for (int wn = 0; wn < WNITER; ++wn)
          TK_UNROLL for (int j = 0; j < TN; ++j) {
            const std::int64_t gn = n0 + col0 + wn * W::wsubn + j;
            const E v = acc(th.id, (wm * TM + i) * WNITER * TN + wn * TN + j);
            if (gn >= N || (PAIRS && gn < n_first)) continue;
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
