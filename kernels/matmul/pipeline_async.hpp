// kernels/matmul/pipeline_async.hpp — warp_tiled's k loop with its strips copied global -> shared by
// tk::copy_async (tilekit/async_copy.hpp: cp.async on sm_80 and later) into a ring of S shared buffers (the
// configuration's Stages with async_copies): S - 1 strips are on their way while the block multiplies one, and no
// register holds a strip on its way (pipeline_staged.hpp's two or three stages stage each strip through
// registers and shared stores).
//
// The strips keep pipeline_staged's layout, S[k][x] (k-major), so the multiply is warp_tiling.hpp's as before. An
// operand that lies along x in memory (A transposed, B as stored) is copied in 16-byte chunks along x where its
// lines are 16-byte aligned (ALIGNED); an operand that lies along k is transposed on its way in, one element per
// copy: a warp's copies take BK consecutive elements of each of 32 / BK lines, so its reads are whole sectors and
// its shared stores, BM + 4 apart along k, fall in distinct banks (with BK = 8; strips of 16 would meet two to a
// bank). Unaligned lines along x are copied an element at a time too. Elements outside the operand (past xs along
// x, past the split's k range) are zeros: the copy reads nothing there (src_bytes 0).
//
// Step t: wait until strip t has landed (copy_async_wait<S - 2>: the groups of strips t + 1 .. t + S - 2 may still
// be in flight), a barrier (strip t visible to all; everybody is done with strip t - 1's buffer), start the copies of
// strip t + S - 1 into that buffer, commit, multiply strip t. Every thread commits one group per step, empty past
// the last strip, so the wait's count holds to the end. One barrier per strip.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "config.hpp"
#include "pipeline_staged.hpp"
#include "tilekit/async_copy.hpp"

namespace tk::kernels::matmul_detail {

// One thread's copies of one operand's strip (its elements x0 .. x0 + BX - 1 along x, k0 .. k0 + BK - 1 along k)
// into S[k][x]. INSIDE: the strip lies inside the k range (no test along k).
template <class S, bool ALIGNED, bool INSIDE, class E, class Buf, class Th>
TK_DEVICE void strip_copy(Buf& s, const Th& th, const E* X, std::int64_t ld, std::int64_t x0, std::int64_t k0,
                          std::int64_t xs, std::int64_t kend) {
  constexpr int BX = S::bx, BK = S::bk, NT = S::threads, EB = static_cast<int>(sizeof(E));
  if constexpr (S::kmajor && ALIGNED) {
    // 16-byte chunks along x (a chunk that straddles xs: its elements before xs, zeros after)
    TK_UNROLL
    for (int l = 0; l < S::loads; ++l) {
      int x, k;
      S::place(th.id + l * NT, x, k);
      const std::int64_t xx = x0 + x, kk = k0 + k;
      const std::int64_t left = (xs - xx) * EB;
      const int bytes = (INSIDE || kk < kend) ? (left >= 16 ? 16 : left > 0 ? static_cast<int>(left) : 0) : 0;
      tk::copy_async<16>(&s[k][x], bytes > 0 ? X + kk * ld + xx : X, bytes);
    }
  } else {
    // one element per copy, consecutive threads along the memory's contiguous direction
    constexpr int per_thread = BX * BK / NT;
    static_assert(per_thread >= 1 && per_thread * NT == BX * BK, "the block copies whole strips");
    TK_UNROLL
    for (int j = 0; j < per_thread; ++j) {
      const int i = th.id + j * NT;
      const int x = S::kmajor ? i % BX : i / BK, k = S::kmajor ? i / BX : i % BK;
      const std::int64_t xx = x0 + x, kk = k0 + k;
      const bool in = xx < xs && (INSIDE || kk < kend);
      tk::copy_async<EB>(&s[k][x], in ? (S::kmajor ? X + kk * ld + xx : X + xx * ld + kk) : X, in ? EB : 0);
    }
  }
}

// Strip f's copies (both operands) into ring buffer `buf`; none past the last strip.
template <class W, class SA, class SB, bool ALIGNED, class E, class BufA, class BufB>
TK_DEVICE void async_issue(int f, int buf, int full, BufA& As, BufB& Bs, const StripSource<E>& src) {
  if (f >= src.strips) return;
  const std::int64_t k0 = src.kbeg + std::int64_t{f} * W::bk;
  if (f < full) {
    TK_THREADS(th) {
      strip_copy<SA, ALIGNED, true>(As[buf], th, src.A, src.lda, src.m0, k0, src.xa, src.kend);
      strip_copy<SB, ALIGNED, true>(Bs[buf], th, src.B, src.ldb, src.n0, k0, src.xb, src.kend);
    }
  } else {
    TK_THREADS(th) {
      strip_copy<SA, ALIGNED, false>(As[buf], th, src.A, src.lda, src.m0, k0, src.xa, src.kend);
      strip_copy<SB, ALIGNED, false>(Bs[buf], th, src.B, src.ldb, src.n0, k0, src.xb, src.kend);
    }
  }
}

// The whole k loop of a block: strip t in ring buffer t % S. Cfg: the configuration (config.hpp).
template <class Cfg, class SA, class SB, bool ALIGNED, class E, class Acc, class BufA, class BufB>
TK_DEVICE void async_pipeline(Acc& acc, BufA& As, BufB& Bs, const StripSource<E>& src) {
  using W = WarpTilingOf<Cfg>;
  constexpr int S = Cfg::config.pipeline.stages;
  static_assert(S >= 2 && S <= 4, "a ring of 2-4 buffers");
  constexpr int bpad = static_cast<int>(sizeof(Bs[0][0]) / sizeof(E)) - W::bn;  // Bs[s][k] holds BN + pad
  const int strips = src.strips;
  const int full = static_cast<int>((src.kend - src.kbeg) / W::bk);  // strips of BK inside the k range
  TK_UNROLL
  for (int s = 0; s < S - 1; ++s) {
    async_issue<W, SA, SB, ALIGNED>(s, s, full, As, Bs, src);
    tk::copy_async_commit();
  }
  int cur = 0, refill = S - 1;  // t % S and (t + S - 1) % S
  for (int t = 0; t < strips; ++t) {
    tk::copy_async_wait<S - 2>();
    TK_BARRIER();  // strip t is in for everyone; nobody reads strip t - 1's buffer (`refill`) any more
    async_issue<W, SA, SB, ALIGNED>(t + S - 1, refill, full, As, Bs, src);
    tk::copy_async_commit();
    warp_tiled_multiply<W, bpad>(acc, As[cur], Bs[cur]);
    refill = cur;
    cur = cur + 1 == S ? 0 : cur + 1;
  }
}

}  // namespace tk::kernels::matmul_detail
