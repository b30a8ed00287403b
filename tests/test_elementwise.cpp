// copy, vector_add and matrix_add on every backend, against a double-precision reference.
//
// Tolerance: none. The reference is the sum in double (exact for two floats of these magnitudes) rounded
// once to float; IEEE float addition is that same correctly rounded value, so every element must match.
#include <cstring>
#include <tuple>

#include "support.hpp"

namespace tk::test {
namespace {

// Sizes around the 256-thread block and the 4-wide vector (1, 31, 255..257, 1023), and a large prime.
// `offset` shifts every pointer by that many floats, which turns the 16-byte vector path off.
struct VecShape {
  std::int64_t n;
  int offset;
};
void PrintTo(const VecShape& s, std::ostream* os) { *os << "n=" << s.n << " offset=" << s.offset; }
std::string vec_name(const ::testing::TestParamInfo<std::tuple<Backend, VecShape>>& i) {
  const auto& s = std::get<1>(i.param);
  return std::string(to_string(std::get<0>(i.param))) + "_n" + std::to_string(s.n) + (s.offset ? "_misaligned" : "");
}

class VectorOps : public ::testing::TestWithParam<std::tuple<Backend, VecShape>> {};

TEST_P(VectorOps, CopyMatchesReference) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const auto [n, off] = std::get<1>(GetParam());
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = random_floats(n + off, rng);
  Buffer<float> in(dev, x), out(dev, nans(n + off));
  tk::copy(dev, n, in.data() + off, out.data() + off);
  const auto got = out.to_host();
  std::vector<double> ref(x.begin() + off, x.end());
  EXPECT_TRUE(all_close({got.begin() + off, got.end()}, ref, 0, 0)) << "seed " << seed;
}

TEST_P(VectorOps, VectorAddMatchesReference) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const auto [n, off] = std::get<1>(GetParam());
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = random_floats(n + off, rng), y = random_floats(n + off, rng);
  Buffer<float> a(dev, x), b(dev, y), c(dev, nans(n + off));
  tk::vector_add(dev, n, a.data() + off, b.data() + off, c.data() + off);
  const auto got = c.to_host();
  std::vector<double> ref(n);
  for (std::int64_t i = 0; i < n; ++i) ref[i] = static_cast<float>(double(x[i + off]) + double(y[i + off]));
  EXPECT_TRUE(all_close({got.begin() + off, got.end()}, ref, 0, 0)) << "seed " << seed;
}

TEST_P(VectorOps, VectorAddInPlace) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const auto [n, off] = std::get<1>(GetParam());
  std::mt19937_64 rng(fresh_seed());
  const auto x = random_floats(n + off, rng), y = random_floats(n + off, rng);
  Buffer<float> a(dev, x), b(dev, y);
  tk::vector_add(dev, n, a.data() + off, b.data() + off, a.data() + off);
  const auto got = a.to_host();
  std::vector<double> ref(n);
  for (std::int64_t i = 0; i < n; ++i) ref[i] = static_cast<float>(double(x[i + off]) + double(y[i + off]));
  EXPECT_TRUE(all_close({got.begin() + off, got.end()}, ref, 0, 0));
}

INSTANTIATE_TEST_SUITE_P(All, VectorOps,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::Values(VecShape{1, 0}, VecShape{31, 0}, VecShape{255, 0},
                                                              VecShape{256, 0}, VecShape{257, 0}, VecShape{1023, 1},
                                                              VecShape{1000003, 0}, VecShape{1000003, 1})),
                         vec_name);

// rows x cols with leading dimensions; lda/ldb/ldc > cols and odd ones exercise the scalar path.
struct MatShape {
  std::int64_t rows, cols, lda, ldb, ldc;
};
void PrintTo(const MatShape& s, std::ostream* os) {
  *os << s.rows << "x" << s.cols << " lda=" << s.lda << " ldb=" << s.ldb << " ldc=" << s.ldc;
}
std::string mat_name(const ::testing::TestParamInfo<std::tuple<Backend, MatShape>>& i) {
  const auto& s = std::get<1>(i.param);
  return std::string(to_string(std::get<0>(i.param))) + "_" + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
         "_ld" + std::to_string(s.lda) + "_" + std::to_string(s.ldb) + "_" + std::to_string(s.ldc);
}

class MatrixAdd : public ::testing::TestWithParam<std::tuple<Backend, MatShape>> {};

TEST_P(MatrixAdd, MatchesReferenceAndLeavesPaddingAlone) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const MatShape s = std::get<1>(GetParam());
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = random_floats(s.rows * s.lda, rng), y = random_floats(s.rows * s.ldb, rng);
  Buffer<float> A(dev, x), B(dev, y), C(dev, nans(s.rows * s.ldc));
  tk::matrix_add(dev, s.rows, s.cols, A.data(), s.lda, B.data(), s.ldb, C.data(), s.ldc);
  const auto got = C.to_host();
  std::vector<float> inside;
  std::vector<double> ref;
  for (std::int64_t i = 0; i < s.rows; ++i) {
    for (std::int64_t j = 0; j < s.cols; ++j) {
      inside.push_back(got[i * s.ldc + j]);
      ref.push_back(static_cast<float>(double(x[i * s.lda + j]) + double(y[i * s.ldb + j])));
    }
    for (std::int64_t j = s.cols; j < s.ldc; ++j)
      ASSERT_TRUE(std::isnan(got[i * s.ldc + j])) << "padding element (" << i << ", " << j << ") was written";
  }
  EXPECT_TRUE(all_close(inside, ref, 0, 0)) << "seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(
    All, MatrixAdd,
    ::testing::Combine(::testing::ValuesIn(built_backends()),
                       ::testing::Values(MatShape{1, 1, 1, 1, 1}, MatShape{33, 4097, 4097, 4097, 4097},
                                         MatShape{4097, 33, 33, 33, 33}, MatShape{31, 1000, 1004, 1008, 1012},
                                         MatShape{70000, 3, 4, 4, 8}, MatShape{17, 255, 256, 257, 300})),
    mat_name);

// Arguments: checked before anything runs, each error naming the call, the argument and the value.
class ElementwiseErrors : public ::testing::TestWithParam<Backend> {};

TEST_P(ElementwiseErrors, BadArgumentsThrow) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> a(dev, 64), b(dev, 64), c(dev, 64);
  TK_EXPECT_ERROR(tk::copy(dev, -3, a.data(), b.data()), "tk::copy", "'n'", "-3");
  TK_EXPECT_ERROR(tk::copy(dev, 8, nullptr, b.data()), "tk::copy", "'in'", "null");
  TK_EXPECT_ERROR(tk::copy(dev, 8, a.data(), a.data() + 4), "tk::copy", "overlap");
  TK_EXPECT_ERROR(tk::vector_add(dev, -1, a.data(), b.data(), c.data()), "tk::vector_add", "'n'", "-1");
  TK_EXPECT_ERROR(tk::vector_add(dev, 8, a.data(), nullptr, c.data()), "tk::vector_add", "'b'", "null");
  TK_EXPECT_ERROR(tk::vector_add(dev, 8, a.data(), b.data(), a.data() + 1), "tk::vector_add", "'c'", "'a'",
                  "same matrix or share no element");
  TK_EXPECT_ERROR(tk::matrix_add(dev, -2, 4, a.data(), 4, b.data(), 4, c.data(), 4), "tk::matrix_add", "'rows'", "-2");
  TK_EXPECT_ERROR(tk::matrix_add(dev, 2, -4, a.data(), 4, b.data(), 4, c.data(), 4), "tk::matrix_add", "'cols'", "-4");
  TK_EXPECT_ERROR(tk::matrix_add(dev, 4, 8, a.data(), 7, b.data(), 8, c.data(), 8), "tk::matrix_add", "'lda'", "7");
  TK_EXPECT_ERROR(tk::matrix_add(dev, 4, 8, a.data(), 8, b.data(), 8, c.data(), 5), "tk::matrix_add", "'ldc'", "5");
  TK_EXPECT_ERROR(tk::matrix_add(dev, 4, 8, a.data(), 8, nullptr, 8, c.data(), 8), "tk::matrix_add", "'B'", "null");
  Buffer<float> small(dev, 8);
  TK_EXPECT_ERROR(tk::vector_add(a, b, small), "tk::vector_add", "'c'", "8");
}

TEST_P(ElementwiseErrors, SizeZeroIsANoOp) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> c(dev, nans(4));
  EXPECT_NO_THROW(tk::copy(dev, 0, nullptr, nullptr));
  EXPECT_NO_THROW(tk::vector_add(dev, 0, nullptr, nullptr, c.data()));
  EXPECT_NO_THROW(tk::matrix_add(dev, 0, 5, nullptr, 5, nullptr, 5, c.data(), 5));
  EXPECT_NO_THROW(tk::matrix_add(dev, 3, 0, nullptr, 1, nullptr, 1, c.data(), 1));
  for (float v : c.to_host()) EXPECT_TRUE(std::isnan(v));
}

// A pointer that can be told to belong elsewhere: host memory for a GPU (Kokkos's device, where Kokkos runs on
// CUDA, included), GPU memory for the CPU.
TEST_P(ElementwiseErrors, PointerFromAnotherDeviceThrows) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const bool gpu = !reads_host_memory(dev.backend());
  if (gpu) {
    std::vector<float> host(64);
    Buffer<float> d(dev, 64);
    TK_EXPECT_ERROR(tk::vector_add(dev, 64, host.data(), d.data(), d.data()), "tk::vector_add", "'a'", "host memory");
    return;
  }
  for (Backend b : {Backend::cuda, Backend::hip}) {
    if (device_count(b) == 0) continue;
    Buffer<float> g(b == Backend::cuda ? Device::cuda(0) : Device::hip(0), 64);
    std::vector<float> host(64);
    TK_EXPECT_ERROR(tk::vector_add(dev, 64, g.data(), host.data(), host.data()), "tk::vector_add", "'a'", "memory of",
                    to_string(b));
    return;
  }
  GTEST_SKIP() << "no GPU in this process to take a foreign pointer from";
}

INSTANTIATE_TEST_SUITE_P(All, ElementwiseErrors, ::testing::ValuesIn(built_backends()), backend_name);

// Index products past 2^31: a copy of 2^31 + 17 floats (8 GiB) and a matrix whose rows * ld passes 2^31.
// Needs 24 GiB of device memory: run on GPUs that have it, on the CPU only with TK_TEST_LARGE=1.
class LargeIndex : public ::testing::TestWithParam<Backend> {};

TEST_P(LargeIndex, ElementsPast2Pow31AreReached) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const bool gpu = !reads_host_memory(dev.backend());
  if (gpu ? dev.props().global_mem_bytes < (std::int64_t{32} << 30) : std::getenv("TK_TEST_LARGE") == nullptr)
    GTEST_SKIP() << "needs 24 GiB of device memory (GPU with 32 GiB, or TK_TEST_LARGE=1 on the CPU)";
  const std::int64_t n = (std::int64_t{1} << 31) + 17;
  Buffer<float> in(dev, n), out(dev, n);
  std::vector<float> tail(64);
  std::mt19937_64 rng(fresh_seed());
  const auto vals = random_floats(64, rng);
  in.copy_from_host(vals.data(), 64, n - 64);
  out.copy_from_host(nans(64).data(), 64, n - 64);
  tk::copy(dev, n, in.data(), out.data());
  out.copy_to_host(tail.data(), 64, n - 64);
  EXPECT_EQ(tail, vals);

  // 3 x 5 matrices with lda = ldb = ldc = 2^30: the last row starts at element 2^31.
  const std::int64_t ld = std::int64_t{1} << 30, rows = 3, cols = 5, span = (rows - 1) * ld + cols;
  Buffer<float> C(dev, span);
  C.copy_from_host(nans(cols).data(), cols, span - cols);
  tk::matrix_add(dev, rows, cols, in.data(), ld, in.data(), ld, C.data(), ld);  // in: n > span elements
  std::vector<float> a_last(cols), c_last(cols);
  in.copy_to_host(a_last.data(), cols, span - cols);
  C.copy_to_host(c_last.data(), cols, span - cols);
  for (int j = 0; j < cols; ++j) EXPECT_EQ(c_last[j], a_last[j] + a_last[j]) << "column " << j;
}

INSTANTIATE_TEST_SUITE_P(All, LargeIndex, ::testing::ValuesIn(built_backends()), backend_name);

}  // namespace
}  // namespace tk::test
