// tk::gemm and tk::gemm_strided_batched: every layout x op(A) x op(B) x element type x backend x variant
// against a wider reference (gemm_support.hpp), the BLAS's argument checks with their CBLAS positions, its
// quick returns and alpha/beta semantics, and aliasing across a batch. The warp_tiled code paths of the GPU
// configurations are run through the CPU executor with small test tiles (MatmulWarpTiledConfigs).
#include <cmath>
#include <tuple>

#include "../kernels/matmul/config.hpp"
#include "../kernels/matmul/cpu_block.hpp"
#include "../kernels/matmul/pack_rule.hpp"
#include "tilekit/detail/cpu_threads.hpp"
#include "tilekit/detail/knobs.hpp"
#include "gemm_support.hpp"
#include "kernels/layer_launchers.hpp"
#include "matmul_support.hpp"
#include "support.hpp"

namespace tk::test {
namespace {

constexpr Layout kLayouts[] = {Layout::row_major, Layout::col_major};
constexpr Op kOps[] = {Op::none, Op::trans};

// Not tile multiples (16, 32, 64, 96, 128, 192), padded leading dimensions, 16-byte rows (pads that keep
// the inner extent a multiple of 4), alpha/beta combinations (beta = 0 with NaN in C), K = 0, batches with
// gaps between the matrices.
std::vector<GemmShape> gemm_shapes() {
  return {
      {1, 1, 1},
      {33, 65, 17, 3, 1, 2},
      {70, 130, 90, 3, 5, 7, 1.5, -0.5},
      {36, 60, 44, 0, 4, 0},  // 16-byte rows in every storage
      {200, 140, 150, 1, 0, 2, -1, 2},
      {31, 33, 0, 0, 0, 0, 1, -1},
      {45, 37, 29, 2, 1, 3, 0.5, 0.25, 3, 5},  // a batch of 3, 5 elements between matrices
      {4, 130, 70, 0, 0, 0, 1, 0, 2, 0},       // a batch of 2 packed back to back
      // 16-byte rows whose lines end inside a 16-byte chunk, which warp_tiled runs as the first N - N % 4
      // columns and a matrix-vector tail (kernels/matmul/launch.cpp, run_config): row-major op(A) = A
      // (B's lines along N), then row-major op(A) = A^T (A's lines along M as well)
      {68, 131, 92, 0, 1, 1},
      {69, 131, 92, 3, 1, 1, 1, 0.5},
  };
}

template <class T>
void run_problem(const Device& dev, MatmulVariant v, Layout layout, Op oa, Op ob, const GemmShape& s,
                 std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const GemmProblem<T> p = make_problem<T>(layout, oa, ob, s, rng);
  Buffer<T> A(dev, p.a), B(dev, p.b), C(dev, p.c0);
  if (s.batch == 1) {
    tk::gemm(dev, layout, oa, ob, s.M, s.N, s.K, p.alpha, A.data(), p.lda, B.data(), p.ldb, p.beta, C.data(), p.ldc, v);
  } else {
    tk::gemm_strided_batched(dev, layout, oa, ob, s.M, s.N, s.K, p.alpha, A.data(), p.lda, p.sa, B.data(), p.ldb, p.sb,
                             p.beta, C.data(), p.ldc, p.sc, s.batch, v);
  }
  expect_gemm_matches(p, C.to_host());
}

using Param = std::tuple<Backend, MatmulVariant, int>;  // backend, variant, element bytes

class Gemm : public ::testing::TestWithParam<Param> {};

TEST_P(Gemm, EveryLayoutAndOpMatchesWiderReference) {
  const auto& [backend, variant, bytes] = GetParam();
  TK_DEVICE_OR_SKIP(dev, backend);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<GemmShape> shapes = gemm_shapes();
  for (Layout layout : kLayouts) {
    for (Op oa : kOps) {
      for (Op ob : kOps) {
        for (std::size_t i = 0; i < shapes.size(); ++i) {
          if (!in_instrumented_half(i, storage_index(oa, ob, layout))) continue;
          if (bytes == 4) run_problem<float>(dev, variant, layout, oa, ob, shapes[i], seed);
          else run_problem<double>(dev, variant, layout, oa, ob, shapes[i], seed);
        }
      }
    }
  }
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (Backend b : built_backends()) {
    for (MatmulVariant v : variants_to_test(b)) {
      for (int bytes : {4, 8}) out.emplace_back(b, v, bytes);
    }
  }
  return out;
}

std::string name_of(const ::testing::TestParamInfo<Param>& info) {
  const auto& [b, v, bytes] = info.param;
  return std::string(to_string(b)) + "_" + to_string(v) + (bytes == 4 ? "_float" : "_double");
}

INSTANTIATE_TEST_SUITE_P(All, Gemm, ::testing::ValuesIn(params()), name_of);

// ---- argument checks, quick returns, semantics ----

class GemmContract : public ::testing::TestWithParam<Backend> {};

TEST_P(GemmContract, BadArgumentsNameTheirCblasPosition) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<double> a(dev, 256), b(dev, 256), c(dev, 256);
  const double *A = a.data(), *B = b.data();
  double* C = c.data();
  const Layout R = Layout::row_major, Cm = Layout::col_major;
  const Op N = Op::none, T = Op::trans;
  TK_EXPECT_ERROR(tk::gemm(dev, static_cast<Layout>(7), N, N, 4, 4, 4, 1., A, 4, B, 4, 0., C, 4), "tk::gemm",
                  "argument 1 'layout'", "7");
  TK_EXPECT_ERROR(tk::gemm(dev, R, static_cast<Op>(3), N, 4, 4, 4, 1., A, 4, B, 4, 0., C, 4), "argument 2 'op_a'");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, static_cast<Op>(3), 4, 4, 4, 1., A, 4, B, 4, 0., C, 4), "argument 3 'op_b'");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, -1, 4, 4, 1., A, 4, B, 4, 0., C, 4), "argument 4 'M'", "-1");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, -2, 4, 1., A, 4, B, 4, 0., C, 4), "argument 5 'N'", "-2");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, -3, 1., A, 4, B, 4, 0., C, 4), "argument 6 'K'", "-3");
  // lda against the stored shape: row-major A (M x K) needs K, transposed (K x M) needs M; column-major the
  // other way round
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 8, 1., A, 7, B, 4, 0., C, 4), "argument 9 'lda' is 7", "max(1, K) = 8");
  TK_EXPECT_ERROR(tk::gemm(dev, R, T, N, 6, 4, 2, 1., A, 5, B, 4, 0., C, 4), "argument 9 'lda' is 5", "max(1, M) = 6");
  TK_EXPECT_ERROR(tk::gemm(dev, Cm, N, N, 6, 4, 2, 1., A, 5, B, 4, 0., C, 6), "argument 9 'lda' is 5", "max(1, M) = 6");
  TK_EXPECT_ERROR(tk::gemm(dev, Cm, T, N, 6, 4, 8, 1., A, 7, B, 8, 0., C, 6), "argument 9 'lda' is 7", "max(1, K) = 8");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 8, 4, 1., A, 4, B, 6, 0., C, 8), "argument 11 'ldb' is 6", "max(1, N) = 8");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, T, 4, 8, 5, 1., A, 5, B, 4, 0., C, 8), "argument 11 'ldb' is 4", "max(1, K) = 5");
  TK_EXPECT_ERROR(tk::gemm(dev, Cm, N, N, 4, 8, 5, 1., A, 4, B, 4, 0., C, 4), "argument 11 'ldb' is 4",
                  "max(1, K) = 5");
  TK_EXPECT_ERROR(tk::gemm(dev, Cm, N, T, 4, 8, 5, 1., A, 4, B, 7, 0., C, 4), "argument 11 'ldb' is 7",
                  "max(1, N) = 8");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 8, 4, 1., A, 4, B, 8, 0., C, 5), "argument 14 'ldc' is 5", "max(1, N) = 8");
  TK_EXPECT_ERROR(tk::gemm(dev, Cm, N, N, 6, 4, 4, 1., A, 6, B, 4, 0., C, 5), "argument 14 'ldc' is 5",
                  "max(1, M) = 6");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 4, 1., nullptr, 4, B, 4, 0., C, 4), "'A'", "null");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 4, 1., A, 4, B, 4, 0., nullptr, 4), "'C'", "null");
  // a double aligned to 4 bytes only
  const double* odd = reinterpret_cast<const double*>(reinterpret_cast<const char*>(A) + 4);
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 4, 1., odd, 4, B, 4, 0., C, 4), "'A'", "aligned to 8 bytes");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 4, 1., A, 4, B, 4, 0., a.data() + 8, 4), "'C'", "'A'", "overlap");
  // column-major: the overlap is reported on the caller's names
  TK_EXPECT_ERROR(tk::gemm(dev, Cm, N, N, 4, 4, 4, 1., A, 4, B, 4, 0., b.data() + 12, 4), "'C'", "'B'");
  // batches
  TK_EXPECT_ERROR(tk::gemm_strided_batched(dev, R, N, N, 4, 4, 4, 1., A, 4, 16, B, 4, 16, 0., C, 4, 16, -1),
                  "tk::gemm_strided_batched", "'batch' is -1");
  TK_EXPECT_ERROR(tk::gemm_strided_batched(dev, R, N, N, 4, 4, 4, 1., A, 4, -16, B, 4, 16, 0., C, 4, 16, 2),
                  "'stride_a' is -16");
  TK_EXPECT_ERROR(tk::gemm_strided_batched(dev, R, N, N, 4, 4, 4, 1., A, 4, 16, B, 4, 16, 0., C, 4, 0, 2),
                  "'stride_c' is 0 with batch = 2");
  TK_EXPECT_ERROR(tk::gemm_strided_batched(dev, R, N, N, 4, 4, 4, 1., A, 4, 16, B, 4, 16, 0., C, 4, 8, 2),
                  "matrix 0 of 'C'", "matrix 1 of 'C'");
  // C of matrix 1 is A of matrix 2 (one array, offset by a matrix)
  TK_EXPECT_ERROR(tk::gemm_strided_batched(dev, R, N, N, 4, 4, 4, 1., A, 4, 16, B, 4, 16, 0., a.data() + 16, 4, 16, 3),
                  "matrix 0 of 'C'", "matrix 1 of 'A'");
  TK_EXPECT_ERROR(tk::gemm_strided_batched(dev, R, N, N, 4, 4, 4, 1., A, 4, 16, B, 4, 16, 0., C, 4, 16, INT64_MAX / 8),
                  "'batch'", "'stride_c'", "address space");
}

TEST_P(GemmContract, QuickReturnsAndAlphaBetaSemantics) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const double nan = std::nan("");
  Buffer<double> c(dev, std::vector<double>(16, 2.0));
  // (alpha == 0 or K == 0) and beta == 1: nothing happens, no pointer is looked at
  EXPECT_NO_THROW(
      tk::gemm(dev, Layout::row_major, Op::none, Op::none, 4, 4, 4, 0., nullptr, 4, nullptr, 4, 1., nullptr, 4));
  EXPECT_NO_THROW(
      tk::gemm(dev, Layout::col_major, Op::trans, Op::none, 4, 4, 0, 3., nullptr, 1, nullptr, 1, 1., nullptr, 4));
  // M, N or batch 0: nothing
  EXPECT_NO_THROW(tk::gemm_strided_batched(dev, Layout::row_major, Op::none, Op::none, 4, 4, 4, 1., nullptr, 4, 0,
                                           nullptr, 4, 0, 0., nullptr, 4, 0, 0));
  // alpha == 0: C = beta * C, A and B neither checked nor read (NaN and null alike)
  Buffer<double> poison(dev, std::vector<double>(16, nan));
  tk::gemm(dev, Layout::col_major, Op::trans, Op::trans, 4, 4, 4, 0., poison.data(), 4, nullptr, 4, 0.5, c.data(), 4);
  for (double v : c.to_host()) EXPECT_EQ(v, 1.0);
  // beta == 0: C is written, never read
  Buffer<double> cn(dev, std::vector<double>(16, nan)), ones(dev, std::vector<double>(16, 1.0));
  tk::gemm(dev, Layout::row_major, Op::none, Op::trans, 4, 4, 4, 1., ones.data(), 4, ones.data(), 4, 0., cn.data(), 4);
  for (double v : cn.to_host()) EXPECT_EQ(v, 4.0);
  // beta == 0 and alpha == 0: zeros, even over NaN
  tk::gemm(dev, Layout::row_major, Op::none, Op::none, 4, 4, 4, 0., nullptr, 4, nullptr, 4, 0., cn.data(), 4);
  for (double v : cn.to_host()) EXPECT_EQ(v, 0.0);
}

TEST_P(GemmContract, BatchesShareAOrBAndInterleaveInOneArray) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  std::mt19937_64 rng(fresh_seed());
  // one A (stride 0) for 5 products; A, B and C of each product side by side in one array: [A_i B_i C_i]
  constexpr std::int64_t n = 6, e = n * n, batch = 5;
  std::vector<float> host = random_values<float>(3 * e * batch, rng);
  Buffer<float> buf(dev, host);
  float* base = buf.data();
  tk::gemm_strided_batched(dev, Layout::col_major, Op::trans, Op::none, n, n, n, 1.f, base, n, 0, base + e, n, 3 * e,
                           0.f, base + 2 * e, n, 3 * e, batch);
  const auto got = buf.to_host();
  for (std::int64_t z = 0; z < batch; ++z) {
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double r = 0;  // column-major: op(A)(i, k) = A(k, i) = A[k + i n] of matrix 0; B(k, j) = B[k + j n]
        for (std::int64_t k = 0; k < n; ++k) r += double(host[k + i * n]) * host[3 * e * z + e + k + j * n];
        EXPECT_NEAR(got[3 * e * z + 2 * e + i + j * n], r, 1e-5) << z << ": (" << i << ", " << j << ")";
      }
    }
  }
}

TEST_P(GemmContract, BatchesBeyondTheGridLimitAreSplit) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
#if defined(TK_CHECKED)
  // 65605 blocks of 1024 threads, each run twice with every access checked, took over 10 minutes; the
  // split is the launcher's host code, which every other build runs
  GTEST_SKIP() << "too slow in checked mode";
#endif
  constexpr std::int64_t batch = 65535 + 70;
  std::vector<float> a(4 * batch), b(4 * batch);
  for (std::int64_t z = 0; z < batch; ++z) {
    for (int e = 0; e < 4; ++e) a[4 * z + e] = float(z % 7 + e), b[4 * z + e] = float(e == 0 || e == 3);
  }  // B = I
  Buffer<float> A(dev, a), B(dev, b), C(dev, nans(4 * batch));
  // naive: 256 threads a block instead of best's 1024 on a CPU (the sanitizer builds run every one of them);
  // every variant splits through the same launcher helper
  tk::gemm_strided_batched(dev, Layout::row_major, Op::none, Op::none, 2, 2, 2, 1.f, A.data(), 2, 4, B.data(), 2, 4,
                           0.f, C.data(), 2, 4, batch, MatmulVariant::naive);
  const auto c = C.to_host();
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < 4 * batch; ++i) wrong += c[i] != a[i];
  EXPECT_EQ(wrong, 0);
}

// Operands whose rows are not 16-byte multiples in wide products with N (or M) not a multiple of 4: both
// operands unaligned in every storage, then B alone. K is short, so by default they run as they are (scalar
// loads, kernels/matmul/launch.cpp, run_warp_tiled); under TK_MATMUL_PACK=2 (tools/gpu-check.sh; on the CPU
// ctest cpu.Gemm.EveryUnalignedProductPacked runs the Gemm tests' shapes so) warp_tiled packs them first
// into rows padded to whole chunks, which the product reads to their end (warp_tiled.hpp, m_read and n_read).
// On a GPU `best` is warp_tiled (DGEMM on sm_90 takes mma_tiled, which packs only where every side is >= 128); a
// CPU's `best` runs register_tiled, and Kokkos its own GEMM, which pack nothing.
TEST_P(GemmContract, UnalignedOperandsOfWideProducts) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  if (GetParam() == Backend::kokkos) GTEST_SKIP() << "Kokkos runs its own GEMM: nothing is packed";
#if defined(TK_CHECKED)
  GTEST_SKIP() << "too slow in checked mode (4 million outputs a product); the ASan and CPU builds run it";
#endif
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const GemmShape shapes[] = {{2050, 2051, 3, 1, 1, 3, 1.5, -0.5}, {2048, 2062, 4, 0, 3, 0}};
  const bool cpu = GetParam() == Backend::cpu;
  std::vector<MatmulVariant> variants{MatmulVariant::warp_tiled};
  if (!cpu) variants.push_back(MatmulVariant::best);
  // On the CPU (where the AddressSanitizer build took 2 minutes over all of it) row-major only, the first
  // shape in float and the second in double: the same packing and tail code in every storage of A and B. Under
  // AddressSanitizer half of that (in_instrumented_half): each storage in one of the two, both in two storages.
  for (MatmulVariant v : variants) {
    for (Layout layout : kLayouts) {
      for (Op oa : kOps) {
        for (Op ob : kOps) {
          if (cpu && layout == Layout::col_major) continue;
          for (int i = 0; i < 2; ++i) {
            if (cpu && !in_instrumented_half(std::size_t(i), storage_index(oa, ob))) continue;
            if (!cpu || i == 0) run_problem<float>(dev, v, layout, oa, ob, shapes[i], seed);
            if (!cpu || i == 1) run_problem<double>(dev, v, layout, oa, ob, shapes[i], seed);
          }
        }
      }
    }
  }
}

// DGEMM's `best` where a GPU runs the FP64 matrix-unit kernel (the policies' f64_on_units: on sm_90 every product
// with K > 0; on a 132-SM H100 or H200 the third shape's 15 blocks are split along K by the wave plan,
// f64_units_plan; the fourth's last 2 rows (columns, column-major) are peeled off,
// f64_units_peel, and its 1536 x 1408 rest fills a wave of two blocks an SM): every layout and storage, tiles cut in
// both directions, K with a partial last strip, lines on 16 bytes (copies in flight) and, in row-major storage (the
// reference's time), not (odd sides: A and B packed first); beta 0 and not. Elsewhere the same calls test what
// `best` runs there. The CPU executor's copies run the kernel in DgemmOnGpuShapes (test_gpu_shapes.cpp).
TEST_P(GemmContract, DgemmOnTheMatrixUnits) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  if (GetParam() == Backend::cpu || GetParam() == Backend::kokkos)
    GTEST_SKIP() << "a GPU's `best`; the CPU executor runs the kernel in GpuShapes/DgemmOnGpuShapes";
  if (dev.backend() == Backend::hip && dev.props().arch == "hip-cpu")
    GTEST_SKIP() << "HIP-CPU has no matrix units (its `best` is warp_tiled, which the other tests run)";
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const GemmShape aligned{1410, 1290, 40, 0, 0, 0, 1, 0.5}, packed{1411, 1291, 133, 0, 0, 0, -1, 0},
      split{300, 260, 3000, 0, 0, 0, 1, 0.5}, peeled{1538, 1408, 256, 0, 0, 0, 1, -1};
  if (dev.backend() == Backend::cuda && dev.props().arch == "sm_90" && dev.props().multiprocessors == 132) {
    for (const GemmShape* s : {&aligned, &packed, &split, &peeled}) {
      const std::string choice = tk::matmul_tile_choice(dev, 8, s->M, s->N, s->K);
      EXPECT_NE(choice.find("mma_tiled on the FP64 matrix units"), std::string::npos) << choice;
      if (tk::detail::knobs().matmul_split == 0)  // TK_MATMUL_SPLIT forces another plan
        EXPECT_EQ(choice.find("split along K") != std::string::npos, s == &split) << choice;
      EXPECT_EQ(choice.find("last 2 rows and 0 columns peeled off") != std::string::npos, s == &peeled) << choice;
    }
  }
  for (Layout layout : kLayouts) {
    for (Op oa : kOps) {
      for (Op ob : kOps) {
        run_problem<double>(dev, MatmulVariant::best, layout, oa, ob, aligned, seed);
        run_problem<double>(dev, MatmulVariant::best, layout, oa, ob, split, seed);
        if (layout == Layout::row_major) run_problem<double>(dev, MatmulVariant::best, layout, oa, ob, packed, seed);
        run_problem<double>(dev, MatmulVariant::best, layout, oa, ob, peeled, seed);
      }
    }
  }
}

// The size from which packing pays (kernels/matmul/pack_rule.hpp), at the shapes it was measured on (the same rule
// in every storage since the unaligned operands' loads clamp each element).
TEST(GemmPacking, PaysFromTheMeasuredSizes) {
  const auto pays = tk::kernels::matmul_packing::pays;
  // under 2^31 flops' worth: unpacked (2026-12-07: unpacked level or up to 20% faster in NN, TN and TT at these)
  EXPECT_FALSE(pays(1021, 1021, 1021));
  EXPECT_FALSE(pays(1279, 1279, 1279));
  EXPECT_FALSE(pays(777, 1999, 1023));
  EXPECT_FALSE(pays(1000, 1000, 1000));
  // from 2^31: packed (2039^3 packed 5-13% faster)
  EXPECT_FALSE(pays(1290, 1290, 1290));  // just under 2^31
  EXPECT_TRUE(pays(1291, 1291, 1291));   // just over
  EXPECT_TRUE(pays(1531, 1531, 1531));
  EXPECT_TRUE(pays(2039, 2039, 2039));
  EXPECT_TRUE(pays(1000, 1001, 4003));  // M N / (M + N) = 500
  EXPECT_TRUE(pays(777, 1999, 3333));
  EXPECT_TRUE(pays(4001, 4003, 511));
  EXPECT_FALSE(pays(999, 1000, 8000));        // M N / (M + N) under 500
  EXPECT_FALSE(pays(32, 8192, 4096));         // skinny: M N / (M + N) = 32
  EXPECT_FALSE(pays(2050, 2051, 3));          // short K: the copy's fixed cost
  EXPECT_TRUE(pays(100000, 100000, 100000));  // no overflow
}

// The matrix units' kernels' packing (pack_rule.hpp, pays_mma) and the TF32 warpgroup kernel's transposed copies
// (tf32_transpose_first), at the shapes that set them.
TEST(GemmPacking, MatrixUnitsPackLargeProductsAndSmallCopies) {
  namespace mp = tk::kernels::matmul_packing;
  // 2049^3, both operands packed: every side >= 128
  EXPECT_TRUE(mp::pays_mma(2049, 2049, 2049, 2 * 2049 * 2056, 2 * 2049 * 2049));
  // 1 x 4096 x 4096 TT: A, a column of 4096 values, padded to 8 a line; B 4096^3 aligned
  EXPECT_TRUE(mp::pays_mma(1, 4096, 4096, 4096 * 8, (1 + 4096) * 4096));
  // 100^3 with both operands packed: a copy of all of them, and no side of 128
  EXPECT_FALSE(mp::pays_mma(100, 100, 100, 2 * 100 * 104, 2 * 100 * 100));
  // 64 x 65536 x 64, A's lines unaligned (an odd lda): 64 x 64 of (64 + 65536) x 64 elements, under an eighth
  EXPECT_TRUE(mp::pays_mma(64, 65536, 64, 64 * 64, (64 + 65536) * 64));
  // the same with B unaligned instead: B is most of the operands
  EXPECT_FALSE(mp::pays_mma(64, 65535, 64, 64 * 65536, (64 + 65535) * 64));
  // 64 x 4096 x 64 with A unaligned: an eighth, but under 2^22 elements of A and B
  EXPECT_FALSE(mp::pays_mma(64, 4096, 64, 64 * 64, (64 + 4096) * 64));
}

TEST(GemmPacking, Tf32TransposesFirstOnlyOperandsThatSeveralTilesRead) {
  namespace mp = tk::kernels::matmul_packing;
  EXPECT_FALSE(mp::tf32_transpose_first(1));  // 1 x 4096 x 4096 NN's B; 4096 x 128 x 4096 TN's A
  EXPECT_TRUE(mp::tf32_transpose_first(2));
  EXPECT_TRUE(mp::tf32_transpose_first(32));  // 4096^3 (128 x 256 tiles): every operand
}

INSTANTIATE_TEST_SUITE_P(All, GemmContract, ::testing::ValuesIn(built_backends()), backend_name);

TEST(GemmConfigs, EveryBackendNamesItsConfigurations) {
  const Device cpu = Device::cpu();
  for (int bytes : {4, 8}) {
    const auto names = tk::matmul_configs(cpu, bytes);
    ASSERT_FALSE(names.empty());
    for (const char* n : names) EXPECT_GT(std::string(n).size(), 3u);
  }
  TK_EXPECT_ERROR(tk::matmul_configs(cpu, 2), "tk::matmul_configs", "'element_bytes' is 2");
}

// A configuration from named parts (kernels/matmul/config.hpp): any order, one derived from another, and its
// name derived from its parts.
TEST(GemmConfigs, AreMadeOfNamedParts) {
  namespace mc = tk::kernels::matmul_config;
  constexpr mc::GemmConfig a = mc::config(mc::Block{128, 128, 8}, mc::Warp{64, 64, 4}, mc::Thread{8, 4}, mc::Lanes{32},
                                          mc::Stages{3}, mc::BlocksPerSM{2}, mc::whole_strips);
  constexpr mc::GemmConfig b = mc::config(mc::whole_strips, mc::BlocksPerSM{2}, mc::Stages{3}, mc::Lanes{32},
                                          mc::Thread{8, 4}, mc::Warp{64, 64, 4}, mc::Block{128, 128, 8});
  static_assert(a.block.m == 128 && a.warp.subtiles_n == 4 && a.pipeline.stages == 3 && a.min_blocks == 2);
  static_assert(a.pipeline.whole && a.pipeline.unroll && !a.pipeline.pairs && !a.lean && mc::complete(a));
  EXPECT_EQ(mc::config_name(a), "b128x128x8_w64x64x4_t8x4_l32_s3_m2_whole");
  EXPECT_EQ(mc::config_name(b), mc::config_name(a));
  constexpr mc::GemmConfig nt = mc::config(a, mc::StripPairs{6, 4}, mc::lean_epilogue);
  static_assert(nt.block.n == 128 && nt.pipeline.pairs && nt.pipeline.stage_at == 6 && nt.pipeline.stage_odd == 4);
  EXPECT_EQ(mc::config_name(nt), "b128x128x8_w64x64x4_t8x4_l32_s3_m2_pairs6.4_whole_lean");
  constexpr mc::GemmConfig rolled =
      mc::config(mc::Block{64, 64, 8}, mc::Warp{32, 32, 2}, mc::Thread{4, 2}, mc::Lanes{64}, mc::rolled);
  EXPECT_EQ(mc::config_name(rolled), "b64x64x8_w32x32x2_t4x2_l64_s2_m1_rolled");
  static_assert(!mc::complete(mc::config(mc::Block{64, 64, 8})), "a configuration without its warp and lanes");
}

// ---- the CPU block's width (kernels/matmul/cpu_block.hpp) ----

// The model on stated machines: (L2 bytes, element bytes, register tile's vectors TN, M, N, batch, slots).
TEST(CpuBlockWidth, FollowsTheL2TheShapeAndTheCores) {
  namespace mc = tk::kernels::matmul_cpu;
  constexpr std::int64_t KiB = 1024;
  // AVX-512 (TN 4: 128, 256 or 512 wide), 1 MiB of L2, 2048^2 on 2 cores (8 slots)
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 2048, 1, 8).bn, 512);
  EXPECT_EQ(mc::block_n(1024 * KiB, 8, 4, 2048, 2048, 1, 8).bn, 256);  // a 512-wide C tile of doubles: 768 KiB
  EXPECT_EQ(mc::block_n(2048 * KiB, 8, 4, 2048, 2048, 1, 8).bn, 512);
  EXPECT_EQ(mc::block_n(512 * KiB, 4, 4, 2048, 2048, 1, 8).bn, 256);
  EXPECT_EQ(mc::block_n(256 * KiB, 4, 4, 2048, 2048, 1, 8).bn, 128);
  EXPECT_EQ(mc::block_n(64 * KiB, 8, 4, 2048, 2048, 1, 8).bn, 128);  // nothing fits: the narrowest
  EXPECT_EQ(mc::block_n(0, 4, 4, 2048, 2048, 1, 8).bn, 128);         // L2 unknown
  // never wider than 512, however large the L2
  EXPECT_EQ(mc::block_n(2048 * KiB, 4, 4, 2048, 2048, 1, 8).bn, 512);
  EXPECT_EQ(mc::block_n(8192 * KiB, 8, 4, 4096, 4096, 1, 8).bn, 512);
  // 16 vector registers (TN 2: 64 to 512 wide)
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 2, 2048, 2048, 1, 8).bn, 512);
  EXPECT_EQ(mc::block_n(1024 * KiB, 8, 2, 2048, 2048, 1, 8).bn, 256);
  EXPECT_EQ(mc::block_n(256 * KiB, 4, 2, 2048, 2048, 1, 8).bn, 128);
  // the least padded and copying work, ceil(N / BN) * (BN + 19)
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 200, 1, 8).bn, 256);  // 275 against 294 and 531
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 100, 1, 8).bn, 128);
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 751, 1, 8).bn, 256);   // 825 against 882 and 1062
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 1023, 1, 8).bn, 512);  // 1062 against 1100 and 1176
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 257, 1, 8).bn, 128);   // 441 against 531 and 550
  // a block per slot: narrowed while the grid is short of them (64 cores: 256 slots), batches count
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 2048, 1, 256).bn, 128);
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 2048, 1, 80).bn, 256);  // 11 x 8 = 88 blocks at 256
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 192, 2048, 1, 8).bn, 256);    // 1 x 8 blocks at 256
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 192, 2048, 2, 8).bn, 512);    // a batch of 2: 1 x 4 x 2
  // C of at most 96 rows: 48-row blocks, 64 TN wide, whatever the L2 and the slots
  for (std::int64_t m : {9, 32, 96}) {
    EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, m, 2048, 1, 8).bm, 48);
    EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, m, 2048, 1, 8).bn, 256);
    EXPECT_EQ(mc::block_n(256 * KiB, 8, 2, m, 100, 1, 256).bn, 128);
  }
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 97, 2048, 1, 8).bm, 192);
  // more than 96 rows whose 192-row blocks (a tail apart), at their narrowest, are fewer than the threads: 48-row
  // blocks (250 x 125: one block of 192 x 128 and a tail of 58 rows on 2 threads)
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 250, 125, 1, 8).bm, 48);
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 250, 125, 1, 8).bn, 128);  // 32 TN: less padding than 64 TN
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 20, 1000, 1, 8).bn, 256);  // 4 x 260 against 8 x 132 (cost48)
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 150, 60, 1, 8).bn, 64);
  EXPECT_TRUE(mc::block_n(1024 * KiB, 4, 4, 150, 20, 1, 8).narrow);
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 150, 20, 1, 8).bm, 48);
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 255, 255, 1, 8).bm, 192);  // two blocks of 192 x 128
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 250, 125, 2, 8).bm, 192);  // a batch of 2
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 250, 125, 1, 4).bm, 192);  // one thread
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 2048, 1, 8).bm, 192);
  // C of at most 16 TN columns: 16 TN wide, in blocks of either height
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 64, 1, 8).bn, 64);
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, 65, 1, 8).bn, 128);
  EXPECT_EQ(mc::block_n(1024 * KiB, 8, 2, 2048, 32, 1, 8).bn, 32);
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 32, 33, 1, 8).bn, 64);
  EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 32, 33, 1, 8).bm, 48);
  EXPECT_FALSE(mc::block_n(1024 * KiB, 4, 4, 2048, 33, 1, 8).narrow);
  // ... and of at most 8 TN columns with a tile of 4 or more vectors: 8 TN wide, a thread tile of TN / 2 (not with
  // 16 registers' TN 2, whose half would leave 6 sums in flight)
  for (std::int64_t n : {9, 32}) {
    EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, n, 1, 8).bn, 32);
    EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 2048, n, 1, 8).bm, 192);
    EXPECT_TRUE(mc::block_n(1024 * KiB, 4, 4, 2048, n, 1, 8).narrow);
    EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 32, n, 1, 8).bn, 32);
    EXPECT_EQ(mc::block_n(1024 * KiB, 4, 4, 32, n, 1, 8).bm, 48);
    EXPECT_TRUE(mc::block_n(1024 * KiB, 8, 4, 32, n, 1, 8).narrow);
    EXPECT_FALSE(mc::block_n(1024 * KiB, 8, 2, 2048, n, 1, 8).narrow);
    EXPECT_EQ(mc::block_n(1024 * KiB, 8, 2, 2048, n, 1, 8).bn, 32);
  }
}

// A CPU block's tiles of C (cpu_block.hpp, row_tiles): (rows of tiles, columns of tiles, batch, slots) -> tiles.
TEST(CpuBlockRowTiles, AsManyAsKeepTheSlotsBusyEvenedOut) {
  namespace mc = tk::kernels::matmul_cpu;
  if (mc::max_row_tiles < 16) GTEST_SKIP() << "this build stops at " << mc::max_row_tiles << " tiles a block";
  EXPECT_EQ(mc::row_tiles(11, 8, 1, 8), 11);   // SGEMM 2048^3 on 2 threads (AVX2): 8 blocks of 11 tiles
  EXPECT_EQ(mc::row_tiles(11, 8, 1, 16), 6);   // 4 threads: 16 blocks, 6 and 5 tiles, not 10 and 1
  EXPECT_EQ(mc::row_tiles(22, 16, 1, 8), 11);  // at most 16: two blocks of 11 a column
  EXPECT_EQ(mc::row_tiles(40, 1, 1, 1), 14);   // 16, evened out over the 40: 14, 14 and 12
  EXPECT_EQ(mc::row_tiles(1, 100, 1, 8), 1);   // one row of tiles
  EXPECT_EQ(mc::row_tiles(4, 1, 1, 8), 1);     // 4 blocks already under the 8 slots
  EXPECT_EQ(mc::row_tiles(3, 1, 1000, 8), 3);  // a batch: each matrix in one block
  EXPECT_EQ(mc::row_tiles(6, 2, 1, 8), 1);     // 12 blocks; 2 tiles a block would leave 6
  // the makespan: SGEMM 1500^2 x 250 on 2 threads (8 x 3 tiles of 192 x 512, the last row 156 rows, the last column
  // 476): 2 tiles a block (12 blocks, 6 for each thread), not 3 (9 blocks: 5 and 4, 15 tiles' work and 9)
  EXPECT_EQ(mc::row_tiles(8, 3, 1, 8, 156.0 / 192, 476.0 / 512), 2);
  EXPECT_DOUBLE_EQ(mc::row_tiles_makespan(3, 8, 3, 1, 2, 1, 1), 15 + 5 * 0.125);
  EXPECT_DOUBLE_EQ(mc::row_tiles_makespan(2, 8, 3, 1, 2, 1, 1), 12 + 6 * 0.125);
  // ... 2 rows of blocks go column by column: thread 0 takes columns 0 and the top of 1, thread 1 the rest, here
  // with the last row of tiles half full, then with the last column half full
  EXPECT_DOUBLE_EQ(mc::row_tiles_makespan(4, 8, 3, 1, 2, 0.5, 1), 11.5 + 3 * 0.125);
  EXPECT_DOUBLE_EQ(mc::row_tiles_makespan(4, 8, 3, 1, 2, 1, 0.5), 12 + 3 * 0.125);
}

// Split-K on a CPU (cpu_block.hpp, k_splits): (blocks, threads, K) -> ways.
TEST(CpuBlockWidth, SplitsKWhenBlocksAreFewerThanThreads) {
  namespace mc = tk::kernels::matmul_cpu;
  EXPECT_EQ(mc::k_splits(1, 2, 16384), 2);  // 32 x 32 x 16384 on 2 threads
  EXPECT_EQ(mc::k_splits(1, 1, 16384), 1);  // one thread: nothing to gain
  EXPECT_EQ(mc::k_splits(1, 16, 16384), 16);
  EXPECT_EQ(mc::k_splits(1, 128, 16384), 16);    // each split at least 8 strips of 128
  EXPECT_EQ(mc::k_splits(1, 128, 1 << 20), 64);  // at most 64
  EXPECT_EQ(mc::k_splits(3, 2, 16384), 2);       // 1.5 blocks' time against 2
  EXPECT_EQ(mc::k_splits(8, 2, 16384), 1);       // the threads are busy already
  EXPECT_EQ(mc::k_splits(5, 4, 16384), 4);       // 20 blocks of a quarter: 1.25 against 2
  EXPECT_EQ(mc::k_splits(1, 2, 2047), 1);        // two splits would be under 8 strips each
  EXPECT_EQ(mc::k_splits(1, 2, 2048), 2);
}

// The last rows of C in 48-row blocks of their own (cpu_block.hpp, tail_rows): M -> rows.
TEST(CpuBlockWidth, RunsAShortLastRowOfBlocksApart) {
  namespace mc = tk::kernels::matmul_cpu;
  EXPECT_EQ(mc::tail_rows(195), 3);
  EXPECT_EQ(mc::tail_rows(288), 96);
  EXPECT_EQ(mc::tail_rows(289), 0);  // 97 rows: a 192-row block's half or more is used
  EXPECT_EQ(mc::tail_rows(384), 0);  // whole blocks
  EXPECT_EQ(mc::tail_rows(1023), 63);
  EXPECT_EQ(mc::tail_rows(96), 0);   // all of C takes 48-row blocks already
  EXPECT_EQ(mc::tail_rows(150), 0);  // one 192-row block
}

// `best` on the CPU for each shape in every storage, float and double, where tk::matmul_tile_choice says
// the block begins with `block` ("192 x ", "48 x ") and gives a reason that contains `why`.
void expect_best_on_cpu_blocks(const Device& dev, const std::vector<GemmShape>& shapes, std::uint64_t seed,
                               const std::string& block, const std::string& why = "") {
  for (int bytes : {4, 8}) {
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const GemmShape& s = shapes[i];
      const std::string choice = tk::matmul_tile_choice(dev, bytes, s.M, s.N, s.K, s.batch);
      EXPECT_NE(choice.find("register_tiled, block " + block), std::string::npos) << choice;
      EXPECT_NE(choice.find(why), std::string::npos) << choice;
      SCOPED_TRACE(choice);
      for (Op oa : kOps) {
        for (Op ob : kOps) {
          if (!in_instrumented_half(i, storage_index(oa, ob))) continue;
          if (bytes == 4) run_problem<float>(dev, MatmulVariant::best, Layout::row_major, oa, ob, s, seed);
          else run_problem<double>(dev, MatmulVariant::best, Layout::row_major, oa, ob, s, seed);
        }
      }
    }
  }
}

// C of 9 to 96 rows: `best` on the CPU takes 48-row blocks (cpu_block.hpp); one and two rows of blocks,
// a last row of blocks with 2 rows of C, a row of threads with 3, K over a partial second strip, a batch;
// every storage, both types.
TEST(CpuBlockWidth, SmallMMatchesWiderReference) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<GemmShape> shapes{
      {32, 300, 150, 1, 3, 2, 1.5, -0.5},    // one row of blocks, two k strips, a partial last block
      {9, 520, 40, 0, 0, 0, 1, 0},           // the second row of threads holds 3 rows of C
      {96, 257, 129, 2, 1, 0, -1, 1},        // two full rows of blocks; a last block of 1 column
      {50, 100, 64, 0, 0, 0, 1, 0.5, 3, 5},  // the second row of blocks has 2 rows; a batch of 3
      {20, 1000, 130, 0, 2, 1, 1, 0},        // 64 TN wide (the others: 32 TN, which pads less there)
  };
  expect_best_on_cpu_blocks(dev, shapes, seed, "48 x ");
}

// A single product of fewer blocks than threads: `best` on the CPU splits K (with one thread it cannot, and
// the same shapes check the unsplit path); one block of each height, two splits of K whose last strips are
// 24 and 124 deep, three and four splits where the threads allow them, beta read and not; every storage,
// both types. With two threads or more, a C of 100, 150 or 250 rows whose one 192-row block would leave threads idle
// takes 48-row blocks (cpu_block.hpp), which split K where they are still too few (3 for 100 rows); with exactly
// two, 3 tiles of 192 rows split K two ways.
TEST(CpuBlockWidth, SplitKMatchesWiderReference) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int threads = tk::detail::cpu_executor_threads();
  const std::string why = threads > 1 ? "K split " : "";
  expect_best_on_cpu_blocks(dev, {{40, 50, 2200, 1, 3, 2, 1.5, -0.5}, {33, 70, 4100, 0, 0, 0, 1, 0}}, seed, "48 x ",
                            why);
  expect_best_on_cpu_blocks(dev, {{100, 9, 3100, 2, 0, 1, 1, 0.5}}, seed, threads > 1 ? "48 x " : "192 x ",
                            threads <= 2 ? why : "");
  expect_best_on_cpu_blocks(dev, {{150, 60, 2300, 0, 1, 0, -1, 1}, {250, 60, 300, 1, 0, 2, 1, 0}}, seed,
                            threads > 1 ? "48 x " : "192 x ",
                            threads > 1 ? "192-row blocks fewer than the threads" : "");
  if (threads == 2) expect_best_on_cpu_blocks(dev, {{576, 20, 2100, 0, 1, 0, -1, 1}}, seed, "192 x ", "K split 2 ways");
}

// C of 9 to 8 TN columns (32 floats or doubles with AVX-512's 32 registers): blocks 8 TN wide and a thread tile of
// TN / 2 vectors (cpu_block.hpp, narrow_tn); both heights of block, a tail of 66 rows, K split (two threads) and
// over a 16-deep last strip, K of 16, a batch; beta read and not; every storage, both types. A copy with 16
// registers keeps 16 TN blocks, and the same shapes check it.
TEST(CpuBlockWidth, NarrowColumnsMatchWiderReference) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // (192-row blocks where 2 of them keep the threads busy: two threads at most)
  const int threads = tk::detail::cpu_executor_threads();
  const std::vector<GemmShape> tall{
      {300, 32, 144, 1, 3, 2, 1.5, -0.5}, {450, 9, 16, 0, 0, 0, 1, 0}, {576, 31, 2100, 2, 0, 1, -1, 1}};
  const std::vector<GemmShape> small{{50, 17, 70, 0, 0, 0, 1, 0.5, 3, 5}, {40, 30, 2200, 1, 1, 0, 1, 0}};
  expect_best_on_cpu_blocks(dev, tall, seed, threads <= 2 ? "192 x " : "");
  expect_best_on_cpu_blocks(dev, small, seed, "48 x ");
  for (const GemmShape& s : tall) {
    const std::string choice = tk::matmul_tile_choice(dev, 4, s.M, s.N, s.K, s.batch);
    if (choice.find("(32 vector registers") != std::string::npos)
      EXPECT_NE(choice.find("8 TN wide, TN / 2 vectors a thread"), std::string::npos) << choice;
  }
}

// A last row of blocks of 1 to 96 rows of C runs as 48-row blocks after the others: 3, 63, 96 and 7 rows
// (a batch), K over partial strips, beta read and not; every storage, both types.
TEST(CpuBlockWidth, TailRowsMatchWiderReference) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<GemmShape> shapes{
      {195, 130, 70, 1, 3, 2, 1.5, -0.5},
      {447, 64, 300, 0, 0, 0, 1, 0},
      {480, 33, 129, 2, 1, 0, -1, 1},
      {391, 100, 20, 0, 0, 0, 1, 0.5, 2, 3},
  };
  // (with more than two threads, a C of 2 rows of 192-row blocks or fewer takes 48-row blocks whole: cpu_block.hpp)
  if (tk::detail::cpu_executor_threads() <= 2)
    expect_best_on_cpu_blocks(dev, shapes, seed, "192 x ", "rows in 48-row blocks of their own");
  else expect_best_on_cpu_blocks(dev, shapes, seed, "");
}

// Blocks of several 192-row tiles of C, one above the other (cpu_block.hpp, row_tiles: each strip of B copied
// once for them), where the grid keeps its slots busy with fewer blocks and its threads evenly loaded: 12 rows of
// tiles, the last of 188 rows (3 a block on 2 threads), 10 and a tail of 80 (5 a block), a batch of 2 (8 rows of
// tiles and a tail of 64) with gaps; tiles cut at C's last row and column, beta read and not; every storage, both
// types. With 2 threads or fewer (8 slots) the choice names the tiles a block; under ctest's cpu.Gemm.ThreeTilesABlock (TK_MATMUL_ROW_TILES=3) every unsplit product takes up
// to 3.
TEST(CpuBlockWidth, SeveralTilesABlockMatchWiderReference) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
#if defined(TK_CHECKED)
  GTEST_SKIP() << "shapes large enough for several tiles a block (a minute in checked mode); ctest's "
                  "cpu.Gemm.TwoTilesABlock runs two a block on smaller ones here";
#endif
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<GemmShape> shapes{
      {2300, 700, 20, 1, 3, 2, 1.5, -0.5},
      {2000, 633, 36, 0, 0, 0, 1, 0},
      {1600, 200, 16, 2, 0, 1, 1, 0.5, 2, 5},
      {500, 140, 300, 0, 2, 1, -1, 0.25},  // 3 tiles, the last of 116 rows, over 3 strips: several a block when forced
  };
  const bool named = tk::detail::cpu_executor_threads() <= 2;
  expect_best_on_cpu_blocks(dev, {shapes.begin(), shapes.end() - 1}, seed, "192 x ",
                            named ? " tiles of C a block" : "");
  // (6 blocks of 192 rows at their narrowest: 48-row blocks with more than 6 threads, cpu_block.hpp)
  expect_best_on_cpu_blocks(dev, {shapes.end() - 1, shapes.end()}, seed,
                            tk::detail::cpu_executor_threads() <= 6 ? "192 x " : "");
}

// C of 9 to 16 TN columns (32 with AVX2's 2 vectors, 64 with AVX-512's 4, whose C of at most 32 columns takes
// the narrow blocks instead: NarrowColumnsMatchWiderReference): blocks 16 TN wide, of 192 and of 48 rows; the
// narrowest C over the tile path, one full width, a partial last row of blocks, a batch.
TEST(CpuBlockWidth, FewColumnsMatchWiderReference) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const bool tn4 = tk::matmul_tile_choice(dev, 4, 300, 64, 150, 1).find("(32 vector registers") != std::string::npos;
  const std::int64_t n0 = tn4 ? 33 : 9, n1 = tn4 ? 64 : 32;  // the narrowest and widest such C
  // (192 rows where a few of them keep the threads busy: two threads at most)
  const bool tall = tk::detail::cpu_executor_threads() <= 2;
  expect_best_on_cpu_blocks(dev, {{300, n0, 150, 1, 3, 2, 1.5, -0.5}, {200, n1, 40, 0, 0, 0, 1, 0, 2, 7}}, seed,
                            tall ? "192 x " : "", "16 TN wide");
  expect_best_on_cpu_blocks(dev, {{40, n0 + 11, 129, 2, 1, 0, -1, 1}, {49, n1 - 1, 64, 0, 0, 0, 1, 0.5}}, seed, "48 x ",
                            "16 TN wide");
}

// `best` on the CPU on shapes that take each width here (the choice is traced), in every storage, both
// types; and the choice as tk::matmul_tile_choice tells it.
TEST(CpuBlockWidth, EveryWidthMatchesWiderReference) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<GemmShape> shapes{
      {400, 2000, 20, 1, 3, 2, 1.5, -0.5},   // wide: the widest the L2 allows
      {1600, 200, 24, 0, 1, 0, 1, 0},        // N = 200: two vectors of threads per TN at most
      {100, 1000, 19, 0, 0, 0, 1, 0, 6, 3},  // a batch of 6 makes the blocks
  };
  expect_best_on_cpu_blocks(dev, shapes, seed, "192 x ");
  // few blocks: the narrowest (2 of 192 rows, and 16 rows of a tail; with more than two threads, 48-row blocks)
  expect_best_on_cpu_blocks(dev, {{400, 90, 33, 2, 2, 2, -1, 1}}, seed,
                            tk::detail::cpu_executor_threads() <= 2 ? "192 x " : "");
  TK_EXPECT_ERROR(tk::matmul_tile_choice(dev, 4, 0, 8, 8), "tk::matmul_tile_choice", "'M' is 0");
  TK_EXPECT_ERROR(tk::matmul_tile_choice(dev, 3, 8, 8, 8), "tk::matmul_tile_choice", "'element_bytes' is 3");
  TK_EXPECT_ERROR(tk::matmul_tile_choice(dev, 4, 8, 8, 8, 0), "tk::matmul_tile_choice", "'batch' is 0");
  TK_EXPECT_ERROR(tk::matmul_tile_choice(dev, 4, std::int64_t{1} << 32, 8, std::int64_t{1} << 32),
                  "tk::matmul_tile_choice", "overflow a 64-bit index");
  TK_EXPECT_ERROR(tk::matmul_tile_choice(dev, 4, 1 << 20, 1 << 20, 8, std::int64_t{1} << 30), "tk::matmul_tile_choice",
                  "'batch' is 1073741824");
  // a batch is described as it runs: named, and never split along K (a single product of one block is, with two
  // threads or more)
  const std::string batch = tk::matmul_tile_choice(dev, 4, 48, 64, 8192, 100);
  EXPECT_NE(batch.find(", a batch of 100"), std::string::npos) << batch;
  EXPECT_EQ(batch.find("K split"), std::string::npos) << batch;
  if (tk::detail::cpu_executor_threads() > 1) {
    const std::string single = tk::matmul_tile_choice(dev, 4, 48, 64, 8192);
    EXPECT_NE(single.find("K split"), std::string::npos) << single;
    EXPECT_EQ(single.find("a batch"), std::string::npos) << single;
  }
}

// Tiles with few rows of C: `best` on the CPU with M = 1 (a GEMV-like product over three k strips), M = 7
// (one row of C in the second row of threads), a last tile of 8 rows (M = 200), a batch; every storage,
// both types.
TEST(CpuBlockWidth, FewRowsMatchWiderReference) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<GemmShape> shapes{
      {1, 300, 260, 1, 3, 0, 1.5, -0.5},        // a GEMV-like product over three k strips
      {7, 200, 129, 2, 0, 3, -1, 1},            // the second row of threads has one row of C
      {200, 70, 300, 0, 0, 0, 1, 0},            // the second tile has 8 rows
      {3, 100, 140, 0, 1, 0, 0.5, 0.25, 4, 2},  // a batch of 4
  };
  for (int bytes : {4, 8}) {
    for (const GemmShape& s : shapes) {
      for (Op oa : kOps) {
        for (Op ob : kOps) {
          if (bytes == 4) run_problem<float>(dev, MatmulVariant::best, Layout::row_major, oa, ob, s, seed);
          else run_problem<double>(dev, MatmulVariant::best, Layout::row_major, oa, ob, s, seed);
        }
      }
    }
  }
}

// On CUDA, `best` takes cuda_thin_m's 32-row tiles for 65-96 rows of C in NN (and TN) with N >= 2048, where
// three of them beat one 128-row tile of cuda_mid (
// docs/history/performance-log.md#nvidia-h100-65-127-rows-of-c-the-pick-against-the-thin-tiles-65-96-rows-in-nn-and-tn-on-them-2026-11-26-issue-12), and not from 97 rows on or for a
// narrower C; up to 64 rows as before. (The products themselves: GemmSmallSide's 92 x 2052 x 40.)
TEST(GemmTileChoice, CudaThinTilesUpTo96RowsWhereBIsAsStored) {
  TK_DEVICE_OR_SKIP(dev, Backend::cuda);
  const auto choice = [&](std::int64_t M, std::int64_t N, std::int64_t K) {
    return tk::matmul_tile_choice(dev, 4, M, N, K);
  };
  EXPECT_NE(choice(64, 8192, 4096).find("cuda_thin_m"), std::string::npos) << choice(64, 8192, 4096);
  EXPECT_NE(choice(92, 8192, 4096).find("cuda_thin_m"), std::string::npos) << choice(92, 8192, 4096);
  EXPECT_NE(choice(96, 2048, 1024).find("cuda_thin_m"), std::string::npos) << choice(96, 2048, 1024);
  EXPECT_NE(choice(104, 8192, 4096).find("cuda_mid"), std::string::npos) << choice(104, 8192, 4096);
  EXPECT_NE(choice(92, 1024, 4096).find("cuda_mid"), std::string::npos) << choice(92, 1024, 4096);
  EXPECT_NE(choice(92, 8190, 4096).find("cuda_mid"), std::string::npos) << choice(92, 8190, 4096);  // rows not 16-byte
}

// On CUDA, one product whose 128 x 64 tiles of cuda_mid would fill at most a quarter of the SMs, K <= 1024, both
// sides >= 256, takes the thin tiles across its smaller side (policy/cuda.hpp); above a quarter and up to half,
// cuda_batch_64's 64 x 64 tiles (half_wave_tiles_64); above half, K > 1024 or a side under 256, cuda_mid (a batch
// of such matrices too: the rules take single products). The shapes follow the GPU's SMs. The products
// themselves: tools/gpu-check.sh runs the Gemm tests' shapes under every
// configuration, these two among them.
TEST(GemmTileChoice, CudaThinTilesForAProductOfFewTiles) {
  TK_DEVICE_OR_SKIP(dev, Backend::cuda);
  const std::int64_t quarter = dev.props().multiprocessors / 4;  // 33 on an H100 SXM or H200
  if (quarter < 8) GTEST_SKIP() << "fewer than 32 SMs: no product of sides >= 256 fits a quarter of them";
  const auto choice = [&](std::int64_t M, std::int64_t N, std::int64_t K) {
    return tk::matmul_tile_choice(dev, 4, M, N, K);
  };
  const auto picks = [&](std::int64_t M, std::int64_t N, std::int64_t K, const std::string& config) {
    EXPECT_NE(choice(M, N, K).find(config), std::string::npos)
        << M << " x " << N << " x " << K << ": " << choice(M, N, K);
  };
  // 256 rows of C: two tile rows of 128, so quarter / 2 tile columns of 64 fit, and one more does not
  const std::int64_t n_fits = 64 * (quarter / 2), n_over = 64 * (quarter / 2 + 1);
  picks(256, n_fits, 512, "cuda_thin_m");
  picks(256, n_over, 512, "cuda_batch_64");
  const std::int64_t half = dev.props().multiprocessors / 2;  // and half: quarter / 2 + 1 up to half / 2 tile columns
  picks(256, 64 * (half / 2), 512, "cuda_batch_64");
  picks(256, 64 * (half / 2 + 1), 512, "cuda_mid");
  picks(256, n_fits, 1024, "cuda_thin_m");
  picks(256, n_fits, 1028, "cuda_mid");  // K > 1024
  picks(200, n_fits, 512, "cuda_mid");   // a side under 256
  // 256 columns: four tile columns, so quarter / 4 tile rows; M > N (3 tile rows or more) takes the 128 x 32 tiles
  if (quarter >= 12) picks(128 * (quarter / 4), 256, 512, "cuda_thin_n");
  if (dev.props().multiprocessors < 144) picks(768, 768, 768, "cuda_mid");  // 72 tiles: over half of these GPUs
  if (quarter >= 32) picks(512, 512, 512, "cuda_thin_m");                   // 32 tiles: the H100 SXM, H200
  EXPECT_NE(tk::matmul_tile_choice(dev, 4, 256, n_fits, 512, 2).find("cuda_mid"), std::string::npos);
}

// ---- a side of C of at most 8: best streams the other operand (kernels/matmul/gemv.hpp) ----

// Both of gemv.hpp's forms in every storage and layout (small_side_shapes, gemm_support.hpp); the GPU
// launchers' shapes of it run on the CPU in test_gpu_shapes.cpp.
class GemmSmallSide : public ::testing::TestWithParam<std::tuple<Backend, int>> {};

TEST_P(GemmSmallSide, MatchesWiderReference) {
  const auto& [backend, bytes] = GetParam();
  TK_DEVICE_OR_SKIP(dev, backend);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<GemmShape> shapes = small_side_shapes();
#if defined(TK_CHECKED)
  // (a column-major call is the row-major one with the operands swapped, in the host code: checked mode,
  // where every shared-memory access is checked, runs the kernels' storages row-major only)
  for (Layout layout : {Layout::row_major})
#else
  for (Layout layout : kLayouts)
#endif
    for (Op oa : kOps) {
      for (Op ob : kOps) {
        for (std::size_t i = 0; i < shapes.size(); ++i) {
          if (!in_instrumented_half(i, storage_index(oa, ob, layout))) continue;
          if (bytes == 4) run_problem<float>(dev, MatmulVariant::best, layout, oa, ob, shapes[i], seed);
          else run_problem<double>(dev, MatmulVariant::best, layout, oa, ob, shapes[i], seed);
        }
      }
    }
}

std::vector<std::tuple<Backend, int>> small_side_params() {
  std::vector<std::tuple<Backend, int>> out;
  for (Backend b : kernel_backends()) {
    for (int bytes : {4, 8}) out.emplace_back(b, bytes);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, GemmSmallSide, ::testing::ValuesIn(small_side_params()),
                         [](const ::testing::TestParamInfo<std::tuple<Backend, int>>& info) {
                           return std::string(to_string(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) == 4 ? "_float" : "_double");
                         });

// ---- warp_tiled's GPU code paths with small tiles, through the CPU executor ----

// The code paths of warp_tiled's GPU configurations, with smaller tiles (tests/kernels/layer_launch.cpp),
// run through the CPU executor so that CI, which has no GPU, covers them: the unchecked k loop with clamped
// rows and chunks in both storages of each operand, the rolled loop, one stage; aligned and not, whole
// and split along K, float and double. A and B hold exactly the elements the BLAS may touch.
using ConfigParam = std::tuple<std::string, int, bool>;  // configuration, element bytes, 16-byte rows

class MatmulWarpTiledConfigs : public ::testing::TestWithParam<ConfigParam> {};

template <class T>
void run_config(const std::string& config, bool aligned, Op oa, Op ob, const GemmShape& s, int splits,
                std::uint64_t seed) {
  const Device dev = Device::cpu();
  std::mt19937_64 rng(seed);
  const GemmProblem<T> p = make_problem<T>(Layout::row_major, oa, ob, s, rng);
  constexpr std::int64_t vec = 16 / sizeof(T);
  if (aligned && (p.lda % vec || p.ldb % vec)) return;  // this storage of the shape has no 16-byte rows
  Buffer<T> A(dev, p.a), B(dev, p.b), C(dev, p.c0), partial(dev, static_cast<std::size_t>(splits * s.M * s.N));
  const tk::detail::GemmArgs<T> args = launcher_args(p, A.data(), B.data(), C.data(), s.batch);
  test_launchers::cpu::warp_tiled_config(dev, config.c_str(), aligned, args, splits, partial.data());
  expect_gemm_matches(p, C.to_host());
}

TEST_P(MatmulWarpTiledConfigs, MatchWiderReferenceOnTheCpu) {
  const auto& [config, bytes, aligned] = GetParam();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // edge blocks in M and N that clamp (inner extents multiples of 4), blocks clear of N with N % 4 != 0, a
  // partial last strip (K % 16 != 0), N < 4, a batch; then a long K for the splits
  const std::vector<GemmShape> shapes = aligned ? std::vector<GemmShape>{{260, 300, 72, 4, 0, 4, 1, 0.5},
                                                                         {300, 520, 100},
                                                                         {131, 4, 40, 0, 0, 1},
                                                                         {68, 72, 36, 0, 0, 0, 1, 0, 2, 4}}
                                                : std::vector<GemmShape>{{150, 200, 100, 1, 1, 1},
                                                                         {255, 257, 129, 1, 0, 2, 2, -1},
                                                                         {70, 130, 90, 3, 5, 7},
                                                                         {131, 3, 40, 0, 1, 0},
                                                                         {67, 71, 35, 1, 1, 1, 1, 0, 3, 1}};
  for (Op oa : kOps) {
    for (Op ob : kOps) {
      // as compiled (layer_launch.cpp): unrolled_bk8 in every storage, the others with op(A) = op(B)
      if (config != "unrolled_bk8" && oa != ob) continue;
      // (the configurations compiled for NN and TT alone take one of them per shape in checked mode)
      const std::size_t storage = config == "unrolled_bk8" ? storage_index(oa, ob) : std::size_t(oa == Op::trans);
      for (std::size_t i = 0; i < shapes.size(); ++i) {
        if (!in_instrumented_half(i, storage)) continue;
        if (bytes == 4) run_config<float>(config, aligned, oa, ob, shapes[i], 1, seed);
        else run_config<double>(config, aligned, oa, ob, shapes[i], 1, seed);
      }
      const GemmShape long_k = aligned ? GemmShape{200, 264, 1024} : GemmShape{97, 131, 777, 1, 1, 0};
      if (!in_instrumented_half(shapes.size(), storage)) continue;
      if (bytes == 4) run_config<float>(config, aligned, oa, ob, long_k, aligned ? 3 : 2, seed);
      else run_config<double>(config, aligned, oa, ob, long_k, aligned ? 3 : 2, seed);
    }
  }
}

std::vector<ConfigParam> config_params() {
  std::vector<ConfigParam> out;
  for (const char* c : test_launchers::cpu::warp_tiled_test_configs()) {
    for (int bytes : {4, 8}) {
      for (bool aligned : {true, false})
        if (bytes == 4 || std::string(c) == "unrolled_bk8") out.emplace_back(c, bytes, aligned);
    }
  }
  return out;
}

std::string config_name(const ::testing::TestParamInfo<ConfigParam>& info) {
  const auto& [config, bytes, aligned] = info.param;
  return "cpu_" + config + (bytes == 4 ? "_float" : "_double") + (aligned ? "_aligned" : "_unaligned");
}

INSTANTIATE_TEST_SUITE_P(Cpu, MatmulWarpTiledConfigs, ::testing::ValuesIn(config_params()), config_name);

}  // namespace
}  // namespace tk::test
