// The stencils on every backend, every variant (naive, smem_tiled, best), against a double-precision
// reference with zero outside the array.
//
// Tolerance, per element: |got - ref| <= (terms + 2) * 2^-24 * magnitude, where `terms` is the number of
// products summed and `magnitude` the sum of their absolute values (times the moving average's scale):
// the bound on a float sum of that many terms in any order, with or without fused multiply-adds (each
// step rounds once, by at most 2^-24 of the running magnitude), plus the scale's rounding. Elements of
// `out` outside the result (padding columns) must keep their NaN poison.
#include <iterator>
#include <tuple>
#include <vector>

#include "support.hpp"

namespace tk {
inline void PrintTo(StencilVariant v, std::ostream* os) { *os << to_string(v); }
}  // namespace tk

namespace tk::test {
namespace {

constexpr double unit_roundoff = 1.0 / (1 << 24);

// Checks got[k] against ref[k] within (terms + 2) * 2^-24 * mag[k]; NaN-poisoned or wrong elements fail,
// the first 10 are reported.
::testing::AssertionResult within_rounding(const std::vector<float>& got, const std::vector<double>& ref,
                                           const std::vector<double>& mag, int terms) {
  std::size_t bad = 0;
  auto fail = ::testing::AssertionFailure();
  for (std::size_t k = 0; k < ref.size(); ++k) {
    const double tol = (terms + 2) * unit_roundoff * mag[k];
    if (!(std::fabs(got[k] - ref[k]) <= tol)) {
      if (bad < 10)
        fail << "\n  [" << k << "] got " << got[k] << ", expected " << ref[k] << " (tolerance " << tol << ")";
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return fail << "\n  " << bad << " of " << ref.size() << " elements differ";
}

std::vector<StencilVariant> all_stencil_variants() {
  std::vector<StencilVariant> v;
  for (const auto& info : stencil_variants()) v.push_back(info.variant);
  return v;
}

// ---- moving_average ----

struct LineShape {
  std::int64_t n;
  int radius;
};
void PrintTo(const LineShape& s, std::ostream* os) { *os << "n=" << s.n << " radius=" << s.radius; }
using LineParam = std::tuple<Backend, StencilVariant, LineShape>;
std::string line_name(const ::testing::TestParamInfo<LineParam>& i) {
  const auto& s = std::get<2>(i.param);
  return std::string(to_string(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param)) + "_n" +
         std::to_string(s.n) + "_r" + std::to_string(s.radius);
}

class MovingAverage : public ::testing::TestWithParam<LineParam> {};

TEST_P(MovingAverage, MatchesReferenceWithZeroOutside) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const auto [n, r] = std::get<2>(GetParam());
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = random_floats(n, rng);
  Buffer<float> in(dev, x), out(dev, nans(n));
  tk::moving_average(dev, n, in.data(), out.data(), r, std::get<1>(GetParam()));
  std::vector<double> ref(n), mag(n);
  for (std::int64_t i = 0; i < n; ++i) {
    double s = 0, m = 0;
    for (std::int64_t j = std::max<std::int64_t>(0, i - r); j <= std::min(n - 1, i + r); ++j)
      s += x[j], m += std::fabs(x[j]);
    ref[i] = s / (2 * r + 1);
    mag[i] = m / (2 * r + 1);
  }
  EXPECT_TRUE(within_rounding(out.to_host(), ref, mag, 2 * r + 1)) << "seed " << seed;
}

// A radius of 0 (a copy), windows wider than the array, sizes around the 256-thread block, a large prime.
INSTANTIATE_TEST_SUITE_P(All, MovingAverage,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::ValuesIn(all_stencil_variants()),
                                            ::testing::Values(LineShape{1, 0}, LineShape{1, 3}, LineShape{31, 1},
                                                              LineShape{256, 8}, LineShape{257, 8},
                                                              LineShape{300, 1024}, LineShape{100000, 300},
                                                              LineShape{1000003, 5})),
                         line_name);

// ---- 2D: stencil_5point and convolve_2d ----

struct GridShape {
  std::int64_t rows, cols, ld_in, ld_out;
};
void PrintTo(const GridShape& s, std::ostream* os) {
  *os << s.rows << "x" << s.cols << " ld_in=" << s.ld_in << " ld_out=" << s.ld_out;
}
std::string grid_tag(const GridShape& s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols) + "_ld" + std::to_string(s.ld_in) + "_" +
         std::to_string(s.ld_out);
}
const std::vector<GridShape> grid_shape_list = {
    GridShape{1, 1, 1, 1},           GridShape{2, 3, 3, 3},
    GridShape{33, 4097, 4097, 4097}, GridShape{4097, 33, 33, 33},
    GridShape{33, 4097, 4100, 4099}, GridShape{64, 64, 64, 64},
    GridShape{100, 70, 75, 80},      GridShape{515, 1030, 1032, 1036},
    GridShape{1, 5000, 5000, 5000},  GridShape{16, 3000, 3000, 3001},
    GridShape{31, 2000, 2000, 2000}, GridShape{3000, 1, 1, 1},
    GridShape{2000, 7, 9, 7},        GridShape{1000, 16, 16, 16},
    GridShape{19, 4200, 4203, 4201},  // the CPU's wide blocks (more than 16 rows, 4096 columns or more)
    GridShape{20, 4096, 4096, 4096},  // and a width of whole blocks: the last block's columns all inside
    GridShape{21, 8192, 8195, 8193}};
const auto grid_shapes = ::testing::ValuesIn(grid_shape_list);

// Runs op on a fresh random rows x cols input, then checks every output element against ref(i, j) (which
// returns the value and its magnitude) and that the padding columns of out are untouched.
template <class Op, class Ref>
void check_grid(const Device& dev, const GridShape& s, int terms, Op op, Ref ref_at) {
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = random_floats(s.rows * s.ld_in, rng);
  Buffer<float> in(dev, x), out(dev, nans(s.rows * s.ld_out));
  op(in.data(), out.data());
  const auto got = out.to_host();
  std::vector<float> inside;
  std::vector<double> ref, mag;
  auto xat = [&](std::int64_t i, std::int64_t j) {
    return i >= 0 && i < s.rows && j >= 0 && j < s.cols ? double(x[i * s.ld_in + j]) : 0.0;
  };
  for (std::int64_t i = 0; i < s.rows; ++i) {
    for (std::int64_t j = 0; j < s.cols; ++j) {
      const auto [v, m] = ref_at(xat, i, j);
      inside.push_back(got[i * s.ld_out + j]);
      ref.push_back(v);
      mag.push_back(m);
    }
    for (std::int64_t j = s.cols; j < s.ld_out; ++j)
      ASSERT_TRUE(std::isnan(got[i * s.ld_out + j])) << "padding element (" << i << ", " << j << ") was written";
  }
  EXPECT_TRUE(within_rounding(inside, ref, mag, terms)) << "seed " << seed;
}

using GridParam = std::tuple<Backend, StencilVariant, GridShape>;
std::string grid_name(const ::testing::TestParamInfo<GridParam>& i) {
  return std::string(to_string(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param)) + "_" +
         grid_tag(std::get<2>(i.param));
}

class Stencil5Point : public ::testing::TestWithParam<GridParam> {};

TEST_P(Stencil5Point, MatchesReferenceWithZeroOutside) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const StencilVariant variant = std::get<1>(GetParam());
  const GridShape s = std::get<2>(GetParam());
  const float center = -0.75f, side = 0.3f;
  check_grid(
      dev, s, 5,
      [&](const float* in, float* out) {
        tk::stencil_5point(dev, s.rows, s.cols, in, s.ld_in, out, s.ld_out, center, side, variant);
      },
      [&](auto x, std::int64_t i, std::int64_t j) {
        const double around = x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1);
        const double m =
            std::fabs(center * x(i, j)) + std::fabs(side) * (std::fabs(x(i - 1, j)) + std::fabs(x(i + 1, j)) +
                                                             std::fabs(x(i, j - 1)) + std::fabs(x(i, j + 1)));
        return std::pair{center * x(i, j) + side * around, m};
      });
}

INSTANTIATE_TEST_SUITE_P(All, Stencil5Point,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::ValuesIn(all_stencil_variants()), grid_shapes),
                         grid_name);

// `best`'s skinny paths: a few rows (the halo rows read as zeros without a test per element), and few columns
// stored without padding (the flat run: several blocks of interior and edge runs, and the widest column count
// its column arithmetic allows; 1000 x 7 pads `out` alone, which must keep it off the flat run). The 5-point
// stencil only: a convolution of radius 8 over 20011 x 3 costs
// minutes in checked mode.
INSTANTIATE_TEST_SUITE_P(Skinny, Stencil5Point,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::ValuesIn(all_stencil_variants()),
                                            ::testing::Values(GridShape{3, 20011, 20011, 20011},
                                                              GridShape{20011, 3, 3, 3}, GridShape{1001, 63, 63, 63},
                                                              GridShape{1000, 7, 7, 9})),
                         grid_name);

// A tall shape: more row blocks than a grid holds (65535 rows of blocks; `best`'s few-column blocks are capped
// at 1024 rows), so every variant's kernel steps through row segments by grid_dim().y. 4.3 M rows of 2
// columns, `in` padded to 3 (without padding `best` would take the flat run, which has no rows of blocks):
// 52 and 34 MB.
INSTANTIATE_TEST_SUITE_P(Tall, Stencil5Point,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::ValuesIn(all_stencil_variants()),
                                            ::testing::Values(GridShape{4300000, 2, 3, 2})),
                         grid_name);

// A shape with a filter radius. Checked mode and AddressSanitizer each take half of the shape and radius pairs
// (in_instrumented_half), so that every pair runs in one of them; radius 8 over grids of 100000 elements or more
// (20-30 s a test in checked mode) goes to AddressSanitizer's half. Every other build runs them all.
struct ConvCase {
  GridShape shape;
  int radius;
};
void PrintTo(const ConvCase& c, std::ostream* os) {
  PrintTo(c.shape, os);
  *os << " radius=" << c.radius;
}
std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> out;
  const int radii[] = {0, 1, 2, 8};
  for (std::size_t i = 0; i < grid_shape_list.size(); ++i) {
    for (std::size_t r = 0; r < std::size(radii); ++r) {
      const GridShape& g = grid_shape_list[i];
      const bool heavy = radii[r] == 8 && g.rows * g.cols >= 100000;
      if (in_instrumented_half(heavy ? 1 : i + r, 0)) out.push_back({g, radii[r]});
    }
  }
  return out;
}
using ConvParam = std::tuple<Backend, StencilVariant, ConvCase>;
class Convolve2d : public ::testing::TestWithParam<ConvParam> {};

TEST_P(Convolve2d, MatchesReferenceWithZeroOutside) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const StencilVariant variant = std::get<1>(GetParam());
  const GridShape s = std::get<2>(GetParam()).shape;
  const int r = std::get<2>(GetParam()).radius, width = 2 * r + 1;
  std::mt19937_64 rng(fresh_seed());
  const auto f = random_floats(width * width, rng);
  Buffer<float> filter(dev, f);
  check_grid(
      dev, s, width * width,
      [&](const float* in, float* out) {
        tk::convolve_2d(dev, s.rows, s.cols, in, s.ld_in, filter.data(), r, out, s.ld_out, variant);
      },
      [&](auto x, std::int64_t i, std::int64_t j) {
        double v = 0, m = 0;
        for (int a = -r; a <= r; ++a) {
          for (int b = -r; b <= r; ++b) {
            const double t = double(f[(a + r) * width + b + r]) * x(i + a, j + b);
            v += t;
            m += std::fabs(t);
          }
        }
        return std::pair{v, m};
      });
}

INSTANTIATE_TEST_SUITE_P(All, Convolve2d,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::ValuesIn(all_stencil_variants()),
                                            ::testing::ValuesIn(conv_cases())),
                         [](const ::testing::TestParamInfo<ConvParam>& i) {
                           const ConvCase& c = std::get<2>(i.param);
                           return std::string(to_string(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param)) +
                                  "_" + grid_tag(c.shape) + "_r" + std::to_string(c.radius);
                         });

// ---- arguments ----

class StencilErrors : public ::testing::TestWithParam<Backend> {};

TEST_P(StencilErrors, BadArgumentsThrow) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> a(dev, 64), b(dev, 64), f(dev, 9);
  TK_EXPECT_ERROR(tk::moving_average(dev, -1, a.data(), b.data(), 1), "tk::moving_average", "'n'", "-1");
  TK_EXPECT_ERROR(tk::moving_average(dev, 8, a.data(), b.data(), -1), "tk::moving_average", "'radius'", "-1");
  TK_EXPECT_ERROR(tk::moving_average(dev, 8, a.data(), b.data(), 1025), "tk::moving_average", "'radius'", "1025");
  TK_EXPECT_ERROR(tk::moving_average(dev, 8, a.data(), a.data(), 1), "tk::moving_average", "'out'", "'in'", "overlap");
  TK_EXPECT_ERROR(tk::moving_average(dev, 8, nullptr, b.data(), 1), "tk::moving_average", "'in'", "null");
  TK_EXPECT_ERROR(tk::moving_average(dev, 8, a.data(), b.data(), 1, static_cast<StencilVariant>(4)),
                  "tk::moving_average", "'variant'", "4");
  TK_EXPECT_ERROR(tk::stencil_5point(dev, -2, 4, a.data(), 4, b.data(), 4, 1, 1), "tk::stencil_5point", "'rows'", "-2");
  TK_EXPECT_ERROR(tk::stencil_5point(dev, 4, 8, a.data(), 7, b.data(), 8, 1, 1), "tk::stencil_5point", "'ld_in'", "7");
  TK_EXPECT_ERROR(tk::stencil_5point(dev, 4, 8, a.data(), 8, b.data(), 6, 1, 1), "tk::stencil_5point", "'ld_out'", "6");
  TK_EXPECT_ERROR(tk::stencil_5point(dev, 4, 8, a.data(), 8, a.data() + 4, 8, 1, 1), "tk::stencil_5point", "overlap");
  TK_EXPECT_ERROR(tk::convolve_2d(dev, 4, 8, a.data(), 8, f.data(), 9, b.data(), 8), "tk::convolve_2d", "'radius'",
                  "9");
  TK_EXPECT_ERROR(tk::convolve_2d(dev, 4, -8, a.data(), 8, f.data(), 1, b.data(), 8), "tk::convolve_2d", "'cols'",
                  "-8");
  TK_EXPECT_ERROR(tk::convolve_2d(dev, 4, 8, a.data(), 8, nullptr, 1, b.data(), 8), "tk::convolve_2d", "'filter'",
                  "null");
  TK_EXPECT_ERROR(tk::convolve_2d(dev, 4, 8, a.data(), 8, b.data() + 2, 1, b.data(), 8), "tk::convolve_2d", "'out'",
                  "'filter'", "overlap");
}

TEST_P(StencilErrors, SizeZeroIsANoOp) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> c(dev, nans(4));
  for (StencilVariant v : all_stencil_variants()) {
    EXPECT_NO_THROW(tk::moving_average(dev, 0, nullptr, c.data(), 3, v));
    EXPECT_NO_THROW(tk::stencil_5point(dev, 0, 5, nullptr, 5, c.data(), 5, 1, 1, v));
    EXPECT_NO_THROW(tk::convolve_2d(dev, 3, 0, nullptr, 1, nullptr, 2, c.data(), 1, v));
  }
  for (float v : c.to_host()) EXPECT_TRUE(std::isnan(v));
}

INSTANTIATE_TEST_SUITE_P(All, StencilErrors, ::testing::ValuesIn(built_backends()), backend_name);

}  // namespace
}  // namespace tk::test
