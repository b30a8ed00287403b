// kernels/matmul/args.hpp — what the GEMM launchers (launch.cpp) and the target policies (policy/) ask of a
// product as the host API hands it over (tk::detail::GemmArgs): its tiles, its alignment, its parts, and the
// kernels' parameters filled from it by name.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "common.hpp"
#include "gemv.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/error.hpp"

namespace tk::kernels::matmul_args {

using std::int64_t;
using tk::detail::GemmArgs;

template <class T>
int tile_count(const GemmArgs<T>& a, int64_t bm, int64_t bn) {
  const int64_t t = ((a.M + bm - 1) / bm) * ((a.N + bn - 1) / bn);
  if (t > 0x7fffffff) tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 tiles");
  return static_cast<int>(t);
}

// 16-byte accesses need 16-byte aligned matrices whose rows stay aligned (and, in a batch, whose matrices
// stay aligned: one matrix's strides are never used).
template <class T>
bool vec_ok(const T* X, int64_t ld, int64_t stride, int64_t batch) {
  constexpr int64_t vec = 16 / sizeof(T);
  return reinterpret_cast<std::uintptr_t>(X) % 16 == 0 && ld % vec == 0 && (batch == 1 || stride % vec == 0);
}
template <class T>
bool vec_ok(const GemmArgs<T>& a) {
  return vec_ok(a.A, a.lda, a.sa, a.batch) && vec_ok(a.B, a.ldb, a.sb, a.batch);
}

// How far a line of A stored transposed (of B as stored) may be read: M (N), or a packed copy's padded length.
template <class T>
int64_t lines_a(const GemmArgs<T>& a) {
  return a.m_read > a.M ? a.m_read : a.M;
}
template <class T>
int64_t lines_b(const GemmArgs<T>& a) {
  return a.n_read > a.N ? a.n_read : a.N;
}

// The rows [m0, m0 + rows) of C and the operands' matching rows.
template <class T, class In, class Out>
GemmArgs<T, In, Out> rows_of(const GemmArgs<T, In, Out>& a, int64_t m0, int64_t rows) {
  GemmArgs<T, In, Out> r = a;
  r.M = rows;
  r.A = a.ta ? a.A + m0 : a.A + m0 * a.lda;
  r.C = a.C + m0 * a.ldc;
  r.m_read = a.m_read > 0 ? a.m_read - m0 : 0;
  return r;
}

// The columns [n0, n0 + cols) of C and the operands' matching columns.
template <class T>
GemmArgs<T> cols_of(const GemmArgs<T>& a, int64_t n0, int64_t cols) {
  GemmArgs<T> r = a;
  r.N = cols;
  r.B = a.tb ? a.B + n0 * a.ldb : a.B + n0;
  r.C = a.C + n0;
  r.n_read = a.n_read > 0 ? a.n_read - n0 : 0;
  return r;
}

// The kernels' parameters for matrix `first` of the batch on (common.hpp, GemmParams): no split, lines read
// to lines_a and lines_b.
template <class T>
matmul_detail::GemmParams<T> params(const GemmArgs<T>& a, int64_t first = 0) {
  matmul_detail::GemmParams<T> p;
  p.M = a.M;
  p.N = a.N;
  p.K = a.K;
  p.alpha = a.alpha;
  p.beta = a.beta;
  p.A = a.A + first * a.sa;
  p.lda = a.lda;
  p.sa = a.sa;
  p.B = a.B + first * a.sb;
  p.ldb = a.ldb;
  p.sb = a.sb;
  p.C = a.C + first * a.sc;
  p.ldc = a.ldc;
  p.sc = a.sc;
  p.ta = a.ta;
  p.tb = a.tb;
  p.k_per_split = a.K;
  p.m_read = lines_a(a);
  p.n_read = lines_b(a);
  return p;
}

// Packing (launch.cpp, run_warp_tiled): which operands are copied into rows padded to whole 16-byte chunks
// (pa, pb), their shapes as stored (A is M x K, or K x M transposed; B K x N, or N x K), the copies' leading
// dimensions and their elements in the workspace (A's first, rounded to 64).
struct Packing {
  bool pa, pb;
  int64_t ar, ac, br, bc, lda, ldb, a_elems, b_elems;
};
template <class T>
Packing packing_of(const GemmArgs<T>& a) {
  constexpr int64_t vec = 16 / sizeof(T);
  const auto round = [](int64_t n, int64_t to) { return (n + to - 1) / to * to; };
  Packing k{};
  k.pa = !vec_ok(a.A, a.lda, a.sa, 1);
  k.pb = !vec_ok(a.B, a.ldb, a.sb, 1);
  k.ar = a.ta ? a.K : a.M;
  k.ac = a.ta ? a.M : a.K;
  k.br = a.tb ? a.N : a.K;
  k.bc = a.tb ? a.K : a.N;
  k.lda = round(k.ac, vec);
  k.ldb = round(k.bc, vec);
  k.a_elems = k.pa ? round(k.ar * k.lda, 64) : 0;
  k.b_elems = k.pb ? k.br * k.ldb : 0;
  return k;
}
// The product on the packed copies at `base` (A's first): their lines may be read to their padded ends.
template <class T>
GemmArgs<T> packed_args(const GemmArgs<T>& a, const Packing& k, const T* base) {
  GemmArgs<T> p = a;
  if (k.pa) {
    p.A = base;
    p.lda = k.lda;
    p.sa = 0;
    if (a.ta) p.m_read = k.lda;  // K x M: lines along m, zero from M to lda
  }
  if (k.pb) {
    p.B = base + k.a_elems;
    p.ldb = k.ldb;
    p.sb = 0;
    if (!a.tb) p.n_read = k.ldb;  // K x N: lines along n, zero from N to ldb
  }
  return p;
}

// Calls f(ta, tb) with the run-time storage flags as std::integral_constants: each kernel with compile-time ones.
template <class T, class F>
void with_storage(const GemmArgs<T>& a, F&& f) {
  if (a.ta) {
    if (a.tb) return f(std::true_type{}, std::true_type{});
    return f(std::true_type{}, std::false_type{});
  }
  if (a.tb) return f(std::false_type{}, std::true_type{});
  return f(std::false_type{}, std::false_type{});
}

// The matrix-vector kernel's parameters (gemv.hpp's coordinates) for a product with few rows of C (m_small)
// or few columns, matrix 0 of the batch, unsplit.
template <class T>
GemvParams<T> gemv_params(const GemmArgs<T>& a, bool m_small) {
  // Few rows of C: W is B, the vectors are rows of op(A), output (r, j) is C(r, j). Few columns: W is A, the
  // vectors are columns of op(B), output (r, j) is C(j, r). (gemv.hpp's coordinates.)
  GemvParams<T> p;
  p.J = m_small ? a.N : a.M;
  p.K = a.K;
  p.rows = static_cast<int>(m_small ? a.M : a.N);
  p.alpha = a.alpha;
  p.beta = a.beta;
  p.W = m_small ? a.B : a.A;
  p.ldw = m_small ? a.ldb : a.lda;
  p.sw = m_small ? a.sb : a.sa;
  p.X = m_small ? a.A : a.B;
  p.sx = m_small ? a.sa : a.sb;
  const bool x_along_k = m_small ? !a.ta : a.tb;  // X(r, k) at X[r * ld + k], else at X[k * ld + r]
  const int64_t xld = m_small ? a.lda : a.ldb;
  p.xr = x_along_k ? xld : 1;
  p.xk = x_along_k ? 1 : xld;
  p.Y = a.C;
  p.yr = m_small ? a.ldc : 1;
  p.yj = m_small ? 1 : a.ldc;
  p.sy = a.sc;
  p.k_per_split = a.K;
  return p;
}

// Calls launch(grid_y, first) for the batch in chunks of at most 65535 matrices (a grid's y limit).
template <class T, class F>
void over_batch(const GemmArgs<T>& a, F&& launch) {
  for (int64_t first = 0; first < a.batch; first += 65535)
    launch(static_cast<int>(std::min<int64_t>(65535, a.batch - first)), first);
}

}  // namespace tk::kernels::matmul_args
