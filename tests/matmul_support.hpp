// tests/matmul_support.hpp — a matmul test's shape and its check against a double-precision reference,
// shared by test_matmul.cpp and test_gpu_shapes.cpp.
//
// Tolerance: the relative Frobenius error ||C - C_ref|| / ||C_ref|| must stay below
// 4 * sqrt(K) * FLT_EPSILON (+ 1e-6): float accumulation over K terms of random signs grows like
// sqrt(K) * eps; the factor 4 leaves room for the summation orders of tiles and split-K.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/matmul.hpp"

namespace tk::test {

// The variants a backend's matmul tests run: all of them and `best`; Kokkos's one implementation once.
inline std::vector<MatmulVariant> variants_to_test(Backend b) {
  if (b == Backend::kokkos) return {MatmulVariant::best};
  std::vector<MatmulVariant> vs;
  for (const auto& info : matmul_variants()) vs.push_back(info.variant);
  vs.push_back(MatmulVariant::best);
  return vs;
}

struct Shape {
  std::int64_t M, N, K;
  std::int64_t pad_a = 0, pad_b = 0, pad_c = 0;  // leading dimension = row + pad
  float alpha = 1.f, beta = 0.f;
};
inline void PrintTo(const Shape& s, std::ostream* os) {
  *os << s.M << "x" << s.N << "x" << s.K << " pads " << s.pad_a << "," << s.pad_b << "," << s.pad_c << " alpha "
      << s.alpha << " beta " << s.beta;
}

// Relative Frobenius error of got (M x N, ldc) against alpha A B + beta C0 in double precision, and the
// number of C's padding elements that changed; fails the test above the tolerance of this file's header.
inline void expect_matches(const Shape& s, std::int64_t lda, std::int64_t ldb, std::int64_t ldc,
                           const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c0,
                           const std::vector<float>& got, std::uint64_t seed) {
  double err2 = 0, ref2 = 0;
  std::int64_t bad_pad = 0;
  for (std::int64_t i = 0; i < s.M; ++i) {
    for (std::int64_t j = 0; j < s.N; ++j) {
      double r = 0;
      for (std::int64_t k = 0; k < s.K; ++k) r += double(a[i * lda + k]) * double(b[k * ldb + j]);
      r = s.alpha * r + (s.beta == 0.f ? 0.0 : double(s.beta) * c0[i * ldc + j]);
      const double g = got[i * ldc + j];
      err2 += std::isfinite(g) ? (g - r) * (g - r) : 1e300;  // NaN or Inf: an unwritten or broken element
      ref2 += r * r;
    }
    for (std::int64_t j = s.N; j < ldc; ++j)  // padding is never written
      bad_pad += !(std::isnan(got[i * ldc + j]) == std::isnan(c0[i * ldc + j]) &&
                   (std::isnan(c0[i * ldc + j]) || got[i * ldc + j] == c0[i * ldc + j]));
  }
  const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  const double tol = 4.0 * std::sqrt(double(std::max<std::int64_t>(1, s.K))) * FLT_EPSILON + 1e-6;
  EXPECT_LE(rel, tol) << "seed " << seed;
  EXPECT_EQ(bad_pad, 0) << "elements of C's padding were written";
}

}  // namespace tk::test
