// kernels/matmul/mma_tiled.hpp — GEMM on the matrix units, written once: TF32, BF16 and FP16 inputs with
// float accumulators, and FP64 with double ones (Tl::Acc), through the portable warp-level multiply-accumulate
// of tilekit/mma.hpp. The same source is NVIDIA's mma.sync (warp 32), CDNA's MFMA (wave 64) and, on a CPU, the
// executor's exact emulation of either layout, so the fragment indexing below is tested on a laptop (checked
// mode included).
//
// A block computes a BM x BN tile of C from BK-deep strips of A and B, STAGES of them in flight in dynamic
// shared memory (tk::copy_async: cp.async on sm_80+, in 16-byte chunks where the rows allow it; one barrier
// per strip). Its warps each own a
// WM x WN warp tile, FM x FN fragments of the instruction's m x n. The strips keep the storage order of
// the operands in global memory (so the copy is straight, in chunks), and a fragment is read by coordinates
// whatever the order:
//   A as stored (M x K, k contiguous): As[m][k]; A transposed (K x M): As[k][m];
//   B as stored (K x N, n contiguous): Bs[k][n]; B transposed (N x K):  Bs[n][k].
// Padding (the tiling's PAD_K and PAD_MN): by default a k-contiguous strip's rows are 16 bytes longer, an m- or
// n-contiguous strip's rows 8 elements longer; both keep each row's chunks 16-byte aligned and spread a warp's
// fragment reads over the 32 banks without conflicts for 16- and 32-bit values (NVIDIA's layouts; docs/design.md
// works one through). FP64's 8-byte reads are served a half-warp at a time: 4 rows x 4 columns of a fragment, rows
// p doubles apart, fall on distinct banks when 2p is 8 or 24 mod 32, so its tilings pad both kinds of strip by 4
// doubles (2-way conflicts with the defaults).
// Edges: the strip loads fill zeros past M, N and K; the epilogue stores only inside C.
// C = alpha * acc + beta * C in the accumulator's type (float; double for FP64), stored as Out (float, or the 16-bit
// input type; double); C is not read when beta == 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common.hpp"
#include "tilekit/async_copy.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/mma.hpp"

namespace tk::kernels {

namespace matmul_detail {
// The strip of one operand in shared memory: ROWS lines of COLS elements of global memory (lines ld apart),
// each row padded by PAD elements.
template <class In, int ROWS, int COLS, int PAD>
struct MmaStrip {
  static constexpr int rows = ROWS, cols = COLS, pitch = COLS + PAD, elems = ROWS * (COLS + PAD);
};
}  // namespace matmul_detail

// A tiling of the MMA kernel for precision P on this target's instruction: BM x BN x BK, WM x WN per warp,
// STAGES strips of A and B in flight (dynamic shared memory: shared_bytes<TA, TB>), the rows of k-contiguous
// strips padded by PAD_K elements and those of m- or n-contiguous strips by PAD_MN (both keep rows on 16 bytes).
// PIPE_FRAGS: fragments in flight: each k step's fragments are read from shared memory while the step before is
// multiplied (two sets of fragment registers, an even number of k steps a strip; the kernel's main loop says how).
template <tk::mma::Precision P, int BM, int BN, int BK, int WM, int WN, int STAGES,
          int PAD_K = 16 / static_cast<int>(sizeof(typename tk::mma::Op<P>::In)), int PAD_MN = 8,
          bool PIPE_FRAGS = false>
struct MmaTiling {
  using O = tk::mma::Op<P>;
  using In = typename O::In;
  using Acc = typename O::Acc;
  static constexpr int bm = BM, bn = BN, bk = BK, wm = WM, wn = WN, stages = STAGES;
  static constexpr bool pipe_frags = PIPE_FRAGS;
  static constexpr int warps_n = BN / WN, warps = (BM / WM) * warps_n;
  static constexpr int threads = warps * O::lanes;
  static constexpr int fm = WM / O::m, fn = WN / O::n;           // fragments of a warp tile
  static constexpr int vec = 16 / static_cast<int>(sizeof(In));  // elements per 16-byte chunk
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % O::m == 0 && WN % O::n == 0 && BK % O::k == 0,
                "whole warp tiles of whole fragments, whole instruction steps per strip");
  static_assert(BK % vec == 0 && BM % vec == 0 && BN % vec == 0, "strips of whole 16-byte chunks");
  static_assert(STAGES >= 2, "at least one strip in flight while another is multiplied");
  static_assert(!PIPE_FRAGS || (BK / O::k) % 2 == 0, "fragments in flight: an even number of k steps a strip");
  static_assert(PAD_K % vec == 0 && PAD_MN % vec == 0, "padded rows of whole 16-byte chunks");
  template <bool TA>
  using StripA =
      std::conditional_t<TA, matmul_detail::MmaStrip<In, BK, BM, PAD_MN>, matmul_detail::MmaStrip<In, BM, BK, PAD_K>>;
  template <bool TB>
  using StripB =
      std::conditional_t<TB, matmul_detail::MmaStrip<In, BN, BK, PAD_K>, matmul_detail::MmaStrip<In, BK, BN, PAD_MN>>;
  template <bool TA, bool TB>
  static constexpr std::size_t shared_bytes = sizeof(In) * STAGES * (StripA<TA>::elems + StripB<TB>::elems);
};

namespace matmul_detail {

// Copies lines [r0, r0 + ROWS) x elements [c0, c0 + COLS) of X (lines ld apart) into dst, zeros past rlim and
// clim. ALIGNED: every line of X starts on 16 bytes, so a whole chunk is one 16-byte copy in flight (copy_async).
template <class S, int THREADS, bool ALIGNED, class In>
TK_DEVICE void mma_strip_load(In (*dst)[S::pitch], const In* X, std::int64_t ld, std::int64_t r0, std::int64_t rlim,
                              std::int64_t c0, std::int64_t clim) {
  constexpr int V = 16 / static_cast<int>(sizeof(In)), per_row = S::cols / V, chunks = S::rows * per_row;
  static_assert(chunks % THREADS == 0, "every thread copies the same number of chunks");
  if constexpr (ALIGNED && THREADS % per_row == 0) {
    // A strip wholly inside X (every strip of an interior tile but the last along k): no bounds to test, and
    // each thread's chunks lie THREADS / per_row lines apart, so one address per strip and one add per chunk.
    // (The general path below computes and tests every chunk's row and column in 64 bits: on the H100 FP64 ran
    // three times cuBLAS's instructions with the same tiling, on the H200 4096^3 gained 9-13 points of cuBLAS
    // without it: docs/performance.md#h100-dgemm-ncu and #h200-dgemm-strip-fast-path.)
    if (r0 + S::rows <= rlim && c0 + S::cols <= clim) {
      constexpr int lines = THREADS / per_row;
      TK_THREADS(th) {
        const int r = th.id / per_row, e0 = (th.id % per_row) * V;
        const In* src = X + (r0 + r) * ld + c0 + e0;
        TK_UNROLL
        for (int q = 0; q < chunks / THREADS; ++q)
          tk::copy_async<16>(&dst[r + q * lines][e0], src + q * lines * ld, 16);
      }
      return;
    }
  }
  TK_THREADS(th) {
    TK_UNROLL
    for (int q = 0; q < chunks / THREADS; ++q) {
      const int c = q * THREADS + th.id, r = c / per_row, e0 = (c % per_row) * V;
      const std::int64_t gr = r0 + r, gc = c0 + e0;
      In* d = &dst[r][e0];
      if constexpr (ALIGNED && sizeof(In) % 4 == 0) {
        // a chunk past X's last line or column: zeros; one that ends past clim (a line's last 1-3 floats or last
        // double): its values in flight too (copy_async's 4-byte words, zeros for the rest), where plain loads
        // made the warp wait at each one, every strip of C's last column of tiles with B stored K x N
        const bool none = gr >= rlim || gc >= clim;
        const int bytes =
            none ? 0 : static_cast<int>(sizeof(In)) * static_cast<int>(clim - gc < V ? clim - gc : std::int64_t{V});
        tk::copy_async<16>(d, none ? X : X + gr * ld + gc, bytes);
      } else {
        if constexpr (ALIGNED) {
          const bool whole = gr < rlim && gc + V <= clim, none = gr >= rlim || gc >= clim;
          if (whole || none) {
            tk::copy_async<16>(d, whole ? X + gr * ld + gc : X, whole ? 16 : 0);
            continue;
          }
        }
        TK_UNROLL
        for (int e = 0; e < V; ++e) d[e] = gr < rlim && gc + e < clim ? X[gr * ld + gc + e] : In{};
      }
    }
  }
}

}  // namespace matmul_detail

// The kernel. Tl: an MmaTiling; Out: C's type (float, or Tl::In); TRANS_A / TRANS_B: A stored K x M, B N x K;
// ALIGNED: every line of A and B starts on 16 bytes. A block per tile of one matrix of the batch (grid x:
// tiles, rasterised in groups of 8 tile rows; grid y: the batch). With k_per_split > 0 (a multiple of Tl::bk)
// grid y instead splits one product along K (split-K, the wave plan's): block y multiplies k in
// [y k_per_split, min(K, (y + 1) k_per_split)) and stores its partial product into C + y sc (sa and sb unused).
template <class Tl, class Out, bool ALIGNED, bool TRANS_A, bool TRANS_B>
TK_KERNEL TK_LAUNCH_BOUNDS(Tl::threads) void matmul_mma_tiled(
    std::int64_t M, std::int64_t N, std::int64_t K, typename Tl::Acc alpha, const typename Tl::In* A, std::int64_t lda,
    std::int64_t sa, const typename Tl::In* B, std::int64_t ldb, std::int64_t sb, typename Tl::Acc beta, Out* C,
    std::int64_t ldc, std::int64_t sc, std::int64_t k_per_split) {
  using O = typename Tl::O;
  using In = typename Tl::In;
  using Acc = typename Tl::Acc;
  constexpr int BM = Tl::bm, BN = Tl::bn, BK = Tl::bk, FM = Tl::fm, FN = Tl::fn;
  constexpr int S = Tl::stages;
  using SA = typename Tl::template StripA<TRANS_A>;
  using SB = typename Tl::template StripB<TRANS_B>;
  // the S strips of A, then the S of B, in the block's dynamic shared memory
  In* const shared = tk::dynamic_shared<In>();
  In(*const As)[SA::rows][SA::pitch] = reinterpret_cast<In(*)[SA::rows][SA::pitch]>(shared);
  In(*const Bs)[SB::rows][SB::pitch] = reinterpret_cast<In(*)[SB::rows][SB::pitch]>(shared + S * SA::elems);
  tk::Private<Acc, FM * FN * O::c_regs> acc(Acc(0));
  // the warp's fragments of one k step; two sets with Tl::pipe_frags (those of the next step load while this
  // step's are multiplied)
  constexpr int SETS = Tl::pipe_frags ? 2 : 1;
  tk::Private<typename O::Reg, SETS * FM * O::a_regs> fa;
  tk::Private<typename O::Reg, SETS * FN * O::b_regs> fb;

  const int tiles_m = static_cast<int>((M + BM - 1) / BM), tiles_n = static_cast<int>((N + BN - 1) / BN);
  const matmul_detail::TileCoord tile = matmul_detail::grouped_tile<8>(tk::block_idx().x, tiles_m, tiles_n);
  const std::int64_t m0 = std::int64_t{tile.m} * BM, n0 = std::int64_t{tile.n} * BN;
  const std::int64_t z = tk::block_idx().y;
  if (k_per_split > 0) {  // this block's part of K: A's and B's lines start there, K is its length
    const std::int64_t k0 = z * k_per_split;
    A += TRANS_A ? k0 * lda : k0;
    B += TRANS_B ? k0 : k0 * ldb;
    K = K - k0 < k_per_split ? K - k0 : k_per_split;
  } else {
    A += z * sa;
    B += z * sb;
  }
  C += z * sc;

  const auto load = [&](int buf, std::int64_t k0) {
    if constexpr (TRANS_A) {
      matmul_detail::mma_strip_load<SA, Tl::threads, ALIGNED>(As[buf], A, lda, k0, K, m0, M);
    } else {
      matmul_detail::mma_strip_load<SA, Tl::threads, ALIGNED>(As[buf], A, lda, m0, M, k0, K);
    }
    if constexpr (TRANS_B) {
      matmul_detail::mma_strip_load<SB, Tl::threads, ALIGNED>(Bs[buf], B, ldb, n0, N, k0, K);
    } else {
      matmul_detail::mma_strip_load<SB, Tl::threads, ALIGNED>(Bs[buf], B, ldb, k0, K, n0, N);
    }
  };

  // fragments of k step kk of the strip in buffer b into set f (ldmatrix on NVIDIA, by the instruction's
  // coordinates elsewhere), and the warp's products of set f
  const auto frags = [&](int b, int kk, int f) {
    TK_THREADS(th) {
      const int lane = th.id % O::lanes, warp = th.id / O::lanes;
      const int wr = (warp / Tl::warps_n) * Tl::wm, wc = (warp % Tl::warps_n) * Tl::wn;
      TK_UNROLL
      for (int i = 0; i < FM; ++i)
        tk::mma::load_a<O, !TRANS_A>(fa, th.id, (f * FM + i) * O::a_regs, &As[b][0][0], SA::pitch, wr + i * O::m, kk,
                                     lane);
      TK_UNROLL
      for (int j = 0; j < FN; ++j)
        tk::mma::load_b<O, !TRANS_B>(fb, th.id, (f * FN + j) * O::b_regs, &Bs[b][0][0], SB::pitch, kk, wc + j * O::n,
                                     lane);
    }
  };
  const auto products = [&](int f) {
    TK_UNROLL
    for (int i = 0; i < FM; ++i) {
      TK_UNROLL
      for (int j = 0; j < FN; ++j)
        tk::mma::mma_sync<O>(acc, (i * FN + j) * O::c_regs, fa, (f * FM + i) * O::a_regs, fb, (f * FN + j) * O::b_regs);
    }
  };
  const std::int64_t strips = (K + BK - 1) / BK;
  // the first S - 1 strips in flight (both main loops below start from them)
  TK_UNROLL
  for (int p = 0; p < S - 1; ++p) {
    if (p < strips) load(p, p * BK);
    tk::copy_async_commit();
  }
  if constexpr (Tl::pipe_frags) {
    // Fragments in flight (Tl::pipe_frags): each k step's fragments are read while the step before is multiplied,
    // across strips too, in two sets that alternate (an even number of steps a strip). A strip's barrier comes
    // after the products of its second-last step are issued (the tensor cores work through them meanwhile), when
    // every warp has read the strip's last fragments: strip t + 1 must then be complete (S - 2 strips may still be
    // in flight), and strip t's buffer takes strip t + S. The prologue's barrier makes strip 0 readable.
    constexpr int KS = BK / O::k;
    tk::copy_async_wait<S - 2>();
    TK_BARRIER();
    if (S - 1 < strips) load(S - 1, (S - 1) * BK);
    tk::copy_async_commit();
    if (strips > 0) frags(0, 0, 0);
    int buf = 0;  // strip t's buffer
    for (std::int64_t t = 0; t < strips; ++t) {
      const int next = buf + 1 == S ? 0 : buf + 1;
      TK_UNROLL
      for (int ks = 0; ks < KS; ++ks) {
        if (ks + 1 < KS) {
          frags(buf, (ks + 1) * O::k, (ks + 1) % 2);
        } else if (t + 1 < strips) {
          frags(next, 0, 0);
        }
        products(ks % 2);
        if (ks == KS - 2) {
          tk::copy_async_wait<S - 2>();
          TK_BARRIER();
          if (t + S < strips) load(buf, (t + S) * BK);
          tk::copy_async_commit();
        }
      }
      buf = next;
    }
  } else {
    // The pipeline: S - 1 strips in flight ahead of the one multiplied. After the barrier of step t every warp
    // has finished step t - 1, so strip t + S - 1 may fill the buffer that step t - 1 read.
    // buf: the buffer of strip t; fill: that of strip t + S - 1 (rotated, not t % S: a 64-bit remainder per strip)
    int buf = 0, fill = S - 1;
    for (std::int64_t t = 0; t < strips; ++t) {
      tk::copy_async_wait<S - 2>();
      TK_BARRIER();
      if (t + S - 1 < strips) load(fill, (t + S - 1) * BK);
      tk::copy_async_commit();
      const int b = buf;
      buf = buf + 1 == S ? 0 : buf + 1;
      fill = fill + 1 == S ? 0 : fill + 1;
      // the instruction's k steps of this strip
      TK_UNROLL
      for (int kk = 0; kk < BK; kk += O::k) {
        frags(b, kk, 0);
        products(0);
      }
    }
  }
  tk::copy_async_wait<0>();

  TK_THREADS(th) {
    const int lane = th.id % O::lanes, warp = th.id / O::lanes;
    const std::int64_t wr = m0 + (warp / Tl::warps_n) * Tl::wm, wc = n0 + (warp % Tl::warps_n) * Tl::wn;
    TK_UNROLL
    for (int i = 0; i < FM; ++i) {
      TK_UNROLL
      for (int j = 0; j < FN; ++j) {
        TK_UNROLL
        for (int r = 0; r < O::c_regs; ++r) {
          const tk::mma::Coord x = O::c(lane, r);
          const std::int64_t m = wr + i * O::m + x.r, n = wc + j * O::n + x.c;
          if (m < M && n < N) {
            Out* p = C + m * ldc + n;
            Acc v = alpha * acc(th.id, (i * FN + j) * O::c_regs + r);
            if (beta != Acc(0)) v += beta * static_cast<Acc>(*p);
            *p = static_cast<Out>(v);
          }
        }
      }
    }
  }
}

}  // namespace tk::kernels
