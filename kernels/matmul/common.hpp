// kernels/matmul/common.hpp — what every matmul variant shares: the operands as the BLAS sees them, the C
// update, the order of tiles, and how a strip of op(A) or op(B) reaches shared memory in either storage.
//
// Conventions (BLAS letters, row-major: the host API turns a column-major call into the row-major product
// C^T = op(B)^T op(A)^T first): C = alpha * op(A) * op(B) + beta * C with op(A) M x K, op(B) K x N, C M x N.
// A holds op(A) (lda) or its transpose, K x M; B holds op(B) (ldb) or its transpose, N x K. The seeds write
// the product as M (m x n) times N (n x k) = P: their m, n, k are our M, K, N. With beta == 0, C is never
// read (it may hold NaN). Batches: blockIdx.y is the matrix of the batch, each operand `stride` elements
// after the previous one.
#pragma once

#include <cstdint>
#include <tuple>

#include "tilekit/kernel.hpp"
#include "tilekit/vec.hpp"

namespace tk::kernels::matmul_detail {

// A kernel's parameters: the product C = alpha * op(A) * op(B) + beta * C of one launch, as the launchers
// fill them by name (args.hpp, params). Batches: matrix z of the grid's y starts `sa`, `sb`, `sc` elements
// after the previous one. ta, tb: the storage, for the teaching kernels that take it at run time (the tiled
// kernels take it as template parameters). Split-K: a block of split s covers k in [s * k_per_split,
// (s + 1) * k_per_split) and writes its partial tile to `partial` (splits x M x N) when that is not null.
// m_read, n_read (warp_tiled): how far a line of A stored transposed (of B as stored) may be read, >= M (N).
template <class T>
struct GemmParams {
  std::int64_t M = 0, N = 0, K = 0;
  T alpha = T(1), beta = T(0);
  const T* A = nullptr;
  std::int64_t lda = 0, sa = 0;
  const T* B = nullptr;
  std::int64_t ldb = 0, sb = 0;
  T* C = nullptr;
  std::int64_t ldc = 0, sc = 0;
  bool ta = false, tb = false;
  std::int64_t k_per_split = 0;
  T* partial = nullptr;
  std::int64_t m_read = 0, n_read = 0;
  int row_tiles = 1;  // register_tiled on a CPU: BM-row tiles of C a block runs, each strip of B copied once for all
};

// The kernels' arguments from the struct, in the order of their parameters: the one place that lists them.
// (The kernels take the fields one by one, not the struct: a struct parameter changed nvcc 13's code for every
// warp_tiled configuration and cost 5-11% on the H100 in NN, NT and TT,
// docs/history/performance-log.md#nvidia-h100-the-gemm-house-rebuilt-2026-11-27.) The teaching kernels
// (naive.hpp, smem_tiled.hpp, smem_dynamic.hpp) take the storage at run time:
template <class T>
auto teaching_args(const GemmParams<T>& p) {
  return std::tuple(p.M, p.N, p.K, p.alpha, p.A, p.lda, p.sa, p.ta, p.B, p.ldb, p.sb, p.tb, p.beta, p.C, p.ldc, p.sc);
}
// The arguments register_tiled.hpp and warp_tiled.hpp share:
template <class T>
auto gemm_args(const GemmParams<T>& p) {
  return std::tuple(p.M, p.N, p.K, p.alpha, p.A, p.lda, p.sa, p.B, p.ldb, p.sb, p.beta, p.C, p.ldc, p.sc, p.k_per_split,
                    p.partial);
}
// register_tiled.hpp:
template <class T>
auto register_tiled_args(const GemmParams<T>& p) {
  return std::tuple_cat(gemm_args(p), std::tuple(p.row_tiles));
}
// warp_tiled.hpp:
template <class T>
auto warp_tiled_args(const GemmParams<T>& p) {
  return std::tuple_cat(gemm_args(p), std::tuple(p.m_read, p.n_read));
}

template <class T>
TK_DEVICE void store_c(T* c, T alpha, T beta, T acc) {
  *c = beta == T(0) ? alpha * acc : alpha * acc + beta * *c;
}

// Element (r, c) of op(X) for an operand stored as X (trans false) or X^T (trans true): the teaching kernels
// take the storage as a run-time flag (one compiled kernel; the branch is uniform across the grid).
template <class T>
TK_DEVICE T op_at(const T* X, std::int64_t ld, bool trans, std::int64_t r, std::int64_t c) {
  return trans ? X[c * ld + r] : X[r * ld + c];
}

struct TileCoord {
  int m, n;
};

// Block b's tile in "grouped" order: GROUP tile-rows are swept column by column, so consecutive blocks
// share the same few rows of A and columns of B while those are still in L2 (block rasterisation).
// (GROUP * tiles_n in 64 bits: the launcher allows up to 2^31 - 1 tiles, in one row of tiles too.)
template <int GROUP>
TK_DEVICE TileCoord grouped_tile(int b, int tiles_m, int tiles_n) {
  const std::int64_t per_group = std::int64_t{GROUP} * tiles_n;
  const int first_m = static_cast<int>(b / per_group) * GROUP;
  const int rows = tiles_m - first_m < GROUP ? tiles_m - first_m : GROUP;
  const int r = static_cast<int>(b % per_group);
  return {first_m + r % rows, r / rows};
}

// The VEC elements at row r, columns [c, c + VEC) of a row-major matrix, without a bounds test (the caller
// knows them inside). ALIGNED as below.
template <int VEC, bool ALIGNED, class T>
TK_DEVICE tk::Vec<T, VEC> fetch_unchecked(const T* X, std::int64_t ld, std::int64_t r, std::int64_t c) {
  if constexpr (ALIGNED) {
    return tk::load_vec<VEC>(X + r * ld + c);
  } else {
    tk::Vec<T, VEC> v;
    TK_UNROLL
    for (int e = 0; e < VEC; ++e) v.v[e] = X[r * ld + c + e];
    return v;
  }
}

// The VEC elements at row r, columns [c, c + VEC) of a row-major matrix, 0 outside rows x cols. ALIGNED:
// X and ld are multiples of VEC elements, so a whole chunk is one vector access; otherwise the chunk is
// VEC scalar accesses (same registers, same shared-memory layout, so one kernel serves both).
template <int VEC, bool ALIGNED, class T>
TK_DEVICE tk::Vec<T, VEC> fetch(const T* X, std::int64_t ld, std::int64_t r, std::int64_t c, std::int64_t rows,
                                std::int64_t cols) {
  tk::Vec<T, VEC> v;
  if (r < rows && c + VEC <= cols) {
    if constexpr (ALIGNED) {
      return tk::load_vec<VEC>(X + r * ld + c);
    } else {
      TK_UNROLL
      for (int e = 0; e < VEC; ++e) v.v[e] = X[r * ld + c + e];
      return v;
    }
  }
  TK_UNROLL
  for (int e = 0; e < VEC; ++e) v.v[e] = (r < rows && c + e < cols) ? X[r * ld + c + e] : T(0);
  return v;
}

// One operand's strip in the tiled kernels: BX x BK elements of op(A) (x = m) or of op(B)^T (x = n), held
// in shared memory as S[k][x] (k-major: a thread's values of one k are contiguous). In memory the strip
// lies along k ("KMAJOR" false: A as stored, or B transposed, i.e. X(x, k) at X[x * ld + k]) or along x
// (A transposed, B as stored: X(x, k) at X[k * ld + x]). The NT threads of a block load it in VEC-element
// chunks along the memory's contiguous direction, consecutive threads on consecutive chunks (coalesced);
// a chunk along x is one vector store into S, a chunk along k VEC scalar stores down a column of S (the
// row padding of S staggers their banks). So a transposed operand costs the same loads as a plain one.
// The k steps of a strip that a CPU's multiply phase reads (register_tiled.hpp) when `left` steps of K remain
// from the strip's first: 16, 32 or 64 where they hold them and BK is deeper, otherwise BK (the phase's count must
// be a constant for gcc to vectorise it across threads). A CPU copies (or zero-fills) only those steps of a strip.
template <int BK>
constexpr int cpu_phase_steps(std::int64_t left) {
  if constexpr (BK > 64) {
    return left <= 16 ? 16 : left <= 32 ? 32 : left <= 64 ? 64 : BK;
  } else {
    return BK;
  }
}

template <class T, int BX, int BK, int VEC, int NT, bool KMAJOR>
struct Strip {
  static constexpr int vec = VEC, bx = BX, bk = BK, threads = NT;
  static constexpr bool kmajor = KMAJOR;
  static constexpr int per_line = KMAJOR ? BX / VEC : BK / VEC;  // chunks along the contiguous direction
  static constexpr int loads = BX * BK / VEC / NT;               // chunks per thread (a GPU's)
  static_assert(tk::this_target == tk::Target::cpu || (loads >= 1 && loads * VEC * NT == BX * BK),
                "the block loads whole strips");
  static_assert(BK % VEC == 0 && BX % VEC == 0, "chunks stay inside a strip line");

  // Chunk c of the strip: its first element is (x, k).
  static TK_DEVICE void place(int c, int& x, int& k) {
    if constexpr (KMAJOR) {
      k = c / per_line;
      x = (c % per_line) * VEC;
    } else {
      x = c / per_line;
      k = (c % per_line) * VEC;
    }
  }
  // The chunk at (x, k) of the operand, 0 outside xs x ks.
  template <bool ALIGNED>
  static TK_DEVICE tk::Vec<T, VEC> fetch(const T* X, std::int64_t ld, std::int64_t x, std::int64_t k, std::int64_t xs,
                                         std::int64_t ks) {
    if constexpr (KMAJOR) {
      return matmul_detail::fetch<VEC, ALIGNED>(X, ld, k, x, ks, xs);
    } else {
      return matmul_detail::fetch<VEC, ALIGNED>(X, ld, x, k, xs, ks);
    }
  }
  // The same with k known inside and no bounds test: past xs, the last full chunk (along x, ALIGNED: needs
  // xs >= VEC), the last element of the line (along x, not ALIGNED: each of the chunk's scalar loads clamped on its
  // own) or the last line is read instead; such values feed only outputs that are never stored.
  template <bool ALIGNED>
  static TK_DEVICE tk::Vec<T, VEC> fetch_clamped(const T* X, std::int64_t ld, std::int64_t x, std::int64_t k,
                                                 std::int64_t xs) {
    if constexpr (KMAJOR && !ALIGNED) {
      tk::Vec<T, VEC> v;
      const T* line = X + k * ld;
      TK_UNROLL
      for (int e = 0; e < VEC; ++e) v.v[e] = line[x + e < xs ? x + e : xs - 1];
      return v;
    } else if constexpr (KMAJOR) {
      return matmul_detail::fetch_unchecked<VEC, ALIGNED>(X, ld, k, x < xs - VEC ? x : xs - VEC);
    } else {
      return matmul_detail::fetch_unchecked<VEC, ALIGNED>(X, ld, x < xs ? x : xs - 1, k);
    }
  }
  // Whether fetch_clamped may serve a block whose strip starts at x0: it is clear of xs, or no chunk along x
  // straddles xs, or its chunks are scalar loads (not ALIGNED), each clamped on its own.
  template <bool ALIGNED>
  static TK_DEVICE bool clamps(std::int64_t x0, std::int64_t xs) {
    return !KMAJOR || !ALIGNED || x0 + BX <= xs || xs % VEC == 0;
  }
  template <class S>
  static TK_DEVICE void store(S& s, int x, int k, const tk::Vec<T, VEC>& v) {
    if constexpr (KMAJOR) {
      tk::store_vec<VEC>(&s[k][x], v);
    } else {
      TK_UNROLL
      for (int e = 0; e < VEC; ++e) s[k + e][x] = v.v[e];
    }
  }
  // The chunk into S[x][k] instead, as it lies in memory (a strip along k kept x-major: no transpose).
  template <class S>
  static TK_DEVICE void store_as_stored(S& s, int x, int k, const tk::Vec<T, VEC>& v) {
    static_assert(!KMAJOR, "a strip along k");
    tk::store_vec<VEC>(&s[x][k], v);
  }

  // The CPU's way of loading a strip (called in a phase by each of NT threads): whole lines of the memory's
  // contiguous direction, each a run of adjacent elements that the compiler copies as vectors. (The GPU's
  // chunk per thread, place + fetch + store, moves a CPU's elements one by one with their bounds tests and
  // address arithmetic: half of a CPU GEMM's time,
  // docs/history/performance-log.md#cpu-the-same-host-strips-loaded-a-line-at-a-time-register-tile-from-the-register-count-2026-11-24.) Into S[k][x], or, with AS_STORED
  // (a strip along k), S[x][k]: thread t copies lines t, t + NT, ... A strip along k into S[k][x] is a
  // transpose: thread t takes the squares of G x G elements (a cache line per line) of lines [t G, t G + G),
  // so that each line of S it writes is written whole. Elements outside xs x ks are 0, as fetch gives them.
  template <bool AS_STORED, class S>
  static TK_DEVICE void load_lines(S& s, int t, const T* X, std::int64_t ld, std::int64_t x0, std::int64_t k0,
                                   std::int64_t xs, std::int64_t ks) {
    static_assert(!AS_STORED || !KMAJOR, "a strip along k");
    constexpr int lines = KMAJOR ? BK : BX, len = KMAJOR ? BX : BK;
    constexpr int G = 64 / static_cast<int>(sizeof(T));  // elements per cache line
    const std::int64_t line0 = KMAJOR ? k0 : x0, lines_in = KMAJOR ? ks : xs;
    const std::int64_t pos0 = KMAJOR ? x0 : k0, len_in = KMAJOR ? xs : ks;
    const int valid = pos0 + len <= len_in ? len : (pos0 < len_in ? static_cast<int>(len_in - pos0) : 0);
    // the k steps the multiply phase reads: only those are copied or cleared (a short K's one strip: 1024 x 1024 x
    // 16 cleared 112 of every 128 steps)
    const int steps = cpu_phase_steps<BK>(ks - k0);
    const auto line_at = [&](int l) { return X + (line0 + l) * ld + pos0; };
    if constexpr (KMAJOR || AS_STORED) {
      static_assert(len % G == 0, "whole cache lines");
      const int used_lines = KMAJOR && steps < lines ? steps : lines, used_len = !KMAJOR && steps < len ? steps : len;
      for (int l = t; l < used_lines; l += NT) {
        const int n = line0 + l < lines_in ? valid : 0;
        const T* src = line_at(l);
        T* dst = &s[l][0];
        if (n == len) {
          // A cache line at a time (tk::copy_line: vector moves; a loop of element copies became a memcpy,
          // `rep movsq` in the x86-64-v4 copy, 16% of a DGEMM's kernel time).
          TK_UNROLL
          for (int e = 0; e < len; e += G) tk::copy_line(dst + e, src + e);
        } else {
          for (int e = 0; e < n; ++e) dst[e] = src[e];
          for (int e = n; e < used_len; ++e) dst[e] = T(0);
        }
      }
    } else {
      static_assert(lines % G == 0 && len % G == 0, "whole squares");
      const int used_len = steps < len ? steps : len;  // a multiple of G (16, 32, 64 or BK)
      const int whole = valid / G * G;                 // the squares whose G steps all hold data
      for (int l0 = t * G; l0 < lines; l0 += NT * G) {
        const bool lines_whole = line0 + l0 + G <= lines_in;
        // (tk::transpose_line_square: in registers; element by element it was a quarter of an SGEMM NT's time,
        // and the whole of a strip whose last square is partial: SGEMM NT 1024 x 1024 x 16 at 46% of OpenBLAS)
        const std::int64_t s_ld = &s[1][0] - &s[0][0];
        const int first_partial = lines_whole ? whole : 0;
        if (lines_whole)
          for (int e0 = 0; e0 < whole; e0 += G) tk::transpose_line_square(&s[e0][l0], s_ld, line_at(l0) + e0, ld);
        for (int l = l0; l < l0 + G; ++l) {
          const int n = line0 + l < lines_in ? valid : 0;
          for (int e = first_partial; e < used_len; ++e) s[e][l] = e < n ? line_at(l)[e] : T(0);
        }
      }
    }
  }
};

// The row padding of a strip in shared memory, in elements. On a GPU, 4 where the strip is transposed on
// its way in (its VEC scalar stores down a column of S would otherwise fall in one bank; 4 keeps rows
// 16-byte aligned), none where it is stored as vectors. On a CPU there are no banks, and a pad that leaves
// rows off 64-byte boundaries makes every vector read of the strip straddle two cache lines. So the strip
// read as vectors (B) takes one cache line: its rows, 2 KiB apart at BN = 512 floats, otherwise all fall
// in two of L1's 64 sets, and a vector of threads reads a new row every k step (AVX2's half lines: SGEMM
// 70-73% of OpenBLAS without the pad, 79-82% with it; AVX-512 the same either way). The strip read by
// broadcast (A) keeps the GPU's 4, as measured.
template <class T, bool KMAJOR, bool VECTOR_READ>
inline constexpr int strip_pad = tk::this_target == tk::Target::cpu && VECTOR_READ ? int{64 / sizeof(T)}
                                 : KMAJOR                                          ? 0
                                                                                   : 4;

// The second of two register sets when there are two (TWO), otherwise the first again.
template <bool TWO, class R0, class R1>
TK_DEVICE auto& odd_set(R0& r0, R1& r1) {
  if constexpr (TWO) {
    return r1;
  } else {
    (void)r1;
    return r0;
  }
}

// A is k-major in memory when stored transposed (K x M); B when stored as is (K x N).
template <bool TRANS_A>
inline constexpr bool a_kmajor = TRANS_A;
template <bool TRANS_B>
inline constexpr bool b_kmajor = !TRANS_B;

}  // namespace tk::kernels::matmul_detail
