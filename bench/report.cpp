// bench/report.cpp — tk-bench's table, CSV and JSON (report.hpp says what each shows).
#include "report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace tk::bench {
namespace {

const double* counter(const Run& r, const char* key) {
  const auto it = r.counters.find(key);
  return it == r.counters.end() ? nullptr : &it->second.value;
}

std::string number(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Aggregates whose `ms` counter is a time (mean, median, stddev of the repetitions' medians); the others (cv)
// are ratios and keep Google Benchmark's value.
bool time_aggregate(const Run& r) {
  return r.aggregate_name == "mean" || r.aggregate_name == "median" || r.aggregate_name == "stddev";
}

}  // namespace

std::vector<Run> RowMarks::annotate(const std::vector<Run>& runs) {
  std::vector<Run> out(runs);
  for (Run& r : out) {
    if (!run_error(r).empty()) continue;
    const bool aggregate = r.run_type == Run::RT_Aggregate;
    const double* ms = counter(r, "ms");
    if (ms && (!aggregate || time_aggregate(r)))
      r.real_accumulated_time = *ms / 1e3 * static_cast<double>(r.iterations);
    const std::string key = r.run_name.str();
    bool noisy = false;
    if (!aggregate) {
      const double* spread = counter(r, "spread_pct");
      noisy = spread && *spread > noisy_spread_pct;
      if (ms && r.repetitions > 1) repetitions_[key].push_back(*ms);
    } else if (const auto it = repetitions_.find(key); it != repetitions_.end() && it->second.size() > 1) {
      const auto [lo, hi] = std::minmax_element(it->second.begin(), it->second.end());
      const double spread = 100.0 * (*hi - *lo) / median(it->second);
      r.counters["repeat_spread_pct"] = spread;
      noisy = spread > noisy_repeat_pct;
    }
    const double* pct = counter(r, "pct_of_memcpy");
    if (pct && (!aggregate || time_aggregate(r)) && r.aggregate_name != "stddev" && *pct > noisy_ceiling_pct)
      noisy = true;
    r.counters["noisy"] = noisy ? 1.0 : 0.0;
  }
  return out;
}

std::string RowMarks::why_noisy(const Run& r) {
  const double* noisy = counter(r, "noisy");
  if (!noisy || *noisy == 0) return "";
  // short, so that the table stays within 120 columns; the files hold the figures (repeat_spread_pct,
  // spread_pct, pct_of_memcpy)
  std::string why;
  auto add = [&](const char* s) { why += (why.empty() ? "" : ",") + std::string(s); };
  const double* v = counter(r, "repeat_spread_pct");
  if (v && *v > noisy_repeat_pct) add("reps");
  v = counter(r, "spread_pct");
  if (v && *v > noisy_spread_pct && r.run_type != Run::RT_Aggregate) add("spread");
  v = counter(r, "pct_of_memcpy");
  if (v && *v > noisy_ceiling_pct) add(">memcpy");
  return "noisy(" + why + ")";
}

// ---- the console table ----

namespace {

std::string short_name(std::string n) {
  for (const char* suffix : {"/manual_time", "/real_time"}) {
    const std::size_t at = n.find(suffix);
    if (at != std::string::npos) n.erase(at, std::strlen(suffix));
  }
  for (const char* part : {"/iterations:", "/min_time:", "/repeats:"}) {
    const std::size_t at = n.find(part);
    if (at == std::string::npos) continue;
    const std::size_t end = n.find('/', at + 1);
    n.erase(at, end == std::string::npos ? std::string::npos : end - at);
  }
  return n;
}

}  // namespace

bool TableReporter::ReportContext(const Context&) {
  std::printf("%-50s %9s %8s %9s  %-15s %s\n", "row", "ms", "GB/s", "GFLOP/s", "% of ceiling", "notes");
  return true;
}

void TableReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& r : marks_.annotate(runs)) {
    // With repetitions, one line per row: the median aggregate (the repetitions themselves, and the mean,
    // stddev and cv aggregates, are in the files).
    if (r.repetitions > 1 && (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median")) continue;
    std::string name = short_name(r.run_name.str());
    std::map<std::string, double> counters;
    for (const auto& [key, c] : r.counters) counters[key] = c.value;
    summary_.add(name, counters);
    if (r.repetitions > 1) name += " (median of " + std::to_string(r.repetitions) + ")";
    print_row(r, name);
    ++done_;
  }
  std::fflush(stdout);
  if (!isatty(fileno(stderr))) return;  // a log gets the table alone
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "tk-bench: %zu rows done, %.0f s\r", done_, s);
  std::fflush(stderr);
}

void TableReporter::print_row(const Run& r, const std::string& name) {
  if (const std::string error = run_error(r); !error.empty()) {
    std::printf("%-50s error: %s\n", name.c_str(), error.c_str());
    return;
  }
  std::map<std::string, double> c;
  for (const auto& [key, v] : r.counters) c[key] = v.value;
  const double ms = r.GetAdjustedRealTime() * benchmark::GetTimeUnitMultiplier(benchmark::kMillisecond) /
                    benchmark::GetTimeUnitMultiplier(r.time_unit);
  auto take = [&](const std::string& key, double* v) {
    const auto it = c.find(key);
    if (it == c.end()) return false;
    *v = it->second;
    c.erase(it);
    return true;
  };
  double gbs = 0, gflops = 0, pct = 0, v = 0;
  const bool has_gbs = take("GB/s", &gbs), has_gflops = take("GFLOP/s", &gflops);
  std::string ceiling;
  for (const char* who : {"memcpy", "cuBLAS", "OpenBLAS", "rocBLAS", "tilekit_SGEMM"})
    if (take(std::string("pct_of_") + who, &pct)) {
      ceiling = who;
      break;
    }
  std::string notes = RowMarks::why_noisy(r);
  auto note = [&](const std::string& s) { notes += (notes.empty() ? "" : ", ") + s; };
  take("memcpy_GB/s", &v);  // shown once, as the memcpy row's GB/s
  for (const char* who : {"cuBLAS", "OpenBLAS", "rocBLAS", "tilekit_SGEMM"})
    if (take(std::string(who) + "_GFLOP/s", &v)) note(std::string(who) + " " + number(v, 0) + " GFLOP/s");
  if (take("pct_of_fp64_fma_peak", &v)) note(number(v, 1) + "% of FP64 FMA peak");
  if (take("pct_of_peak", &v)) note(number(v, 1) + "% of the cores' peak");
  take("peak_GFLOP/s", &v);                                                // in the files
  take("pct_of_fp64_tensor_peak", &v), take("fp64_fma_peak_GFLOP/s", &v);  // in the files
  if (take("x_baseline", &v)) note("x" + number(v, 2) + " the baseline's time");
  if (take("speedup", &v)) note("two queues x" + number(v, 2));
  for (const char* in_files :
       {"ms", "baseline_ms", "one_queue_ms", "two_queues_ms", "spread_pct", "repeat_spread_pct", "noisy"})
    take(in_files, &v);
  for (const auto& [key, value] : c) note(key + " " + number(value, 2));
  char pct_cell[64] = "     -";
  if (!ceiling.empty()) std::snprintf(pct_cell, sizeof pct_cell, "%6.1f %s", pct, ceiling.c_str());
  std::printf("%-50s %9.3f %8s %9s  %-15s %s\n", name.c_str(), ms, has_gbs ? number(gbs, 1).c_str() : "-",
              has_gflops ? number(gflops, 1).c_str() : "-", pct_cell, notes.c_str());
}

// ---- CSV ----

namespace {

std::string csv_quoted(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

void CsvReporter::ReportRuns(const std::vector<Run>& runs) {
  for (Run& r : marks_.annotate(runs)) runs_.push_back(std::move(r));
}

void CsvReporter::Finalize() {
  std::set<std::string> names;
  for (const Run& r : runs_) {
    for (const auto& [key, c] : r.counters) names.insert(key);
  }
  std::ostream& out = GetOutputStream();
  out << "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,"
         "error_message";
  for (const std::string& n : names) out << "," << csv_quoted(n);
  out << "\n";
  for (const Run& r : runs_) {
    const std::string error = run_error(r);
    out << csv_quoted(r.benchmark_name()) << ",";
    if (error.empty()) {
      out << r.iterations << "," << csv_number(r.GetAdjustedRealTime()) << "," << csv_number(r.GetAdjustedCPUTime())
          << "," << benchmark::GetTimeUnitString(r.time_unit) << ",,," << csv_quoted(r.report_label) << ",,";
    } else {
      out << ",,,,,," << csv_quoted(r.report_label) << ",true," << csv_quoted(error);
    }
    for (const std::string& n : names) {
      out << ",";
      const auto it = r.counters.find(n);
      if (it != r.counters.end() && error.empty()) out << csv_number(it->second.value);
    }
    out << "\n";
  }
  out.flush();
}

std::unique_ptr<benchmark::BenchmarkReporter> make_reporter(const std::string& format) {
  if (format == "console") return std::make_unique<TableReporter>();
  if (format == "json") return std::make_unique<JsonReporter>();
  if (format == "csv") return std::make_unique<CsvReporter>();
  return nullptr;
}

void add_context(const std::vector<tk::Device>& devices) {
  benchmark::AddCustomContext("tilekit_version", tk::version());
  benchmark::AddCustomContext("tilekit_commit", tk::git_commit());
  std::string names;
  for (const tk::Device& d : devices) {
    const tk::DeviceProps& p = d.props();
    names += (names.empty() ? "" : "; ") + d.name() + ": " + p.name + " (" + p.arch + ")";
    if (d.backend() != tk::Backend::cpu) {  // a GPU's driver; Kokkos's execution space
      benchmark::AddCustomContext("tilekit_" + d.name() + "_driver", p.driver);
      benchmark::AddCustomContext("tilekit_" + d.name() + "_compiler", p.compiler);
    }
  }
  benchmark::AddCustomContext("tilekit_devices", names);
  benchmark::AddCustomContext("tilekit_cpu_compiler", tk::Device::cpu().props().compiler);
  benchmark::AddCustomContext("tilekit_cpu_isa", tk::cpu_kernel_isa());
  if (const std::string note = openblas_core_note(); !note.empty())
    benchmark::AddCustomContext("tilekit_openblas", note);
  if (const double khz = measured_clock_khz(); khz > 0)
    benchmark::AddCustomContext("tilekit_cpu_measured_mhz", std::to_string(std::lround(khz / 1e3)));
#if defined(_OPENMP)
  benchmark::AddCustomContext("tilekit_cpu_threads", std::to_string(omp_get_max_threads()));
  benchmark::AddCustomContext("tilekit_omp_wait_policy", omp_wait_policy());
#else
  benchmark::AddCustomContext("tilekit_cpu_threads", "1");
#endif
}

}  // namespace tk::bench
