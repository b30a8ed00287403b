// The matrix units' precisions: tk::bf16 and tk::f16 (their rounding against independent references),
// tk::tf32_round, and tk::gemm / tk::gemm_strided_batched with 16-bit inputs (float or 16-bit C) and with
// Math::tf32, on every backend and through every path (the tensor-core kernel, its CPU emulation under
// warp_tiled, the float kernels on converted copies), against an FP64 reference of the same inputs
// (gemm16_support.hpp), and their argument checks.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>

#include "gemm16_support.hpp"
#include "tilekit/mma.hpp"
#include "matmul_support.hpp"
#include "support.hpp"

namespace tk::test {
namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Floats of every exponent, specials, and the halfway points of both 16-bit formats.
std::vector<float> test_floats() {
  std::mt19937_64 rng(7);
  std::vector<float> v = {0.f,
                          -0.f,
                          1.f,
                          -1.f,
                          65504.f,
                          65519.f,
                          65520.f,
                          1e-8f,
                          6e-8f,
                          3e-8f,
                          2.98023224e-8f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::min()};
  for (int i = 0; i < 200000; ++i) v.push_back(from_bits(static_cast<std::uint32_t>(rng())));
  for (std::uint32_t h = 0; h < 0x10000; h += 7) {  // bf16 halfway points: a bf16 and half its ulp
    v.push_back(from_bits((h << 16) | 0x8000u));
    v.push_back(from_bits((h << 16) | 0x7fffu));
  }
  return v;
}

// The nearest of the values representable with `mant` mantissa bits and the format's exponents, by exhaustive
// comparison in double (the candidates: x truncated and the next one up); ties to even, or away from zero.
TEST(Numeric, Bf16RoundsToNearestEven) {
  for (float x : test_floats()) {
    const tk::bf16 h(x);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(h)));
      continue;
    }
    const std::uint32_t lo = bits(x) >> 16;
    const double a = from_bits(lo << 16), b = from_bits((lo + 1) << 16);  // b: the next magnitude up (or Inf)
    const double dx = std::abs(double(x) - a), dy = std::isinf(b) ? INFINITY : std::abs(b - double(x));
    std::uint32_t want = dx < dy ? lo : dx > dy ? lo + 1 : ((lo & 1) ? lo + 1 : lo);
    if (std::isinf(x)) want = lo;
    // past the largest bf16 (0x1.fep127) by half an ulp (2^119) or more: infinity (the tie goes to the even Inf)
    if (!std::isinf(x) && std::abs(double(x)) >= 0x1.ffp127) want = (bits(x) & 0x80000000u) >> 16 | 0x7f80u;
    EXPECT_EQ(h.bits, want) << x;
    EXPECT_EQ(bits(static_cast<float>(h)), std::uint32_t{h.bits} << 16);  // exact back
  }
}

#if defined(__FLT16_MAX__)
// The compiler's _Float16 (IEEE binary16, round to nearest even) is the reference.
TEST(Numeric, F16MatchesTheCompilersFloat16) {
  for (float x : test_floats()) {
    const tk::f16 h(x);
    const _Float16 r = static_cast<_Float16>(x);
    std::uint16_t rb;
    std::memcpy(&rb, &r, 2);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(h))) << x;
      continue;
    }
    EXPECT_EQ(h.bits, rb) << x;
  }
  for (std::uint32_t b = 0; b < 0x10000; ++b) {  // every f16, back to float exactly
    const auto hb = static_cast<std::uint16_t>(b);
    _Float16 r;
    std::memcpy(&r, &hb, 2);
    const float got = static_cast<float>(tk::f16::from_bits(hb)), want = static_cast<float>(r);
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << b;
    else EXPECT_EQ(bits(got), bits(want)) << b;
  }
}
#endif

TEST(Numeric, Tf32RoundsToNearestTiesAwayFromZero) {
  EXPECT_EQ(tk::tf32_round(1.f + 0x1p-12f), 1.f);             // a quarter of an ulp: down
  EXPECT_EQ(tk::tf32_round(1.f + 0x1p-11f), 1.f + 0x1p-10f);  // half an ulp: away from zero
  EXPECT_EQ(tk::tf32_round(-(1.f + 0x1p-11f)), -(1.f + 0x1p-10f));
  EXPECT_EQ(tk::tf32_round(1.f + 0x1p-10f + 0x1p-11f), 1.f + 0x1p-9f);  // ties away, not to even
  EXPECT_TRUE(std::isinf(tk::tf32_round(std::numeric_limits<float>::infinity())));
  EXPECT_TRUE(std::isnan(tk::tf32_round(std::numeric_limits<float>::quiet_NaN())));
  for (float x : test_floats()) {
    if (!std::isfinite(x)) continue;
    const float r = tk::tf32_round(x);
    EXPECT_EQ(bits(r) & 0x1fffu, 0u) << x;                      // 10 mantissa bits
    if (std::isfinite(r) && std::fpclassify(x) == FP_NORMAL) {  // (ilogb of 0 is INT_MIN)
      const double ulp = std::ldexp(1.0, std::ilogb(x) - 10);
      EXPECT_LE(std::abs(double(r) - x), ulp / 2) << x;
    }
  }
}

TEST(Numeric, SixteenBitTypesLiveInBuffers) {
  static_assert(sizeof(tk::bf16) == 2 && sizeof(tk::f16) == 2 && std::is_trivially_copyable_v<tk::bf16> &&
                std::is_trivially_copyable_v<tk::f16>);
  const Device dev = Device::cpu();
  const std::vector<tk::bf16> v = {tk::bf16(1.5f), tk::bf16(-2.f), tk::bf16(3.25f)};
  const Buffer<tk::bf16> b(dev, v);
  const auto back = b.to_host();
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(static_cast<float>(back[2]), 3.25f);
  EXPECT_STREQ(tk::to_string(tk::Math::tf32), "tf32");
}

// ---- the matrix units' layout tables (tilekit/mma.hpp) ----

// Every element of A (m x k), B (k x n) and the accumulator (m x n) is held by exactly one value of one lane, in
// NVIDIA's warp-32 tables and CDNA's wave-64 ones, every precision. (That they match the hardware only a GPU
// shows: the Gemm16 tests on CUDA.)
template <class O>
void expect_tables_cover_once(const char* what) {
  std::vector<int> a(O::m * O::k, 0), b(O::k * O::n, 0), c(O::m * O::n, 0);
  constexpr int R = O::per_reg;
  for (int l = 0; l < O::lanes; ++l) {
    for (int v = 0; v < O::a_regs * R; ++v) {
      const tk::mma::Coord x = O::a(l, v);
      ASSERT_TRUE(x.r >= 0 && x.r < O::m && x.c >= 0 && x.c < O::k) << what << " A lane " << l << " value " << v;
      ++a[x.r * O::k + x.c];
    }
    for (int v = 0; v < O::b_regs * R; ++v) {
      const tk::mma::Coord x = O::b(l, v);
      ASSERT_TRUE(x.r >= 0 && x.r < O::k && x.c >= 0 && x.c < O::n) << what << " B lane " << l << " value " << v;
      ++b[x.r * O::n + x.c];
    }
    for (int i = 0; i < O::c_regs; ++i) {
      const tk::mma::Coord x = O::c(l, i);
      ASSERT_TRUE(x.r >= 0 && x.r < O::m && x.c >= 0 && x.c < O::n) << what << " C lane " << l << " value " << i;
      ++c[x.r * O::n + x.c];
    }
  }
  for (int n : a) EXPECT_EQ(n, 1) << what << ": an element of A held " << n << " times";
  for (int n : b) EXPECT_EQ(n, 1) << what << ": an element of B held " << n << " times";
  for (int n : c) EXPECT_EQ(n, 1) << what << ": an element of C held " << n << " times";
}

TEST(MmaLayouts, EveryElementIsHeldOnceInEveryTable) {
  using P = tk::mma::Precision;
  using tk::mma::Op;
  expect_tables_cover_once<Op<P::f64, false>>("warp32 f64");
  expect_tables_cover_once<Op<P::tf32, false>>("warp32 tf32");
  expect_tables_cover_once<Op<P::bf16, false>>("warp32 bf16");
  expect_tables_cover_once<Op<P::f16, false>>("warp32 f16");
  expect_tables_cover_once<Op<P::f64, true>>("wave64 f64");
  expect_tables_cover_once<Op<P::tf32, true>>("wave64 tf32");
  expect_tables_cover_once<Op<P::bf16, true>>("wave64 bf16");
  expect_tables_cover_once<Op<P::f16, true>>("wave64 f16");
}

// The warpgroup instruction's accumulator (tk::mma::Warpgroup::c): every element of the 64 x N block held once
// by the 128 threads, warp w holding rows 16 w .. 16 w + 15 in the warp-level m16n8 accumulator layout repeated
// along N (the PTX ISA's wgmma D figure), so the table is checked against the one the mma.sync tests prove.
template <tk::mma::Precision P, int N>
void expect_warpgroup_table() {
  using W = tk::mma::Warpgroup<P, N>;
  using O = tk::mma::Op<P, false>;
  std::vector<int> c(64 * N, 0);
  for (int t = 0; t < W::threads; ++t) {
    for (int i = 0; i < W::c_regs; ++i) {
      const tk::mma::Coord x = W::c(t, i), y = O::c(t % 32, i % 4);
      ASSERT_TRUE(x.r >= 0 && x.r < 64 && x.c >= 0 && x.c < N) << "thread " << t << " value " << i;
      EXPECT_EQ(x.r, 16 * (t / 32) + y.r) << "thread " << t << " value " << i;
      EXPECT_EQ(x.c, 8 * (i / 4) + y.c) << "thread " << t << " value " << i;
      ++c[x.r * N + x.c];
    }
  }
  for (int n : c) EXPECT_EQ(n, 1) << "warpgroup n" << N << ": an element of C held " << n << " times";
}

TEST(MmaLayouts, WarpgroupAccumulatorIsTheWarpLayoutAlongN) {
  using P = tk::mma::Precision;
  expect_warpgroup_table<P::bf16, 256>();
  expect_warpgroup_table<P::f16, 128>();
}

// The 128-byte swizzle (tk::mma::sw128): within each 8-line, 1024-byte period every 16-byte chunk of a line moves
// to chunk (c XOR line % 8) of the same line, elements inside a chunk keep their order, and groups of 128 bytes
// follow one another after all the strip's lines: a strip of 16 lines x 128 BF16 values is a permutation.
TEST(MmaLayouts, Swizzle128IsAPermutationOfChunks) {
  constexpr int lines = 16, cols = 128, per = 64;
  std::vector<int> hit(lines * cols, 0);
  for (int l = 0; l < lines; ++l) {
    for (int e = 0; e < cols; ++e) {
      const int at = tk::mma::sw128<tk::bf16>(l, e, lines);
      ASSERT_TRUE(at >= 0 && at < lines * cols) << l << ", " << e;
      ++hit[at];
      EXPECT_EQ(at / (lines * per), e / per) << l << ", " << e;              // its 128-byte group
      EXPECT_EQ(at % (lines * per) / per, l) << l << ", " << e;              // its line within the group
      EXPECT_EQ(at % per / 8, ((e % per) / 8) ^ (l % 8)) << l << ", " << e;  // its chunk
      EXPECT_EQ(at % 8, e % 8) << l << ", " << e;
    }
  }
  for (int n : hit) EXPECT_EQ(n, 1);
}

// ---- GEMM ----

constexpr Layout kLayouts[] = {Layout::row_major, Layout::col_major};
constexpr Op kOps[] = {Op::none, Op::trans};

enum class Kind { bf16_float, bf16_bf16, f16_float, f16_f16, tf32 };
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::bf16_float: return "bf16_float";
    case Kind::bf16_bf16: return "bf16_bf16";
    case Kind::f16_float: return "f16_float";
    case Kind::f16_f16: return "f16_f16";
    case Kind::tf32: return "tf32";
  }
  return "?";
}

template <class In, class Out>
void run16(const Device& dev, MatmulVariant v, Layout layout, Op oa, Op ob, const GemmShape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr bool tf32 = std::is_same_v<In, float>;
  const Problem16<In, Out> q = make_problem16<In, Out>(layout, oa, ob, s, rng, tf32);
  const GemmProblem<float>& p = q.p;
  Buffer<In> A(dev, q.a), B(dev, q.b);
  Buffer<Out> C(dev, q.c0);
  const float alpha = static_cast<float>(s.alpha), beta = static_cast<float>(s.beta);
  if constexpr (tf32) {
    if (s.batch == 1) {
      tk::gemm(dev, layout, oa, ob, s.M, s.N, s.K, alpha, A.data(), p.lda, B.data(), p.ldb, beta, C.data(), p.ldc, v,
               tk::Math::tf32);
    } else {
      tk::gemm_strided_batched(dev, layout, oa, ob, s.M, s.N, s.K, alpha, A.data(), p.lda, p.sa, B.data(), p.ldb, p.sb,
                               beta, C.data(), p.ldc, p.sc, s.batch, v, tk::Math::tf32);
    }
  } else if (s.batch == 1) {
    tk::gemm(dev, layout, oa, ob, s.M, s.N, s.K, alpha, A.data(), p.lda, B.data(), p.ldb, beta, C.data(), p.ldc, v);
  } else {
    tk::gemm_strided_batched(dev, layout, oa, ob, s.M, s.N, s.K, alpha, A.data(), p.lda, p.sa, B.data(), p.ldb, p.sb,
                             beta, C.data(), p.ldc, p.sc, s.batch, v);
  }
  expect_gemm16_matches(q, C.to_host(), to_string(v));
}

using Param = std::tuple<Backend, MatmulVariant, Kind>;
class Gemm16 : public ::testing::TestWithParam<Param> {};

TEST_P(Gemm16, EveryLayoutAndOpMatchesFp64Reference) {
  const auto& [backend, variant, kind] = GetParam();
  TK_DEVICE_OR_SKIP(dev, backend);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const bool hip_cpu = dev.props().arch == "hip-cpu";
  for (Layout layout : kLayouts) {
    for (Op oa : kOps) {
      for (Op ob : kOps) {
        std::vector<GemmShape> shapes = gemm16_shapes();
        // on a GPU, more strips than the warpgroup kernel's 4 buffers (333 = 5 strips of 64 16-bit values, or 10 of 32
        // floats, and a partial one; 384, 328) over several tiles of 128 x 256: unaligned rows (packed for the
        // warpgroup kernel; TF32's MN-major operands transposed first), 16-byte rows (its copies in flight, no
        // packing), and a batch of 3 of those, which is never packed (TF32: transposed in the strips)
        if (!tk::reads_host_memory(dev.backend())) {
          shapes.push_back({259, 513, 333, 0, 0, 0, 1, 0.5});
          shapes.push_back({256, 512, 384, 0, 0, 0, 1, 0});
          shapes.push_back({136, 264, 328, 0, 0, 0, 1, 0.5, 3, 8});
        }
        // on a CPU, register_tiled's BF16 kernel (the pair dot product: 192 x 256 blocks of threads 6 x 64 each,
        // strips of 256 values of k): two block rows (the second of 5 rows), one thread column of four at work,
        // three strips ending on an odd k; two whole strips, a block column and a sliver; a batch of deep products
        if (dev.backend() == Backend::cpu && variant == MatmulVariant::register_tiled) {
          shapes.push_back({197, 40, 521, 3, 1, 2, 1, 0.5});
          shapes.push_back({96, 264, 512, 0, 0, 0, -1, 0});
          shapes.push_back({7, 20, 300, 1, 0, 1, 0.5, 2, 3, 4});
        }
        // on a CPU, smem_dynamic's BF16 kernel (the tile matrix unit: 256 x 256 blocks of threads 32 x 32 each, strips
        // of 256 values of k, 16 pairs a step): two block rows (the second of 44 rows: a thread row of 12), three
        // thread columns (the last of 6), three strips ending on an odd k (the last of 10 pairs: one step, partly
        // zeros); two whole strips over a block column and one thread column more; a batch of deep products
        if (dev.backend() == Backend::cpu && variant == MatmulVariant::smem_dynamic) {
          shapes.push_back({300, 70, 531, 3, 1, 2, 1, 0.5});
          shapes.push_back({64, 288, 512, 0, 0, 0, -1, 0});
          shapes.push_back({7, 20, 300, 1, 0, 1, 0.5, 2, 3, 4});
        }
        for (std::size_t i = 0; i < shapes.size(); ++i) {
          // HIP-CPU (the hip-cpu preset), 14-28 s per test in CI with every shape, takes half the shapes of each
          // storage, as checked mode does (the cpu preset runs the same kernel sources on all of them)
          const std::size_t storage = storage_index(oa, ob, layout);
          if (hip_cpu ? (i + storage) % 2 != 0 : !in_instrumented_half(i, storage)) continue;
          const GemmShape& s = shapes[i];
          switch (kind) {
            case Kind::bf16_float: run16<tk::bf16, float>(dev, variant, layout, oa, ob, s, seed); break;
            case Kind::bf16_bf16: run16<tk::bf16, tk::bf16>(dev, variant, layout, oa, ob, s, seed); break;
            case Kind::f16_float: run16<tk::f16, float>(dev, variant, layout, oa, ob, s, seed); break;
            case Kind::f16_f16: run16<tk::f16, tk::f16>(dev, variant, layout, oa, ob, s, seed); break;
            case Kind::tf32: run16<float, float>(dev, variant, layout, oa, ob, s, seed); break;
          }
        }
      }
    }
  }
}

// best and warp_tiled (the tensor-core kernel where the device has matrix units; on a CPU warp_tiled is its
// emulation, best the float kernels or, for BF16 where it pays, the pair-dot kernel), and naive (the float kernels
// on converted copies everywhere); on a CPU register_tiled for BF16 (the pair-dot kernel where the CPU has
// AVX512_BF16, and its lane-by-lane form in checked mode; else the converted path) and smem_dynamic for BF16 (the
// tile kernel where the CPU has AMX-BF16 and the process may use it, its element-by-element form in checked mode;
// else the converted path).
std::vector<Param> params16() {
  std::vector<Param> out;
  for (Backend b : built_backends()) {
    for (MatmulVariant v : {MatmulVariant::best, MatmulVariant::warp_tiled, MatmulVariant::naive}) {
      if (b == Backend::kokkos && v != MatmulVariant::best) continue;
      for (Kind k : {Kind::bf16_float, Kind::bf16_bf16, Kind::f16_float, Kind::f16_f16, Kind::tf32})
        out.emplace_back(b, v, k);
    }
    if (b == Backend::cpu)
      for (MatmulVariant v : {MatmulVariant::register_tiled, MatmulVariant::smem_dynamic})
        for (Kind k : {Kind::bf16_float, Kind::bf16_bf16}) out.emplace_back(b, v, k);
  }
  return out;
}

std::string name16(const ::testing::TestParamInfo<Param>& i) {
  const auto& [b, v, k] = i.param;
  return std::string(to_string(b)) + "_" + to_string(v) + "_" + kind_name(k);
}

INSTANTIATE_TEST_SUITE_P(All, Gemm16, ::testing::ValuesIn(params16()), name16);

class Gemm16Contract : public ::testing::TestWithParam<Backend> {};

// TF32 rounds the inputs where the call runs on the matrix units (an NVIDIA GPU's best, any CPU's warp_tiled
// emulation), and only there: 1 + 2^-12 is a quarter of a TF32 ulp above 1.
TEST_P(Gemm16Contract, Tf32RoundsOnTheMatrixUnitsOnly) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const float a = 1.f + 0x1p-12f;
  Buffer<float> A(dev, std::vector<float>{a}), B(dev, std::vector<float>{1.f}), C(dev, std::vector<float>{0.f});
  for (MatmulVariant v : {MatmulVariant::best, MatmulVariant::warp_tiled, MatmulVariant::naive}) {
    tk::gemm(dev, Layout::row_major, Op::none, Op::none, 1, 1, 1, 1.f, A.data(), 1, B.data(), 1, 0.f, C.data(), 1, v,
             tk::Math::tf32);
    const bool units = (dev.backend() == Backend::cuda && v != MatmulVariant::naive &&
                        std::atoi(dev.props().arch.c_str() + 3) >= 80) ||
                       (dev.backend() == Backend::cpu && v == MatmulVariant::warp_tiled);
    if (dev.backend() == Backend::hip || dev.backend() == Backend::kokkos) continue;
    EXPECT_EQ(C.to_host()[0], units ? 1.f : a) << to_string(v);
    tk::gemm(dev, Layout::row_major, Op::none, Op::none, 1, 1, 1, 1.f, A.data(), 1, B.data(), 1, 0.f, C.data(), 1, v);
    EXPECT_EQ(C.to_host()[0], a) << to_string(v) << ": Math::exact (the default) must not round";
  }
}

// How TF32 cuts an input: the warp-level kernel (warp_tiled) rounds to nearest (cvt.rna), sm_90's warpgroup
// instruction (an H100's or H200's best, in builds with sm_90a code: TK_TEST_CUDA_WGMMA, tests/CMakeLists.txt)
// truncates; 1 + 3 2^-12 is 3/4 of a TF32 ulp above 1, so it rounds up to 1 + 2^-10 and truncates to 1. Exact
// where the path has no matrix units.
#if defined(TK_TEST_CUDA_WGMMA)
constexpr bool cuda_wgmma_built = true;
#else
constexpr bool cuda_wgmma_built = false;
#endif
TEST_P(Gemm16Contract, Tf32RoundsOrTruncatesByPath) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  if (dev.backend() == Backend::hip || dev.backend() == Backend::kokkos) GTEST_SKIP() << "no TF32 cut to check here";
  const float a = 1.f + 0x3p-12f, up = 1.f + 0x1p-10f;
  Buffer<float> A(dev, std::vector<float>{a}), B(dev, std::vector<float>{1.f}), C(dev, std::vector<float>{0.f});
  for (MatmulVariant v : {MatmulVariant::best, MatmulVariant::warp_tiled, MatmulVariant::naive}) {
    tk::gemm(dev, Layout::row_major, Op::none, Op::none, 1, 1, 1, 1.f, A.data(), 1, B.data(), 1, 0.f, C.data(), 1, v,
             tk::Math::tf32);
    const float c = C.to_host()[0];
    const bool gpu_units = dev.backend() == Backend::cuda && std::atoi(dev.props().arch.c_str() + 3) >= 80;
    if (v == MatmulVariant::warp_tiled && (gpu_units || dev.backend() == Backend::cpu)) {
      EXPECT_EQ(c, up) << to_string(v) << ": the warp-level kernel rounds to nearest";
    } else if (v == MatmulVariant::best && gpu_units && dev.props().arch == "sm_90" && cuda_wgmma_built) {
      EXPECT_EQ(c, 1.f) << "the warpgroup kernel truncates";
    } else if (v == MatmulVariant::best && gpu_units) {
      EXPECT_EQ(c, up) << to_string(v);
    } else {
      EXPECT_EQ(c, a) << to_string(v) << ": no matrix units on this path, exact";
    }
  }
}

// The float GEMM's checks, with the 16-bit types' positions and sizes; the math argument's.
TEST_P(Gemm16Contract, BadArgumentsAreRefused) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<tk::bf16> A(dev, std::vector<tk::bf16>(64, tk::bf16(1.f))), B(dev, std::vector<tk::bf16>(64, tk::bf16(1.f)));
  Buffer<float> C(dev, std::vector<float>(64, 0.f));
  const Layout R = Layout::row_major;
  const Op N = Op::none;
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 5, 1.f, A.data(), 3, B.data(), 4, 0.f, C.data(), 4), "tk::gemm",
                  "argument 9 'lda' is 3", "lda >= max(1, K) = 5");
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 4, 1.f, A.data(), 4, B.data(), 4, 0.f,
                           reinterpret_cast<float*>(reinterpret_cast<char*>(C.data()) + 2), 4),
                  "tk::gemm", "'C'");
  TK_EXPECT_ERROR(
      tk::gemm_strided_batched(dev, R, N, N, 2, 2, 2, 1.f, A.data(), 2, 4, B.data(), 2, 4, 0.f, C.data(), 2, 0, 3),
      "tk::gemm_strided_batched", "'stride_c' is 0");
  Buffer<float> F(dev, std::vector<float>(64, 1.f));
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 4, 1.f, F.data(), 4, F.data() + 16, 4, 0.f, F.data() + 32, 4,
                           MatmulVariant::best, static_cast<tk::Math>(7)),
                  "tk::gemm", "argument 'math' is 7");
  // a float C over the bf16 A of a batch: C's matrix 0 is A's matrices 6 and 7 (the search over A's matrices steps
  // by A's element size, not C's)
  Buffer<tk::bf16> W(dev, std::vector<tk::bf16>(400, tk::bf16(1.f)));
  float* over = reinterpret_cast<float*>(reinterpret_cast<char*>(W.data()) + 96 * sizeof(tk::bf16));
  TK_EXPECT_ERROR(
      tk::gemm_strided_batched(dev, R, N, N, 4, 4, 4, 1.f, W.data(), 4, 16, B.data(), 4, 0, 0.f, over, 4, 16, 8),
      "tk::gemm_strided_batched", "'C'", "'A'");
  // a C that overlaps B, in the 16-bit type's own element size
  Buffer<tk::f16> H(dev, std::vector<tk::f16>(64, tk::f16(1.f)));
  TK_EXPECT_ERROR(tk::gemm(dev, R, N, N, 4, 4, 4, 1.f, H.data(), 4, H.data() + 16, 4, 0.f, H.data() + 20, 4),
                  "tk::gemm", "'C'", "'B'");
}

// alpha == 0 or K == 0: C = beta * C in the C type, A and B never read (null allowed); beta == 0 writes C
// without reading it (NaN in C); beta == 1 with alpha == 0 leaves C alone.
TEST_P(Gemm16Contract, QuickReturnsAndBetaSemantics) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buffer<tk::bf16> C(dev, std::vector<tk::bf16>{tk::bf16(1.f), tk::bf16(2.f), tk::bf16(nan), tk::bf16(4.f)});
  const tk::bf16* none = nullptr;
  tk::gemm(dev, Layout::row_major, Op::none, Op::none, 2, 2, 0, 1.f, none, 1, none, 2, 0.5f, C.data(), 2);
  auto c = C.to_host();
  EXPECT_EQ(static_cast<float>(c[0]), 0.5f);
  EXPECT_EQ(static_cast<float>(c[1]), 1.f);
  EXPECT_TRUE(std::isnan(static_cast<float>(c[2])));  // 0.5 * NaN
  tk::gemm(dev, Layout::row_major, Op::none, Op::none, 2, 2, 3, 0.f, none, 3, none, 2, 0.f, C.data(), 2);
  c = C.to_host();
  for (const auto& x : c) EXPECT_EQ(static_cast<float>(x), 0.f);  // NaN overwritten: C not read
  Buffer<tk::f16> D(dev, std::vector<tk::f16>{tk::f16(nan)});
  tk::gemm(dev, Layout::row_major, Op::none, Op::none, 1, 1, 5, 0.f, static_cast<const tk::f16*>(nullptr), 5,
           static_cast<const tk::f16*>(nullptr), 1, 1.f, D.data(), 1);
  EXPECT_TRUE(std::isnan(static_cast<float>(D.to_host()[0])));  // left alone
}

INSTANTIATE_TEST_SUITE_P(All, Gemm16Contract, ::testing::ValuesIn(built_backends()), backend_name);

}  // namespace
}  // namespace tk::test
