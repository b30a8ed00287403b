// tk-bench — tilekit's benchmark: every op on every chosen device, each row beside its ceiling measured
// in the same run.
//
//   tk-bench                      quick suite on the best device present (a GPU if any, else the CPU)
//   tk-bench --device=cpu|cuda|hip|kokkos|all   choose the devices (or a list: --device=cuda,kokkos)
//   tk-bench --full               larger sizes too
//   tk-bench --size-mib=N         the array size of the memory-bound ops, in MiB per array
//   tk-bench --threads=N          CPU threads for tilekit and for OpenBLAS alike
//   tk-bench --experiments        instead of the suite: the access-pattern experiments (coalescing, banks)
//   tk-bench --sweep              instead of the suite: `best` SGEMM, transpose and 5-point stencil over
//                                 odd, skinny, tall, wide, short-K and long-K shapes (sweep.cpp), then each
//                                 op's geometric mean and worst row as % of its same-run ceiling
//   tk-bench --version            tilekit's version and commit
//   plus any Google Benchmark flag: --benchmark_filter=REGEX, --benchmark_repetitions=N,
//   --benchmark_format=console|json|csv (stdout), --benchmark_out=FILE with --benchmark_out_format=json|csv
//   (bench/report.hpp: what each format holds, and when a row is marked noisy)
//
// Timing: GPU time from device events around each launch, CPU time from a steady clock (manual time);
// one warm-up call first; every time and rate is the median over the timed calls. Arrays are 64 MiB (CPU) or 1 GiB
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
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "bench_common.hpp"
#include "report.hpp"

namespace tk::bench {
namespace {

const char* const usage =
    "tk-bench: tilekit's benchmark, each row beside its ceiling from the same run\n"
    "  --device=cpu|cuda|hip|kokkos|all|auto  the devices (auto: a GPU if any, else the CPU; or a list: cuda,kokkos)\n"
    "  --full                larger sizes, and every row on the CPU\n"
    "  --threads=N           CPU threads for tilekit and for OpenBLAS alike (N >= 1)\n"
    "  --size-mib=X          the array size of the memory-bound ops, MiB per array (X > 0)\n"
    "  --sweep               best SGEMM, transpose and 5-point stencil over a sweep of shapes, with each op's\n"
    "                        geometric mean and worst row (instead of the suite)\n"
    "  --shapes=LIST         with --sweep, these shapes instead of its own: MxNxK for SGEMM (MxNxKxBATCH:\n"
    "                        strided batched), ROWSxCOLS for transpose and the stencil, comma separated\n"
    "                        (e.g. 2039x2039x2039,64x64x64x20000,8191x8193)\n"
    "  --ops=LIST            the sweep's SGEMM storages op(A) op(B) (default NN): NN, NT, TN, TT, comma\n"
    "                        separated; each transposed one is also summed up against NN's speed. Alone it\n"
    "                        means --sweep; with --gemm-shapes (and no --sweep) it names those rows' storages\n"
    "  --gemm-shapes=LIST    also DGEMM, TF32, BF16 and FP16 (C float) rows (NN, or --ops) at these shapes beside\n"
    "                        cuBLAS (on a CPU: DGEMM beside OpenBLAS, 16-bit rows beside tilekit's SGEMM):\n"
    "                        MxNxK or MxNxKxBATCH (strided batched), comma separated\n"
    "  --experiments         the access-pattern experiments (coalescing, shared-memory banks; instead of the suite)\n"
    "  --version             tilekit's version and git commit\n"
    "Every time is the median of a row's timed calls; a row is marked noisy when its calls or repetitions spread\n"
    "by more than 10% or it beats its memcpy ceiling by more than 10%. Formats: --benchmark_format=console|json|csv\n"
    "(stdout), --benchmark_out=FILE --benchmark_out_format=json|csv (a file; the table stays on the console).\n"
    "Google Benchmark's own flags follow (e.g. --benchmark_filter=REGEX, --benchmark_repetitions=N).\n\n";

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
  bool ops_given = false;  // --ops is the sweep's, or with --gemm-shapes those rows' storages
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
      ops_given = true;
    } else if (a.rfind("--gemm-shapes=", 0) == 0) {
      opt.gemm_shapes = a.substr(14);
    } else if (a == "--experiments") {
      opt.experiments = true;
    } else if (a == "--version") {
      std::printf("tk-bench (tilekit %s, commit %s)\n", tk::version(), tk::git_commit());
      std::exit(0);
    } else {
      // Google Benchmark's output flags: read here too, since tilekit writes these formats itself
      if (a.rfind("--benchmark_format=", 0) == 0) opt.format = a.substr(19);
      if (a.rfind("--benchmark_out_format=", 0) == 0) opt.out_format = a.substr(23);
      if (a.rfind("--benchmark_out=", 0) == 0) opt.out_file = a.substr(16);
      if (a == "--help" || a == "-h") std::fputs(usage, stdout);  // Google Benchmark's help follows
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  if (ops_given) (void)parse_ops(opt.ops);  // a bad item ends the run here, before any device is opened
  if (ops_given && opt.gemm_shapes.empty()) opt.sweep = true;
  for (const std::string& f : {opt.format, opt.out_format})
    if (f != "console" && f != "json" && f != "csv") {
      std::fprintf(stderr, "tk-bench: format '%s': expected console, json or csv\n", f.c_str());
      std::exit(2);
    }
  if (opt.out_format == "console") {
    std::fprintf(stderr, "tk-bench: --benchmark_out_format=console: a file is json or csv\n");
    std::exit(2);
  }
  for (const tk::Device& d : tk::devices()) {
    const std::string b = tk::to_string(d.backend());
    if (which == "all" || ("," + which + ",").find("," + b + ",") != std::string::npos) opt.devices.push_back(d);
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
    openblas_fair_core(argv);  // before parse() takes flags out of argv
    const Options opt = parse(&argc, argv);
    // the device lines and the sweep's summary go with the table; beside JSON or CSV on stdout, to stderr
    std::FILE* text = opt.format == "console" ? stdout : stderr;
    for (const tk::Device& d : opt.devices) {
      const tk::DeviceProps& p = d.props();
      std::fprintf(text, "device %s: %s (%s), %d %s", d.name().c_str(), p.name.c_str(), p.arch.c_str(),
                   p.multiprocessors, is_gpu(d) ? "multiprocessors" : "cores");
      if (p.peak_bandwidth_gbs() > 0)
        std::fprintf(text, ", %.0f GB/s theoretical DRAM bandwidth", p.peak_bandwidth_gbs());
#if defined(_OPENMP)
      if (!is_gpu(d))
        std::fprintf(text, ", %d OpenMP threads, OMP_WAIT_POLICY %s", omp_get_max_threads(), omp_wait_policy());
#endif
      std::fprintf(text, "\n");
      if (!is_gpu(d)) {  // the CPU baseline's kernels and the peak's clock, each on a line of its own (<= 120 columns)
        if (const std::string note = openblas_core_note(); !note.empty()) std::fprintf(text, "  %s\n", note.c_str());
        if (cpu_clock_scale(p) > 1)
          std::fprintf(text, "  cores measured at %.0f MHz (reported %lld): the peak uses the measured clock\n",
                       measured_clock_khz() / 1e3, static_cast<long long>(p.clock_khz / 1000));
      }
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
    add_context(opt.devices);
    const std::unique_ptr<benchmark::BenchmarkReporter> display = make_reporter(opt.format);
    const std::unique_ptr<benchmark::BenchmarkReporter> file = make_reporter(opt.out_format);
    benchmark::RunSpecifiedBenchmarks(display.get(), opt.out_file.empty() ? nullptr : file.get());
    if (const auto* table = dynamic_cast<const TableReporter*>(display.get())) {
      if (isatty(fileno(stderr))) std::fprintf(stderr, "\n");
      table->summary().print(stdout);
    }
    benchmark::Shutdown();
  } catch (const tk::Error& e) {
    std::fprintf(stderr, "tk-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
