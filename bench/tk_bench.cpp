// tk-bench — tilekit's benchmark: every op on every chosen device, each row beside its ceiling measured
// in the same run.
//
//   tk-bench                      quick suite on the best device present (a GPU if any, else the CPU)
//   tk-bench --device=cpu|cuda|hip|kokkos|all   choose the devices
//   tk-bench --full               larger sizes too
//   tk-bench --size-mib=N         the array size of the memory-bound ops, in MiB per array
//   tk-bench --threads=N          CPU threads for tilekit and for OpenBLAS alike
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

// The console table, plus a progress line on a terminal's stderr after each row (--full takes a while).
class ProgressReporter : public benchmark::ConsoleReporter {
 public:
  // Counters as columns; colours only on a terminal, as Google Benchmark's own default does.
  ProgressReporter() : benchmark::ConsoleReporter(isatty(fileno(stdout)) ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    benchmark::ConsoleReporter::ReportRuns(runs);
    done_ += runs.size();
    for (const Run& r : runs) {
      std::map<std::string, double> counters;
      for (const auto& [key, c] : r.counters) counters[key] = c.value;
      summary_.add(r.benchmark_name(), counters);
    }
    if (!isatty(fileno(stderr))) return;  // a log gets the table alone
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "tk-bench: %zu rows done, %.0f s\r", done_, s);
    std::fflush(stderr);
  }
  const SweepSummary& summary() const { return summary_; }

 private:
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
      register_elementwise(d, opt);
      register_memory(d, opt);
      register_matmul(d, opt);
      register_gemm(d, opt);
    }
    // One readable table by default: counters as columns.
    std::vector<char*> args(argv, argv + argc);
    std::string tabular = "--benchmark_counters_tabular=true";
    args.insert(args.begin() + 1, tabular.data());
    argc = static_cast<int>(args.size());
    argv = args.data();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    ProgressReporter reporter;
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
