// kernels/matmul/warpgroup_tiled.hpp — TF32, BF16 and FP16 GEMM (float accumulators) on the warpgroup's
// multiply-accumulate of tilekit/mma.hpp: NVIDIA sm_90a's wgmma reading both operands from shared memory, and
// on a CPU the executor's emulation of it (the same strips, operand blocks and accumulator layout), so this
// kernel's indexing is tested on a laptop.
//
// A block of BM / 64 warpgroups computes a BM x BN tile of C; warpgroup g owns rows 64 g .. 64 g + 63 and all
// BN columns (BN / 2 float accumulators per thread). The k loop takes strips 128 bytes deep (64 16-bit
// values, 32 floats): STAGES strips of A and B in dynamic shared memory, copied with tk::copy_async in 16-byte chunks
// (cp.async) into the instruction's 128-byte-swizzled layout (tk::mma::sw128), each strip keeping the storage
// order of its operand in global memory: A stored M x K and B stored N x K are K-major strips (each line runs
// along k), A stored K x M and B stored K x N MN-major ones (each line runs along m or n); the instruction reads
// either in 16 bits, only K-major ones in TF32 (whose MN-major operands are transposed into K-major strips as
// they are copied: transposed_strip_load).
//
// The pipeline, per strip t: wait for this thread's copies of strip t, make them visible to the matrix units,
// barrier; start strip t's BK / k instructions (k = 16, or 8 in TF32); start the copies of strip t + STAGES - 2 into
// the buffer that strip t - 2 used; wait until at most this batch is in flight (so strip t - 1's batch is done). The
// barrier of strip t + 1 thus comes after every warpgroup finished strip t - 1, whose buffer strip t + 1's copies then
// fill: STAGES - 2 strips copied ahead of the one multiplied, one more finishing on the matrix units. Edges: the copies
// fill zeros past M, N and K; the epilogue stores only inside C. C = alpha * acc + beta * C in float, stored as Out
// (float, or the 16-bit input type); C is not read when beta == 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common.hpp"
#include "tilekit/async_copy.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/mma.hpp"

namespace tk::kernels {

// A tiling of the warpgroup kernel: BM x BN tiles (BM / 64 warpgroups), STAGES strips in flight.
template <tk::mma::Precision P, int BM, int BN, int STAGES>
struct WarpgroupTiling {
  using W = tk::mma::Warpgroup<P, BN>;
  using In = typename W::In;
  using Acc = typename W::Acc;
  static constexpr tk::mma::Precision precision = P;
  static constexpr int bm = BM, bn = BN, bk = 128 / static_cast<int>(sizeof(In)), stages = STAGES;
  static constexpr int groups = BM / W::m, threads = groups * W::threads;
  static constexpr int a_elems = BM * bk, b_elems = bk * BN;  // one strip of each, either storage order
  static_assert(BM % W::m == 0, "whole warpgroups of 64 rows");
  static_assert(STAGES >= 3, "a strip copied while one is multiplied and one finishes");
  // the strips, and up to 1024 bytes to start them on a 1024-byte boundary (the swizzle's period)
  static constexpr std::size_t shared_bytes = sizeof(In) * STAGES * (a_elems + b_elems) + 1024;
};

// The tensor-copy form of a tiling (matmul_warpgroup_tma): one more warpgroup, whose first thread copies the strips
// with tk::copy_tensor_async, beside the BM / 64 that multiply; 2 STAGES barriers after the strips. The boxes of
// one copy: a K-major strip is one box (BK values along k by its lines); an MN-major one (16-bit values only) a box of
// 64 values by BK lines per 128-byte group.
template <tk::mma::Precision P, int BM, int BN, int STAGES>
struct TmaTiling : WarpgroupTiling<P, BM, BN, STAGES> {
  using Base = WarpgroupTiling<P, BM, BN, STAGES>;
  static constexpr int consumers = Base::groups, threads = (consumers + 1) * Base::W::threads;
  static constexpr int per = 128 / static_cast<int>(sizeof(typename Base::In));  // values of a 128-byte group
  static constexpr std::size_t shared_bytes = Base::shared_bytes + 2 * STAGES * sizeof(tk::AsyncBarrier);
  static constexpr unsigned strip_bytes = sizeof(typename Base::In) * (Base::a_elems + Base::b_elems);
  // the box of A's map (stored K x M: mn_major) and of B's (stored K x N: mn_major), {along the lines, lines}
  static constexpr int box_a[2][2] = {{Base::bk, BM}, {per, Base::bk}};
  static constexpr int box_b[2][2] = {{Base::bk, BN}, {per, Base::bk}};
};

namespace matmul_detail {

// Copies lines [r0, r0 + LINES) x elements [c0, c0 + COLS) of X (lines ld apart) into the swizzled strip dst
// (tk::mma::sw128), zeros past rlim and clim. ALIGNED: every line of X starts on 16 bytes, so a whole chunk is
// one 16-byte copy in flight. A thread copies one chunk of every STEP-th line: the same chunk of the line, so its
// place in the strip and in X moves by a constant per line (few registers beside the accumulators).
template <int LINES, int COLS, int THREADS, bool ALIGNED, class In>
TK_DEVICE void swizzled_strip_load(In* dst, const In* X, std::int64_t ld, std::int64_t r0, std::int64_t rlim,
                                   std::int64_t c0, std::int64_t clim) {
  constexpr int V = 16 / static_cast<int>(sizeof(In)), per = 128 / static_cast<int>(sizeof(In));
  constexpr int per_row = COLS / V, STEP = THREADS / per_row;
  static_assert(COLS % per == 0 && THREADS % per_row == 0 && LINES % STEP == 0,
                "whole 128-byte groups; every thread copies the same number of chunks");
  static_assert(STEP % 8 == 0, "a thread's lines keep their place in the swizzle's 8-line period");
  TK_THREADS(th) {
    const int r = th.id / per_row, e0 = (th.id % per_row) * V;
    In* d = dst + tk::mma::sw128<In>(r, e0, LINES);
    const std::int64_t gc = c0 + e0;
    std::int64_t gr = r0 + r;
    const In* x = X + gr * ld + gc;
    const bool cols_whole = gc + V <= clim, cols_none = gc >= clim;
    for (int q = 0; q < LINES / STEP; ++q) {
      const bool whole = gr < rlim && cols_whole, none = gr >= rlim || cols_none;
      if (ALIGNED && (whole || none)) {
        tk::copy_async<16>(d, whole ? x : X, whole ? 16 : 0);
      } else {
        TK_UNROLL
        for (int e = 0; e < V; ++e) d[e] = gr < rlim && gc + e < clim ? x[e] : In{};
      }
      gr += STEP;
      x += STEP * ld;
      d += STEP * per;
    }
  }
}

// Copies rows [k0, k0 + KD) x columns [l0, l0 + LINES) of X (rows ld apart, each row one value of k: A stored
// K x M, B stored K x N) into the K-major swizzled strip dst (line l: column l0 + l; element k: row k0 + k),
// transposing as it copies, one 4-byte copy in flight per value; zeros past klim and llim. For TF32, whose
// instruction reads K-major operands only. A warp's 32 threads take 8 lines x 4 values of k: from X 4 rows of
// 8 consecutive values (32-byte pieces), into the strip 4 consecutive values of 8 lines, whose 16-byte chunks the
// swizzle puts in 8 different places (all 32 banks). A thread's lines move by a whole 8-line period each step.
template <int LINES, int KD, int THREADS, class In>
TK_DEVICE void transposed_strip_load(In* dst, const In* X, std::int64_t ld, std::int64_t k0, std::int64_t klim,
                                     std::int64_t l0, std::int64_t llim) {
  constexpr int per = 128 / static_cast<int>(sizeof(In)), KQ = KD / 4, warps = THREADS / 32;
  static_assert(sizeof(In) == 4 && KD == per, "4-byte values, a strip one 128-byte group deep");
  static_assert(warps % KQ == 0, "the warps cover the strip's depth in fours");
  constexpr int STEP = 8 * (warps / KQ);
  static_assert(LINES % STEP == 0, "every thread copies the same number of values");
  TK_THREADS(th) {
    const int lane = th.id % 32, w = th.id / 32;
    const int k = (w % KQ) * 4 + lane / 8, l = (w / KQ) * 8 + lane % 8;
    In* d = dst + tk::mma::sw128<In>(l, k, LINES);
    const std::int64_t gk = k0 + k;
    std::int64_t gl = l0 + l;
    const In* x = X + gk * ld + gl;
    for (int q = 0; q < LINES / STEP; ++q) {
      const bool in = gk < klim && gl < llim;
      tk::copy_async<4>(d, in ? x : X, in ? 4 : 0);
      gl += STEP;
      x += STEP;
      d += STEP * per;
    }
  }
}

// The epilogue of both warpgroup kernels for one thread: C = alpha acc + beta C over its W::c_regs accumulators
// (acc(id, i); t: its lane in the warpgroup, whose W::m rows of the tile start at C's row r0; the tile's columns at
// n0), the outputs past M or N skipped, C read only where beta is not 0, each value converted to Out at its store.
template <class W, class Frag, class Acc, class Out>
TK_DEVICE void store_warpgroup_rows(const Frag& acc, int id, int t, std::int64_t r0, std::int64_t n0, std::int64_t M,
                                    std::int64_t N, Acc alpha, Acc beta, Out* C, std::int64_t ldc) {
  TK_UNROLL
  for (int i = 0; i < W::c_regs; ++i) {
    const tk::mma::Coord x = W::c(t, i);
    const std::int64_t m = r0 + x.r, n = n0 + x.c;
    if (m < M && n < N) {
      Out* p = C + m * ldc + n;
      Acc v = alpha * acc(id, i);
      if (beta != Acc(0)) v += beta * static_cast<Acc>(*p);
      *p = static_cast<Out>(v);
    }
  }
}

}  // namespace matmul_detail

// The kernel. Tl: a WarpgroupTiling; Out: C's type (float, or Tl::In); TRANS_A / TRANS_B: A stored K x M, B
// N x K; ALIGNED: every line of A and B starts on 16 bytes. A block per tile of one matrix of the batch (grid
// x: tiles, rasterised in groups of 8 tile rows; grid y: the batch). Split-K (k_per_split > 0, one matrix:
// sa = sb = 0): grid y is the split instead, block row z covers k in [z k_per_split, (z + 1) k_per_split) and
// stores its partial product with alpha = 1, beta = 0 into C + z sc, a slab that matmul_splitk_reduce sums.
template <class Tl, class Out, bool ALIGNED, bool TRANS_A, bool TRANS_B>
TK_KERNEL TK_LAUNCH_BOUNDS(Tl::threads) void matmul_warpgroup_tiled(
    std::int64_t M, std::int64_t N, std::int64_t K, typename Tl::Acc alpha, const typename Tl::In* A, std::int64_t lda,
    std::int64_t sa, const typename Tl::In* B, std::int64_t ldb, std::int64_t sb, typename Tl::Acc beta, Out* C,
    std::int64_t ldc, std::int64_t sc, std::int64_t k_per_split) {
  using W = typename Tl::W;
  using In = typename Tl::In;
  using Acc = typename Tl::Acc;
  using tk::mma::Operand;
  constexpr int BM = Tl::bm, BN = Tl::bn, BK = Tl::bk, S = Tl::stages, T = Tl::threads;
  // A MN-major operand is one whose lines run along m or n (A stored K x M, B stored K x N); where the instruction
  // reads K-major operands only (TF32), such an operand is transposed into a K-major strip as it is copied
  constexpr bool K_ONLY = !W::mn_major_allowed;
  constexpr bool A_MN = TRANS_A && !K_ONLY, B_MN = !TRANS_B && !K_ONLY;
  // the S strips of A, then the S of B, from the first 1024-byte boundary of the dynamic shared memory
  In* const shared = reinterpret_cast<In*>(
      (reinterpret_cast<std::uintptr_t>(tk::dynamic_shared<unsigned char>()) + 1023) & ~std::uintptr_t{1023});
  In* const As = shared;
  In* const Bs = shared + S * Tl::a_elems;
  tk::Private<Acc, W::c_regs> acc(Acc(0));
  tk::Private<Operand<In>> oa, ob;
  tk::mma::warpgroup_pin<W::c_regs>(acc);

  const int tiles_m = static_cast<int>((M + BM - 1) / BM), tiles_n = static_cast<int>((N + BN - 1) / BN);
  const matmul_detail::TileCoord tile = matmul_detail::grouped_tile<8>(tk::block_idx().x, tiles_m, tiles_n);
  const std::int64_t m0 = std::int64_t{tile.m} * BM, n0 = std::int64_t{tile.n} * BN;
  const std::int64_t z = tk::block_idx().y;
  A += z * sa;
  B += z * sb;
  C += z * sc;
  const std::int64_t k_begin = k_per_split > 0 ? z * k_per_split : 0;
  const std::int64_t k_end = k_per_split > 0 && k_begin + k_per_split < K ? k_begin + k_per_split : K;

  const auto load = [&](int buf, std::int64_t k0) {
    In* const a = As + buf * Tl::a_elems;
    In* const b = Bs + buf * Tl::b_elems;
    if constexpr (TRANS_A && K_ONLY) {
      matmul_detail::transposed_strip_load<BM, BK, T>(a, A, lda, k0, k_end, m0, M);
    } else if constexpr (TRANS_A) {
      matmul_detail::swizzled_strip_load<BK, BM, T, ALIGNED>(a, A, lda, k0, k_end, m0, M);
    } else {
      matmul_detail::swizzled_strip_load<BM, BK, T, ALIGNED>(a, A, lda, m0, M, k0, k_end);
    }
    if constexpr (TRANS_B) {
      matmul_detail::swizzled_strip_load<BN, BK, T, ALIGNED>(b, B, ldb, n0, N, k0, k_end);
    } else if constexpr (K_ONLY) {
      matmul_detail::transposed_strip_load<BN, BK, T>(b, B, ldb, k0, k_end, n0, N);
    } else {
      matmul_detail::swizzled_strip_load<BK, BN, T, ALIGNED>(b, B, ldb, k0, k_end, n0, N);
    }
  };

  const std::int64_t strips = k_end > k_begin ? (k_end - k_begin + BK - 1) / BK : 0;
  TK_UNROLL
  for (int p = 0; p < S - 2; ++p) {
    if (p < strips) load(p, k_begin + p * BK);
    tk::copy_async_commit();
  }
  for (std::int64_t t = 0; t < strips; ++t) {
    const int buf = static_cast<int>(t % S);
    tk::copy_async_wait<S - 3>();
    tk::mma::shared_to_matrix_units();
    TK_BARRIER();
    tk::mma::warpgroup_arrive();
    TK_UNROLL
    for (int kk = 0; kk < BK; kk += W::k) {
      TK_THREADS(th) {
        const int g = th.id / W::threads;
        const In* const a = As + buf * Tl::a_elems;
        const In* const b = Bs + buf * Tl::b_elems;
        // A's block: rows 64 g .. of the tile, k kk ..; B's: all BN columns, k kk ..
        oa(th.id) = A_MN ? Operand<In>{a, BK, kk, g * W::m} : Operand<In>{a, BM, g * W::m, kk};
        ob(th.id) = B_MN ? Operand<In>{b, BK, kk, 0} : Operand<In>{b, BN, 0, kk};
      }
      tk::mma::warpgroup_mma<W, A_MN, B_MN>(acc, 0, oa, ob);
    }
    tk::mma::warpgroup_commit();
    // the copies of strip t + 2 after strip t's instructions are on their way, so the matrix units are fed first
    if (t + S - 2 < strips) load(static_cast<int>((t + S - 2) % S), k_begin + (t + S - 2) * BK);
    tk::copy_async_commit();
    tk::mma::warpgroup_wait<1>();
  }
  tk::mma::warpgroup_wait<0>();
  tk::mma::warpgroup_pin<W::c_regs>(acc);
  tk::copy_async_wait<0>();

  TK_THREADS(th) {
    const int g = th.id / W::threads;
    matmul_detail::store_warpgroup_rows<W>(acc, th.id, th.id % W::threads, m0 + g * W::m, n0, M, N, alpha, beta, C,
                                           ldc);
  }
}

// The tensor-copy kernel (Tl: a TmaTiling): the product of matmul_warpgroup_tiled, its strips copied by the
// tensor memory accelerator. Warpgroup 0 copies and multiplies nothing: its first thread starts each strip's boxes
// (map_a, map_b: A's and B's tk::TensorMap, boxes Tl::box_a / box_b of the storage, the batch their third index
// unless its stride is 0) once the buffer is free; warpgroups 1 .. consumers multiply and copy nothing, each its 64
// rows of the tile. They meet at two barriers per buffer, never at a block barrier:
//   full[s]   the copying thread expects the strip's bytes (tk::barrier_expect_copies); the phase completes when
//             its boxes have landed, zeros past M, N and K included;
//   empty[s]  the multiplying threads arrive when the instructions that read buffer s are retired.
// tk::split_roles runs the two loops: the copier's step i waits until strip i - STAGES is retired and copies strip i
// into buffer i % STAGES; the multipliers' step t waits for strip t, starts its instructions, retires strip t - 1's
// and releases its buffer. On a GPU each role runs ahead as far as the barriers let it (the copies up to STAGES
// strips ahead; the copier keeps 40 registers, the multipliers take 232); on a CPU step t follows the copier's step
// t + STAGES - 2, so every wait finds its phase complete (tilekit/async_copy.hpp). Split-K and the epilogue as
// matmul_warpgroup_tiled (k_per_split a multiple of BK: a split's strips end inside it).
template <class Tl, class Out, bool TRANS_A, bool TRANS_B>
TK_KERNEL TK_LAUNCH_BOUNDS(Tl::threads) void matmul_warpgroup_tma(
    std::int64_t M, std::int64_t N, std::int64_t K, typename Tl::Acc alpha, const TK_GRID_CONSTANT tk::TensorMap map_a,
    std::int64_t sa, const TK_GRID_CONSTANT tk::TensorMap map_b, std::int64_t sb, typename Tl::Acc beta, Out* C,
    std::int64_t ldc, std::int64_t sc, std::int64_t k_per_split) {
  using W = typename Tl::W;
  using In = typename Tl::In;
  using Acc = typename Tl::Acc;
  using tk::mma::Operand;
  constexpr int BM = Tl::bm, BN = Tl::bn, BK = Tl::bk, S = Tl::stages, G = W::threads, L = S - 2, PER = Tl::per;
  constexpr bool A_MN = TRANS_A, B_MN = !TRANS_B;
  static_assert(W::mn_major_allowed || (!A_MN && !B_MN), "TF32 strips are K-major: its operands come K-major");
  In* const shared = reinterpret_cast<In*>(
      (reinterpret_cast<std::uintptr_t>(tk::dynamic_shared<unsigned char>()) + 1023) & ~std::uintptr_t{1023});
  In* const As = shared;
  In* const Bs = shared + S * Tl::a_elems;
  tk::AsyncBarrier* const full = reinterpret_cast<tk::AsyncBarrier*>(Bs + S * Tl::b_elems);
  tk::AsyncBarrier* const empty = full + S;
  tk::Private<Acc, W::c_regs> acc(Acc(0));
  tk::Private<Operand<In>> oa, ob;
  tk::mma::warpgroup_pin<W::c_regs>(acc);

  const int tiles_m = static_cast<int>((M + BM - 1) / BM), tiles_n = static_cast<int>((N + BN - 1) / BN);
  const matmul_detail::TileCoord tile = matmul_detail::grouped_tile<8>(tk::block_idx().x, tiles_m, tiles_n);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int z = tk::block_idx().y;
  C += std::int64_t{z} * sc;
  const int za = sa != 0 ? z : 0, zb = sb != 0 ? z : 0;
  const std::int64_t k_begin = k_per_split > 0 ? z * k_per_split : 0;
  const std::int64_t k_end = k_per_split > 0 && k_begin + k_per_split < K ? k_begin + k_per_split : K;
  const std::int64_t strips = k_end > k_begin ? (k_end - k_begin + BK - 1) / BK : 0;

  TK_THREAD_ZERO(th) {
    for (int s = 0; s < S; ++s) {
      tk::barrier_init(&full[s], 1);
      tk::barrier_init(&empty[s], Tl::consumers * G);
    }
  }
  TK_BARRIER();

  // the copier, step i: strip i into its buffer once the multiply released it (strip i - S retired)
  const auto copy_step = [&](std::int64_t i) {
    TK_THREADS(th) {
      if (th.id == 0) {
        const int buf = static_cast<int>(i % S);
        if (i >= S) tk::barrier_wait(&empty[buf], static_cast<int>((i / S - 1) & 1));
        In* const a = As + buf * Tl::a_elems;
        In* const b = Bs + buf * Tl::b_elems;
        const int k0 = static_cast<int>(k_begin + i * BK);
        tk::barrier_expect_copies(&full[buf], Tl::strip_bytes);
        if constexpr (A_MN) {
          TK_UNROLL
          for (int g = 0; g < BM / PER; ++g)
            tk::copy_tensor_async(a + g * BK * PER, map_a, m0 + g * PER, k0, za, &full[buf]);
        } else {
          tk::copy_tensor_async(a, map_a, k0, m0, za, &full[buf]);
        }
        if constexpr (B_MN) {
          TK_UNROLL
          for (int g = 0; g < BN / PER; ++g)
            tk::copy_tensor_async(b + g * BK * PER, map_b, n0 + g * PER, k0, zb, &full[buf]);
        } else {
          tk::copy_tensor_async(b, map_b, k0, n0, zb, &full[buf]);
        }
      }
    }
  };
  // the multipliers, step t: strip t's instructions started once it landed, strip t - 1's retired and its buffer
  // released
  const auto multiply_step = [&](std::int64_t t) {
    const int buf = static_cast<int>(t % S);
    TK_THREADS(th) {
      if (th.id >= G) tk::barrier_wait(&full[buf], static_cast<int>((t / S) & 1));
    }
    tk::mma::warpgroup_arrive();
    TK_UNROLL
    for (int kk = 0; kk < BK; kk += W::k) {
      TK_THREADS(th) {
        const int g = th.id / G - 1;  // -1: the copying warpgroup (on a CPU), which names no strip
        const In* const a = As + buf * Tl::a_elems;
        const In* const b = Bs + buf * Tl::b_elems;
        oa(th.id) = g < 0  ? Operand<In>{nullptr, 0, 0, 0}
                    : A_MN ? Operand<In>{a, BK, kk, g * W::m}
                           : Operand<In>{a, BM, g * W::m, kk};
        ob(th.id) = g < 0  ? Operand<In>{nullptr, 0, 0, 0}
                    : B_MN ? Operand<In>{b, BK, kk, 0}
                           : Operand<In>{b, BN, 0, kk};
      }
      tk::mma::warpgroup_mma<W, A_MN, B_MN>(acc, 0, oa, ob);
    }
    tk::mma::warpgroup_commit();
    tk::mma::warpgroup_wait<1>();
    if (t >= 1) {
      TK_THREADS(th) {
        if (th.id >= G) tk::barrier_arrive(&empty[(t - 1) % S]);
      }
    }
  };
  const auto store = [&] {
    tk::mma::warpgroup_wait<0>();
    tk::mma::warpgroup_pin<W::c_regs>(acc);
    TK_THREADS(th) {
      const int g = th.id / G - 1;
      if (g < 0) TK_SKIP();
      matmul_detail::store_warpgroup_rows<W>(acc, th.id, th.id % G, std::int64_t{m0} + g * W::m, n0, M, N, alpha, beta,
                                             C, ldc);
    }
  };
  tk::split_roles<G, 40, 232>(strips, strips, L, copy_step, multiply_step, store);
}

}  // namespace tk::kernels
