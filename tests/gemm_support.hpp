// tests/gemm_support.hpp — a GEMM problem in any layout, op(A), op(B), element type and batch, with its
// operands laid out the BLAS way (padded leading dimensions, gaps between the matrices of a batch, the
// last matrix ending at the last element the BLAS may touch), C poisoned, and the check of a result
// against a reference computed in a wider type. Shared by test_gemm.cpp and test_gpu_shapes.cpp.
//
// Tolerance: the relative Frobenius error of each matrix of C must stay below 4 * sqrt(K) * eps (+ 1e-6 for
// float, 1e-14 for double): accumulation over K terms of random signs grows like sqrt(K) * eps; the factor 4
// leaves room for the summation orders of tiles and split-K. Every element of C's buffer that is not an
// element of a C matrix (padding, gaps) must be bit-for-bit unchanged.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/matmul.hpp"

namespace tk::test {

struct GemmShape {
  std::int64_t M, N, K;
  std::int64_t pad_a = 0, pad_b = 0, pad_c = 0;  // leading dimension = stored inner extent + pad
  double alpha = 1, beta = 0;
  std::int64_t batch = 1, gap = 0;  // stride = one matrix's extent (outer * ld) + gap
};

// Shapes with a side of C of at most 8 (on a GPU, where W's lines lie along j, 32), which `best` runs through
// kernels/matmul/gemv.hpp: both of its forms in every storage, few rows and few columns of C (1, 2-4, 5-8,
// 9-16, 17-32: the sizes of its accumulators), both sides small, 16-byte lines and not, edge blocks, K in several chunks with a partial
// last one, K long enough to be split (sums over splits), a batch with gaps, alpha/beta with NaN in C when
// beta == 0; and rows over the limits, which take the tile kernels, one matrix and batches.
inline std::vector<GemmShape> small_side_shapes() {
  return {
      {1, 300, 260, 1, 3, 0, 1.5, -0.5},
      {1, 1024, 1000},  // 16-byte lines where B is the streamed operand
      {1, 1037, 1300, 0, 0, 0, 1, 0.5},
      {3, 515, 577, 0, 1, 2, -1, 1},
      {8, 260, 700, 4, 0, 4, 0.5, 0.25},
      {5, 6, 2001},                    // both sides small
      {300, 2, 599, 0, 0, 0, 1, 0.5},  // few columns
      {600, 7, 260, 3, 1, 0},
      {700, 1, 2100, 0, 0, 0, 2, 0},
      {6, 400, 90, 0, 4, 0, 1, 0, 3, 5},  // a batch of 3, 5 elements between matrices
      {2, 1, 1},
      {9, 100, 50},  // the tile kernels on a CPU and where W lies along k; on a GPU otherwise 16 accumulators
      {20, 300, 60, 0, 0, 0, -1, 0},
      {32, 130, 100, 1, 0, 2, 1, 0.5},  // 32 accumulators on a GPU
      {130, 17, 100},
      {28, 1000, 777, 0, 0, 0, 1, 0.5},  // on a GPU 8 thin tiles, K split
      {33, 70, 40},                      // the tile kernels everywhere
      {92, 2052, 40, 0, 4, 0, 1, 0.5},   // on a GPU 65-96 rows in NN and TN: the thin tiles too
      // batches of small matrices (the first with gaps): on CUDA the batch tiles, 32 x 32 (the first two) and 64 x 64
      {20, 50, 30, 1, 0, 3, 1, 0.5, 5, 7},
      {70, 45, 33, 0, 0, 0, -1, 0.5, 4, 0},
      {60, 64, 37, 0, 0, 0, 1, 0, 3, 2},
      // batches with a side of 16-32 and the other over 96: on CUDA the thin tiles across rows (1000 columns),
      // 32 x 32, and the thin tiles across columns (250 rows: two 128-row tiles, as full as eight of 32; not TN)
      {24, 1000, 70, 0, 3, 0, 1, 0.5, 2, 5},
      {130, 20, 50, 2, 0, 1, -1, 0, 3, 0},
      {250, 30, 300, 0, 0, 2, 1, 0.5, 3, 4},
  };
}

template <class T>
struct GemmProblem {
  Layout layout;
  Op op_a, op_b;
  GemmShape s;
  std::int64_t lda, ldb, ldc, sa, sb, sc;
  std::vector<T> a, b, c0;
  T alpha, beta;

  // Element (r, c) of a stored matrix in this layout.
  T at(const std::vector<T>& x, std::int64_t off, std::int64_t ld, std::int64_t r, std::int64_t c) const {
    return layout == Layout::row_major ? x[off + r * ld + c] : x[off + r + c * ld];
  }
  std::int64_t index(std::int64_t off, std::int64_t ld, std::int64_t r, std::int64_t c) const {
    return layout == Layout::row_major ? off + r * ld + c : off + r + c * ld;
  }
  std::string describe() const {
    std::ostringstream os;
    os << to_string(layout) << " op(A)=" << to_string(op_a) << " op(B)=" << to_string(op_b) << " " << s.M << "x" << s.N
       << "x" << s.K << " lda " << lda << " ldb " << ldb << " ldc " << ldc << " batch " << s.batch << " alpha "
       << s.alpha << " beta " << s.beta << (sizeof(T) == 4 ? " float" : " double");
    return os.str();
  }
};

// A row-major problem's arguments for the launchers (tk::detail::GemmArgs), on device copies A, B, C of its
// operands, `batch` matrices.
template <class T>
tk::detail::GemmArgs<T> launcher_args(const GemmProblem<T>& p, const T* A, const T* B, T* C, std::int64_t batch) {
  tk::detail::GemmArgs<T> a;
  a.M = p.s.M;
  a.N = p.s.N;
  a.K = p.s.K;
  a.alpha = p.alpha;
  a.A = A;
  a.lda = p.lda;
  a.sa = p.sa;
  a.ta = p.op_a == tk::Op::trans;
  a.B = B;
  a.ldb = p.ldb;
  a.sb = p.sb;
  a.tb = p.op_b == tk::Op::trans;
  a.beta = p.beta;
  a.C = C;
  a.ldc = p.ldc;
  a.sc = p.sc;
  a.batch = batch;
  return a;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<T> d(T(-1), T(1));
  std::vector<T> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A stored rows x cols matrix's leading dimension, one matrix's extent (the BLAS minimum) and the stride.
struct Storage {
  std::int64_t ld, extent, stride;
};
inline Storage storage(Layout layout, std::int64_t rows, std::int64_t cols, std::int64_t pad, std::int64_t gap) {
  const bool row = layout == Layout::row_major;
  const std::int64_t inner = row ? cols : rows, outer = row ? rows : cols;
  const std::int64_t ld = std::max<std::int64_t>(1, inner + pad);
  const std::int64_t extent = outer == 0 || inner == 0 ? 1 : (outer - 1) * ld + inner;
  return {ld, extent, std::max<std::int64_t>(1, outer) * ld + gap};
}

template <class T>
GemmProblem<T> make_problem(Layout layout, Op op_a, Op op_b, const GemmShape& s, std::mt19937_64& rng) {
  GemmProblem<T> p{layout, op_a, op_b, s, 0, 0, 0, 0, 0, 0, {}, {}, {}, T(s.alpha), T(s.beta)};
  const bool ta = op_a == Op::trans, tb = op_b == Op::trans;
  const Storage st_a = storage(layout, ta ? s.K : s.M, ta ? s.M : s.K, s.pad_a, s.gap);
  const Storage st_b = storage(layout, tb ? s.N : s.K, tb ? s.K : s.N, s.pad_b, s.gap);
  const Storage st_c = storage(layout, s.M, s.N, s.pad_c, s.gap);
  p.lda = st_a.ld, p.ldb = st_b.ld, p.ldc = st_c.ld;
  p.sa = st_a.stride, p.sb = st_b.stride, p.sc = st_c.stride;
  const auto total = [&](const Storage& st) { return static_cast<std::size_t>((s.batch - 1) * st.stride + st.extent); };
  p.a = random_values<T>(total(st_a), rng);
  p.b = random_values<T>(total(st_b), rng);
  // C: NaN everywhere (padding and gaps included: they must stay NaN); the matrices random unless beta == 0,
  // when C must be written without being read
  p.c0.assign(total(st_c), std::numeric_limits<T>::quiet_NaN());
  if (s.beta != 0) {
    const auto r = random_values<T>(p.c0.size(), rng);
    for (std::int64_t z = 0; z < s.batch; ++z) {
      for (std::int64_t i = 0; i < s.M; ++i) {
        for (std::int64_t j = 0; j < s.N; ++j) {
          const std::int64_t e = p.index(z * p.sc, p.ldc, i, j);
          p.c0[e] = r[e];
        }
      }
    }
  }
  return p;
}

// got: the C buffer after the call.
template <class T>
void expect_gemm_matches(const GemmProblem<T>& p, const std::vector<T>& got) {
  using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
  const GemmShape& s = p.s;
  const bool ta = p.op_a == Op::trans, tb = p.op_b == Op::trans;
  std::vector<char> is_c(got.size(), 0);
  const double eps = std::numeric_limits<T>::epsilon();
  const double tol = 4.0 * std::sqrt(double(std::max<std::int64_t>(1, s.K))) * eps + (sizeof(T) == 4 ? 1e-6 : 1e-14);
  for (std::int64_t z = 0; z < s.batch; ++z) {
    double err2 = 0, ref2 = 0;
    std::int64_t first_bad_i = -1, first_bad_j = -1;
    for (std::int64_t i = 0; i < s.M; ++i) {
      for (std::int64_t j = 0; j < s.N; ++j) {
        Wide r = 0;
        for (std::int64_t k = 0; k < s.K; ++k) {
          const Wide x = ta ? p.at(p.a, z * p.sa, p.lda, k, i) : p.at(p.a, z * p.sa, p.lda, i, k);
          const Wide y = tb ? p.at(p.b, z * p.sb, p.ldb, j, k) : p.at(p.b, z * p.sb, p.ldb, k, j);
          r += x * y;
        }
        const std::int64_t e = p.index(z * p.sc, p.ldc, i, j);
        is_c[e] = 1;
        r = Wide(s.alpha) * r + (s.beta == 0 ? Wide(0) : Wide(s.beta) * Wide(p.c0[e]));
        const double g = double(got[e]);
        const double d = std::isfinite(g) ? double(Wide(g) - r) : 1e300;  // NaN or Inf: unwritten or broken
        if (d * d > tol * tol * (double(r) * double(r) + 1e-30) && first_bad_i < 0) first_bad_i = i, first_bad_j = j;
        err2 += d * d;
        ref2 += double(r) * double(r);
      }
    }
    const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    EXPECT_LE(rel, tol) << p.describe() << ": matrix " << z << ", first element off: (" << first_bad_i << ", "
                        << first_bad_j << ")";
  }
  std::int64_t changed = 0, first = -1;
  for (std::size_t e = 0; e < got.size(); ++e)
    if (!is_c[e] && std::memcmp(&got[e], &p.c0[e], sizeof(T)) != 0) {
      ++changed;
      if (first < 0) first = static_cast<std::int64_t>(e);
    }
  EXPECT_EQ(changed, 0) << p.describe() << ": elements outside the C matrices were written, the first at offset "
                        << first;
}

}  // namespace tk::test
