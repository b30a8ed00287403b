// tk::transpose, every variant on every backend: out(j, i) must equal in(i, j) exactly (a transpose moves
// floats and rounds nothing), and out's padding columns must keep their NaN poison.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "../kernels/transpose/cpu_tile.hpp"
#include "support.hpp"

namespace tk {
inline void PrintTo(TransposeVariant v, std::ostream* os) { *os << to_string(v); }
}  // namespace tk

namespace tk::test {
namespace {

// Whether the copy of the CPU kernels that runs has the strips (kernels/transpose/cpu_strips.hpp): the x86-64-v3
// and -v4 copies of a build with runtime dispatch (tk::transpose_strip_streams there). A build of one copy says
// only its -march, so it counts as without.
bool cpu_copy_has_strips() {
  const std::string isa = tk::cpu_kernel_isa();
  return isa.rfind("x86-64-v3 ", 0) == 0 || isa.rfind("x86-64-v4 ", 0) == 0;
}

struct TransposeShape {
  std::int64_t rows, cols, ld_in, ld_out;
};
void PrintTo(const TransposeShape& s, std::ostream* os) {
  *os << s.rows << "x" << s.cols << " ld_in=" << s.ld_in << " ld_out=" << s.ld_out;
}

std::vector<TransposeVariant> all_transpose_variants() {
  std::vector<TransposeVariant> v;
  for (const auto& info : transpose_variants()) v.push_back(info.variant);
  v.push_back(TransposeVariant::best);
  return v;
}

using TransposeParam = std::tuple<Backend, TransposeVariant, TransposeShape>;
std::string transpose_name(const ::testing::TestParamInfo<TransposeParam>& i) {
  const auto& s = std::get<2>(i.param);
  return std::string(to_string(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param)) + "_" +
         std::to_string(s.rows) + "x" + std::to_string(s.cols) + "_ld" + std::to_string(s.ld_in) + "_" +
         std::to_string(s.ld_out);
}

class Transpose : public ::testing::TestWithParam<TransposeParam> {};

TEST_P(Transpose, MatchesInputAndLeavesPaddingAlone) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const TransposeVariant variant = std::get<1>(GetParam());
  const TransposeShape s = std::get<2>(GetParam());
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = random_floats(s.rows * s.ld_in, rng);
  Buffer<float> in(dev, x), out(dev, nans(s.cols * s.ld_out));
  tk::transpose(dev, s.rows, s.cols, in.data(), s.ld_in, out.data(), s.ld_out, variant);
  const auto got = out.to_host();
  std::int64_t bad = 0;
  for (std::int64_t j = 0; j < s.cols; ++j) {
    for (std::int64_t i = 0; i < s.ld_out; ++i) {
      const float g = got[j * s.ld_out + i];
      const bool ok = i < s.rows ? std::memcmp(&g, &x[i * s.ld_in + j], sizeof g) == 0 : std::isnan(g);
      if (!ok && bad++ < 10)
        ADD_FAILURE() << "out(" << j << ", " << i << ") = " << g << "; expected "
                      << (i < s.rows ? std::to_string(x[i * s.ld_in + j]) : "NaN (padding)") << ", seed " << seed;
    }
  }
  EXPECT_EQ(bad, 0) << "elements wrong";
}

// 1 x 1; tall and wide shapes that are no multiple of any tile (32, 64, 128); leading dimensions past the
// row; exact multiples of the tiles; a row and a column vector, with adjacent elements on both sides (`best`
// copies them) and with a stride on one side (the tile kernels); fewer than 32 rows or columns, contiguous
// and strided, which GPU `best` moves in tiles shaped to them; leading dimensions of `out` that are not
// multiples of 8 floats, which GPU `best` writes in sector-aligned windows (kernels/transpose/shaped.hpp);
// rows of `out` 64-byte aligned beside partial squares at the edges, which CPU `best` streams
// (kernels/transpose/cpu_squares.hpp; 128 x 128 and 256 x 64 stream every line).
INSTANTIATE_TEST_SUITE_P(
    All, Transpose,
    ::testing::Combine(::testing::ValuesIn(built_backends()), ::testing::ValuesIn(all_transpose_variants()),
                       ::testing::Values(TransposeShape{1, 1, 1, 1}, TransposeShape{33, 4097, 4097, 33},
                                         TransposeShape{4097, 33, 33, 4097}, TransposeShape{33, 4097, 4100, 40},
                                         TransposeShape{4097, 33, 35, 4099}, TransposeShape{128, 128, 128, 128},
                                         TransposeShape{256, 64, 64, 256}, TransposeShape{129, 257, 260, 131},
                                         TransposeShape{1, 1000, 1000, 1}, TransposeShape{1000, 1, 1, 1000},
                                         TransposeShape{1, 500, 500, 3}, TransposeShape{500, 1, 2, 500},
                                         TransposeShape{16, 3000, 3000, 16}, TransposeShape{31, 1001, 1003, 37},
                                         TransposeShape{5, 777, 777, 9}, TransposeShape{3000, 16, 16, 3000},
                                         TransposeShape{1001, 31, 33, 1001}, TransposeShape{777, 7, 7, 785},
                                         TransposeShape{100, 64, 64, 103}, TransposeShape{1000, 520, 1024, 1008},
                                         TransposeShape{300, 200, 200, 304})),
    transpose_name);

// ---- the CPU tile's side (kernels/transpose/cpu_tile.hpp) ----

// 256, halved while the grid has fewer tiles than the slots, never below 64. (Each side's squares run the
// transpose tests above on every alignment of `out`, forced by TK_TRANSPOSE_TUNE in the ctest entries
// cpu.Transpose.Tile<side>, tests/CMakeLists.txt; Tile512 forces the strips.)
TEST(CpuTransposeTile, FollowsTheShape) {
  namespace tc = tk::kernels::transpose_cpu;
  EXPECT_EQ(tc::tile_for(8192, 8192, 8).side, 256);
  EXPECT_NE(std::string(tc::tile_for(8192, 8192, 8).why).find("longest"), std::string::npos);
  EXPECT_EQ(tc::tile_for(512, 1024, 8).side, 256);  // exactly 8 tiles of 256
  EXPECT_EQ(tc::tile_for(512, 768, 8).side, 128);   // 6 tiles of 256: halved
  EXPECT_NE(std::string(tc::tile_for(512, 768, 8).why).find("halved"), std::string::npos);
  EXPECT_EQ(tc::tile_for(300, 300, 8).side, 128);      // 4 tiles of 256, 9 of 128
  EXPECT_EQ(tc::tile_for(200, 200, 8).side, 64);       // 1 of 256, 4 of 128
  EXPECT_EQ(tc::tile_for(100, 100, 64).side, 64);      // never below 64
  EXPECT_EQ(tc::tile_for(100000, 40, 8).side, 256);    // 391 tiles of 256 in one column
  EXPECT_EQ(tc::tile_for(8192, 8192, 5000).side, 64);  // 1024 of 256, 4096 of 128
}

// The strips' rows per block (where out's rows are not 64-byte aligned): 2048, halved while the grid has fewer
// blocks than the slots (never below 256), then the rows spread evenly over that many blocks of rows in whole squares.
TEST(CpuTransposeTile, StripRowsFollowTheShape) {
  namespace tc = tk::kernels::transpose_cpu;
  EXPECT_EQ(tc::strip_rows_for(8192, 8192, 8), 2048);  // 32 blocks of 256 columns x 4
  EXPECT_EQ(tc::strip_rows_for(2096, 32, 8), 240);     // 1 block of columns: x 2, x 3, x 5, x 9 of 256; 9 of 240
  EXPECT_EQ(tc::strip_rows_for(2096, 512, 8), 432);    // 2 blocks of columns: x 2, x 3, x 5 of 512; 5 of 432
  EXPECT_EQ(tc::strip_rows_for(4096, 16, 64), 256);    // 16 blocks of 256 at most
  EXPECT_EQ(tc::strip_rows_for(32, 4096, 8), 32);      // never more than the rows
  EXPECT_EQ(tc::strip_rows_for(5000, 7001, 8), 1680);  // 3 blocks of rows: 1680, 1680, 1640 (not 2048, 2048, 904)
  EXPECT_EQ(tc::strip_rows_for(3000, 20000, 8), 1504);
  // Every shape: the old count of blocks of rows, in whole squares, all but the last alike and the last short by less
  // than 16 rows a block.
  for (std::int64_t rows : {1, 15, 16, 17, 255, 257, 2047, 2049, 4095, 5003, 6145, 30011, 100003}) {
    for (std::int64_t cols : {1, 300, 997, 7001}) {
      std::int64_t h = 2048;  // the rows the rule took before the spread
      while (h > 256 && ((cols + 255) / 256) * ((rows + h - 1) / h) < 8) h /= 2;
      const std::int64_t got = tc::strip_rows_for(rows, cols, 8), row_blocks = (rows + h - 1) / h;
      EXPECT_EQ(got % 16, 0) << rows << " x " << cols;
      EXPECT_LE(got, h) << rows << " x " << cols;
      EXPECT_EQ((rows + got - 1) / got, row_blocks) << rows << " x " << cols;
      EXPECT_LT(row_blocks * got - rows, 16 * row_blocks)
          << rows << " x " << cols;  // the last block short by < 16 a block
    }
  }
}

// Unaligned rows of `out` that crowd the L1's sets (16 rows, 4 KiB a way) take the strips in the AVX-512 copy (the
// AVX2 copy keeps the squares there); the others, the race's pick.
TEST(CpuTransposeTile, StripsWhereOutsRowsCrowdTheL1Sets) {
  namespace tc = tk::kernels::transpose_cpu;
  EXPECT_EQ(tc::rows_per_l1_set(8192), 16);  // 32 KiB apart: one set
  EXPECT_EQ(tc::rows_per_l1_set(8191), 15);  // 4 bytes short of it: rows 1-15 one line lower
  EXPECT_EQ(tc::rows_per_l1_set(1028), 4);   // 16 bytes past 4 KiB: four rows a line
  EXPECT_EQ(tc::rows_per_l1_set(7919), 2);
  EXPECT_EQ(tc::rows_per_l1_set(6000), 1);
  for (std::int64_t ld : {8192, 8191, 8193, 16384, 4096, 4095, 1028, 2052})
    EXPECT_TRUE(tc::strips_for_stride(ld)) << ld;
  for (std::int64_t ld : {7919, 6000, 5000, 5003, 30011, 600001, 1008, 997, 31})
    EXPECT_FALSE(tc::strips_for_stride(ld)) << ld;
}

// The AVX2 copy (no skinny kernels there): at most 64 rows or 16 columns, out's rows crowding the L1's sets, or two
// arrays that fit half the last-level cache keep the squares; elsewhere the strips or the race.
TEST(CpuTransposeTile, Avx2CopyKeepsTheSquaresOnNarrowAndCrowdedShapes) {
  namespace tc = tk::kernels::transpose_cpu;
  EXPECT_TRUE(tc::avx2_keeps_squares(31, 600001, 31));
  EXPECT_TRUE(tc::avx2_keeps_squares(64, 100000, 64));
  EXPECT_FALSE(tc::avx2_keeps_squares(65, 100000, 65));
  EXPECT_TRUE(tc::avx2_keeps_squares(100000, 16, 100000));
  EXPECT_FALSE(tc::avx2_keeps_squares(100000, 17, 100000));
  EXPECT_FALSE(tc::avx2_keeps_squares(600001, 31, 600001));
  EXPECT_TRUE(tc::avx2_keeps_squares(8191, 8193, 8191));  // 15 rows in one set
  EXPECT_TRUE(tc::avx2_keeps_squares(8192, 8192, 8192));
  EXPECT_FALSE(tc::avx2_keeps_squares(7919, 7907, 7919));
  EXPECT_FALSE(tc::avx2_keeps_squares(5000, 7001, 5001));
  // two arrays in half a 32 MiB last-level cache: 1400^2 (15.7 MB) yes, 1500 x 1501 (18 MB) no
  constexpr std::int64_t llc = 32 << 20;
  EXPECT_TRUE(tc::avx2_keeps_squares(1000, 1000, 1001, llc));
  EXPECT_TRUE(tc::avx2_keeps_squares(1400, 1400, 1401, llc));
  EXPECT_FALSE(tc::avx2_keeps_squares(1500, 1501, 1500, llc));
  EXPECT_FALSE(tc::avx2_keeps_squares(1800, 1900, 1801, llc));
  EXPECT_FALSE(tc::avx2_keeps_squares(1000, 1000, 1001, 0));                      // no cache size known: no such rule
  EXPECT_FALSE(tc::avx2_keeps_squares(2900, 2900, 2903, std::int64_t{1} << 30));  // the race's size: left to it
}

// The race between squares and strips (unaligned rows of `out` that crowd no L1 set): which calls race, how each
// call's columns are shared, and the pick from the two kernels' times per element.
TEST(CpuTransposeTile, RaceRules) {
  namespace tc = tk::kernels::transpose_cpu;
  EXPECT_TRUE(tc::races(4096, 2048));    // 2^23 elements
  EXPECT_FALSE(tc::races(4096, 2047));   // one column short of them
  EXPECT_FALSE(tc::races(511, 100000));  // a side under two blocks of strips
  EXPECT_FALSE(tc::races(100000, 511));
  EXPECT_EQ(tc::race_split(512), 256);  // whole blocks of 256 columns for the strips, the rest for the squares
  EXPECT_EQ(tc::race_split(7907), 3840);
  EXPECT_EQ(tc::race_split(1023), 256);
  EXPECT_TRUE(tc::squares_won(1.0, 0.8));    // the squares only where under 90% of the strips' time
  EXPECT_FALSE(tc::squares_won(1.0, 0.95));  // else the strips, which win on 3 host kinds of 4
  EXPECT_FALSE(tc::squares_won(1.0, 1.5));
}

// The race on a user's data: the first calls large enough split their columns between the strips and the squares,
// each timed, and the pick is told by tk::transpose_tile_choice; every call's result is exact, padding untouched.
// (A process-wide choice: another test may have raced first; its pick holds then, and is told the same way.)
TEST(CpuTransposeRace, LargeCallsPickAKernelAndStayExact) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
#if defined(TK_CHECKED)
  GTEST_SKIP() << "checked builds have no strips";
#endif
  if (!cpu_copy_has_strips() || std::getenv("TK_TRANSPOSE_TUNE") != nullptr)
    GTEST_SKIP() << "no strips in the copy of the kernels that runs, or TK_TRANSPOSE_TUNE forces a kernel";
  namespace tc = tk::kernels::transpose_cpu;
  const std::int64_t rows = 2900, cols = 2900, ld_in = 2901, ld_out = 2903;  // 2^23 elements and more
  ASSERT_TRUE(tc::races(rows, cols));
  ASSERT_FALSE(tc::strips_for_stride(ld_out));
  std::mt19937_64 rng(fresh_seed());
  const auto x = random_floats(rows * ld_in, rng);
  for (int call = 0; call < tc::race_calls + 1; ++call) {
    std::vector<float> out = nans(cols * ld_out + 1);
    tk::transpose(dev, rows, cols, x.data(), ld_in, out.data() + 1, ld_out);  // 4 bytes off malloc's alignment
    std::int64_t bad = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      for (std::int64_t i = 0; i < ld_out; ++i) {
        const float g = out[1 + j * ld_out + i];
        if (i < rows ? g != x[i * ld_in + j] : !std::isnan(g)) ++bad;
      }
    }
    ASSERT_EQ(bad, 0) << "call " << call;
  }
  const std::string told = tk::transpose_tile_choice(dev, rows, cols);
  EXPECT_NE(told.find("measured here: strips "), std::string::npos) << told;
  EXPECT_NE(told.find(" ns per element"), std::string::npos) << told;
}

// What `best` runs, as tk::transpose_tile_choice tells it, and its argument checks.
TEST(CpuTransposeTile, ChoiceIsTold) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::string big = tk::transpose_tile_choice(dev, 8192, 8192);
  EXPECT_NE(big.find("squares of 16 x 16 through registers"), std::string::npos) << big;
  EXPECT_NE(big.find("tile slots"), std::string::npos) << big;
  const std::string skinny = tk::transpose_tile_choice(dev, 16, 8192);  // skinny shapes: squares too
  EXPECT_NE(skinny.find("squares of 16 x 16"), std::string::npos) << skinny;
  EXPECT_NE(big.find("through a thread's buffer"), std::string::npos) << big;
#if !defined(TK_CHECKED)
  if (cpu_copy_has_strips())
    EXPECT_NE(big.find("strips with every whole line of out streamed"), std::string::npos) << big;
#endif
  TK_EXPECT_ERROR(tk::transpose_tile_choice(dev, 0, 8), "tk::transpose_tile_choice", "'rows' is 0");
  TK_EXPECT_ERROR(tk::transpose_tile_choice(dev, 8, -1), "tk::transpose_tile_choice", "'cols' is -1");
}

// A matrix of more tile rows than a grid holds (65535 in y): the blocks step through the rest
// (cpu_squares.hpp's loop over t). 16777300 x 1 is 65537 tile rows of 256, the side any thread count picks
// for it; out's row has 3 poisoned floats of padding.
TEST(CpuTransposeTile, StepsThroughMoreTileRowsThanAGrid) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  const std::int64_t rows = 16777300, ld_out = rows + 3;
  ASSERT_GT((rows + 255) / 256, 65535);
  std::vector<float> x(rows);
  for (std::int64_t i = 0; i < rows; ++i) x[i] = static_cast<float>(i % 1000003) + 0.5f;
  Buffer<float> in(dev, x), out(dev, nans(ld_out));
  tk::transpose(dev, rows, 1, in.data(), 1, out.data(), ld_out);
  const std::vector<float> y = out.to_host();
  std::int64_t bad = 0, first = -1;
  for (std::int64_t i = 0; i < rows; ++i)
    if (std::memcmp(&y[i], &x[i], sizeof(float)) != 0 && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0) << "elements wrong, the first at row " << first;
  for (std::int64_t i = rows; i < ld_out; ++i) EXPECT_TRUE(std::isnan(y[i])) << "padding " << i << " written";
}

class TransposeErrors : public ::testing::TestWithParam<Backend> {};

TEST_P(TransposeErrors, BadArgumentsThrow) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> a(dev, 64), b(dev, 64);
  TK_EXPECT_ERROR(tk::transpose(dev, -2, 4, a.data(), 4, b.data(), 2), "tk::transpose", "'rows'", "-2");
  TK_EXPECT_ERROR(tk::transpose(dev, 2, -4, a.data(), 4, b.data(), 2), "tk::transpose", "'cols'", "-4");
  TK_EXPECT_ERROR(tk::transpose(dev, 4, 8, a.data(), 7, b.data(), 4), "tk::transpose", "'ld_in'", "7");
  TK_EXPECT_ERROR(tk::transpose(dev, 4, 8, a.data(), 8, b.data(), 3), "tk::transpose", "'ld_out'", "3", "max(1, rows)");
  TK_EXPECT_ERROR(tk::transpose(dev, 4, 8, nullptr, 8, b.data(), 4), "tk::transpose", "'in'", "null");
  TK_EXPECT_ERROR(tk::transpose(dev, 4, 8, a.data(), 8, nullptr, 4), "tk::transpose", "'out'", "null");
  TK_EXPECT_ERROR(tk::transpose(dev, 4, 8, a.data(), 8, a.data() + 8, 4), "tk::transpose", "'out'", "'in'", "overlap");
  TK_EXPECT_ERROR(tk::transpose(dev, 4, 8, a.data(), 8, b.data(), 4, static_cast<TransposeVariant>(9)), "tk::transpose",
                  "'variant'", "9");
}

TEST_P(TransposeErrors, SizeZeroIsANoOp) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> out(dev, nans(4));
  for (TransposeVariant v : all_transpose_variants()) {
    EXPECT_NO_THROW(tk::transpose(dev, 0, 5, nullptr, 5, out.data(), 1, v));
    EXPECT_NO_THROW(tk::transpose(dev, 3, 0, nullptr, 1, out.data(), 3, v));
  }
  for (float v : out.to_host()) EXPECT_TRUE(std::isnan(v));
}

// `out` a view that starts 1..7 floats past a 32-byte boundary, with a leading dimension that is a multiple of
// 8: every row is off a sector boundary by the same amount, which GPU `best` corrects for in its windows.
TEST_P(TransposeErrors, OutputViewsOffSectorBoundaries) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const std::int64_t rows = 70, cols = 45, ld_out = 72;
  std::mt19937_64 rng(fresh_seed());
  const auto x = random_floats(rows * cols, rng);
  Buffer<float> in(dev, x);
  for (std::int64_t off = 1; off < 8; ++off) {
    Buffer<float> out(dev, nans(off + cols * ld_out));
    tk::transpose(dev, rows, cols, in.data(), cols, out.data() + off, ld_out);
    const auto y = out.to_host();
    for (std::int64_t j = 0; j < cols; ++j) {
      for (std::int64_t i = 0; i < ld_out; ++i) {
        const float g = y[off + j * ld_out + i];
        if (i < rows) ASSERT_EQ(g, x[i * cols + j]) << "offset " << off << ", out(" << j << ", " << i << ")";
        else ASSERT_TRUE(std::isnan(g)) << "offset " << off << ", padding out(" << j << ", " << i << ")";
      }
    }
    for (std::int64_t i = 0; i < off; ++i) ASSERT_TRUE(std::isnan(y[i])) << "before the view, offset " << off;
  }
}

INSTANTIATE_TEST_SUITE_P(All, TransposeErrors, ::testing::ValuesIn(built_backends()), backend_name);

// A user's own data on the CPU: std::vector storage (malloc aligns it to 16 bytes, not 64), views starting at
// every float of a line, leading dimensions that are a multiple of 16 floats (every row of `out` off its line
// by the same amount: the heads of out's rows by the squares' edge path, the rest as aligned squares, over several
// tiles in 1040 x 700) and odd ones (each row by another), rows of `out` that crowd no L1 set (the race's pick: the
// strips until a large call has raced; the squares under TK_TRANSPOSE_TUNE=1, 64, 128, 256) and rows that do (4100
// floats apart: four rows a set of the L1, the strips), rows enough for several blocks of strips with partial lines
// between them, and skinny matrices. Poisoned padding and surroundings.
TEST(CpuTransposeUserData, StdVectorsAtEveryOffset) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  struct Case {
    std::int64_t rows, cols, ld_in, ld_out;
  };
  std::mt19937_64 rng(fresh_seed());
  // squares and strips (out's rows off their lines), then few rows with `out` contiguous (interleaved through a buffer,
  // fewer than 16 rows element by element, more as squares) and few columns with `in` contiguous (split by
  // permutes): kernels/transpose/cpu_strips.hpp, cpu_skinny.hpp
  for (const Case c : {Case{300, 200, 200, 304}, Case{517, 130, 131, 517}, Case{2100, 40, 41, 2113},
                       Case{64, 1000, 1000, 80}, Case{3, 3000, 3000, 3}, Case{40, 2000, 2001, 40},
                       Case{3000, 3, 3, 3001}, Case{5001, 15, 15, 5001}, Case{4099, 8, 8, 4103}, Case{3001, 2, 2, 3001},
                       Case{3000, 5, 7, 3001}, Case{4100, 40, 41, 4100}, Case{1040, 700, 703, 1056}}) {
    const auto x = random_floats(c.rows * c.ld_in + 16, rng);
    for (std::int64_t off_out = 0; off_out < 16; ++off_out) {
      const std::int64_t off_in = off_out % 5;
      std::vector<float> out = nans(c.cols * c.ld_out + 32);
      tk::transpose(dev, c.rows, c.cols, x.data() + off_in, c.ld_in, out.data() + off_out, c.ld_out);
      std::int64_t bad = 0;
      for (std::int64_t k = 0; k < static_cast<std::int64_t>(out.size()); ++k) {
        const std::int64_t v = k - off_out, j = v / c.ld_out, i = v % c.ld_out;
        const bool inside = v >= 0 && j < c.cols && i < c.rows;
        const float want = inside ? x[off_in + i * c.ld_in + j] : 0.f;
        if (inside ? out[k] != want : !std::isnan(out[k])) ++bad;
      }
      ASSERT_EQ(bad, 0) << c.rows << "x" << c.cols << " ld_in " << c.ld_in << " ld_out " << c.ld_out << ", out at +"
                        << off_out << " floats, in at +" << off_in;
    }
  }
}

// Fewer than 16 rows into a contiguous `out` (ld_out == rows): the skinny kernel interleaves each block's columns into
// its buffer (tk::interleave_rows: masked permutes, 16 columns at a time, 2-8 rows with AVX-512; element by element
// above, and for each block's last columns), then streams it out (one row is a copy: tk::transpose). 1-15 rows,
// columns under, at and past a vector's 16 and past one block (16384 / rows columns), `in` and `out` at several
// offsets; poisoned surroundings. (Also run by the x86-64-v2 and v3 copies: tests/CMakeLists.txt.)
TEST(CpuTransposeInterleave, FewRowsIntoAContiguousOut) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  std::mt19937_64 rng(fresh_seed());
  for (std::int64_t rows = 1; rows < 16; ++rows) {
    for (const std::int64_t cols : {std::int64_t{5}, std::int64_t{16}, std::int64_t{1037}, std::int64_t{12007}}) {
      const std::int64_t ld_in = cols + 3, off_in = rows % 3, off_out = (rows + cols) % 5;
      const auto x = random_floats(rows * ld_in + 8, rng);
      std::vector<float> out = nans(cols * rows + 32);
      tk::transpose(dev, rows, cols, x.data() + off_in, ld_in, out.data() + off_out, rows);
      std::int64_t bad = 0;
      for (std::int64_t k = 0; k < static_cast<std::int64_t>(out.size()); ++k) {
        const std::int64_t v = k - off_out, j = v / rows, i = v % rows;
        const bool inside = v >= 0 && j < cols;
        if (inside ? out[k] != x[off_in + i * ld_in + j] : !std::isnan(out[k])) ++bad;
      }
      EXPECT_EQ(bad, 0) << rows << " x " << cols << ", in at +" << off_in << ", out at +" << off_out;
    }
  }
}

// A user's arrays that end where their mapping ends (the next page unmapped): no kernel may read past the last
// element of `in` or write past the last of `out`, even in lanes it discards (AVX2's masked loads and stores may
// fault there on AMD: the strips' AVX2 code keeps them within the page or goes element by element).
class PageEnd {  // n floats whose last one ends a page, followed by a page without access
 public:
  explicit PageEnd(std::int64_t n) : n_(n) {
    const std::size_t pg = 4096, bytes = static_cast<std::size_t>(n) * sizeof(float);
    size_ = ((bytes + pg - 1) / pg + 1) * pg;
    base_ = static_cast<char*>(mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED || mprotect(base_ + size_ - pg, pg, PROT_NONE) != 0) std::abort();
    data_ = reinterpret_cast<float*>(base_ + size_ - pg - bytes);
  }
  PageEnd(const PageEnd&) = delete;
  PageEnd& operator=(const PageEnd&) = delete;
  ~PageEnd() { munmap(base_, size_); }
  float* data() const { return data_; }
  std::int64_t size() const { return n_; }

 private:
  std::int64_t n_;
  std::size_t size_ = 0;
  char* base_ = nullptr;
  float* data_ = nullptr;
};

TEST(CpuTransposeUserData, ArraysEndingAtAnUnmappedPage) {
  TK_DEVICE_OR_SKIP(dev, Backend::cpu);
  struct Case {
    std::int64_t rows, cols, ld_in, ld_out;
  };
  std::mt19937_64 rng(fresh_seed());
  for (const Case c :
       {Case{300, 200, 200, 301}, Case{517, 130, 131, 517}, Case{100, 257, 257, 101}, Case{2100, 40, 41, 2113},
        Case{33, 17, 17, 33}, Case{3000, 5, 5, 3001}, Case{70, 9, 9, 75}, Case{1000, 23, 23, 1008},
        Case{3, 5000, 5000, 3}, Case{7, 1037, 1040, 7}, Case{12, 999, 999, 12}}) {
    const auto x = random_floats(c.rows * c.ld_in, rng);
    const PageEnd in(c.rows * c.ld_in - (c.ld_in - c.cols)), out((c.cols - 1) * c.ld_out + c.rows);
    std::copy(x.begin(), x.begin() + in.size(), in.data());
    std::fill(out.data(), out.data() + out.size(), std::numeric_limits<float>::quiet_NaN());
    tk::transpose(dev, c.rows, c.cols, in.data(), c.ld_in, out.data(), c.ld_out);
    std::int64_t bad = 0;
    for (std::int64_t j = 0; j < c.cols; ++j)
      for (std::int64_t i = 0; i < c.rows; ++i) bad += out.data()[j * c.ld_out + i] != x[i * c.ld_in + j];
    EXPECT_EQ(bad, 0) << c.rows << "x" << c.cols << " ld_in " << c.ld_in << " ld_out " << c.ld_out;
  }
}

// Index products past 2^31: a 3 x 5 matrix with ld_in = 2^30, whose last row starts at element 2^31, and
// its transpose with ld_out = 2^30 + 1. On a GPU it needs 16 GiB (GPUs with 32 GiB); on the host's devices
// the matrices live in reserved address space, so this runs everywhere.
class TransposeLargeIndex : public ::testing::TestWithParam<std::tuple<Backend, TransposeVariant>> {};

TEST_P(TransposeLargeIndex, ElementsPast2Pow31AreReached) {
  TK_DEVICE_OR_SKIP(dev, std::get<0>(GetParam()));
  const bool gpu = !reads_host_memory(dev.backend());
  if (gpu && dev.props().global_mem_bytes < (std::int64_t{32} << 30))
    GTEST_SKIP() << "needs 16 GiB of device memory (GPUs with 32 GiB)";
  const std::int64_t rows = 3, cols = 5, ld_in = std::int64_t{1} << 30, ld_out = ld_in + 1;
  const std::int64_t in_span = (rows - 1) * ld_in + cols, out_span = (cols - 1) * ld_out + rows;
  Buffer<float> in_gpu, out_gpu;
  Reservation in_host(gpu ? 0 : in_span), out_host(gpu ? 0 : out_span);
  if (gpu) {
    in_gpu = Buffer<float>(dev, in_span);
    out_gpu = Buffer<float>(dev, out_span);
  } else if (!in_host.data() || !out_host.data()) {
    GTEST_SKIP() << "could not reserve 24 GiB of address space";
  }
  float* in = gpu ? in_gpu.data() : in_host.data();
  float* out = gpu ? out_gpu.data() : out_host.data();
  auto put = [&](const std::vector<float>& v, std::int64_t at) {
    gpu ? in_gpu.copy_from_host(v.data(), v.size(), at) : (void)std::copy(v.begin(), v.end(), in + at);
  };
  auto get = [&](std::int64_t at, std::int64_t n) {
    std::vector<float> v(n);
    gpu ? out_gpu.copy_to_host(v.data(), n, at) : (void)std::copy(out + at, out + at + n, v.begin());
    return v;
  };
  std::mt19937_64 rng(fresh_seed());
  std::vector<std::vector<float>> rows_in;
  for (std::int64_t i = 0; i < rows; ++i) {
    rows_in.push_back(random_floats(cols, rng));
    put(rows_in.back(), i * ld_in);
  }
  tk::transpose(dev, rows, cols, in, ld_in, out, ld_out, std::get<1>(GetParam()));
  for (std::int64_t j = 0; j < cols; ++j) {
    const std::vector<float> got = get(j * ld_out, rows);
    for (std::int64_t i = 0; i < rows; ++i) EXPECT_EQ(got[i], rows_in[i][j]) << "out(" << j << ", " << i << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(All, TransposeLargeIndex,
                         ::testing::Combine(::testing::ValuesIn(built_backends()),
                                            ::testing::ValuesIn(all_transpose_variants())),
                         [](const ::testing::TestParamInfo<std::tuple<Backend, TransposeVariant>>& i) {
                           return std::string(to_string(std::get<0>(i.param))) + "_" + to_string(std::get<1>(i.param));
                         });

}  // namespace
}  // namespace tk::test
