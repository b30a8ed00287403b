// tk-bench — tilekit's benchmark: every op on every chosen device, each row beside its ceiling measured
// in the same run.
//
//   tk-bench                      quick suite on the best device present (a GPU if any, else the CPU)
//   tk-bench --device=cpu|cuda|hip|kokkos|all   choose the devices
//   tk-bench --full               larger sizes too
//   tk-bench --size-mib=N         the array size of the memory-bound ops, in MiB per array
//   plus any Google Benchmark flag (--benchmark_format=json, --benchmark_out=FILE, --benchmark_filter=...)
//
// Timing: GPU time from device events around each launch, CPU time from a steady clock (manual time);
// one warm-up call first; the counters are medians over the iterations. Arrays are 64 MiB (CPU) or 1 GiB
// (GPU) per operand, far beyond any cache, so each call streams from memory.
//
// Bytes counted: each input read once and each output written once — copy 8 bytes per element,
// vector_add and matrix_add 12 (two reads, one write). FLOPs: 1 per element for the adds.
// Baseline ("memcpy"): a device-to-device copy of one operand's bytes (cudaMemcpy / hipMemcpy; on the CPU
// std::memcpy split over the OpenMP threads), counted as bytes read + bytes written. Every row reports
// its median GB/s and that as a percentage of the baseline's median GB/s, measured in the same function
// right after the row's own iterations.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "tilekit/detail/memory.hpp"
#include "tilekit/tilekit.hpp"

namespace {

struct Options {
  std::vector<tk::Device> devices;
  bool full = false;
  double size_mib = 0;  // 0: the default for the device
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

bool is_gpu(const tk::Device& d) { return d.backend() == tk::Backend::cuda || d.backend() == tk::Backend::hip; }

// Times fn on dev: device events on a GPU, the steady clock on the CPU (whose calls are synchronous).
double time_ms(const tk::Device& dev, const std::function<void()>& fn) {
  tk::Event start(dev), stop(dev);
  start.record();
  fn();
  stop.record();
  return tk::Event::elapsed_ms(start, stop);
}

// The ceiling of memory-bound rows: copy `bytes` from src to dst on the device.
void device_memcpy(const tk::Device& dev, void* dst, const void* src, std::size_t bytes) {
  if (is_gpu(dev)) return tk::detail::copy_bytes(dev, dst, src, bytes, tk::detail::CopyKind::device_to_device);
  const std::size_t chunk = std::size_t{1} << 20;
  const std::int64_t chunks = static_cast<std::int64_t>((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t off = static_cast<std::size_t>(c) * chunk;
    std::memcpy(static_cast<char*>(dst) + off, static_cast<const char*>(src) + off, std::min(chunk, bytes - off));
  }
}

// One memory-bound row: runs `op` under the benchmark loop, then the baseline as often, and reports both.
void run_row(benchmark::State& state, const tk::Device& dev, double bytes, double flops, double baseline_bytes_per_copy,
             const std::function<void()>& op, const std::function<void()>& baseline) {
  op();  // warm-up: module load, first-touch of pages
  baseline();
  std::vector<double> op_ms, base_ms;
  for (auto _ : state) {
    const double ms = time_ms(dev, op);
    op_ms.push_back(ms);
    state.SetIterationTime(ms / 1e3);
  }
  for (std::size_t i = 0; i < std::max<std::size_t>(op_ms.size(), 3); ++i) base_ms.push_back(time_ms(dev, baseline));
  const double t = median(op_ms) / 1e3, tb = median(base_ms) / 1e3;
  const double gbs = bytes / t / 1e9, base_gbs = baseline_bytes_per_copy / tb / 1e9;
  state.counters["GB/s"] = gbs;
  if (flops > 0) state.counters["GFLOP/s"] = flops / t / 1e9;
  state.counters["memcpy_GB/s"] = base_gbs;
  state.counters["pct_of_memcpy"] = 100.0 * gbs / base_gbs;
}

void register_device(const tk::Device& dev, const Options& opt) {
  const double default_mib = is_gpu(dev) ? 1024 : 64;
  std::vector<double> sizes{opt.size_mib > 0 ? opt.size_mib : default_mib};
  if (opt.full) sizes.push_back(is_gpu(dev) ? 4096 : 512);
  const std::string d = dev.name();
  for (double mib : sizes) {
    const std::int64_t n = static_cast<std::int64_t>(mib * 1024 * 1024 / sizeof(float));
    const std::string tag = "/" + d + "/" + std::to_string(static_cast<long long>(mib)) + "MiB";
    const double nb = 4.0 * n;  // bytes of one operand

    benchmark::RegisterBenchmark(("memcpy" + tag).c_str(), [dev, n, nb](benchmark::State& st) {
      tk::Buffer<float> a(dev, n), b(dev, n);
      tk::copy(dev, n, a.data(), b.data());
      auto base = [&] { device_memcpy(dev, b.data(), a.data(), nb); };
      run_row(st, dev, 2 * nb, 0, 2 * nb, base, base);
    })->UseManualTime()->Unit(benchmark::kMillisecond);

    benchmark::RegisterBenchmark(("copy" + tag).c_str(), [dev, n, nb](benchmark::State& st) {
      tk::Buffer<float> a(dev, n), b(dev, n);
      run_row(st, dev, 2 * nb, 0, 2 * nb, [&] { tk::copy(dev, n, a.data(), b.data()); },
              [&] { device_memcpy(dev, b.data(), a.data(), nb); });
    })->UseManualTime()->Unit(benchmark::kMillisecond);

    benchmark::RegisterBenchmark(("vector_add" + tag).c_str(), [dev, n, nb](benchmark::State& st) {
      tk::Buffer<float> a(dev, n), b(dev, n), c(dev, n);
      tk::copy(dev, n, a.data(), b.data());
      run_row(st, dev, 3 * nb, static_cast<double>(n), 2 * nb,
              [&] { tk::vector_add(dev, n, a.data(), b.data(), c.data()); },
              [&] { device_memcpy(dev, c.data(), a.data(), nb); });
    })->UseManualTime()->Unit(benchmark::kMillisecond);

    // Square-ish matrix with a padded leading dimension (a multiple of 4, so rows stay 16-byte aligned).
    const std::int64_t cols = 8192, rows = n / (cols + 64), ld = cols + 64;
    benchmark::RegisterBenchmark(("matrix_add" + tag).c_str(), [dev, rows, cols, ld](benchmark::State& st) {
      const std::int64_t elems = rows * ld;
      tk::Buffer<float> A(dev, elems), B(dev, elems), C(dev, elems);
      const double nb_m = 4.0 * rows * cols;
      run_row(st, dev, 3 * nb_m, static_cast<double>(rows * cols), 2.0 * 4 * elems,
              [&] { tk::matrix_add(dev, rows, cols, A.data(), ld, B.data(), ld, C.data(), ld); },
              [&] { device_memcpy(dev, C.data(), A.data(), 4.0 * elems); });
    })->UseManualTime()->Unit(benchmark::kMillisecond);
  }
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
    } else if (a.rfind("--size-mib=", 0) == 0) {
      opt.size_mib = std::stod(a.substr(11));
    } else {
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

int main(int argc, char** argv) {
  try {
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
      register_device(d, opt);
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const tk::Error& e) {
    std::fprintf(stderr, "tk-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
