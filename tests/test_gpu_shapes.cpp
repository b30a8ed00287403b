// The launch shapes and template instantiations of the CUDA (warp 32) and HIP (wave 64) launchers, run by
// the CPU executor (tests/CMakeLists.txt, tk_gpu_shapes): every CUDA matmul tile configuration and the HIP
// one, aligned and not, whole and split along K; the GPU block shapes of transpose, the stencils, the AoS
// update and the elementwise ops; on shapes that cut every tile. In a checked build every access of these
// kernels is checked as well, so a race or an out-of-range index in a GPU-only configuration shows up on a
// CPU-only machine. (The coalescing and bank experiments are left out: their GPU launches differ only in
// sizes, and their point is timing.)
#include <cfloat>
#include <cmath>
#include <tuple>

#include "matmul_support.hpp"
#include "support.hpp"
#include "tilekit/detail/launchers.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/launchers_memory.hpp"

TK_DECLARE_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_LAUNCHERS(cpu_as_hip)
TK_DECLARE_MATMUL_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_MATMUL_LAUNCHERS(cpu_as_hip)
TK_DECLARE_MEMORY_LAUNCHERS(cpu_as_cuda)
TK_DECLARE_MEMORY_LAUNCHERS(cpu_as_hip)
namespace tk::launchers::cpu_as_cuda {
extern int forced_cuda_config;  // kernels/matmul/launch.cpp: the configuration of the next calls, or -1
}

namespace tk::test {
namespace {

enum class Gpu { cuda, hip };
const char* gpu_name(Gpu g) { return g == Gpu::cuda ? "cuda" : "hip"; }

// ---- matmul: every CUDA configuration (forced) and the HIP one, through the launcher's own dispatch ----

using MatmulParam = std::tuple<Gpu, int, Shape>;  // target, CUDA configuration (-1: HIP), shape

class MatmulOnGpuShapes : public ::testing::TestWithParam<MatmulParam> {};

TEST_P(MatmulOnGpuShapes, MatchesDoubleReference) {
  const auto& [gpu, config, s] = GetParam();
  const Device dev = Device::cpu();
  const std::int64_t lda = s.K + s.pad_a, ldb = s.N + s.pad_b, ldc = s.N + s.pad_c;
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto a = random_floats(static_cast<std::size_t>((s.M - 1) * lda + s.K), rng);
  const auto b = random_floats(static_cast<std::size_t>((s.K - 1) * ldb + s.N), rng);
  auto c0 = random_floats(static_cast<std::size_t>(s.M * ldc), rng);
  for (std::int64_t i = 0; i < s.M; ++i)
    for (std::int64_t j = s.N; j < ldc; ++j) c0[i * ldc + j] = std::nanf("");  // padding: never written
  Buffer<float> A(dev, a), B(dev, b), C(dev, c0);
  if (gpu == Gpu::cuda) {
    launchers::cpu_as_cuda::forced_cuda_config = config;
    launchers::cpu_as_cuda::matmul(dev, MatmulVariant::warp_tiled, s.M, s.N, s.K, s.alpha, A.data(), lda, B.data(),
                                   ldb, s.beta, C.data(), ldc);
    launchers::cpu_as_cuda::forced_cuda_config = -1;
  } else {
    launchers::cpu_as_hip::matmul(dev, MatmulVariant::warp_tiled, s.M, s.N, s.K, s.alpha, A.data(), lda, B.data(), ldb,
                                  s.beta, C.data(), ldc);
  }
  expect_matches(s, lda, ldb, ldc, a, b, c0, C.to_host(), seed);
}

std::vector<MatmulParam> matmul_params() {
  // rows and columns that cut the 128 x 256, 256 x 128, 128 x 128 and 128 x 64 tiles; 16-byte rows (the
  // vector path) and not; a partial last strip of K; and a small C with a long K, which the launcher splits
  // along K on a CPU device's few "multiprocessors"
  const std::vector<Shape> shapes = {{260, 300, 72, 4, 0, 4, 1.f, 0.f},
                                      {133, 261, 37, 1, 1, 3, 1.5f, -0.5f},
                                      {70, 90, 1100, 0, 0, 0, 1.f, 1.f}};
  std::vector<MatmulParam> out;
  for (int config = 0; config <= 12; ++config)
    for (const auto& s : shapes) out.emplace_back(Gpu::cuda, config, s);
  for (const auto& s : shapes) out.emplace_back(Gpu::hip, -1, s);
  return out;
}

std::string matmul_name(const ::testing::TestParamInfo<MatmulParam>& i) {
  const auto& [gpu, config, s] = i.param;
  std::string name = gpu_name(gpu);
  if (config >= 0) name += "_config" + std::to_string(config);
  return name + "_" + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K) + "_pads" +
         std::to_string(s.pad_a) + std::to_string(s.pad_b) + std::to_string(s.pad_c);
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, MatmulOnGpuShapes, ::testing::ValuesIn(matmul_params()), matmul_name);

// The other matmul variants with their GPU block shapes (16 x 16, 32 x 32, the register-tiled 64 x 64).
using VariantParam = std::tuple<Gpu, MatmulVariant>;
class MatmulVariantsOnGpuShapes : public ::testing::TestWithParam<VariantParam> {};

TEST_P(MatmulVariantsOnGpuShapes, MatchDoubleReference) {
  const auto& [gpu, variant] = GetParam();
  const Device dev = Device::cpu();
  const std::int64_t M = 97, N = 131, K = 75, ld = 133;
  std::mt19937_64 rng(fresh_seed());
  const auto a = random_floats(M * ld, rng), b = random_floats(K * ld, rng);
  Buffer<float> A(dev, a), B(dev, b), C(dev, nans(M * ld));
  auto* run = gpu == Gpu::cuda ? &launchers::cpu_as_cuda::matmul : &launchers::cpu_as_hip::matmul;
  run(dev, variant, M, N, K, 1.f, A.data(), ld, B.data(), ld, 0.f, C.data(), ld);
  const auto got = C.to_host();
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      double r = 0, m = 0;
      for (std::int64_t k = 0; k < K; ++k) r += double(a[i * ld + k]) * b[k * ld + j], m += std::fabs(a[i * ld + k] * b[k * ld + j]);
      ASSERT_NEAR(got[i * ld + j], r, (K + 2) * FLT_EPSILON * m + 1e-6) << "(" << i << ", " << j << ")";
    }
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, MatmulVariantsOnGpuShapes,
                         ::testing::Combine(::testing::Values(Gpu::cuda, Gpu::hip),
                                            ::testing::Values(MatmulVariant::naive, MatmulVariant::smem_tiled16,
                                                              MatmulVariant::smem_tiled32, MatmulVariant::smem_dynamic,
                                                              MatmulVariant::register_tiled)),
                         [](const ::testing::TestParamInfo<VariantParam>& i) {
                           return std::string(gpu_name(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param));
                         });

// ---- the memory-bound ops ----

class MemoryOpsOnGpuShapes : public ::testing::TestWithParam<Gpu> {};

#define TK_ON(gpu, call) ((gpu) == Gpu::cuda ? launchers::cpu_as_cuda::call : launchers::cpu_as_hip::call)

TEST_P(MemoryOpsOnGpuShapes, TransposeEveryVariant) {
  const Gpu gpu = GetParam();
  const Device dev = Device::cpu();
  const std::int64_t rows = 129, cols = 257, ld_in = 260, ld_out = 131;
  std::mt19937_64 rng(fresh_seed());
  const auto x = random_floats(rows * ld_in, rng);
  for (TransposeVariant v : {TransposeVariant::naive, TransposeVariant::smem, TransposeVariant::smem_padded,
                             TransposeVariant::best}) {
    Buffer<float> in(dev, x), out(dev, nans(cols * ld_out));
    TK_ON(gpu, transpose(dev, v, rows, cols, in.data(), ld_in, out.data(), ld_out));
    const auto y = out.to_host();
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) ASSERT_EQ(y[j * ld_out + i], x[i * ld_in + j]) << to_string(v);
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = rows; i < ld_out; ++i) ASSERT_TRUE(std::isnan(y[j * ld_out + i])) << to_string(v);
  }
}

TEST_P(MemoryOpsOnGpuShapes, StencilsEveryVariant) {
  const Gpu gpu = GetParam();
  const Device dev = Device::cpu();
  std::mt19937_64 rng(fresh_seed());
  for (StencilVariant v : {StencilVariant::naive, StencilVariant::smem_tiled, StencilVariant::best}) {
    // moving average, radius 5, across several 256-thread blocks
    const std::int64_t n = 1000;
    const int r = 5;
    const auto x = random_floats(n, rng);
    Buffer<float> in(dev, x), out(dev, nans(n));
    TK_ON(gpu, moving_average(dev, v, n, in.data(), out.data(), r));
    auto y = out.to_host();
    for (std::int64_t i = 0; i < n; ++i) {
      double s = 0;
      for (std::int64_t j = std::max<std::int64_t>(0, i - r); j <= std::min(n - 1, i + r); ++j) s += x[j];
      ASSERT_NEAR(y[i], s / (2 * r + 1), 1e-5) << "moving_average " << to_string(v) << " at " << i;
    }
    // 5-point stencil and a 5 x 5 convolution on a grid that cuts the 32 x 8 blocks and 32 x 32 tiles
    const std::int64_t rows = 70, cols = 45, ld = 47;
    const auto g = random_floats(rows * ld, rng), f = random_floats(25, rng);
    auto at = [&](std::int64_t i, std::int64_t j) {
      return i >= 0 && i < rows && j >= 0 && j < cols ? double(g[i * ld + j]) : 0.0;
    };
    Buffer<float> gin(dev, g), gout(dev, nans(rows * ld)), conv(dev, nans(rows * ld)), filter(dev, f);
    TK_ON(gpu, stencil_5point(dev, v, rows, cols, gin.data(), ld, gout.data(), ld, -0.75f, 0.3f));
    TK_ON(gpu, convolve_2d(dev, v, rows, cols, gin.data(), ld, filter.data(), 2, conv.data(), ld));
    const auto s5 = gout.to_host(), cv = conv.to_host();
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        const double e = -0.75 * at(i, j) + 0.3 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
        ASSERT_NEAR(s5[i * ld + j], e, 1e-5) << "stencil_5point " << to_string(v) << " at " << i << ", " << j;
        double c = 0;
        for (int a = -2; a <= 2; ++a)
          for (int b = -2; b <= 2; ++b) c += double(f[(a + 2) * 5 + b + 2]) * at(i + a, j + b);
        ASSERT_NEAR(cv[i * ld + j], c, 1e-4) << "convolve_2d " << to_string(v) << " at " << i << ", " << j;
      }
      for (std::int64_t j = cols; j < ld; ++j) ASSERT_TRUE(std::isnan(s5[i * ld + j]) && std::isnan(cv[i * ld + j]));
    }
  }
}

TEST_P(MemoryOpsOnGpuShapes, AosUpdateAndElementwise) {
  const Gpu gpu = GetParam();
  const Device dev = Device::cpu();
  std::mt19937_64 rng(fresh_seed());
  const std::int64_t n = 1000;  // structs: not a multiple of the 256-thread block
  const auto x = random_floats(3 * n, rng);
  for (AosVariant v : {AosVariant::direct, AosVariant::smem_staged}) {
    Buffer<float> in(dev, x), out(dev, nans(3 * n));
    TK_ON(gpu, float3_add(dev, v, n, in.data(), out.data(), 2.f));
    const auto y = out.to_host();
    for (std::int64_t i = 0; i < 3 * n; ++i) ASSERT_EQ(y[i], x[i] + 2.f) << to_string(v) << " at " << i;
  }
  {
    Buffer<float> in(dev, x), out(dev, nans(3 * n));
    TK_ON(gpu, float3_add_soa(dev, n, in.data(), out.data(), 2.f));
    const auto y = out.to_host();
    for (std::int64_t i = 0; i < 3 * n; ++i) ASSERT_EQ(y[i], x[i] + 2.f) << "soa at " << i;
  }
  const std::int64_t m = 100003;
  const auto p = random_floats(m, rng), q = random_floats(m, rng);
  Buffer<float> P(dev, p), Q(dev, q), R(dev, nans(m)), S(dev, nans(m));
  TK_ON(gpu, copy(dev, m, P.data(), R.data()));
  TK_ON(gpu, vector_add(dev, m, P.data(), Q.data(), S.data()));
  const auto r = R.to_host(), s = S.to_host();
  for (std::int64_t i = 0; i < m; ++i) ASSERT_TRUE(r[i] == p[i] && s[i] == p[i] + q[i]) << i;
  const std::int64_t rows = 37, cols = 301, ld = 305;
  const auto u = random_floats(rows * ld, rng), w = random_floats(rows * ld, rng);
  Buffer<float> U(dev, u), W(dev, w), V(dev, nans(rows * ld));
  TK_ON(gpu, matrix_add(dev, rows, cols, U.data(), ld, W.data(), ld, V.data(), ld));
  TK_ON(gpu, matrix_scale(dev, rows, cols, 0.5f, W.data(), ld));
  const auto v = V.to_host(), ws = W.to_host();
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < ld; ++j) {
      const std::int64_t k = i * ld + j;
      if (j < cols) {
        ASSERT_EQ(v[k], u[k] + w[k]) << i << ", " << j;
        ASSERT_EQ(ws[k], 0.5f * w[k]) << i << ", " << j;
      } else {
        ASSERT_TRUE(std::isnan(v[k]) && ws[k] == w[k]) << "padding " << i << ", " << j;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(GpuShapes, MemoryOpsOnGpuShapes, ::testing::Values(Gpu::cuda, Gpu::hip),
                         [](const ::testing::TestParamInfo<Gpu>& i) { return std::string(gpu_name(i.param)); });

}  // namespace
}  // namespace tk::test
