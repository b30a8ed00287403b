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
//   UNROLL runs two steps per iteration, so that every shared address is a constant offset: on the H100
//   that removed the per-strip address arithmetic (and its stalls) and took 4096^3 from 82% to 90% of
//   cuBLAS. With UNROLL, the steps whose next strip lies inside K also run in a loop of their own whose
//   global loads have no bounds test (rows past M and chunks past N clamped to the last valid ones: they
//   feed only outputs that are never stored): a branch per load had cost instruction fetches and issue
//   slots (4096^3 from 89% to 92%, 4095^3 from 85% to 91%).
// - Fragment pipelining (PREFETCH, and always with STAGES >= 3): a lane's fragments of k + 1 load while
//   the FMAs of k run, and the block's barrier sits before the FMAs of each strip's last k, which need no
//   shared memory. Tested through the CPU executor and on the H100 (configurations 10-12 of launch.cpp),
//   where it is not faster than the compiler's own schedule.
// - Multi-stage pipelining (STAGES = 3 or 4): tk::copy_async (cp.async on sm_80+) puts STAGES - 1 strips in
//   flight straight into shared memory, with no staging registers. Correct everywhere (a plain copy on
//   CPUs and HIP), but on the H100 slower than the unrolled STAGES = 2 loop, with run-time or constant
//   stage indices alike (launch.cpp has the figures; the constant-index form was removed): no shape
//   picks it.
// - Rasterisation: blocks walk the tiles in groups of 8 tile-rows (matmul_detail::grouped_tile), so blocks
//   running together share rows of A and columns of B in L2.
// - Split-K: with `splits` > 1 the grid holds splits x tiles blocks; block s covers k in
//   [s * k_per_split, (s + 1) * k_per_split) and writes its partial tile to `partial` (splits x M x N),
//   which matmul_splitk_reduce (splitk_reduce.hpp) sums into C. For skinny C and long K
//   (64 x 64 x 65536) this turns 1 block into hundreds.
// - Loads in VEC-float chunks whatever the alignment: ALIGNED chunks are one vector access, others VEC
//   scalar ones, with the same registers and layout.
// CGMA = 2 * BM * BN / (BM + BN), as register_tiled (128 for 128 x 128 tiles).
// Shared memory: STAGES * BK * (BM + 4 + BN) floats. Launch: a 3D block of (lanes_n, WARP / lanes_n, warps)
// threads: th.z is the warp, (th.y, th.x) the lane's row and column in its sub-tile. Linear ids match a
// hardware warp on a GPU; on a CPU the row, the warp and so the A values are fixed across a vector of lanes.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "tilekit/async_copy.hpp"

namespace tk::kernels {

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int WARP, int STAGES, int VEC>
struct WarpTiling {
  static constexpr int bm = BM, bn = BN, bk = BK, tm = TM, tn = TN, wniter = WNITER;
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
  static_assert(BK % VEC == 0 && BN % VEC == 0 && STAGES >= 1 && STAGES <= 4, "");

  // Where a thread's outputs start in the block tile: output (wm, i, wn, j) is at
  // (row0 + wm * wsubm + i, col0 + wn * wsubn + j). Plain ints of the thread's indices, so that a CPU
  // compiler sees them as affine in th.x.
  static TK_DEVICE int row0(int y, int z) { return (z / warps_n) * WM + y * TM; }
  static TK_DEVICE int col0(int x, int z) { return (z % warps_n) * WN + x * TN; }
};

// The multiply of one k strip from shared memory (a phase): WMITER * TM x WNITER * TN outputs per thread,
// in registers.
template <class T, class Acc>
TK_DEVICE void warp_tiled_multiply(Acc& acc, const float (*As)[T::bm + T::pad], const float (*Bs)[T::bn]) {
  TK_THREADS(th) {
    const int row0 = T::row0(th.y, th.z), col0 = T::col0(th.x, th.z);
    float c[T::wmiter * T::tm][T::wniter * T::tn];
    TK_UNROLL for (int i = 0; i < T::wmiter * T::tm; ++i)
      TK_UNROLL for (int j = 0; j < T::wniter * T::tn; ++j) c[i][j] = acc(th.id, i * T::wniter * T::tn + j);
    TK_UNROLL for (int k = 0; k < T::bk; ++k) {
      float a[T::wmiter * T::tm], b[T::wniter * T::tn];
      TK_UNROLL for (int i = 0; i < T::wmiter * T::tm; ++i) a[i] = As[k][row0 + (i / T::tm) * T::wsubm + i % T::tm];
      TK_UNROLL for (int j = 0; j < T::wniter * T::tn; ++j) b[j] = Bs[k][col0 + (j / T::tn) * T::wsubn + j % T::tn];
      TK_UNROLL for (int i = 0; i < T::wmiter * T::tm; ++i)
        TK_UNROLL for (int j = 0; j < T::wniter * T::tn; ++j) c[i][j] += a[i] * b[j];
    }
    TK_UNROLL for (int i = 0; i < T::wmiter * T::tm; ++i)
      TK_UNROLL for (int j = 0; j < T::wniter * T::tn; ++j) acc(th.id, i * T::wniter * T::tn + j) = c[i][j];
  }
}

// The fragment-pipelined multiply of one strip, in two phases around the block's barrier. frag holds two
// slots of a lane's fragments (the A values of one k at slot * FA, the B values at 2 * FA + slot * FB);
// slot 0 holds k = 0 of the strip on entry. The early phase runs the FMAs of k = 0 .. BK - 2 while loading
// the fragments of k + 1; the late one, after the barrier, runs the FMAs of k = BK - 1, which need no
// shared memory, while loading the fragments of the next strip's k = 0 (if `more`) from its buffer.
template <class T, class Acc, class Frag>
TK_DEVICE void warp_tiled_fma_early(Acc& acc, Frag& frag, const float (*As)[T::bm + T::pad], const float (*Bs)[T::bn]) {
  constexpr int BK = T::bk, TM = T::tm, TN = T::tn, FA = T::wmiter * TM, FB = T::wniter * TN;
  static_assert(BK % 2 == 0, "the fragment slots alternate by k: k = 0 of every strip is slot 0");
  TK_THREADS(th) {
    const int row0 = T::row0(th.y, th.z), col0 = T::col0(th.x, th.z);
    float c[FA][FB];
    TK_UNROLL for (int i = 0; i < FA; ++i) TK_UNROLL for (int j = 0; j < FB; ++j) c[i][j] = acc(th.id, i * FB + j);
    TK_UNROLL for (int k = 0; k < BK - 1; ++k) {
      const int now = k % 2, nxt = 1 - now;
      TK_UNROLL for (int i = 0; i < FA; ++i)
        frag(th.id, nxt * FA + i) = As[k + 1][row0 + (i / TM) * T::wsubm + i % TM];
      TK_UNROLL for (int j = 0; j < FB; ++j)
        frag(th.id, 2 * FA + nxt * FB + j) = Bs[k + 1][col0 + (j / TN) * T::wsubn + j % TN];
      TK_UNROLL for (int i = 0; i < FA; ++i)
        TK_UNROLL for (int j = 0; j < FB; ++j)
          c[i][j] += frag(th.id, now * FA + i) * frag(th.id, 2 * FA + now * FB + j);
    }
    TK_UNROLL for (int i = 0; i < FA; ++i) TK_UNROLL for (int j = 0; j < FB; ++j) acc(th.id, i * FB + j) = c[i][j];
  }
}

template <class T, class Acc, class Frag>
TK_DEVICE void warp_tiled_fma_last(Acc& acc, Frag& frag, const float (*As)[T::bm + T::pad], const float (*Bs)[T::bn],
                                   bool fma, bool more) {
  constexpr int TM = T::tm, TN = T::tn, FA = T::wmiter * TM, FB = T::wniter * TN;
  TK_THREADS(th) {
    const int row0 = T::row0(th.y, th.z), col0 = T::col0(th.x, th.z);
    float c[FA][FB], a[FA], b[FB];
    if (fma) {  // slot 1 holds k = BK - 1 only after a strip's early phase
      TK_UNROLL for (int i = 0; i < FA; ++i) a[i] = frag(th.id, FA + i);
      TK_UNROLL for (int j = 0; j < FB; ++j) b[j] = frag(th.id, 2 * FA + FB + j);
    }
    if (more) {
      TK_UNROLL for (int i = 0; i < FA; ++i) frag(th.id, i) = As[0][row0 + (i / TM) * T::wsubm + i % TM];
      TK_UNROLL for (int j = 0; j < FB; ++j) frag(th.id, 2 * FA + j) = Bs[0][col0 + (j / TN) * T::wsubn + j % TN];
    }
    if (fma) {
      TK_UNROLL for (int i = 0; i < FA; ++i) TK_UNROLL for (int j = 0; j < FB; ++j) c[i][j] = acc(th.id, i * FB + j);
      TK_UNROLL for (int i = 0; i < FA; ++i) TK_UNROLL for (int j = 0; j < FB; ++j) c[i][j] += a[i] * b[j];
      TK_UNROLL for (int i = 0; i < FA; ++i) TK_UNROLL for (int j = 0; j < FB; ++j) acc(th.id, i * FB + j) = c[i][j];
    }
  }
}

// Step t of the STAGES = 1 or 2 pipelines, with strip t in buffer `cur` (with a literal for `cur`, every
// shared address is a fixed offset once inlined): with two stages, fetch strip t + 1 from global memory
// into registers, multiply strip t, then stage strip t + 1 into the other buffer; with one stage,
// multiply strip t, then load strip t + 1 in its place. Step -1 only brings in strip 0.
template <class T, int STAGES, int VEC, bool ALIGNED, bool PREFETCH, bool INSIDE, class Acc, class RegsA, class RegsB,
          class Frag, class SA, class SB>
TK_DEVICE void warp_tiled_step(int t, int cur, int strips, Acc& acc, RegsA& ra, RegsB& rb, Frag& frag, SA& As, SB& Bs,
                               const float* A, std::int64_t lda, const float* B, std::int64_t ldb, std::int64_t M,
                               std::int64_t N, std::int64_t m0, std::int64_t n0, std::int64_t kbeg, std::int64_t kend) {
  constexpr int NT = T::threads, BK = T::bk, BN = T::bn;
  const bool more = INSIDE || t + 1 < strips;
  const std::int64_t k_next = kbeg + std::int64_t{t + 1} * BK;
  // INSIDE: the caller knows that strip t + 1 lies inside this split's k range and that no chunk of B
  // straddles column N (see the kernel). Its chunks are then loaded without a bounds test each (a branch
  // per load cost issue slots and instruction fetches at every strip): rows of A past M are read from
  // row M - 1 and chunks of B past N from the row's last chunk; they feed only outputs that are never
  // stored.
  if (STAGES == 2 && INSIDE) {
    TK_THREADS(th) {  // global -> registers
      TK_UNROLL for (int l = 0; l < T::a_loads; ++l) {
        const int c = th.id + l * NT, r = c / (BK / VEC), k = (c % (BK / VEC)) * VEC;
        const std::int64_t row = m0 + r < M ? m0 + r : M - 1;
        const tk::Vec<float, VEC> v = matmul_detail::fetch_unchecked<VEC, ALIGNED>(A, lda, row, k_next + k);
        TK_UNROLL for (int e = 0; e < VEC; ++e) ra(th.id, l * VEC + e) = v.v[e];
      }
      TK_UNROLL for (int l = 0; l < T::b_loads; ++l) {
        const int c = th.id + l * NT, r = c / (BN / VEC), n = (c % (BN / VEC)) * VEC;
        const std::int64_t col = n0 + n < N - VEC ? n0 + n : N - VEC;
        const tk::Vec<float, VEC> v = matmul_detail::fetch_unchecked<VEC, ALIGNED>(B, ldb, k_next + r, col);
        TK_UNROLL for (int e = 0; e < VEC; ++e) rb(th.id, l * VEC + e) = v.v[e];
      }
    }
  } else if (STAGES == 2 && more) {
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
  const int next = (cur + 1) % STAGES;
  if (t >= 0) {
    if constexpr (PREFETCH) {
      warp_tiled_fma_early<T>(acc, frag, As[cur], Bs[cur]);
    } else {
      warp_tiled_multiply<T>(acc, As[cur], Bs[cur]);
    }
    if (STAGES == 1) TK_BARRIER();  // one buffer: everyone has read it before it is refilled
  }
  if (more) {
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
  if constexpr (PREFETCH) warp_tiled_fma_last<T>(acc, frag, As[next], Bs[next], t >= 0, more);
}

// A lane's fragments of row k of one stage into slot `slot` of frag (a phase; layout as in the kernel).
template <class T, class Frag>
TK_DEVICE void warp_tiled_fragments(Frag& frag, int slot, const float (*As)[T::bm + T::pad], const float (*Bs)[T::bn],
                                    int k) {
  constexpr int FA = T::wmiter * T::tm, FB = T::wniter * T::tn;
  TK_THREADS(th) {
    const int row0 = T::row0(th.y, th.z), col0 = T::col0(th.x, th.z);
    TK_UNROLL for (int i = 0; i < FA; ++i)
      frag(th.id, slot * FA + i) = As[k][row0 + (i / T::tm) * T::wsubm + i % T::tm];
    TK_UNROLL for (int j = 0; j < FB; ++j)
      frag(th.id, 2 * FA + slot * FB + j) = Bs[k][col0 + (j / T::tn) * T::wsubn + j % T::tn];
  }
}

// Starts the copies of the k strip at k0 into one stage (a phase, STAGES >= 3): A transposed, one float per
// copy; B in chunks of BV floats. Zero-filled outside A, B and this split's k range. The caller commits.
template <class T, int BV>
TK_DEVICE void warp_tiled_issue(float (*As)[T::bm + T::pad], float (*Bs)[T::bn], const float* A, std::int64_t lda,
                                const float* B, std::int64_t ldb, std::int64_t M, std::int64_t N, std::int64_t m0,
                                std::int64_t n0, std::int64_t k0, std::int64_t kend) {
  constexpr int NT = T::threads, a_copies = T::bm * T::bk / NT, b_copies = T::bk * T::bn / BV / NT;
  static_assert(a_copies * NT == T::bm * T::bk && b_copies * BV * NT == T::bk * T::bn, "whole strips per copy");
  TK_THREADS(th) {
    TK_UNROLL for (int l = 0; l < a_copies; ++l) {
      const int c = th.id + l * NT, r = c / T::bk, k = c % T::bk;  // a warp: 32 / BK rows, BK floats each
      const bool in = m0 + r < M && k0 + k < kend;
      tk::copy_async<4>(&As[k][r], in ? A + (m0 + r) * lda + k0 + k : A, in ? 4 : 0);
    }
    TK_UNROLL for (int l = 0; l < b_copies; ++l) {
      const int c = th.id + l * NT, r = c / (T::bn / BV), n = (c % (T::bn / BV)) * BV;
      const std::int64_t left = k0 + r < kend ? N - (n0 + n) : 0;  // floats of this row from column n0 + n
      const int bytes = left >= BV ? 4 * BV : left > 0 ? 4 * static_cast<int>(left) : 0;
      tk::copy_async<4 * BV>(&Bs[r][n], bytes > 0 ? B + (k0 + r) * ldb + n0 + n : B, bytes);
    }
  }
}

// Step t of the multi-stage pipeline (STAGES >= 3), with strip t in stage `cur` (a literal when unrolled,
// so every shared address is a fixed offset) and its k = 0 fragments already in slot 0 of frag. While
// the FMAs of k run, the fragments of k + 1 are loaded, and the block's one barrier per strip sits before
// the FMAs of the strip's last k, which need no shared memory: the barrier and the first loads of the
// next strip overlap arithmetic instead of stalling it. The step starts by refilling strip t - 1's stage
// with strip t + STAGES - 1 (nobody has read it since step t - 1's barrier), so STAGES - 1 strips are in
// flight during the FMAs. Every step commits one group: STAGES + t groups by the wait of step t, so "all
// but the newest STAGES - 2" means strip t + 1 has landed.
template <class T, int STAGES, int BV, class Acc, class Frag, class SA, class SB>
TK_DEVICE void warp_tiled_async_step(int t, int cur, int strips, Acc& acc, Frag& frag, SA& As, SB& Bs, const float* A,
                                     std::int64_t lda, const float* B, std::int64_t ldb, std::int64_t M,
                                     std::int64_t N, std::int64_t m0, std::int64_t n0, std::int64_t kbeg,
                                     std::int64_t kend) {
  if (const int p = t + STAGES - 1; p < strips) {
    const int ps = (cur + STAGES - 1) % STAGES;
    warp_tiled_issue<T, BV>(As[ps], Bs[ps], A, lda, B, ldb, M, N, m0, n0, kbeg + std::int64_t{p} * T::bk, kend);
  }
  tk::copy_async_commit();
  warp_tiled_fma_early<T>(acc, frag, As[cur], Bs[cur]);
  tk::copy_async_wait<STAGES - 2>();
  TK_BARRIER();  // strip t + 1 has landed (for every thread)
  const int nstage = (cur + 1) % STAGES;
  warp_tiled_fma_last<T>(acc, frag, As[nstage], Bs[nstage], true, t + 1 < strips);
}

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int WARP, int STAGES, int VEC,
          bool ALIGNED, int MINB = 1, bool UNROLL = true, bool PREFETCH = false>
TK_KERNEL TK_LAUNCH_BOUNDS_MIN((BM / WM) * (BN / WN) * WARP, MINB) void matmul_warp_tiled(
    std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A, std::int64_t lda, const float* B,
    std::int64_t ldb, float beta, float* C, std::int64_t ldc, std::int64_t k_per_split, float* partial) {
  using T = WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN, WARP, STAGES, VEC>;
  TK_SHARED_ARRAY(float, As, [STAGES][BK][BM + T::pad]);  // A transposed: As[s][k][m]
  TK_SHARED_ARRAY(float, Bs, [STAGES][BK][BN]);
  tk::Private<float, T::outputs> acc(0.f);
  // The next strip in flight (STAGES == 2); with one stage the strip goes straight to shared memory.
  tk::Private<float, STAGES == 2 ? T::a_loads * VEC : 1> ra;
  tk::Private<float, STAGES == 2 ? T::b_loads * VEC : 1> rb;
  // The lane's fragments of two k, with PREFETCH (STAGES <= 2) and in the multi-stage loop.
  tk::Private<float, PREFETCH || STAGES >= 3 ? 2 * (T::wmiter * TM + WNITER * TN) : 1> frag;

  const int tiles_m = static_cast<int>((M + BM - 1) / BM), tiles_n = static_cast<int>((N + BN - 1) / BN);
  const int tiles = tiles_m * tiles_n;
  const int split = tk::block_idx().x / tiles;
  const matmul_detail::TileCoord tile = matmul_detail::grouped_tile<8>(tk::block_idx().x % tiles, tiles_m, tiles_n);
  const std::int64_t m0 = std::int64_t{tile.m} * BM, n0 = std::int64_t{tile.n} * BN;
  const std::int64_t kbeg = split * k_per_split;
  const std::int64_t kend = K < kbeg + k_per_split ? K : kbeg + k_per_split;
  const int strips = kend > kbeg ? static_cast<int>((kend - kbeg + BK - 1) / BK) : 0;

  if constexpr (STAGES >= 3) {
    // Asynchronous copies, STAGES - 1 strips ahead, and the fragments double-buffered in registers
    // (warp_tiled_async_step). Every step commits one group (empty past the last strip).
    static_assert(BK % 2 == 0, "the fragment slots alternate by k: k = 0 of every strip is slot 0");
    constexpr int BV = ALIGNED ? VEC : 1;
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < strips)
        warp_tiled_issue<T, BV>(As[s], Bs[s], A, lda, B, ldb, M, N, m0, n0, kbeg + std::int64_t{s} * BK, kend);
      tk::copy_async_commit();
    }
    tk::copy_async_wait<STAGES - 2>();
    TK_BARRIER();  // strip 0 has landed
    if (strips > 0) warp_tiled_fragments<T>(frag, 0, As[0], Bs[0], 0);
    for (int t = 0; t < strips; ++t)
      warp_tiled_async_step<T, STAGES, BV>(t, t % STAGES, strips, acc, frag, As, Bs, A, lda, B, ldb, M, N, m0, n0, kbeg,
                                           kend);
  } else {
    // Strip s lives in shared buffer s % STAGES. UNROLL: the loop is unrolled by STAGES so that each step's
    // buffers are constants — fewer address instructions per strip, more registers (H100, 128 x 256 x 8:
    // 249 against 225 registers then, 4096^3 at 90% of cuBLAS against 82%); otherwise one step per iteration.
    // The form of this loop matters to the compiler: an inner unrolled loop over the steps with a bounds
    // test each, or four steps per iteration, measured 83% and 86% at 4096^3.
    warp_tiled_step<T, STAGES, VEC, ALIGNED, PREFETCH, false>(-1, STAGES - 1, strips, acc, ra, rb, frag, As, Bs, A, lda,
                                                              B, ldb, M, N, m0, n0, kbeg, kend);
    if constexpr (UNROLL) {
      // Steps whose next strip is a full strip inside the k range (all but the last one to three) run in
      // a loop of their own, two steps per iteration, with no bounds test and no branch but the loop's (rows and
      // chunks past M and N clamped: warp_tiled_step); the rest, with tests. Step t uses buffer t % 2
      // in both. Clamping B's chunks needs a block clear of N or whole chunks in a row (then N >= VEC).
      const bool clamps = n0 + BN <= N || N % VEC == 0;
      const int unchecked = clamps ? static_cast<int>((kend - kbeg) / BK) - 1 : 0;  // steps 0 .. unchecked - 1
      int t = 0;
      if constexpr (STAGES == 2) {
        for (; t + 1 < unchecked; t += 2) {
          warp_tiled_step<T, STAGES, VEC, ALIGNED, PREFETCH, true>(t, 0, strips, acc, ra, rb, frag, As, Bs, A, lda, B,
                                                                   ldb, M, N, m0, n0, kbeg, kend);
          warp_tiled_step<T, STAGES, VEC, ALIGNED, PREFETCH, true>(t + 1, 1, strips, acc, ra, rb, frag, As, Bs, A, lda,
                                                                   B, ldb, M, N, m0, n0, kbeg, kend);
        }
      }
      for (; t < strips; t += STAGES) {
        warp_tiled_step<T, STAGES, VEC, ALIGNED, PREFETCH, false>(t, 0, strips, acc, ra, rb, frag, As, Bs, A, lda, B,
                                                                  ldb, M, N, m0, n0, kbeg, kend);
        if constexpr (STAGES == 2) {
          if (t + 1 < strips)
            warp_tiled_step<T, STAGES, VEC, ALIGNED, PREFETCH, false>(t + 1, 1, strips, acc, ra, rb, frag, As, Bs, A,
                                                                      lda, B, ldb, M, N, m0, n0, kbeg, kend);
        }
      }
    } else {
      for (int t = 0; t < strips; ++t)
        warp_tiled_step<T, STAGES, VEC, ALIGNED, PREFETCH, false>(t, t % STAGES, strips, acc, ra, rb, frag, As, Bs, A,
                                                                  lda, B, ldb, M, N, m0, n0, kbeg, kend);
    }
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

}  // namespace tk::kernels
