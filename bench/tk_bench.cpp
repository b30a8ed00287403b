// tk-bench — tilekit's benchmark: every op on every chosen device, each row beside its ceiling measured
// in the same run.
//
//   tk-bench                      quick suite on the best device present (a GPU if any, else the CPU)
//   tk-bench --device=cpu|cuda|hip|kokkos|all   choose the devices
//   tk-bench --full               larger sizes too
//   tk-bench --size-mib=N         the array size of the memory-bound ops, in MiB per array
//   tk-bench --threads=N          CPU threads for tilekit and for OpenBLAS alike
//   tk-bench --experiments        instead of the suite: the access-pattern experiments (coalescing, banks)
//   tk-bench --sweep              instead of the suite: `best` SGEMM, transpose and 5-point stencil over
//                                 odd, skinny, tall, wide, short-K and long-K shapes (sweep.cpp), then each
//                                 op's geometric mean and worst row as % of its same-run ceiling
//   plus any Google Benchmark flag: --benchmark_filter=REGEX, --benchmark_out=FILE with
//   --benchmark_out_format=json|csv (the table stays on the console; progress goes to stderr)
//
// Timing: GPU time from device events around each launch, CPU time from a steady clock (manual time);
// one warm-up call first; the counters are medians over the iterations. Arrays are 64 MiB (CPU) or 1 GiB
// (GPU) per operand, far beyond any cache, so each call streams from memory.
//
// Baseline ("memcpy"): a device-to-device copy of one operand's bytes (cudaMemcpy / hipMemcpy; on the CPU
// std::memcpy split over the OpenMP threads), counted as bytes read + bytes written. Every row reports
// its median GB/s and that as a percentage of the baseline's median GB/s, measured in the same function
// right after the row's own iterations.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "bench_common.hpp"

namespace tk::bench {
namespace {

// The console table: one line per row, plain numbers, at most 120 columns for the suite's names.
//   row            the benchmark's name, without Google Benchmark's suffixes (/manual_time, /iterations:N)
//   ms             the median time of one call
//   GB/s, GFLOP/s  the row's rates ("-" where they do not apply)
//   % of ceiling   the row's rate as a percentage of its ceiling, and which: memcpy (a device copy of the
//                  same bytes, measured once per size in the run and shown in the memcpy row), or the
//                  vendor's same call (cuBLAS, OpenBLAS) on the same shape
//   notes          anything else (the vendor's rate, the FP64 peak, a queue speedup, an experiment's ratio)
// Every counter, unrounded, goes to --benchmark_out=FILE (JSON or CSV). A progress line goes to a terminal's
// stderr after each row (--full takes a while).
class TableReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override {
    std::printf("%-50s %9s %8s %9s  %-15s %s\n", "row", "ms", "GB/s", "GFLOP/s", "% of ceiling", "notes");
    return true;
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      std::map<std::string, double> counters;
      for (const auto& [key, c] : r.counters) counters[key] = c.value;
      summary_.add(r.benchmark_name(), counters);
      print_row(r, counters);
    }
    std::fflush(stdout);
    done_ += runs.size();
    if (!isatty(fileno(stderr))) return;  // a log gets the table alone
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "tk-bench: %zu rows done, %.0f s\r", done_, s);
    std::fflush(stderr);
  }
  const SweepSummary& summary() const { return summary_; }

 private:
  static std::string short_name(std::string n) {
    for (const char* suffix : {"/manual_time", "/real_time"}) {
      const std::size_t at = n.find(suffix);
      if (at != std::string::npos) n.erase(at, std::strlen(suffix));
    }
    for (const char* part : {"/iterations:", "/min_time:"}) {
      const std::size_t at = n.find(part);
      if (at == std::string::npos) continue;
      const std::size_t end = n.find('/', at + 1);
      n.erase(at, end == std::string::npos ? std::string::npos : end - at);
    }
    return n;
  }

  static std::string number(double v, int decimals) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
  }

  static void print_row(const Run& r, std::map<std::string, double> c) {
    const std::string name = short_name(r.benchmark_name());
    if (r.error_occurred) {
      std::printf("%-50s error: %s\n", name.c_str(), r.error_message.c_str());
      return;
    }
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
    for (const char* who : {"memcpy", "cuBLAS", "OpenBLAS", "rocBLAS"})
      if (take(std::string("pct_of_") + who, &pct)) {
        ceiling = who;
        break;
      }
    std::string notes;
    auto note = [&](const std::string& s) { notes += (notes.empty() ? "" : ", ") + s; };
    take("memcpy_GB/s", &v);  // shown once, as the memcpy row's GB/s
    for (const char* who : {"cuBLAS", "OpenBLAS", "rocBLAS"})
      if (take(std::string(who) + "_GFLOP/s", &v)) note(std::string(who) + " " + number(v, 0) + " GFLOP/s");
    if (take("pct_of_fp64_fma_peak", &v)) note(number(v, 1) + "% of FP64 FMA peak");
    take("pct_of_fp64_tensor_peak", &v), take("fp64_fma_peak_GFLOP/s", &v);  // in --benchmark_out
    if (take("x_baseline", &v)) note("x" + number(v, 2) + " the baseline's time");
    take("ms", &v), take("baseline_ms", &v);
    if (take("speedup", &v)) note("two queues x" + number(v, 2));
    take("one_queue_ms", &v), take("two_queues_ms", &v);
    for (const auto& [key, value] : c) note(key + " " + number(value, 2));
    char pct_cell[64] = "     -";
    if (!ceiling.empty()) std::snprintf(pct_cell, sizeof pct_cell, "%6.1f %s", pct, ceiling.c_str());
    std::printf("%-50s %9.3f %8s %9s  %-15s %s\n", name.c_str(), ms, has_gbs ? number(gbs, 1).c_str() : "-",
                has_gflops ? number(gflops, 1).c_str() : "-", pct_cell, notes.c_str());
  }

  SweepSummary summary_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

const char* const usage =
    "tk-bench: tilekit's benchmark, each row beside its ceiling from the same run\n"
    "  --device=cpu|cuda|hip|kokkos|all|auto  the devices (auto: a GPU if any, else the CPU)\n"
    "  --full                larger sizes, and every row on the CPU\n"
    "  --threads=N           CPU threads for tilekit and for OpenBLAS alike (N >= 1)\n"
    "  --size-mib=X          the array size of the memory-bound ops, MiB per array (X > 0)\n"
    "  --sweep               best SGEMM, transpose and 5-point stencil over a sweep of shapes, with each op's\n"
    "                        geometric mean and worst row (instead of the suite)\n"
    "  --shapes=LIST         with --sweep, these shapes instead of its own: MxNxK for SGEMM, ROWSxCOLS for\n"
    "                        transpose and the stencil, comma separated (e.g. 2039x2039x2039,8191x8193)\n"
    "  --ops=LIST            with --sweep, SGEMM in these storages op(A) op(B) (default NN): NN, NT, TN, TT,\n"
    "                        comma separated; each transposed one is also summed up against NN's speed\n"
    "  --experiments         the access-pattern experiments (coalescing, shared-memory banks; instead of the suite)\n"
    "Google Benchmark's own flags follow (e.g. --benchmark_filter=REGEX, --benchmark_out=FILE).\n\n";

// A number from "--flag=value", or exit 2 naming the flag.
double number_arg(const std::string& a, std::size_t prefix, double min, bool whole = false) {
  const std::string v = a.substr(prefix);
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (v.empty() || used != v.size() || !(x >= min) || (whole && (x != std::floor(x) || x > 1e6))) {
    std::fprintf(stderr, "tk-bench: %s: expected %s >= %g\n", a.c_str(), whole ? "a whole number" : "a number", min);
    std::exit(2);
  }
  return x;
}

Options parse(int* argc, char** argv) {
  Options opt;
  std::string which = "auto";
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--device=", 0) == 0) {
      which = a.substr(9);
    } else if (a == "--full") {
      opt.full = true;
    } else if (a.rfind("--threads=", 0) == 0) {
      set_cpu_threads(static_cast<int>(number_arg(a, 10, 1, true)));
    } else if (a.rfind("--size-mib=", 0) == 0) {
      opt.size_mib = number_arg(a, 11, 1e-6);
    } else if (a == "--sweep") {
      opt.sweep = true;
    } else if (a.rfind("--shapes=", 0) == 0) {
      opt.shapes = a.substr(9);
      opt.sweep = true;
    } else if (a.rfind("--ops=", 0) == 0) {
      opt.ops = a.substr(6);
      opt.sweep = true;
    } else if (a == "--experiments") {
      opt.experiments = true;
    } else {
      if (a == "--help" || a == "-h") std::fputs(usage, stdout);  // Google Benchmark's help follows
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  for (const tk::Device& d : tk::devices()) {
    const std::string b = tk::to_string(d.backend());
    if (which == "all" || which == b) opt.devices.push_back(d);
  }
  if (which == "auto") {
    const auto all = tk::devices();
    auto gpu = std::find_if(all.begin(), all.end(), is_gpu);
    opt.devices.push_back(gpu != all.end() ? *gpu : tk::Device::cpu());
  }
  if (opt.devices.empty()) {
    std::fprintf(stderr, "tk-bench: no device matches --device=%s (%s)\n", which.c_str(),
                 which == "cuda" || which == "hip"
                     ? tk::unavailable_reason(which == "cuda" ? tk::Backend::cuda : tk::Backend::hip).c_str()
                     : "expected cpu, cuda, hip, kokkos, all or auto");
    std::exit(2);
  }
  return opt;
}

}  // namespace
}  // namespace tk::bench

int main(int argc, char** argv) {
  try {
    using namespace tk::bench;
    const Options opt = parse(&argc, argv);
    for (const tk::Device& d : opt.devices) {
      const tk::DeviceProps& p = d.props();
      std::printf("device %s: %s (%s), %d %s", d.name().c_str(), p.name.c_str(), p.arch.c_str(), p.multiprocessors,
                  is_gpu(d) ? "multiprocessors" : "cores");
      if (p.peak_bandwidth_gbs() > 0) std::printf(", %.0f GB/s theoretical DRAM bandwidth", p.peak_bandwidth_gbs());
#if defined(_OPENMP)
      if (!is_gpu(d)) std::printf(", %d OpenMP threads", omp_get_max_threads());
#endif
      std::printf("\n");
      if (opt.sweep) {
        register_sweep(d, opt);
        continue;
      }
      if (opt.experiments) {
        register_experiments(d, opt);
        continue;
      }
      // the op families (bench/<family>.cpp)
      register_elementwise(d, opt);
      register_transpose(d, opt);
      register_aos(d, opt);
      register_stencil(d, opt);
      register_matmul(d, opt);
      register_gemm(d, opt);
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    TableReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    std::fprintf(stderr, "\n");
    reporter.summary().print(stdout);
    benchmark::Shutdown();
  } catch (const tk::Error& e) {
    std::fprintf(stderr, "tk-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
