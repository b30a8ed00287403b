// kernels/matmul/register_tiled.hpp — each thread computes a TM x TN block of C from registers.
//
// What it changes from smem_tiled.hpp: a block computes a BM x BN tile with BM * BN / (TM * TN) threads,
// each accumulating TM x TN outputs in registers. Per k step a thread reads TM values of A and TN of B from
// shared memory for TM * TN multiply-adds, so shared-memory traffic per FLOP falls by TM * TN / (TM + TN)
// and the tile in global memory is reused BM (for B) and BN (for A) times:
//   CGMA = 2 * BM * BN * BK / ((BM + BN) * BK) = 2 * BM * BN / (BM + BN) FLOPs per element
//   (64 for 64 x 64 tiles, 128 for 128 x 128; smem_tiled's TILE 32 gives 32).
// Loads are VEC elements wide (16-byte accesses); both strips are held k-major in shared memory, As[k][m]
// and Bs[k][n] (common.hpp, Strip), so a thread's TM values of A for one k are contiguous (one vector read,
// a broadcast across the threads that share them), whichever way A and B are stored (TRANS_A, TRANS_B):
// a strip that lies along k in memory is transposed on its way in, and the rows of As (and on a GPU of Bs when B is
// stored transposed) are padded by PAD elements so those transposing stores do not fall in one bank
// (common.hpp, strip_pad; on a CPU Bs's rows take a cache line of padding instead). A thread's TN columns are strided by
// TX = BN / TN: consecutive threads read consecutive elements of Bs (no bank conflict; on a CPU, a vector).
// On a CPU a block runs `row_tiles` such tiles one above the other (cpu_block.hpp, row_tiles), each strip of B copied
// once for all of them and each tile's accumulators its own; a GPU block runs one.
// Shared memory: BK * (BM + PAD + BN (+ PAD)) elements (on a CPU with A's rows along k, BM * BK for A). Launch: (BN / TN) x (BM / TM) threads, a grid of tiles
// (x) by matrices (y). The thread's row group is th.y and its column th.x, so on a CPU the row group is fixed
// across a vector of lanes. On a CPU the strips are loaded a whole line per thread (vector copies,
// Strip::load_lines) instead of a chunk per thread, and a thread's values of A are read one at a time so
// that its TM * TN accumulators stay in the vector registers.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common.hpp"
#include "cpu_block.hpp"

namespace tk::kernels {

// The launch bound is the block's size: without one, an AMD compiler plans for 1024-thread workgroups and
// holds each thread to 128 registers, and the unaligned build spilled (tools/amdgpu-resources).
// SPLIT (the CPU's split-K): the grid holds splits x tiles blocks; block s covers k in [s * k_per_split,
// (s + 1) * k_per_split) and writes its partial tile to `partial` (splits x M x N), which
// matmul_splitk_reduce (splitk_reduce.hpp) sums into C. Without SPLIT, k_per_split and partial are unused, except
// on a CPU: there one copy serves both (the launcher instantiates SPLIT = false only, and a non-null `partial`
// splits), which halves the CPU's register_tiled instantiations (each ISA copy compiled 48 of them: two thirds of
// the GEMM launchers' build time); a GPU keeps the split a compile-time choice (its registers).
template <class T, int BM, int BN, int BK, int TM, int TN, int VEC, bool TRANS_A, bool TRANS_B, bool SPLIT = false>
TK_KERNEL TK_LAUNCH_BOUNDS((BM / TM) *
                           (BN / TN)) void matmul_register_tiled(std::int64_t M, std::int64_t N, std::int64_t K,
                                                                 T alpha, const T* A, std::int64_t lda, std::int64_t sa,
                                                                 const T* B, std::int64_t ldb, std::int64_t sb, T beta,
                                                                 T* C, std::int64_t ldc, std::int64_t sc,
                                                                 std::int64_t k_per_split, T* partial, int row_tiles) {
  constexpr int TX = BN / TN;         // threads across the tile
  constexpr int NT = TX * (BM / TM);  // threads per block
  constexpr int PAD = 4;              // keeps rows 16-byte aligned and staggers their banks
  using SA = matmul_detail::Strip<T, BM, BK, VEC, NT, matmul_detail::a_kmajor<TRANS_A>>;
  using SB = matmul_detail::Strip<T, BN, BK, VEC, NT, matmul_detail::b_kmajor<TRANS_B>>;
  static_assert(BN % TN == 0 && BM % TM == 0, "BM / TM and BN / TN threads");
  // On a CPU a thread's TM values of A for one k are broadcasts to a vector of threads, read one by one: they
  // need not be contiguous. So an A whose rows lie along k is kept as stored, As[m][k] (vector copies), where
  // a GPU transposes it into As[k][m] for one vector read (element by element on a CPU, a fifth of the time
  // of a 1024^3 SGEMM:
  // docs/history/performance-log.md#cpu-another-host-of-the-same-kind-2026-11-24-where-the-cpu-gemm-falls-short).
  constexpr bool A_ROWS = tk::this_target == tk::Target::cpu && !matmul_detail::a_kmajor<TRANS_A>;
  constexpr int AR = A_ROWS ? BM : BK, AC = A_ROWS ? BK : BM + PAD;
  TK_SHARED_ARRAY(T, As, [AR][AC]);
  constexpr int BPAD = matmul_detail::strip_pad<T, matmul_detail::b_kmajor<TRANS_B>, true>;
  TK_SHARED_ARRAY(T, Bs, [BK][BN + BPAD]);
  // The accumulators start at zero. On a CPU the first strip's phase starts its sums from zero itself (FIRST
  // below), and clearing them in a pass of their own was a quarter of a short K's time (2048 x 2048 x 32); a GPU
  // clears them here (the CPU's form on every target cost the H200 a third of its SGEMM speed, commit a26cc7c).
  constexpr bool CPU = tk::this_target == tk::Target::cpu;
  // On a CPU a block runs `row_tiles` (1 to max_row_tiles) BM x BN tiles of C one above the other, each with
  // its own accumulators, and copies each strip of B once for all of them (cpu_block.hpp, row_tiles); a GPU
  // runs one tile a block.
  constexpr int RMAX = CPU ? matmul_cpu::max_row_tiles : 1;
  const int RT = CPU ? row_tiles : 1;
  using Acc = tk::Private<T, TM * TN * RMAX>;
  Acc acc = CPU ? Acc() : Acc(T(0));

  const int tiles_n = static_cast<int>((N + BN - 1) / BN);
  const int tiles_m = static_cast<int>((M + BM - 1) / BM);
  const int groups_m = (tiles_m + RT - 1) / RT;  // the grid's rows of blocks
  int tile = tk::block_idx().x, split = 0;
  std::int64_t kbeg = 0, kend = K;  // this block's k range
  const bool split_k = SPLIT || (CPU && partial != nullptr);
  if (split_k) {
    const int tiles = groups_m * tiles_n;
    split = tile / tiles;
    tile %= tiles;
    kbeg = split * k_per_split;
    kend = K < kbeg + k_per_split ? K : kbeg + k_per_split;
  }
  // Tiles in row-major order; on a CPU, a C of at most two rows of blocks in column-major order instead: each
  // thread's share of the grid (the executor's static schedule, contiguous runs of blocks) then holds whole
  // columns of blocks, so the rows of threads that a bottom block skips (below) save every thread's time,
  // not one thread's (64 x 4096 x 512 in 48-row blocks: one thread had every top block).
  const bool by_columns = CPU && groups_m <= 2;
  const int group = by_columns ? tile % groups_m : tile / tiles_n;
  const std::int64_t m_first = std::int64_t{group} * RT * BM;
  const std::int64_t n0 = std::int64_t{by_columns ? tile / groups_m : tile % tiles_n} * BN;
  const int subs = CPU ? (tiles_m - group * RT < RT ? tiles_m - group * RT : RT) : 1;  // this block's tiles
  const std::int64_t z = tk::block_idx().y;
  A += z * sa;
  B += z * sb;
  C += z * sc;
  if constexpr (CPU) {  // no strip (an empty k range): the sums are zeros
    if (kbeg >= kend) {
      TK_THREADS(th) {
        for (int i = 0; i < TM * TN * subs; ++i) acc(th.id, i) = T(0);
      }
    }
  }
  // A CPU stores each tile's C (or its partial tile) right after the tile's last strip, while its accumulators are
  // still in L2: stored after all of a block's tiles, up to 16 x 384 KiB of them went to memory and back (SGEMM 2048
  // x 2048 x 32, one strip, at 66-72% of OpenBLAS on Zen 5). A generic lambda, instantiated only where a CPU calls
  // it: a GPU's block has one tile and keeps its own store below, unchanged (the same lambda called on every target
  // put gfx90a's accumulators in scratch).
  [[maybe_unused]] const auto store_on_cpu = [&](auto sub) {
    const std::int64_t m0 = m_first + std::int64_t{sub} * BM;
    const int a0 = sub * TM * TN;
    if (split_k) {  // the partial tile, as it is (alpha and beta are the reduction's)
      TK_THREADS(th) {
        const int tr = th.y, tc = th.x;
        for (int i = 0; i < TM; ++i) {
          for (int j = 0; j < TN; ++j) {
            const std::int64_t gm = m0 + tr * TM + i, gn = n0 + tc + j * TX;
            if (gm < M && gn < N) partial[(split * M + gm) * N + gn] = acc(th.id, a0 + i * TN + j);
          }
        }
      }
      return;
    }
    // A tile inside C, the common case, takes no bounds tests: its stores are then vectors.
    const bool inside = m0 + BM <= M && n0 + BN <= N;
    // On a CPU the inside test and beta's are made once per block, outside the phases: with either inside its
    // phase gcc stored one value at a time (half of a 2048 x 2048 x 32 SGEMM's time on an Intel Xeon). A GPU
    // keeps the one phase below: this form on every target, with the accumulators cleared in a phase of their own
    // (commit a26cc7c), took the float kernel from 60% to 39% of cuBLAS at 4096^3 on the H200, same run.
    const auto epilogue = [&](auto beta_zero) {
      constexpr bool BETA_ZERO = decltype(beta_zero)::value;
      const auto put = [&](T* c, T v) {
        if constexpr (BETA_ZERO) {
          *c = alpha * v;
        } else {
          *c = alpha * v + beta * *c;
        }
      };
      if (inside) {
        TK_THREADS(th) {
          T* c = C + (m0 + th.y * TM) * ldc + n0 + th.x;
          TK_UNROLL
          for (int i = 0; i < TM; ++i) {
            TK_UNROLL
            for (int j = 0; j < TN; ++j) put(c + i * ldc + j * TX, acc(th.id, a0 + i * TN + j));
          }
        }
      } else {
        TK_THREADS(th) {
          const int tr = th.y, tc = th.x;
          T* c = C + (m0 + tr * TM) * ldc + n0 + tc;
          for (int i = 0; i < TM; ++i) {
            for (int j = 0; j < TN; ++j)
              if (m0 + tr * TM + i < M && n0 + tc + j * TX < N) put(c + i * ldc + j * TX, acc(th.id, a0 + i * TN + j));
          }
        }
      }
    };
    if (beta == T(0)) {
      epilogue(std::true_type{});
    } else {
      epilogue(std::false_type{});
    }
  };
  for (std::int64_t k0 = kbeg; k0 < kend; k0 += BK) {
    const bool first = k0 == kbeg;
    for (int sub = 0; sub < subs; ++sub) {
      const std::int64_t m0 = m_first + std::int64_t{sub} * BM;
      const int a0 = sub * TM * TN;  // the tile's first accumulator
      if constexpr (tk::this_target == tk::Target::cpu) {
        TK_THREADS(th) {
          SA::template load_lines<A_ROWS>(As, th.id, A, lda, m0, k0, M, kend);
          if (sub == 0) SB::template load_lines<false>(Bs, th.id, B, ldb, n0, k0, N, kend);
        }
      } else {
        TK_THREADS(th) {
          for (int l = 0; l < SA::loads; ++l) {
            int x, k;
            SA::place(th.id + l * NT, x, k);
            if constexpr (A_ROWS) {
              SA::store_as_stored(As, x, k, SA::template fetch<true>(A, lda, m0 + x, k0 + k, M, kend));
            } else {
              SA::store(As, x, k, SA::template fetch<true>(A, lda, m0 + x, k0 + k, M, kend));
            }
          }
          for (int l = 0; l < SB::loads; ++l) {
            int x, k;
            SB::place(th.id + l * NT, x, k);
            SB::store(Bs, x, k, SB::template fetch<true>(B, ldb, n0 + x, k0 + k, N, kend));
          }
        }
      }
      TK_BARRIER();  // both tiles are loaded before anyone reads them
      // The multiply phase over the strip's first STEPS k steps. A CPU skips the rows of threads wholly past M
      // (a block at the bottom of C: 64 rows in 48-row blocks multiplied 96); a GPU runs them (their outputs
      // are never stored).
      const auto multiply_from = [&](auto steps, auto from_zero) {
        constexpr int STEPS = decltype(steps)::value;
        constexpr bool FIRST = decltype(from_zero)::value;
        TK_THREADS_IN_ROWS(th, static_cast<int>((M - m0 + TM - 1) / TM)) {
          const int tr = th.y, tc = th.x;
          T c[TM][TN];
          TK_UNROLL
          for (int i = 0; i < TM; ++i) {
            TK_UNROLL
            for (int j = 0; j < TN; ++j) c[i][j] = FIRST ? T(0) : acc(th.id, a0 + i * TN + j);
          }
          const auto step = [&](int k) {
            T b[TN];
            TK_UNROLL
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tc + j * TX];
            // One value of A at a time: TM * TN accumulators, TN of B and one of A in registers (on a CPU, with
            // all TM of A loaded first, 24 + 4 + 6 exceeded AVX-512's 32 and two accumulators were spilled).
            TK_UNROLL
            for (int i = 0; i < TM; ++i) {
              T a;
              if constexpr (A_ROWS) {
                a = As[tr * TM + i][k];
              } else {
                a = As[k][tr * TM + i];
              }
              TK_UNROLL
              for (int j = 0; j < TN; ++j) c[i][j] += a * b[j];
            }
          };
          // The k loop is unrolled on a GPU (registers indexed by constants); gcc, unrolling a strip's k steps
          // completely, no longer vectorises the phase across a CPU's threads.
          if constexpr (tk::this_target == tk::Target::cpu) {
            for (int k = 0; k < STEPS; ++k) step(k);
          } else {
            TK_UNROLL
            for (int k = 0; k < STEPS; ++k) step(k);
          }
          TK_UNROLL
          for (int i = 0; i < TM; ++i) {
            TK_UNROLL
            for (int j = 0; j < TN; ++j) acc(th.id, a0 + i * TN + j) = c[i][j];
          }
        }
      };
      // (FIRST a compile-time choice: with a test inside it gcc no longer vectorises the phase)
      const auto multiply = [&](auto steps) {
        if (CPU && first) {
          multiply_from(steps, std::integral_constant<bool, CPU>{});
        } else {
          multiply_from(steps, std::false_type{});
        }
      };
      // On a CPU a strip past K holds zeros, and all BK steps of a short K's one strip were up to 8 times the
      // work (K = 16); the k loop's count must stay a constant there (with a variable one gcc no longer
      // vectorises the phase across threads: a tenth of the speed), so a strip of at most 16, 32 or 64 steps
      // left takes a phase of that many (16: SGEMM 1024 x 1024 x 16 ran 32, at 38-59% of OpenBLAS on Zen 5). A
      // GPU always runs BK.
      // (matmul_detail::cpu_phase_steps states the rule; the strips' copies fill only those steps)
      if constexpr (tk::this_target == tk::Target::cpu && BK > 64) {
        const int steps = matmul_detail::cpu_phase_steps<BK>(kend - k0);
        if (steps == 16) {
          multiply(std::integral_constant<int, 16>{});
        } else if (steps == 32) {
          multiply(std::integral_constant<int, 32>{});
        } else if (steps == 64) {
          multiply(std::integral_constant<int, 64>{});
        } else {
          multiply(std::integral_constant<int, BK>{});
        }
      } else {
        multiply(std::integral_constant<int, BK>{});
      }
      TK_BARRIER();  // both tiles are consumed before the next k strip overwrites them
      if constexpr (CPU) {
        if (k0 + BK >= kend) store_on_cpu(sub);
      }
    }
  }
  // The tiles' C (or their partial tiles), one tile after the other: on a GPU; on a CPU each tile has stored its C
  // after its last strip (above), and only an empty k range (no strip: the sums are zeros) stores here.
  for (int sub = 0; sub < subs; ++sub) {
    if constexpr (CPU) {
      if (kbeg < kend) break;
      store_on_cpu(sub);
      continue;
    }
    const std::int64_t m0 = m_first + std::int64_t{sub} * BM;
    const int a0 = sub * TM * TN;
    if (split_k) {  // the partial tile, as it is (alpha and beta are the reduction's; store_on_cpu holds the
                    // same lines, kept apart so that the GPU's code is not routed through the lambda)
      TK_THREADS(th) {
        const int tr = th.y, tc = th.x;
        for (int i = 0; i < TM; ++i) {
          for (int j = 0; j < TN; ++j) {
            const std::int64_t gm = m0 + tr * TM + i, gn = n0 + tc + j * TX;
            if (gm < M && gn < N) partial[(split * M + gm) * N + gn] = acc(th.id, a0 + i * TN + j);
          }
        }
      }
      continue;
    }
    // A tile inside C, the common case, takes no bounds tests.
    const bool inside = m0 + BM <= M && n0 + BN <= N;
    TK_THREADS(th) {
      const int tr = th.y, tc = th.x;
      T* c = C + (m0 + tr * TM) * ldc + n0 + tc;
      if (inside) {
        TK_UNROLL
        for (int i = 0; i < TM; ++i) {
          TK_UNROLL
          for (int j = 0; j < TN; ++j)
            matmul_detail::store_c(c + i * ldc + j * TX, alpha, beta, acc(th.id, a0 + i * TN + j));
        }
      } else {
        for (int i = 0; i < TM; ++i) {
          for (int j = 0; j < TN; ++j)
            if (m0 + tr * TM + i < M && n0 + tc + j * TX < N)
              matmul_detail::store_c(c + i * ldc + j * TX, alpha, beta, acc(th.id, a0 + i * TN + j));
        }
      }
    }
  }
}

}  // namespace tk::kernels
