// kernels/matmul/tile_dot.hpp — BF16 GEMM (float accumulation) on a CPU's tile matrix unit (Intel AMX-BF16): each
// thread of a block owns a 32 x 32 tile of C and multiplies it on the eight tile registers with
// tk::mma::tile_dot_32x32 (four tiles of C, two of A, two of B; tdpbf16ps: 16 x 16 x 32 products in one instruction
// every 16 cycles, 16 times the multiply-adds a cycle of the FP32 kernel's two 512-bit FMA pipes).
//
// The block is pair_dot.hpp's, with AMX's operand layouts:
//   - a block computes BM x BN of C over strips of BKP pairs (2 BKP values of k). As holds A's strip as BM rows
//     of BKP pairs (row m: A's row m0 + m along k, one 32-bit word per pair, the lower k in the low half): AMX's A
//     operand, whichever way A is stored (where A's rows lie along k a row is a copy; else each word is two of A's
//     stored rows interleaved). Bs holds B's strip as BKP rows of pairs (row p: k0 + 2 p and k0 + 2 p + 1, column n
//     in word n): AMX's B operand (the "VNNI" layout), lines padded by 16 words (pair_dot.hpp says why). Past M,
//     N or K the strips hold zeros, up to the next 16 pairs and 32 columns (a thread's whole tile);
//   - thread (x, y) owns rows 32 y .. 32 y + 31 and columns 32 x .. 32 x + 31; per strip it calls tile_dot_32x32
//     once: C's four tiles loaded from Cs (zeroed on the first strip), ceil(pairs / 16) steps of two A tiles,
//     two B tiles and four products, and the tiles stored back to Cs (BM x (BN + 16) floats);
//   - thread 0 loads the tile configuration when the block starts and releases the tiles when it ends.
// The epilogue stores alpha C' + beta C (C not read when beta is 0), into float or bf16 (rounded to nearest even).
//
// Where it runs (kernels/matmul/launch_mma.cpp): on the CPU only, for BF16 inputs, where the CPU has AMX-BF16 and
// the process was granted the tile state (tk::DeviceProps::peak_amx_bf16_gflops). A GPU runs its tensor cores
// instead. In checked mode tile_dot_32x32 is the same arithmetic element by element, so checked mode checks this
// kernel's strips and phases on any CPU.
#pragma once

#include <cstdint>
#include <cstring>

#include "pair_dot.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/mma.hpp"
#include "tilekit/numeric.hpp"

namespace tk::kernels {

template <int BM, int BN, int BKP>
struct TileDotTiling {
  static constexpr int bm = BM, bn = BN, bkp = BKP;
  static constexpr int tx = BN / 32, ty = BM / 32;
  static_assert(BM % 32 == 0 && BN % 32 == 0 && BKP % 16 == 0, "whole 32 x 32 threads, whole 16-pair steps");
};

// CT: the block computes C's transpose (the launcher swapped A and B, M and N: C^T = op(B)^T op(A)^T), and the
// epilogue stores Cs's rows as columns of C.
template <class Tl, bool TRANS_A, bool TRANS_B, bool CT, class Out>
TK_KERNEL void matmul_tile_dot(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const tk::bf16* A,
                               std::int64_t lda, std::int64_t sa, const tk::bf16* B, std::int64_t ldb, std::int64_t sb,
                               float beta, Out* C, std::int64_t ldc, std::int64_t sc) {
  constexpr int BM = Tl::bm, BN = Tl::bn, BKP = Tl::bkp, NT = Tl::tx * Tl::ty, LB = BN + 16;
  TK_SHARED_ARRAY(std::uint32_t, As, [BM][BKP]);
  TK_SHARED_ARRAY(std::uint32_t, Bs, [BKP][LB]);  // padded lines: see pair_dot.hpp
  TK_SHARED_ARRAY(float, Cs, [BM][LB]);

  const std::int64_t tiles_n = (N + BN - 1) / BN, tile = tk::block_idx().x;
  const std::int64_t m0 = tile / tiles_n * BM, n0 = tile % tiles_n * BN, z = tk::block_idx().y;
  const std::uint16_t* a16 = reinterpret_cast<const std::uint16_t*>(A + z * sa);
  const std::uint16_t* b16 = reinterpret_cast<const std::uint16_t*>(B + z * sb);
  C += z * sc;
  const int rows = static_cast<int>(M - m0 < BM ? M - m0 : BM), cols = static_cast<int>(N - n0 < BN ? N - n0 : BN);
  // the rows of As and columns of Bs that threads read: whole tiles of 32 up to the last one with work
  const int arows = (rows + 31) / 32 * 32, bcols = (cols + 31) / 32 * 32;
  const auto at = [](const std::uint16_t* X, std::int64_t ld, std::int64_t r, std::int64_t c) { return X[r * ld + c]; };

  TK_THREAD_ZERO(th) { tk::mma::tile_dot_begin(); }
  for (std::int64_t k0 = 0; k0 < K; k0 += 2 * BKP) {
    const int kvals = static_cast<int>(K - k0 < 2 * BKP ? K - k0 : 2 * BKP);  // values of k in this strip
    const int pairs = (kvals + 1) / 2, steps = (pairs + 15) / 16, kp_end = 16 * steps;
    TK_THREADS(th) {
      if constexpr (!TRANS_A) {  // As[m][kp]: row m0 + m of A, k0 .. k0 + kvals - 1, as stored (pairs in place)
        for (int m = th.id; m < arows; m += NT) {
          std::uint32_t* row = As[m];
          if (m < rows) {
            pairs_of_row(row, a16 + (m0 + m) * lda + k0, kvals, kp_end);
          } else {
            for (int p = 0; p < kp_end; ++p) row[p] = 0;
          }
        }
      } else {  // A stored K x M: As[m][kp] is two of its rows, k0 + 2 kp and k0 + 2 kp + 1, at column m0 + m
        // in squares of 16 x 16 words: 32 rows of A read along m into t, written out as 16 lines of As (As is larger
        // than an L1: written a column at a time, every word missed it)
        for (int sq = th.id; sq < arows / 16 * (kp_end / 16); sq += NT) {
          const int mb = sq / (kp_end / 16) * 16, pb = sq % (kp_end / 16) * 16;
          std::uint32_t t[16][16];  // t[p][m]
          if (mb + 16 <= rows && 2 * (pb + 16) <= kvals) {
            for (int p = 0; p < 16; ++p) {
              const std::uint16_t* r0 = a16 + (k0 + 2 * (pb + p)) * lda + m0 + mb;
              const std::uint16_t* r1 = r0 + lda;
              for (int m = 0; m < 16; ++m) t[p][m] = bf16_pair(r0[m], r1[m]);
            }
          } else {
            for (int p = 0; p < 16; ++p) {
              const int k = 2 * (pb + p);
              for (int m = 0; m < 16; ++m) {
                const bool in = mb + m < rows;
                const std::uint16_t lo = in && k < kvals ? at(a16, lda, k0 + k, m0 + mb + m) : 0;
                const std::uint16_t hi = in && k + 1 < kvals ? at(a16, lda, k0 + k + 1, m0 + mb + m) : 0;
                t[p][m] = bf16_pair(lo, hi);
              }
            }
          }
          for (int m = 0; m < 16; ++m)
            for (int p = 0; p < 16; ++p) As[mb + m][pb + p] = t[p][m];
        }
      }
      if constexpr (!TRANS_B) {  // Bs[kp][n]: B stored K x N, its rows k0 + 2 kp and k0 + 2 kp + 1 interleaved
        for (int p = th.id; p < kp_end; p += NT)
          pairs_of_two_rows(Bs[p], b16, ldb, k0 + 2 * p, n0, kvals - 2 * p, cols, bcols);
      } else {  // B stored N x K: row n0 + n's pairs along k go down column n of Bs
        // in squares of 16 x 16 words, as A's above: 16 rows of B read along k, written out as 16 lines of Bs
        for (int sq = th.id; sq < bcols / 16 * (kp_end / 16); sq += NT) {
          const int nb = sq / (kp_end / 16) * 16, pb = sq % (kp_end / 16) * 16;
          std::uint32_t t[16][16];  // t[n][p]
          for (int n = 0; n < 16; ++n) {
            const std::uint16_t* r = b16 + (n0 + nb + n) * ldb + k0 + 2 * pb;
            if (nb + n < cols && 2 * (pb + 16) <= kvals) {
              for (int p = 0; p < 16; ++p) std::memcpy(&t[n][p], r + 2 * p, sizeof(std::uint32_t));
            } else {
              for (int p = 0; p < 16; ++p) {
                const int k = 2 * (pb + p);
                const bool in = nb + n < cols;
                t[n][p] = bf16_pair(in && k < kvals ? r[2 * p] : 0, in && k + 1 < kvals ? r[2 * p + 1] : 0);
              }
            }
          }
          for (int p = 0; p < 16; ++p)
            for (int n = 0; n < 16; ++n) Bs[pb + p][nb + n] = t[n][p];
        }
      }
    }
    TK_BARRIER();  // the strips are whole before any thread reads them
    const bool first = k0 == 0;
    // Threads wholly past M or N have nothing to compute (their part of Cs is never stored): the rows of them are
    // not run, the columns skip.
    TK_THREADS_IN_ROWS(th, arows / 32) {
      const int r0 = th.y * 32, c0 = th.x * 32;
      if (c0 >= cols) TK_SKIP();
      tk::mma::tile_dot_32x32(&Cs[r0][c0], LB, &As[r0][0], BKP, &Bs[0][c0], LB, steps, !first);
    }
    TK_BARRIER();  // the strips are consumed before the next ones overwrite them
  }
  TK_THREAD_ZERO(th) { tk::mma::tile_dot_end(); }
  // C = alpha C' + beta C: a thread its own rows and columns (K == 0 never reaches this kernel)
  TK_THREADS_IN_ROWS(th, arows / 32) {
    const int r0 = th.y * 32, c0 = th.x * 32;
    const int rend = r0 + 32 < rows ? r0 + 32 : rows, cend = c0 + 32 < cols ? c0 + 32 : cols;
    if constexpr (CT) {  // Cs[i][n] is C's element (n0 + n, m0 + i): along C's rows, down a thread's columns of Cs
      for (int n = c0; n < cend; ++n) {
        Out* c = C + (n0 + n) * ldc + m0;
        for (int i = r0; i < rend; ++i) {
          float v = alpha * Cs[i][n];
          if (beta != 0.f) v += beta * static_cast<float>(c[i]);
          c[i] = static_cast<Out>(v);
        }
      }
    } else {
      for (int i = r0; i < rend; ++i) {
        Out* c = C + (m0 + i) * ldc + n0;
        for (int n = c0; n < cend; ++n) {
          float v = alpha * Cs[i][n];
          if (beta != 0.f) v += beta * static_cast<float>(c[n]);
          c[n] = static_cast<Out>(v);
        }
      }
    }
  }
}

}  // namespace tk::kernels
