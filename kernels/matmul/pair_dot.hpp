// kernels/matmul/pair_dot.hpp — BF16 GEMM (float accumulation) on a CPU's pair dot product: each thread keeps a
// TM x (TNV x 16) tile of C in TM x TNV vectors of 16 floats, and per pair of k steps adds, to each vector, the
// products of one pair of A's values (broadcast) with 16 pairs of B's (tk::mma::pair_dot: AVX512_BF16's
// vdpbf16ps, 32 multiply-adds in one instruction; the FP32 kernel's FMA does 16).
//
// The register tile's structure is register_tiled.hpp's, with the pair as the unit of k:
//   - a block computes BM x BN of C over strips of BKP pairs (2 BKP values of k). Both strips are held as pairs
//     along k, one 32-bit word each, the lower k in the low half: As (BM x BKP, rows along k, when A's rows lie
//     along k in memory: a row is a copy; else BKP x BM, each word two of A's stored rows interleaved) and Bs
//     (BKP x BN: two of B's stored rows interleaved; when B's rows lie along k, a word of a row to a column);
//     past M, N or K the strips hold zeros. Bs's lines are padded by 16 words (BN + 16 apart, not 1 KiB): where B's
//     rows lie along k, a row of B goes down a column of Bs, and 1 KiB apart its 128 lines fell into a few L1 sets
//     and were evicted before the next columns came back to them (NT ran at 1.5 times SGEMM, against NN's 1.9);
//   - thread (x, y) owns rows y TM .. y TM + TM - 1 and columns x TNV 16 .. + TNV 16 - 1: per pair, TNV vector
//     loads of Bs, TM broadcasts of As and TM x TNV pair_dot. With TM = 6 and TNV = 4 that is 24 accumulators,
//     4 of B and one of A: 29 of AVX-512's 32 registers;
//   - the accumulators live in Cs (BM x BN floats) between strips: a thread loads its vectors once per strip
//     (the first strip starts from zeros) and stores them after it.
// The epilogue stores alpha C' + beta C (C not read when beta is 0), into float or bf16 (rounded to nearest even).
//
// Where it runs (kernels/matmul/launch_mma.cpp): on the CPU only, for BF16 inputs, where the CPU has AVX512_BF16
// (`best` where its BF16 peak is above its FP32 peak: tk::mma::pair_dot_pays). A GPU runs its tensor cores instead.
// In checked mode pair_dot is the same arithmetic lane by lane, so checked mode checks this kernel's strips and
// phases on any CPU.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tilekit/kernel.hpp"
#include "tilekit/mma.hpp"
#include "tilekit/numeric.hpp"

namespace tk::kernels {

template <int BM, int BN, int BKP, int TM, int TNV>
struct PairDotTiling {
  static constexpr int bm = BM, bn = BN, bkp = BKP, tm = TM, tnv = TNV;
  static constexpr int tx = BN / (TNV * 16), ty = BM / TM;
  static_assert(BN % (TNV * 16) == 0 && BM % TM == 0, "whole threads");
  static_assert(BKP % 16 == 0, "whole 16 x 16 squares of words down a strip (B stored N x K)");
};

// A pair of bf16 values as one word: x in the low half, y in the high.
TK_DEVICE std::uint32_t bf16_pair(std::uint16_t x, std::uint16_t y) { return x | (std::uint32_t{y} << 16); }

// A strip's row of pairs from a stored row that lies along k (src: its value k0, kvals values in the strip): the
// pairs as they lie (word by word: a memcpy into the strip would be invisible to checked mode's access checks),
// the last pair's k past K zero, zeros from the pairs' end up to `end` words.
TK_DEVICE void pairs_of_row(std::uint32_t* row, const std::uint16_t* src, int kvals, int end) {
  for (int p = 0; p < kvals / 2; ++p) {
    std::uint32_t w;
    std::memcpy(&w, src + 2 * p, sizeof w);
    row[p] = w;
  }
  if (kvals % 2 != 0) row[kvals / 2] = src[kvals - 1];
  for (int p = (kvals + 1) / 2; p < end; ++p) row[p] = 0;
}

// A strip's line of pairs from two stored rows along n: rows r and r + 1 of X (leading dimension ld) from column c,
// `left` of them in the strip (2 or more: both, 1: row r with zeros above it, 0 or less: none): `cols` words of two
// values each, then zeros up to `end`.
TK_DEVICE void pairs_of_two_rows(std::uint32_t* line, const std::uint16_t* X, std::int64_t ld, std::int64_t r,
                                 std::int64_t c, int left, int cols, int end) {
  if (left >= 2) {
    const std::uint16_t *r0 = X + r * ld + c, *r1 = r0 + ld;
    for (int n = 0; n < cols; ++n) line[n] = bf16_pair(r0[n], r1[n]);
  } else if (left == 1) {
    const std::uint16_t* r0 = X + r * ld + c;
    for (int n = 0; n < cols; ++n) line[n] = r0[n];
  } else {
    for (int n = 0; n < cols; ++n) line[n] = 0;
  }
  for (int n = cols; n < end; ++n) line[n] = 0;
}

// 16 of B's stored rows along k (src: the first one's pair p0, rows ld values apart), 16 pairs each, down 16
// columns of Bs (dst: line p0's column n, lines dst_ld words apart): dst[p * dst_ld + n] = row n's pair p. With
// AVX-512 (the pair-dot copy outside checked mode) one 16 x 16 transpose of words in registers; word by word it was
// a fifth of BF16 NT's time at 2048^3 (1.5 times SGEMM, against NN's 1.9).
TK_DEVICE void pairs_square_down(std::uint32_t* dst, std::int64_t dst_ld, const std::uint16_t* src, std::int64_t ld) {
#if defined(TK_MMA_PAIR_DOT)
  __m512 r[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_castsi512_ps(_mm512_loadu_si512(src + i * ld));
  tk::avx::transpose16_stage<8>(r);
  tk::avx::transpose16_stage<4>(r);
  tk::avx::transpose16_stage<2>(r);
  tk::avx::transpose16_stage<1>(r);
  for (int j = 0; j < 16; ++j) _mm512_storeu_si512(dst + j * dst_ld, _mm512_castps_si512(r[j]));
#else
  for (int n = 0; n < 16; ++n) {
    for (int p = 0; p < 16; ++p) {
      std::uint32_t w;
      std::memcpy(&w, src + n * ld + 2 * p, sizeof w);
      dst[p * dst_ld + n] = w;
    }
  }
#endif
}

template <class Tl, bool TRANS_A, bool TRANS_B, class Out>
TK_PAIR_DOT_KERNEL void matmul_pair_dot(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const tk::bf16* A,
                                        std::int64_t lda, std::int64_t sa, const tk::bf16* B, std::int64_t ldb,
                                        std::int64_t sb, float beta, Out* C, std::int64_t ldc, std::int64_t sc) {
  constexpr int BM = Tl::bm, BN = Tl::bn, BKP = Tl::bkp, TM = Tl::tm, TNV = Tl::tnv, NT = Tl::tx * Tl::ty;
  constexpr bool A_ROWS = !TRANS_A;  // A's rows lie along k: As[m][kp]; else As[kp][m]
  TK_SHARED_ARRAY(std::uint32_t, As, [A_ROWS ? BM : BKP][A_ROWS ? BKP : BM]);
  TK_SHARED_ARRAY(std::uint32_t, Bs, [BKP][BN + 16]);  // padded lines: see the top of this file
  TK_SHARED_ARRAY(float, Cs, [BM][BN]);

  const std::int64_t tiles_n = (N + BN - 1) / BN, tile = tk::block_idx().x;
  const std::int64_t m0 = tile / tiles_n * BM, n0 = tile % tiles_n * BN, z = tk::block_idx().y;
  const std::uint16_t* a16 = reinterpret_cast<const std::uint16_t*>(A + z * sa);
  const std::uint16_t* b16 = reinterpret_cast<const std::uint16_t*>(B + z * sb);
  C += z * sc;
  const int rows = static_cast<int>(M - m0 < BM ? M - m0 : BM), cols = static_cast<int>(N - n0 < BN ? N - n0 : BN);
  // the columns of Bs that threads read: up to the last thread column with work (the others skip)
  const int bcols = (cols + TNV * 16 - 1) / (TNV * 16) * (TNV * 16);

  for (std::int64_t k0 = 0; k0 < K; k0 += 2 * BKP) {
    const int kvals = static_cast<int>(K - k0 < 2 * BKP ? K - k0 : 2 * BKP);  // values of k in this strip
    const int pairs = (kvals + 1) / 2;
    TK_THREADS(th) {
      if constexpr (A_ROWS) {  // As[m][kp]: row m0 + m of A, k0 .. k0 + kvals - 1, as stored (pairs in place)
        for (int m = th.id; m < BM; m += NT) {
          std::uint32_t* row = As[m];
          if (m < rows) {
            pairs_of_row(row, a16 + (m0 + m) * lda + k0, kvals, BKP);
          } else {
            for (int p = 0; p < BKP; ++p) row[p] = 0;
          }
        }
      } else {  // As[kp][m]: A stored K x M, its rows k0 + 2 kp and k0 + 2 kp + 1 interleaved
        for (int p = th.id; p < BKP; p += NT)
          pairs_of_two_rows(As[p], a16, lda, k0 + 2 * p, m0, kvals - 2 * p, rows, BM);
      }
      if constexpr (!TRANS_B) {  // Bs[kp][n]: B stored K x N, its rows k0 + 2 kp and k0 + 2 kp + 1 interleaved
        for (int p = th.id; p < BKP; p += NT)
          pairs_of_two_rows(Bs[p], b16, ldb, k0 + 2 * p, n0, kvals - 2 * p, cols, bcols);
      } else {  // B stored N x K: row n0 + n's pairs along k go down column n of Bs, in squares of 16 x 16 words
        const int whole = kvals / 2, sq_n = bcols / 16;  // pairs with both values in K; squares across
        const std::int64_t bs_ld = &Bs[1][0] - &Bs[0][0];
        for (int sq = th.id; sq < sq_n * (BKP / 16); sq += NT) {
          const int n = sq % sq_n * 16, p0 = sq / sq_n * 16;
          if (n + 16 <= cols && p0 + 16 <= whole) {
            pairs_square_down(&Bs[p0][n], bs_ld, b16 + (n0 + n) * ldb + k0 + 2 * p0, ldb);
            continue;
          }
          for (int c = n; c < n + 16; ++c) {  // a square past N or K: word by word, zeros past them
            const std::uint16_t* r = c < cols ? b16 + (n0 + c) * ldb + k0 : nullptr;
            for (int p = p0; p < p0 + 16; ++p) {
              std::uint32_t w = 0;
              if (r != nullptr && p < whole) {
                std::memcpy(&w, r + 2 * p, sizeof w);
              } else if (r != nullptr && p == whole && kvals % 2 != 0) {
                w = r[kvals - 1];
              }
              Bs[p][c] = w;
            }
          }
        }
      }
    }
    TK_BARRIER();  // the strips are whole before any thread reads them
    const bool first = k0 == 0;
    // Threads wholly past M or N have nothing to compute (their part of Cs is never stored): the rows of them are
    // not run, the columns skip (a C of 64 columns used a quarter of the block's FMAs without this).
    TK_THREADS_IN_ROWS(th, (rows + TM - 1) / TM) {
      const int r0 = th.y * TM, c0 = th.x * TNV * 16;
      if (c0 >= cols) TK_SKIP();
      tk::mma::Pairs16 acc[TM][TNV];
      TK_UNROLL
      for (int i = 0; i < TM; ++i) {
        TK_UNROLL
        for (int j = 0; j < TNV; ++j)
          acc[i][j] = first ? tk::mma::pairs_zero() : tk::mma::pairs_load(&Cs[r0 + i][c0 + 16 * j]);
      }
      for (int p = 0; p < pairs; ++p) {
        TK_UNROLL
        for (int i = 0; i < TM; ++i) {
          const std::uint32_t a = A_ROWS ? As[r0 + i][p] : As[p][r0 + i];
          TK_UNROLL
          for (int j = 0; j < TNV; ++j) acc[i][j] = tk::mma::pair_dot(acc[i][j], a, &Bs[p][c0 + 16 * j]);
        }
      }
      TK_UNROLL
      for (int i = 0; i < TM; ++i) {
        TK_UNROLL
        for (int j = 0; j < TNV; ++j) tk::mma::pairs_store(&Cs[r0 + i][c0 + 16 * j], acc[i][j]);
      }
    }
    TK_BARRIER();  // the strips are consumed before the next ones overwrite them
  }
  // C = alpha C' + beta C: a thread its own rows and columns (K == 0 never reaches this kernel)
  TK_THREADS_IN_ROWS(th, (rows + TM - 1) / TM) {
    const int r0 = th.y * TM, c0 = th.x * TNV * 16;
    const int cend = c0 + TNV * 16 < cols ? c0 + TNV * 16 : cols;
    for (int i = r0; i < r0 + TM && i < rows; ++i) {
      Out* c = C + (m0 + i) * ldc + n0;
      for (int n = c0; n < cend; ++n) {
        float v = alpha * Cs[i][n];
        if (beta != 0.f) v += beta * static_cast<float>(c[n]);
        c[n] = static_cast<Out>(v);
      }
    }
  }
}

}  // namespace tk::kernels
