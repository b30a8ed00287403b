// kernels/matmul/pipeline_staged.hpp — warp_tiled's k loop with one, two or three stages: how the strips of A
// and B reach shared memory while the block multiplies (the technique: software pipelining of global loads).
//
// - One stage (Stages{1}): each strip goes straight from global memory into the one shared buffer, with a
//   second barrier: for CPUs, where there is no global-memory latency for a second buffer to hide.
// - Two stages (double buffering): while the block multiplies strip t from one shared buffer, each thread has
//   already issued the global loads of strip t + 1 into registers; they are stored into the other buffer
//   after the multiply, so global latency hides behind arithmetic and the loop needs one barrier per strip.
// - Three stages: two strips are on their way at once, in two sets of registers: step t issues the loads of
//   strip t + 2 while strip t + 1's, issued a step earlier, wait to be stored, so a load has two multiplies'
//   time to arrive (operands that come from DRAM, as in batches of small matrices, whose latency one strip
//   does not cover). Shared memory still holds two buffers.
// - Constant buffer indices (without `rolled`): the loop runs two steps per iteration, so that every shared
//   address is a constant offset once inlined, and the steps whose next strip lies inside K run in a loop of
//   their own whose global loads have no bounds test (rows and chunks past M and N clamped to the last valid
//   ones, or in a packed copy to the last chunk of its padded line: they feed only outputs that are never
//   stored). Address arithmetic and a branch per load otherwise cost issue slots at every strip.
// - Whole strips (whole_strips): a block whose strips are all full runs every step in the unchecked loop (the
//   last steps fetch the last strip again). With a short K (batches of small matrices) a block runs little
//   more than its prologue, 16-32 steps and its epilogue, and the checked steps' instructions, run once per
//   tile, missed the instruction cache at every block's end.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "config.hpp"

namespace tk::kernels::matmul_detail {

// Where a block's strips come from: the operands (A with m along x, B with n along x, common.hpp's Strip), how
// far their loads may reach along x (xa, xb), the block's first row and column of C (m0, n0), its k range and
// its number of strips.
template <class E>
struct StripSource {
  const E* A;
  std::int64_t lda;
  const E* B;
  std::int64_t ldb;
  std::int64_t xa, xb, m0, n0, kbeg, kend;
  int strips;
};

// The loads of one operand's strip, for one thread, into its staging registers (global -> registers).
// INSIDE: the strip is known to lie inside the k range and the operand to clamp (Strip::fetch_clamped).
template <class S, bool ALIGNED, bool INSIDE, class E, class Regs, class Th>
TK_DEVICE void strip_fetch(Regs& regs, const Th& th, const E* X, std::int64_t ld, std::int64_t x0, std::int64_t k0,
                           std::int64_t xs, std::int64_t kend) {
  constexpr int VEC = S::vec;
  TK_UNROLL
  for (int l = 0; l < S::loads; ++l) {
    int x, k;
    S::place(th.id + l * S::threads, x, k);
    tk::Vec<E, VEC> v;
    if constexpr (INSIDE) {
      v = S::template fetch_clamped<ALIGNED>(X, ld, x0 + x, k0 + k, xs);
    } else {
      v = S::template fetch<ALIGNED>(X, ld, x0 + x, k0 + k, xs, kend);
    }
    TK_UNROLL
    for (int e = 0; e < VEC; ++e) regs(th.id, l * VEC + e) = v.v[e];
  }
}

// Registers -> shared: one operand's staged strip into S[k][x].
template <class S, class E, class Regs, class Buf, class Th>
TK_DEVICE void strip_stage(Buf& s, const Regs& regs, const Th& th) {
  constexpr int VEC = S::vec;
  TK_UNROLL
  for (int l = 0; l < S::loads; ++l) {
    int x, k;
    S::place(th.id + l * S::threads, x, k);
    tk::Vec<E, VEC> v;
    TK_UNROLL
    for (int e = 0; e < VEC; ++e) v.v[e] = regs(th.id, l * VEC + e);
    S::store(s, x, k, v);
  }
}

// Global -> shared directly (one stage): one operand's strip into S[k][x].
template <class S, bool ALIGNED, class E, class Buf, class Th>
TK_DEVICE void strip_load(Buf& s, const Th& th, const E* X, std::int64_t ld, std::int64_t x0, std::int64_t k0,
                          std::int64_t xs, std::int64_t kend) {
  TK_UNROLL
  for (int l = 0; l < S::loads; ++l) {
    int x, k;
    S::place(th.id + l * S::threads, x, k);
    S::store(s, x, k, S::template fetch<ALIGNED>(X, ld, x0 + x, k0 + k, xs, kend));
  }
}

// Step t of the k loop, with strip t in buffer `cur` (a literal when unrolled, so every shared address is a
// fixed offset once inlined): with two stages, fetch strip t + 1 into registers, multiply strip t, then stage
// strip t + 1 into the other buffer; with three, fetch strip t + 2 into the register set (fa, fb) while strip
// t + 1 waits in (sa, sb) (the two sets alternate: with two stages they are one); with one stage, multiply
// strip t, then load strip t + 1 in its place. Step -1 only brings in strip 0 (with three stages the caller
// has fetched it into (sa, sb) first). INSIDE: strip t + stages - 1 lies inside the k range (no bounds tests).
template <class W, int STAGES, class SA, class SB, bool ALIGNED, bool INSIDE, class E, class Acc, class RA, class RB,
          class BufA, class BufB>
TK_DEVICE void staged_step(int t, int cur, Acc& acc, RA& fa, RB& fb, RA& sa, RB& sb, BufA& As, BufB& Bs,
                           const StripSource<E>& src) {
  constexpr int AHEAD = STAGES > 1 ? STAGES - 1 : 1;  // strips fetched ahead of the multiply
  const int strips = src.strips;
  const bool fetch = INSIDE || t + AHEAD < strips, more = INSIDE || t + 1 < strips;
  // unchecked steps past the last strip (a block's last steps when every strip is full) re-read the last one
  const int fetched = INSIDE && t + AHEAD >= strips ? strips - 1 : t + AHEAD;
  const std::int64_t k_fetch = src.kbeg + std::int64_t{fetched} * W::bk;
  const std::int64_t k_next = src.kbeg + std::int64_t{t + 1} * W::bk;
  if (STAGES >= 2 && fetch) {
    TK_THREADS(th) {  // global -> registers (0 outside A, B and this split's k range unless INSIDE)
      strip_fetch<SA, ALIGNED, INSIDE>(fa, th, src.A, src.lda, src.m0, k_fetch, src.xa, src.kend);
      strip_fetch<SB, ALIGNED, INSIDE>(fb, th, src.B, src.ldb, src.n0, k_fetch, src.xb, src.kend);
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
        strip_load<SA, ALIGNED>(As[next], th, src.A, src.lda, src.m0, k_next, src.xa, src.kend);
        strip_load<SB, ALIGNED>(Bs[next], th, src.B, src.ldb, src.n0, k_next, src.xb, src.kend);
      } else {
        strip_stage<SA, E>(As[next], sa, th);
        strip_stage<SB, E>(Bs[next], sb, th);
      }
    }
  }
  TK_BARRIER();  // strip t + 1 is staged, and nobody reads the buffer of strip t any more
}

// The whole k loop of a block: strip s lives in shared buffer s % 2 (one stage: the one buffer). Step t with t
// even fetches into register set 0 (three stages: strip t + 2) and stages set 1 (strip t + 1); with t odd the
// other way round. Cfg: the configuration (config.hpp).
template <class Cfg, class SA, class SB, bool ALIGNED, class E, class Acc, class BufA, class BufB>
TK_DEVICE void staged_pipeline(Acc& acc, BufA& As, BufB& Bs, const StripSource<E>& src) {
  using W = WarpTilingOf<Cfg>;
  constexpr int STAGES = Cfg::config.pipeline.stages, VEC = SA::vec;
  constexpr bool UNROLL = Cfg::config.pipeline.unroll;
  static_assert(STAGES >= 1 && STAGES <= 3, "one buffer, double buffering, or two strips on their way");
  static_assert(STAGES < 3 || UNROLL, "three stages alternate two register sets: constant indices");
  constexpr int BUFS = STAGES == 1 ? 1 : 2;  // shared buffers
  // The strips on their way to shared memory (one stage loads them straight in): with two stages one set of
  // registers, with three two sets (ra1 and rb1 name set 0 again below three stages).
  tk::Private<E, STAGES >= 2 ? SA::loads * VEC : 1> ra0;
  tk::Private<E, STAGES >= 2 ? SB::loads * VEC : 1> rb0;
  tk::Private<E, STAGES == 3 ? SA::loads * VEC : 1> ra_odd;
  tk::Private<E, STAGES == 3 ? SB::loads * VEC : 1> rb_odd;
  auto& ra1 = odd_set<STAGES == 3>(ra0, ra_odd);
  auto& rb1 = odd_set<STAGES == 3>(rb0, rb_odd);
  const int strips = src.strips;

  if constexpr (STAGES == 3) {
    if (strips > 0) {
      TK_THREADS(th) {  // strip 0 into set 0; step -1 fetches strip 1 and stages strip 0
        strip_fetch<SA, ALIGNED, false>(ra0, th, src.A, src.lda, src.m0, src.kbeg, src.xa, src.kend);
        strip_fetch<SB, ALIGNED, false>(rb0, th, src.B, src.ldb, src.n0, src.kbeg, src.xb, src.kend);
      }
    }
  }
  staged_step<W, STAGES, SA, SB, ALIGNED, false>(-1, BUFS - 1, acc, ra1, rb1, ra0, rb0, As, Bs, src);
  if constexpr (UNROLL) {
    // Steps whose fetched strip is a full strip inside the k range (all but the last few) run in a loop of
    // their own, two steps per iteration, with no bounds test and no branch but the loop's; the rest, with
    // tests. Step t uses buffer t % 2 in both. The form of this loop matters to the compiler: an inner
    // unrolled loop over the steps with a bounds test each, or four steps per iteration, measured slower
    // (docs/history/performance-log.md#nvidia-h100-80gb-hbm3-4096-x-4096-x-4096--the-progression).
    const bool clamps = SA::template clamps<ALIGNED>(src.m0, src.xa) && SB::template clamps<ALIGNED>(src.n0, src.xb);
    const int full = static_cast<int>((src.kend - src.kbeg) / W::bk);  // strips of BK inside the k range
    // When every strip is full, all steps run unchecked (whole_strips): the last STAGES - 1 fetch the last
    // strip again, and the last stages it into the buffer nobody reads any more; the block runs one copy of
    // the step code, not two.
    const bool whole = Cfg::config.pipeline.whole && STAGES >= 2 && clamps && full == strips;
    // steps 0 .. unchecked - 1
    const int unchecked = !clamps ? 0 : whole ? strips : full - (BUFS == 1 ? 1 : STAGES - 1);
    int t = 0;
    if constexpr (STAGES >= 2) {
      for (; t + 1 < unchecked; t += 2) {
        staged_step<W, STAGES, SA, SB, ALIGNED, true>(t, 0, acc, ra0, rb0, ra1, rb1, As, Bs, src);
        staged_step<W, STAGES, SA, SB, ALIGNED, true>(t + 1, 1, acc, ra1, rb1, ra0, rb0, As, Bs, src);
      }
    }
    for (; t < strips; t += BUFS) {
      staged_step<W, STAGES, SA, SB, ALIGNED, false>(t, 0, acc, ra0, rb0, ra1, rb1, As, Bs, src);
      if constexpr (STAGES >= 2) {
        if (t + 1 < strips)
          staged_step<W, STAGES, SA, SB, ALIGNED, false>(t + 1, 1, acc, ra1, rb1, ra0, rb0, As, Bs, src);
      }
    }
  } else {
    for (int t = 0; t < strips; ++t)
      staged_step<W, STAGES, SA, SB, ALIGNED, false>(t, t % BUFS, acc, ra0, rb0, ra0, rb0, As, Bs, src);
  }
}

}  // namespace tk::kernels::matmul_detail
