// The rules of tk-bench's reports (report.hpp) on made-up runs: the time every format shows is the rows'
// median, what is marked noisy and what is not, repetitions, and CSV of rows with different counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "report.hpp"

namespace tk::bench {
namespace {

using BRun = benchmark::BenchmarkReporter::Run;

BRun row(const std::string& name, std::map<std::string, double> counters, int repetitions = 1) {
  BRun r;
  r.run_name.function_name = name;
  r.run_type = BRun::RT_Iteration;
  r.iterations = 8;
  r.repetitions = repetitions;
  r.time_unit = benchmark::kMillisecond;
  r.real_accumulated_time = 8 * 5e-3;  // Google Benchmark's mean: 5 ms
  for (const auto& [k, v] : counters) r.counters[k] = v;
  return r;
}

double noisy(const BRun& r) { return r.counters.at("noisy").value; }

TEST(BenchReport, TimeIsTheMedianOfTheCalls) {
  RowMarks marks;
  const BRun r = marks.annotate({row("copy", {{"ms", 2.0}, {"spread_pct", 1}})}).at(0);
  EXPECT_DOUBLE_EQ(r.GetAdjustedRealTime(), 2.0);  // not the mean's 5 ms
  const BRun plain = marks.annotate({row("no_ms", {})}).at(0);
  EXPECT_DOUBLE_EQ(plain.GetAdjustedRealTime(), 5.0);  // rows without `ms` keep Google Benchmark's time
}

TEST(BenchReport, NoisyWhenCallsSpreadOrAMemcpyCeilingIsBeaten) {
  RowMarks marks;
  const auto out = marks.annotate({row("steady", {{"ms", 1}, {"spread_pct", 9.9}, {"pct_of_memcpy", 98}}),
                                   row("spread", {{"ms", 1}, {"spread_pct", 14}, {"pct_of_memcpy", 98}}),
                                   row("above", {{"ms", 1}, {"spread_pct", 1}, {"pct_of_memcpy", 5123}}),
                                   row("at_ceiling", {{"ms", 1}, {"spread_pct", 1}, {"pct_of_memcpy", 109}}),
                                   row("beats_vendor", {{"ms", 1}, {"spread_pct", 1}, {"pct_of_cuBLAS", 126}})});
  EXPECT_EQ(noisy(out[0]), 0);
  EXPECT_EQ(noisy(out[1]), 1);
  EXPECT_EQ(RowMarks::why_noisy(out[1]), "noisy(spread)");
  EXPECT_EQ(noisy(out[2]), 1);
  EXPECT_EQ(RowMarks::why_noisy(out[2]), "noisy(>memcpy)");
  EXPECT_EQ(noisy(out[3]), 0);
  EXPECT_EQ(noisy(out[4]), 0) << "a vendor BLAS is a baseline, not a ceiling";
  EXPECT_EQ(RowMarks::why_noisy(out[0]), "");
}

TEST(BenchReport, RepetitionsThatDisagreeAreNoisy) {
  for (const double third : {1.05, 1.5}) {
    RowMarks marks;
    std::vector<BRun> reps;
    for (const double ms : {1.0, 1.0, third}) reps.push_back(row("r", {{"ms", ms}, {"spread_pct", 1}}, 3));
    marks.annotate(reps);
    BRun median = row("r", {{"ms", 1.0}, {"spread_pct", 1}}, 3);
    median.run_type = BRun::RT_Aggregate;
    median.aggregate_name = "median";
    const BRun out = marks.annotate({median}).at(0);
    EXPECT_NEAR(out.counters.at("repeat_spread_pct").value, 100 * (third - 1.0), 1e-9);
    EXPECT_EQ(noisy(out), third > 1.1 ? 1 : 0) << third;
    EXPECT_DOUBLE_EQ(out.GetAdjustedRealTime(), 1.0);
  }
}

TEST(BenchReport, CsvHoldsRowsWithDifferentCounters) {
  std::ostringstream text;
  CsvReporter csv;
  csv.SetOutputStream(&text);
  csv.SetErrorStream(&text);
  csv.ReportRuns({row("memcpy", {{"ms", 1}, {"GB/s", 100}, {"pct_of_memcpy", 100}})});
  csv.ReportRuns({row("matmul", {{"ms", 2}, {"GFLOP/s", 7.5}, {"pct_of_OpenBLAS", 90}})});
  csv.Finalize();
  std::vector<std::string> lines;
  std::istringstream in(text.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << text.str();
  auto fields = [](const std::string& s) { return std::count(s.begin(), s.end(), ',') + 1; };
  EXPECT_EQ(fields(lines[1]), fields(lines[0]));
  EXPECT_EQ(fields(lines[2]), fields(lines[0]));
  for (const char* column : {"\"GB/s\"", "\"GFLOP/s\"", "\"noisy\"", "\"pct_of_OpenBLAS\"", "\"pct_of_memcpy\""})
    EXPECT_NE(lines[0].find(column), std::string::npos) << column;
  EXPECT_EQ(lines[2].rfind("\"matmul\",8,2,", 0), 0u) << "the time column is the median: " << lines[2];
}

}  // namespace
}  // namespace tk::bench
