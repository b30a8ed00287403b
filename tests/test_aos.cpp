// The float3 update on every backend: the array-of-structs variants (direct, smem_staged) and the
// struct-of-arrays layout. Exact: the reference is float(x + value), the one rounding IEEE addition makes.
#include <tuple>

#include "support.hpp"

namespace tk {
inline void PrintTo(AosVariant v, std::ostream* os) { *os << to_string(v); }
}  // namespace tk

namespace tk::test {
namespace {

// The layouts under test: the AoS variants, and "soa" for tk::float3_add_soa.
struct Layout {
  bool soa;
  AosVariant variant;  // when !soa
};
void PrintTo(const Layout& l, std::ostream* os) { *os << (l.soa ? "soa" : to_string(l.variant)); }
std::vector<Layout> layouts() {
  std::vector<Layout> out;
  for (const auto& info : aos_variants()) out.push_back({false, info.variant});
  out.push_back({true, AosVariant::direct});
  return out;
}

void run(const Device& dev, const Layout& l, std::int64_t n, const float* in, float* out, float value) {
  if (l.soa) tk::float3_add_soa(dev, n, in, out, value);
  else tk::float3_add(dev, n, in, out, value, l.variant);
}

// n structs around the 256-thread block and the 4-wide SoA vector, a large prime; offset shifts every
// pointer by that many floats (16-byte alignment off: the SoA scalar path).
struct AosShape {
  std::int64_t n;
  int offset;
};
void PrintTo(const AosShape& s, std::ostream* os) { *os << "n=" << s.n << " offset=" << s.offset; }

using AosParam = std::tuple<Backend, Layout, AosShape>;
std::string aos_name(const ::testing::TestParamInfo<AosParam>& i) {
  const Layout& l = std::get<1>(i.param);
  const AosShape& s = std::get<2>(i.param);
  return std::string(to_string(std::get<0>(i.param))) + "_" + (l.soa ? "soa" : to_string(l.variant)) + "_n" +
         std::to_string(s.n) + (s.offset ? "_misaligned" : "");
}

class Float3Add : public ::testing::TestWithParam<AosParam> {};

TEST_P(Float3Add, MatchesReference) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const Layout l = std::get<1>(GetParam());
  const auto [n, off] = std::get<2>(GetParam());
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = random_floats(3 * n + off, rng, -100.f, 100.f);
  const float value = std::uniform_real_distribution<float>(-3, 3)(rng);
  Buffer<float> in(dev, x), out(dev, nans(3 * n + off));
  run(dev, l, n, in.data() + off, out.data() + off, value);
  const auto got = out.to_host();
  std::vector<double> ref(3 * n);
  for (std::int64_t k = 0; k < 3 * n; ++k) ref[k] = static_cast<float>(double(x[k + off]) + double(value));
  EXPECT_TRUE(all_close({got.begin() + off, got.end()}, ref, 0, 0)) << "seed " << seed << ", value " << value;
}

TEST_P(Float3Add, InPlaceSeedUpdate) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const Layout l = std::get<1>(GetParam());
  const auto [n, off] = std::get<2>(GetParam());
  std::mt19937_64 rng(fresh_seed());
  const auto x = random_floats(3 * n + off, rng);
  Buffer<float> a(dev, x);
  run(dev, l, n, a.data() + off, a.data() + off, 2.f);
  const auto got = a.to_host();
  std::vector<double> ref(3 * n);
  for (std::int64_t k = 0; k < 3 * n; ++k) ref[k] = static_cast<float>(double(x[k + off]) + 2.0);
  EXPECT_TRUE(all_close({got.begin() + off, got.end()}, ref, 0, 0));
}

INSTANTIATE_TEST_SUITE_P(All, Float3Add,
                         ::testing::Combine(::testing::ValuesIn(built_backends()), ::testing::ValuesIn(layouts()),
                                            ::testing::Values(AosShape{1, 0}, AosShape{31, 0}, AosShape{255, 0},
                                                              AosShape{256, 0}, AosShape{257, 0}, AosShape{1024, 1},
                                                              AosShape{1000003, 0}, AosShape{1000003, 1})),
                         aos_name);

class Float3AddErrors : public ::testing::TestWithParam<Backend> {};

TEST_P(Float3AddErrors, BadArgumentsThrow) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> a(dev, 64), b(dev, 64);
  TK_EXPECT_ERROR(tk::float3_add(dev, -3, a.data(), b.data()), "tk::float3_add", "'n'", "-3");
  TK_EXPECT_ERROR(tk::float3_add(dev, 8, nullptr, b.data()), "tk::float3_add", "'in'", "null");
  TK_EXPECT_ERROR(tk::float3_add(dev, 8, a.data(), a.data() + 3), "tk::float3_add", "'out'", "'in'",
                  "same matrix or share no element");
  TK_EXPECT_ERROR(tk::float3_add(dev, 8, a.data(), b.data(), 2.f, static_cast<AosVariant>(5)), "tk::float3_add",
                  "'variant'", "5");
  TK_EXPECT_ERROR(tk::float3_add_soa(dev, -1, a.data(), b.data()), "tk::float3_add_soa", "'n'", "-1");
  TK_EXPECT_ERROR(tk::float3_add_soa(dev, 8, a.data(), nullptr), "tk::float3_add_soa", "'out'", "null");
  TK_EXPECT_ERROR(tk::float3_add_soa(dev, 8, a.data() + 1, a.data()), "tk::float3_add_soa",
                  "same matrix or share no element");
}

TEST_P(Float3AddErrors, SizeZeroIsANoOp) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> c(dev, nans(4));
  for (const auto& info : aos_variants()) EXPECT_NO_THROW(tk::float3_add(dev, 0, nullptr, c.data(), 2.f, info.variant));
  EXPECT_NO_THROW(tk::float3_add_soa(dev, 0, nullptr, c.data()));
  for (float v : c.to_host()) EXPECT_TRUE(std::isnan(v));
}

INSTANTIATE_TEST_SUITE_P(All, Float3AddErrors, ::testing::ValuesIn(built_backends()), backend_name);

}  // namespace
}  // namespace tk::test
