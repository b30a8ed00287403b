// bench/report.hpp — how tk-bench reports a run: the console table, CSV and JSON, on the console or in a file
// (--benchmark_format=console|json|csv, --benchmark_out=FILE --benchmark_out_format=json|csv).
//
// Every format shows the same numbers:
// - time: the median of a row's timed calls (the row's `ms` counter), not Google Benchmark's mean; with
//   --benchmark_repetitions, the median aggregate is the median over repetitions of those medians;
// - `noisy` (a counter of 0 or 1 in the files; in the table's notes "noisy(spread)", "noisy(reps)",
//   "noisy(>memcpy)" or two of them) when
//   - the row's timed calls spread by more than noisy_spread_pct: interquartile range over median (`spread_pct`),
//   - or its repetitions disagree by more than noisy_repeat_pct: (slowest - fastest) / median of the
//     repetitions' medians (`repeat_spread_pct`, on the aggregate rows),
//   - or it beats its memcpy ceiling by more than 10% (a copy of the same bytes cannot be beaten by much; the
//     vendor BLAS is a baseline, not a ceiling, so beating cuBLAS or OpenBLAS is not flagged).
// Works with Google Benchmark 1.7 to 1.9 (1.8 renamed Run::error_occurred / error_message to skipped /
// skip_message).
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace tk::bench {

constexpr double noisy_spread_pct = 10;    // a row's calls: interquartile range / median, percent
constexpr double noisy_repeat_pct = 10;    // repetitions: (max - min) / median of their medians, percent
constexpr double noisy_ceiling_pct = 110;  // above a memcpy ceiling

using Run = benchmark::BenchmarkReporter::Run;

// The run's error (a skipped or failed row), or "" (Google Benchmark 1.7's error_occurred, 1.8's skipped).
template <class R>
auto run_error(const R& r, int) -> decltype(r.skip_message, std::string()) {
  return r.skipped ? std::string(r.skip_message) : std::string();
}
template <class R>
auto run_error(const R& r, long) -> decltype(r.error_message, std::string()) {
  return r.error_occurred ? std::string(r.error_message) : std::string();
}
inline std::string run_error(const Run& r) { return run_error(r, 0); }

// Annotates runs in the order Google Benchmark reports them: the median time, the noisy flag and its reason.
class RowMarks {
 public:
  // Copies of `runs` with real time = the `ms` counter, and the counters noisy (0 or 1) and, on aggregates,
  // repeat_spread_pct. Rows without an `ms` counter keep Google Benchmark's time.
  std::vector<Run> annotate(const std::vector<Run>& runs);
  // Why a run (as annotated) is noisy, or "".
  static std::string why_noisy(const Run& r);

 private:
  std::map<std::string, std::vector<double>> repetitions_;  // per benchmark: its repetitions' medians (ms)
};

// The console table (the default format): one line per row, plain numbers, at most 120 columns for the
// suite's names; with repetitions, one line per row: the median over them.
//   row            the benchmark's name, without Google Benchmark's suffixes (/manual_time, /iterations:N)
//   ms             the median time of one call
//   GB/s, GFLOP/s  the row's rates ("-" where they do not apply)
//   % of ceiling   the row's rate as a percentage of its ceiling, and which: memcpy (a device copy of the
//                  same bytes, measured once per size in the run and shown in the memcpy row), or the
//                  vendor's same call (cuBLAS, OpenBLAS) on the same shape
//   notes          "noisy(...)" first where it applies, then anything else (the vendor's rate, the FP64
//                  peak, a queue speedup, an experiment's ratio)
// A progress line goes to a terminal's stderr after each row (--full takes a while).
class TableReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  const SweepSummary& summary() const { return summary_; }

 private:
  void print_row(const Run& r, const std::string& name);
  RowMarks marks_;
  SweepSummary summary_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// CSV: Google Benchmark's columns (name, iterations, real_time, cpu_time, time_unit, bytes_per_second,
// items_per_second, label, error_occurred, error_message), then one column per counter of any row, in name
// order; a row without a counter leaves its cell empty. Written when the run ends, since rows carry different
// counters (Google Benchmark's own CSV writer stops at the first row with a new one).
class CsvReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  RowMarks marks_;
  std::vector<Run> runs_;
};

// JSON: Google Benchmark's own format and context (tilekit adds its keys with benchmark::AddCustomContext:
// add_context below), with the annotated runs.
class JsonReporter : public benchmark::JSONReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override { benchmark::JSONReporter::ReportRuns(marks_.annotate(runs)); }

 private:
  RowMarks marks_;
};

// A reporter for "console", "json" or "csv"; nullptr for anything else.
std::unique_ptr<benchmark::BenchmarkReporter> make_reporter(const std::string& format);

// The JSON context's tilekit keys: version and commit, each device with its driver and compiler, the CPU
// kernels' instruction set and the CPU thread count.
void add_context(const std::vector<tk::Device>& devices);

}  // namespace tk::bench
