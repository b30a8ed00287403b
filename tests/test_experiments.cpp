// The access-pattern experiments on every backend, checked for the results their definitions give
// (tilekit/experiments.hpp): they are timed by tk-bench, but they must also compute the right thing.
// All exact: integers below 2^24 in floats, sums of 32-bit words mod 2^32.
#include <tuple>

#include "support.hpp"

namespace tk {
inline void PrintTo(IncrementPattern p, std::ostream* os) { *os << to_string(p); }
inline void PrintTo(BankPattern p, std::ostream* os) { *os << to_string(p); }
}  // namespace tk

namespace tk::test {
namespace {

// ---- increment_pattern ----

std::vector<IncrementPattern> all_increment_patterns() {
  std::vector<IncrementPattern> v;
  for (const auto& info : increment_patterns()) v.push_back(info.variant);
  return v;
}

using IncrementParam = std::tuple<Backend, IncrementPattern, std::int64_t>;
class IncrementPatterns : public ::testing::TestWithParam<IncrementParam> {};

TEST_P(IncrementPatterns, GiveTheDefinedResult) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const IncrementPattern p = std::get<1>(GetParam());
  const std::int64_t n = std::get<2>(GetParam());
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<float> a(n);
  for (auto& v : a) v = static_cast<float>(rng() % 1000);
  Buffer<float> buf(dev, a);
  tk::increment_pattern(dev, n, buf.data(), p);
  std::vector<double> ref(a.begin(), a.end());
  for (std::int64_t i = 0; i < n; ++i) {
    if (p == IncrementPattern::coalesced || i % 4 != 0) ref[i] += 1;
    else if (p == IncrementPattern::fourth_to_a0) ref[0] += 1;
    else if (p == IncrementPattern::fourth_to_block_start) ref[i / coalescing_block * coalescing_block] += 1;
  }
  EXPECT_TRUE(all_close(buf.to_host(), ref, 0, 0)) << "seed " << seed;
}

// Around the 256-thread block and the groups of 4; the seed's 3M floats plus a partial block.
INSTANTIATE_TEST_SUITE_P(
    All, IncrementPatterns,
    ::testing::Combine(::testing::ValuesIn(built_backends()), ::testing::ValuesIn(all_increment_patterns()),
                       ::testing::Values<std::int64_t>(1, 3, 4, 255, 256, 257, 1000, 3 * (1 << 20) + 5)),
    [](const ::testing::TestParamInfo<IncrementParam>& i) {
      return std::string(to_string(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param)) + "_n" +
             std::to_string(std::get<2>(i.param));
    });

// ---- strided_read ----

struct StridedShape {
  std::int64_t n, stride, offset;
};
void PrintTo(const StridedShape& s, std::ostream* os) {
  *os << "n=" << s.n << " stride=" << s.stride << " offset=" << s.offset;
}
using StridedParam = std::tuple<Backend, StridedShape>;
class StridedRead : public ::testing::TestWithParam<StridedParam> {};

TEST_P(StridedRead, GathersEveryStrideth) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const auto [n, stride, offset] = std::get<1>(GetParam());
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = random_floats(offset + (n - 1) * stride + 1, rng);
  Buffer<float> in(dev, x), out(dev, nans(n));
  tk::strided_read(dev, n, in.data(), stride, offset, out.data());
  std::vector<double> ref(n);
  for (std::int64_t i = 0; i < n; ++i) ref[i] = x[offset + i * stride];
  EXPECT_TRUE(all_close(out.to_host(), ref, 0, 0)) << "seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(All, StridedRead,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::Values(StridedShape{1, 1, 0}, StridedShape{1000, 1, 0},
                                                              StridedShape{1000, 1, 1}, StridedShape{1000, 1, 31},
                                                              StridedShape{1000, 2, 0}, StridedShape{1000, 3, 5},
                                                              StridedShape{1000, 32, 0}, StridedShape{1000, 33, 7},
                                                              StridedShape{100003, 17, 3})),
                         [](const ::testing::TestParamInfo<StridedParam>& i) {
                           const auto& s = std::get<1>(i.param);
                           return std::string(to_string(std::get<0>(i.param))) + "_n" + std::to_string(s.n) +
                                  "_stride" + std::to_string(s.stride) + "_offset" + std::to_string(s.offset);
                         });

// ---- bank_reads ----

std::vector<BankPattern> all_bank_patterns() {
  std::vector<BankPattern> v;
  for (const auto& info : bank_patterns()) v.push_back(info.variant);
  return v;
}

// The definition: thread t reads element (lane * stride + j) mod E, lane = t % 32, j < reads; element k's
// words are k (word), k, k + 1 (two), k, k + 1, k + 2 (three), k as a double, k mod 256 as a byte.
std::uint32_t bank_reference(BankPattern p, std::int64_t t, int stride, int reads) {
  const std::uint32_t mask = static_cast<std::uint32_t>(bank_elements(p)) - 1, lane = t % 32;
  std::uint32_t sum = 0;
  double dsum = 0;
  for (int j = 0; j < reads; ++j) {
    const std::uint32_t e = (lane * static_cast<std::uint32_t>(stride) + j) & mask;
    switch (p) {
      case BankPattern::word_stride: sum += e; break;
      case BankPattern::two_words: sum += e + (e + 1); break;
      case BankPattern::three_words: sum += e + (e + 1) + (e + 2); break;
      case BankPattern::doubles: dsum += e; break;
      case BankPattern::bytes: sum += e % 256; break;
    }
  }
  return p == BankPattern::doubles ? static_cast<std::uint32_t>(dsum) : sum;
}

struct BankShape {
  std::int64_t n;
  int reads;
};
using BankParam = std::tuple<Backend, BankPattern, int, BankShape>;
class BankReads : public ::testing::TestWithParam<BankParam> {};

TEST_P(BankReads, SumTheDefinedElements) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const BankPattern p = std::get<1>(GetParam());
  const int stride = std::get<2>(GetParam());
  const auto [n, reads] = std::get<3>(GetParam());
  Buffer<std::uint32_t> out(dev, std::vector<std::uint32_t>(n + 1, 0xdeadbeef));
  tk::bank_reads(dev, n, p, stride, reads, out.data());
  const auto got = out.to_host();
  int bad = 0;
  for (std::int64_t t = 0; t < n; ++t) {
    const std::uint32_t want = bank_reference(p, t, stride, reads);
    if (got[t] != want && bad++ < 10) ADD_FAILURE() << "out[" << t << "] = " << got[t] << "; expected " << want;
  }
  EXPECT_EQ(got[n], 0xdeadbeefu) << "wrote past n";
}

INSTANTIATE_TEST_SUITE_P(All, BankReads,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::ValuesIn(all_bank_patterns()), ::testing::Values(1, 2, 32, 33),
                                            ::testing::Values(BankShape{1, 1}, BankShape{300, 37},
                                                              BankShape{1024, 5000})),
                         [](const ::testing::TestParamInfo<BankParam>& i) {
                           const auto& s = std::get<3>(i.param);
                           return std::string(to_string(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param)) +
                                  "_stride" + std::to_string(std::get<2>(i.param)) + "_n" + std::to_string(s.n) +
                                  "_reads" + std::to_string(s.reads);
                         });

// ---- arguments ----

class ExperimentErrors : public ::testing::TestWithParam<Backend> {};

TEST_P(ExperimentErrors, BadArgumentsThrow) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> a(dev, 64), b(dev, 64);
  Buffer<std::uint32_t> u(dev, 64);
  TK_EXPECT_ERROR(tk::increment_pattern(dev, -5, a.data(), IncrementPattern::coalesced), "tk::increment_pattern", "'n'",
                  "-5");
  TK_EXPECT_ERROR(tk::increment_pattern(dev, 5, nullptr, IncrementPattern::coalesced), "tk::increment_pattern", "'a'",
                  "null");
  TK_EXPECT_ERROR(tk::increment_pattern(dev, 5, a.data(), static_cast<IncrementPattern>(6)), "tk::increment_pattern",
                  "'pattern'", "6");
  TK_EXPECT_ERROR(tk::strided_read(dev, 8, a.data(), 0, 0, b.data()), "tk::strided_read", "'stride'", "0");
  TK_EXPECT_ERROR(tk::strided_read(dev, 8, a.data(), 1, -2, b.data()), "tk::strided_read", "'offset'", "-2");
  TK_EXPECT_ERROR(tk::strided_read(dev, 8, a.data(), 4, 0, a.data() + 20), "tk::strided_read", "overlap");
  TK_EXPECT_ERROR(tk::bank_reads(dev, 8, BankPattern::word_stride, 0, 1, u.data()), "tk::bank_reads", "'stride'", "0");
  TK_EXPECT_ERROR(tk::bank_reads(dev, 8, BankPattern::bytes, 1, 0, u.data()), "tk::bank_reads", "'reads'", "0");
  TK_EXPECT_ERROR(tk::bank_reads(dev, 8, static_cast<BankPattern>(7), 1, 1, u.data()), "tk::bank_reads", "'pattern'",
                  "7");
  TK_EXPECT_ERROR(tk::bank_reads(dev, -8, BankPattern::doubles, 1, 1, u.data()), "tk::bank_reads", "'n'", "-8");
}

TEST_P(ExperimentErrors, SizeZeroIsANoOp) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> c(dev, nans(4));
  for (IncrementPattern p : all_increment_patterns()) EXPECT_NO_THROW(tk::increment_pattern(dev, 0, c.data(), p));
  EXPECT_NO_THROW(tk::strided_read(dev, 0, nullptr, 3, 0, c.data()));
  EXPECT_NO_THROW(tk::bank_reads(dev, 0, BankPattern::word_stride, 1, 1, nullptr));
  for (float v : c.to_host()) EXPECT_TRUE(std::isnan(v));
}

INSTANTIATE_TEST_SUITE_P(All, ExperimentErrors, ::testing::ValuesIn(built_backends()), backend_name);

}  // namespace
}  // namespace tk::test
