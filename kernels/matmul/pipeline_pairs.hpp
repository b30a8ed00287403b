// kernels/matmul/pipeline_pairs.hpp — warp_tiled's k loop with the strips fetched two at a time (StripPairs,
// config.hpp), so that a warp's load of an operand stored along k reads 64 bytes of 8 lines instead of 32 bytes of 16.
//
// A strip of 8 k of an operand whose lines lie along k (A as stored, B transposed) is 32 bytes of each line:
// a warp's 16-byte loads, two lanes per line, touch 16 lines per instruction. Where both operands lie along
// k (SGEMM NT) those loads, not the arithmetic, set the pace (
// docs/history/performance-log.md#nvidia-h100-sgemm-nt-how-its-strips-reach-shared-memory--six-experiments-none-shipped-2026-11-26-night). Two consecutive strips
// are 64 contiguous bytes of each line, so a pair of strips fetched together takes each warp load to 8
// lines: the four lanes of a group read the four 16-byte chunks of one line. Load l of a thread then holds
// strip 0 of the pair in lanes j = id % 4 < 2 and strip 1 in the others, or (l odd) the other way round
// (chunk j ^ 2), so that every thread holds two chunks of each strip; staging a strip selects, per thread,
// the registers that hold it. Its four scalar stores per chunk go down a column of S[k][x] (a transpose, as
// common.hpp's Strip::store); lanes j and j ^ 2 store the same k rows of lines 32 apart, one bank, so the
// upper lanes store their chunk's elements rotated by two (rows 2 apart, 8 banks apart): every store of a
// warp then meets 32 banks.
//
// An operand stored k-major is fetched as its two strips (Strip::place, twice): nothing to gain, but the
// schedule (warp_tiled.hpp) is the kernel's, so both operands come in pairs.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "pipeline_staged.hpp"

namespace tk::kernels::matmul_detail {

// The loads of a pair of strips of operand S (strips at k0 and k0 + BK) into one thread's registers
// (2 * S::loads * VEC). INSIDE: both strips lie inside the k range, and the block's BX lines or columns inside
// the operand (no bounds test and no clamp: clamped line addresses, one per load, cost cuda_square_nt a
// spill).
template <class S, bool ALIGNED, bool INSIDE, class E, class Regs, class Th>
TK_DEVICE void pair_fetch(Regs& regs, const Th& th, const E* X, std::int64_t ld, std::int64_t x0, std::int64_t k0,
                          std::int64_t xs, std::int64_t kend) {
  constexpr int VEC = S::vec, NT = S::threads, L = S::loads;
  const auto fetch = [&](int slot, int x, std::int64_t k) {
    tk::Vec<E, VEC> v;
    if constexpr (INSIDE) {
      v = S::kmajor ? fetch_unchecked<VEC, ALIGNED>(X, ld, k, x0 + x) : fetch_unchecked<VEC, ALIGNED>(X, ld, x0 + x, k);
    } else {
      v = S::template fetch<ALIGNED>(X, ld, x0 + x, k, xs, kend);
    }
    TK_UNROLL
    for (int e = 0; e < VEC; ++e) regs(th.id, slot * VEC + e) = v.v[e];
  };
  if constexpr (S::kmajor) {
    TK_UNROLL
    for (int h = 0; h < 2; ++h) {
      TK_UNROLL
      for (int l = 0; l < L; ++l) {
        int x, k;
        S::place(th.id + l * NT, x, k);
        fetch(h * L + l, x, k0 + h * S::bk + k);
      }
    }
  } else {
    constexpr int G = 2 * S::per_line;  // lanes per line: a pair's chunks of one line
    const int j = th.id % G, line = th.id / G;
    TK_UNROLL
    for (int l = 0; l < 2 * L; ++l) {
      const int chunk = j ^ (l % 2 * S::per_line);  // 0 .. G - 1 along the line's 2 BK elements
      fetch(l, line + l * (NT / G), k0 + chunk * VEC);
    }
  }
}

// Registers -> shared: strip H (0 or 1) of the pair in the registers into S[k][x].
template <class S, int H, class E, class Regs, class Buf, class Th>
TK_DEVICE void pair_stage(Buf& s, const Regs& regs, const Th& th) {
  constexpr int VEC = S::vec, NT = S::threads, L = S::loads;
  if constexpr (S::kmajor) {
    TK_UNROLL
    for (int l = 0; l < L; ++l) {
      int x, k;
      S::place(th.id + l * NT, x, k);
      tk::Vec<E, VEC> v;
      TK_UNROLL
      for (int e = 0; e < VEC; ++e) v.v[e] = regs(th.id, (H * L + l) * VEC + e);
      S::store(s, x, k, v);
    }
  } else {
    static_assert(S::per_line == 2 && VEC == 4, "the bank rotation is worked out for strips of two chunks");
    constexpr int G = 2 * S::per_line, R = VEC / 2;
    const int j = th.id % G, line = th.id / G, upper = j / S::per_line, k0 = j % S::per_line * VEC;
    TK_UNROLL
    for (int q = 0; q < L; ++q) {
      // this thread's chunks of strip H: loads 2q + H (lower lanes) or 2q + 1 - H (upper lanes)
      const int x = line + (2 * q + (upper ^ H)) * (NT / G);
      TK_UNROLL
      for (int e = 0; e < VEC; ++e) {
        const int f = (e + R) % VEC;  // the upper lanes' element at this store
        const E lower = regs(th.id, (2 * q + H) * VEC + e), up = regs(th.id, (2 * q + 1 - H) * VEC + f);
        s[k0 + (upper ? f : e)][x] = upper ? up : lower;
      }
    }
  }
}

// Where a tile of BX rows (columns) of C that starts at x0 reads its strips from, with pairs: at x0, or, for
// an edge tile (x0 + BX > X), at X - BX, the last whole tile, whose lines all lie inside the operand. Its
// first rows (columns) are then the previous tile's, computed again and not stored (warp_tiled.hpp), and its
// loads need neither bounds tests nor clamped addresses: the kernel's steps run unchecked on every tile of
// C, where clamped addresses (a register per load) cost a spill and bounds tests made the edge tiles, and
// with less than a wave of tiles the whole product, a third slower (
// docs/history/performance-log.md#nvidia-h100-sgemm-nt-with-its-strips-fetched-in-pairs--nt-at-99-of-nn-2026-11-26-issue-12). Not where X < BX,
// nor where the operand is stored k-major (x along its lines) and X - BX is not a multiple of VEC, whose
// vector loads would lose their alignment.
template <bool KMAJOR, int VEC>
TK_DEVICE std::int64_t shift_in(std::int64_t x0, int BX, std::int64_t X) {
  return x0 + BX > X && X >= BX && (!KMAJOR || (X - BX) % VEC == 0) ? X - BX : x0;
}

// Step t of the k loop with the strips fetched in pairs: strip t is in buffer CUR = t % 2, and the registers
// (ra, rb) hold the pair of strips t - CUR and t - CUR + 1. Even t: the multiply's first stage_at k rows, then
// strip t + 1 (the pair's second) staged, then the next pair (strips t + 2 and t + 3) fetched into the
// registers it leaves, then the rest of the multiply. Odd t: the first stage_odd rows, then strip t + 1 (the
// new pair's first) staged, then the rest. Step -1 (odd) only stages strip 0. INSIDE: the fetched pair lies
// inside the k range (no bounds tests).
template <class Cfg, int CUR, class SA, class SB, bool ALIGNED, bool INSIDE, class E, class Acc, class RA, class RB,
          class BufA, class BufB>
TK_DEVICE void pair_step(int t, Acc& acc, RA& ra, RB& rb, BufA& As, BufB& Bs, const StripSource<E>& src) {
  using W = WarpTilingOf<Cfg>;
  constexpr int AT = CUR == 0 ? Cfg::config.pipeline.stage_at : Cfg::config.pipeline.stage_odd;
  static_assert(AT >= 0 && AT <= W::bk, "k rows of the multiply before the stores");
  constexpr int bpad = static_cast<int>(sizeof(Bs[0][0]) / sizeof(E)) - W::bn;
  if (t >= 0) warp_tiled_multiply<W, bpad, 0, AT>(acc, As[CUR], Bs[CUR]);
  if (INSIDE || t + 1 < src.strips) {
    TK_THREADS(th) {
      pair_stage<SA, 1 - CUR, E>(As[1 - CUR], ra, th);
      pair_stage<SB, 1 - CUR, E>(Bs[1 - CUR], rb, th);
    }
  }
  if constexpr (CUR == 0) {
    if (INSIDE || t + 2 < src.strips) {
      const std::int64_t k = src.kbeg + std::int64_t{t + 2} * W::bk;
      TK_THREADS(th) {
        pair_fetch<SA, ALIGNED, INSIDE>(ra, th, src.A, src.lda, src.m0, k, src.xa, src.kend);
        pair_fetch<SB, ALIGNED, INSIDE>(rb, th, src.B, src.ldb, src.n0, k, src.xb, src.kend);
      }
    }
  }
  if (t >= 0) warp_tiled_multiply<W, bpad, AT, W::bk>(acc, As[CUR], Bs[CUR]);
  TK_BARRIER();  // strip t + 1 is staged, and nobody reads the buffer of strip t any more
}

// The whole k loop of a block with the strips in pairs (three stages' registers: one set holds a pair). The
// block's m0 and n0 are shift_in's, so a tile of at least BM x BN that lies inside A and B fetches every
// pair unchecked.
template <class Cfg, class SA, class SB, bool ALIGNED, class E, class Acc, class BufA, class BufB>
TK_DEVICE void pair_pipeline(Acc& acc, BufA& As, BufB& Bs, const StripSource<E>& src) {
  using W = WarpTilingOf<Cfg>;
  constexpr int VEC = SA::vec;
  static_assert(Cfg::config.pipeline.stages == 3 && Cfg::config.pipeline.unroll,
                "pairs: two strips on their way, constant buffer indices");
  tk::Private<E, 2 * SA::loads * VEC> ra;
  tk::Private<E, 2 * SB::loads * VEC> rb;
  const int strips = src.strips;
  if (strips > 0) {
    TK_THREADS(th) {  // strips 0 and 1; step -1 stages strip 0
      pair_fetch<SA, ALIGNED, false>(ra, th, src.A, src.lda, src.m0, src.kbeg, src.xa, src.kend);
      pair_fetch<SB, ALIGNED, false>(rb, th, src.B, src.ldb, src.n0, src.kbeg, src.xb, src.kend);
    }
  }
  pair_step<Cfg, 1, SA, SB, ALIGNED, false>(-1, acc, ra, rb, As, Bs, src);
  // Even steps t < unchecked fetch a pair of full strips inside the k range (t + 4 <= full) for a tile whose
  // strips lie inside A and B: no bounds tests. Only a C of fewer than BM rows or BN columns, or an operand
  // stored k-major whose edge tiles cannot shift (shift_in), runs every step of a tile checked.
  const bool inside = src.m0 + W::bm <= src.xa && src.n0 + W::bn <= src.xb;
  const int full = static_cast<int>((src.kend - src.kbeg) / W::bk);
  const int unchecked = inside ? (full - 2) / 2 * 2 : 0;
  int t = 0;
  for (; t < unchecked; t += 2) {
    pair_step<Cfg, 0, SA, SB, ALIGNED, true>(t, acc, ra, rb, As, Bs, src);
    pair_step<Cfg, 1, SA, SB, ALIGNED, true>(t + 1, acc, ra, rb, As, Bs, src);
  }
  for (; t < strips; t += 2) {
    pair_step<Cfg, 0, SA, SB, ALIGNED, false>(t, acc, ra, rb, As, Bs, src);
    if (t + 1 < strips) pair_step<Cfg, 1, SA, SB, ALIGNED, false>(t + 1, acc, ra, rb, As, Bs, src);
  }
}

}  // namespace tk::kernels::matmul_detail
