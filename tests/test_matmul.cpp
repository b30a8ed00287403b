// tk::matmul (the row-major float shorthand of tk::gemm): every variant on every backend against a
// double-precision reference (the check and its tolerance: matmul_support.hpp). test_gemm.cpp covers the rest.
#include <cfloat>
#include <cmath>
#include <tuple>

#include "matmul_support.hpp"
#include "support.hpp"

namespace tk::test {
namespace {

using Param = std::tuple<Backend, MatmulVariant, Shape>;

std::string name_of(const ::testing::TestParamInfo<Param>& info) {
  const auto& [b, v, s] = info.param;
  auto num = [](float x) {
    std::string t = std::to_string(static_cast<int>(std::lround(x * 10)));
    return t[0] == '-' ? "m" + t.substr(1) : t;
  };
  std::string n = std::string(to_string(b)) + "_" + to_string(v) + "_" + std::to_string(s.M) + "x" +
                  std::to_string(s.N) + "x" + std::to_string(s.K);
  if (s.pad_a || s.pad_b || s.pad_c)
    n += "_pad" + std::to_string(s.pad_a) + "_" + std::to_string(s.pad_b) + "_" + std::to_string(s.pad_c);
  if (s.alpha != 1.f || s.beta != 0.f) n += "_alpha" + num(s.alpha) + "_beta" + num(s.beta);
  return n;
}

// The shapes: tiny, primes, non-multiples of every tile (16, 32, 64, 96, 128), tall and skinny,
// K = 1, long K, padded leading dimensions (aligned ones among them), alpha/beta combinations (beta = 0
// with NaN in C).
std::vector<Shape> shapes() {
  return {
    {1, 1, 1}, {2, 3, 4}, {127, 61, 253}, {33, 65, 17}, {129, 97, 200, 0, 0, 0, 1.5f, 0.f}, {100, 50, 1},
        {4099, 17, 2053},
#if defined(TK_CHECKED) || defined(__SANITIZE_ADDRESS__) || TK_TEST_HAS_ASAN
        // long K (split-K); checked mode's runtime calls make 65536 take 25 s per variant, AddressSanitizer 7-14 s
        {64, 64, 16384},
#else
        {64, 64, 65536},
#endif
        {70, 130, 90, 3, 5, 7}, {96, 64, 128, 4, 4, 4, -0.5f, 2.f},
        {37, 61, 45, 3, 3, 0},  // lda 48, ldb 64: 16-byte rows, and B's last chunk of a row partial
        {255, 257, 129, 1, 0, 2, 0.f, 0.5f},
        // 16-byte rows and whole 128 x 256 / 256 x 128 tiles inside: the unchecked k loop of the unrolled
        // GPU configurations when forced, then a last strip of 8 (BK = 8) or a partial one (BK = 16)
        {260, 300, 72, 4, 0, 4, 1.f, 0.5f},
        {150, 200, 100, 1, 1, 1, 2.f, 0.f},  // rows not 16-byte, N a multiple of 4: edge blocks clamp whole chunks
        {31, 33, 0, 0, 0, 0, 1.f, -1.f},
  };
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (Backend b : built_backends()) {
    for (MatmulVariant v : variants_to_test(b)) {
      for (const Shape& s : shapes()) out.emplace_back(b, v, s);
    }
  }
  return out;
}

class Matmul : public ::testing::TestWithParam<Param> {};

TEST_P(Matmul, MatchesDoubleReference) {
  const auto& [backend, variant, s] = GetParam();
  TK_DEVICE_OR_SKIP(dev, backend);
  const std::int64_t lda = std::max<std::int64_t>(1, s.K + s.pad_a), ldb = s.N + s.pad_b, ldc = s.N + s.pad_c;
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto a = random_floats(static_cast<std::size_t>(s.M * lda), rng);
  const auto b = random_floats(static_cast<std::size_t>(std::max<std::int64_t>(1, s.K) * ldb), rng);
  // beta == 0: C starts as NaN and must not be read; otherwise C starts random.
  const auto c0 = s.beta == 0.f ? nans(static_cast<std::size_t>(s.M * ldc)) : random_floats(s.M * ldc, rng);
  Buffer<float> A(dev, a), B(dev, b), C(dev, c0);
  tk::matmul(dev, s.M, s.N, s.K, s.alpha, A.data(), lda, B.data(), ldb, s.beta, C.data(), ldc, variant);
  expect_matches(s, lda, ldb, ldc, a, b, c0, C.to_host(), seed);
}

INSTANTIATE_TEST_SUITE_P(All, Matmul, ::testing::ValuesIn(params()), name_of);

class MatmulErrors : public ::testing::TestWithParam<Backend> {};

TEST_P(MatmulErrors, BadArgumentsThrow) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> a(dev, 64), b(dev, 64), c(dev, 64);
  const float *A = a.data(), *B = b.data();
  float* C = c.data();
  TK_EXPECT_ERROR(tk::matmul(dev, -1, 4, 4, 1.f, A, 4, B, 4, 0.f, C, 4), "tk::matmul", "'M'", "-1");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, -2, 4, 1.f, A, 4, B, 4, 0.f, C, 4), "tk::matmul", "'N'", "-2");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, 4, -3, 1.f, A, 4, B, 4, 0.f, C, 4), "tk::matmul", "'K'", "-3");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, 4, 8, 1.f, A, 7, B, 4, 0.f, C, 4), "tk::matmul", "'lda'", "7");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, 8, 4, 1.f, A, 4, B, 6, 0.f, C, 8), "tk::matmul", "'ldb'", "6");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, 8, 4, 1.f, A, 4, B, 8, 0.f, C, 5), "tk::matmul", "'ldc'", "5");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, 4, 4, 1.f, nullptr, 4, B, 4, 0.f, C, 4), "tk::matmul", "'A'", "null");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, 4, 4, 1.f, A, 4, B, 4, 0.f, nullptr, 4), "tk::matmul", "'C'", "null");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, 4, 4, 1.f, A, 4, B, 4, 0.f, a.data() + 8, 4), "tk::matmul", "'C'", "'A'",
                  "overlap");
  TK_EXPECT_ERROR(tk::matmul(dev, 4, 4, 4, 1.f, A, 4, B, 4, 0.f, C, 4, static_cast<MatmulVariant>(42)), "tk::matmul",
                  "'variant'", "42");
  TK_EXPECT_ERROR(tk::matmul(8, 9, 8, 1.f, a, b, 0.f, c), "tk::matmul", "'B'", "72");  // B needs 8 x 9
}

TEST_P(MatmulErrors, EmptyShapesAreNoOps) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> c(dev, nans(16));
  EXPECT_NO_THROW(tk::matmul(dev, 0, 4, 4, 1.f, nullptr, 4, nullptr, 4, 0.f, c.data(), 4));
  EXPECT_NO_THROW(tk::matmul(dev, 4, 0, 4, 1.f, nullptr, 4, nullptr, 1, 0.f, c.data(), 1));
  for (float v : c.to_host()) EXPECT_TRUE(std::isnan(v));
}

INSTANTIATE_TEST_SUITE_P(All, MatmulErrors, ::testing::ValuesIn(built_backends()), backend_name);

TEST(MatmulVariants, RegistryNamesEveryVariantOnce) {
  std::vector<std::string> names;
  for (const auto& v : matmul_variants()) {
    names.push_back(v.name);
    EXPECT_STREQ(to_string(v.variant), v.name);
    EXPECT_GT(std::string(v.teaches).size(), 10u);
  }
  EXPECT_EQ(names.size(), 6u);
  EXPECT_STREQ(to_string(MatmulVariant::best), "best");
}

}  // namespace
}  // namespace tk::test
