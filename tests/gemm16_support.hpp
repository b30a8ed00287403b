// tests/gemm16_support.hpp — a GEMM problem of the matrix units' precisions (tk::bf16 / tk::f16 inputs with a
// float or 16-bit C; float inputs under Math::tf32) and its check against an FP64 reference of the same inputs,
// with bounds derived from the precision. Shared by test_gemm16.cpp and test_gpu_shapes.cpp.
//
// Bounds, per element of C, with S = |alpha| sum_k |A(i, k) B(k, j)| + |beta C0(i, j)|:
//   the float accumulator: (K + 8) * 2^-23 * S (a rounding, or NVIDIA's truncation, per addition, and the
//   epilogue's alpha and beta);
//   TF32 inputs (Math::tf32; the reference takes the float inputs unrounded): + 2 * 2^-10 * S (each input cut
//   to 10 mantissa bits: rounded to nearest by the warp-level kernel, 2^-11 relative, or truncated by sm_90's
//   warpgroup instruction, under 2^-10);
//   a 16-bit C: + half an ulp of the result (2^-8 relative for bf16, 2^-11 for f16, plus f16's smallest
//   subnormal step) and the input C's own rounding when beta != 0 (it is made in the C type).
// Every element of C's buffer that is not an element of a C matrix stays bit-for-bit what it was (NaN).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "gemm_support.hpp"
#include "tilekit/numeric.hpp"

namespace tk::test {

template <class T>
double as_double(T x) {
  return static_cast<double>(static_cast<float>(x));
}
inline double as_double(double x) { return x; }

template <class In, class Out>
struct Problem16 {
  GemmProblem<float> p;  // the shape, storage and the float values the 16-bit ones were rounded from
  std::vector<In> a, b;
  std::vector<Out> c0;
  bool tf32 = false;
};

template <class In, class Out>
Problem16<In, Out> make_problem16(Layout layout, Op oa, Op ob, const GemmShape& s, std::mt19937_64& rng,
                                  bool tf32 = false) {
  Problem16<In, Out> q{make_problem<float>(layout, oa, ob, s, rng), {}, {}, {}, tf32};
  for (float x : q.p.a) q.a.push_back(static_cast<In>(x));
  for (float x : q.p.b) q.b.push_back(static_cast<In>(x));
  for (float x : q.p.c0) q.c0.push_back(static_cast<Out>(x));  // NaN stays NaN
  return q;
}

template <class Out>
constexpr double out_half_ulp() {
  if constexpr (std::is_same_v<Out, tk::bf16>) return 0x1p-8;
  else if constexpr (std::is_same_v<Out, tk::f16>) return 0x1p-11;
  else return 0;
}

// got: the C buffer after the call.
template <class In, class Out>
void expect_gemm16_matches(const Problem16<In, Out>& q, const std::vector<Out>& got, const char* what) {
  const GemmProblem<float>& p = q.p;
  const GemmShape& s = p.s;
  const bool ta = p.op_a == Op::trans, tb = p.op_b == Op::trans;
  const double acc = (s.K + 8) * 0x1p-23 + (q.tf32 ? 2 * 0x1p-10 : 0.0), out = out_half_ulp<Out>();
  const double tiny = std::is_same_v<Out, tk::f16> ? 0x1p-24 : 0.0;
  std::vector<char> is_c(got.size(), 0);
  int bad = 0;
  for (std::int64_t z = 0; z < s.batch; ++z) {
    for (std::int64_t i = 0; i < s.M; ++i) {
      for (std::int64_t j = 0; j < s.N; ++j) {
        double r = 0, sum = 0;
        for (std::int64_t k = 0; k < s.K; ++k) {
          const double x = as_double(ta ? q.a[p.index(z * p.sa, p.lda, k, i)] : q.a[p.index(z * p.sa, p.lda, i, k)]);
          const double y = as_double(tb ? q.b[p.index(z * p.sb, p.ldb, j, k)] : q.b[p.index(z * p.sb, p.ldb, k, j)]);
          r += x * y;
          sum += std::abs(x * y);
        }
        const std::int64_t e = p.index(z * p.sc, p.ldc, i, j);
        is_c[e] = 1;
        const double c = s.beta == 0 ? 0.0 : as_double(q.c0[e]);
        r = s.alpha * r + s.beta * c;
        const double bound = acc * (std::abs(s.alpha) * sum + std::abs(s.beta * c)) + out * std::abs(r) + tiny + 1e-30;
        const double g = as_double(got[e]);
        if (!(std::abs(g - r) <= bound) && bad++ < 3)
          ADD_FAILURE() << what << " " << p.describe() << ": matrix " << z << " element (" << i << ", " << j << ") is "
                        << g << ", expected " << r << " within " << bound;
      }
    }
  }
  std::int64_t changed = 0;
  for (std::size_t e = 0; e < got.size(); ++e)
    if (!is_c[e] && std::memcmp(&got[e], &q.c0[e], sizeof(Out)) != 0) ++changed;
  EXPECT_EQ(changed, 0) << what << " " << p.describe() << ": elements outside the C matrices were written";
}

// Shapes that cut the 128 x 128 tiles and 16- and 32-deep strips of the MMA kernel (and the test tiles of
// the other variants): odd sides, two tile rows and columns, padded leading dimensions, alpha/beta with NaN in
// C when beta == 0, K = 0, batches with gaps.
inline std::vector<GemmShape> gemm16_shapes() {
  return {
      {1, 1, 1},
      {33, 65, 17, 3, 1, 2},
      {130, 260, 70, 0, 0, 0, 1.5, -0.5},
      {64, 128, 64, 0, 0, 0, 1, 0},  // 16-byte rows in every storage
      {200, 140, 150, 1, 0, 2, -1, 2},
      {31, 33, 0, 0, 0, 0, 1, -1},
      {45, 37, 29, 2, 1, 3, 0.5, 0.25, 3, 5},  // a batch of 3, 5 elements between matrices
      {8, 136, 40, 0, 0, 0, 1, 0, 2, 0},       // a batch of 2 back to back
  };
}

}  // namespace tk::test
