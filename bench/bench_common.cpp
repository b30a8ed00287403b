// bench/bench_common.cpp — timing, the memcpy ceiling and the reporting row shared by every benchmark.
#include "bench_common.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <map>
#include <cstring>
#include <thread>

#include "tilekit/detail/memory.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(TK_BENCH_OPENBLAS)
#include <cblas.h>
#endif

namespace tk::bench {

void set_cpu_threads(int n) {
#if defined(_OPENMP)
  omp_set_num_threads(n);
#endif
#if defined(TK_BENCH_OPENBLAS)
  openblas_set_num_threads(n);
#endif
  (void)n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

void record_times(benchmark::State& state, std::vector<double> ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  const double mid = median(ms);
  const double q1 = ms[(ms.size() - 1) / 4], q3 = ms[(3 * (ms.size() - 1) + 3) / 4];
  state.counters["ms"] = mid;
  state.counters["spread_pct"] = mid > 0 ? 100.0 * (q3 - q1) / mid : 0.0;
}

bool is_gpu(const tk::Device& d) { return !tk::reads_host_memory(d.backend()); }

double time_ms(const tk::Device& dev, const std::function<void()>& fn) {
  tk::Event start(dev), stop(dev);
  start.record();
  fn();
  // the Kokkos device is timed by the host's clock: its calls fence, but a baseline on its GPU (cuBLAS, a copy
  // between device buffers) returns before it is done
  if (dev.backend() == tk::Backend::kokkos) dev.synchronize();
  stop.record();
  return tk::Event::elapsed_ms(start, stop);
}

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

int settle_ms() {
  static const int ms = [] {
    const char* s = std::getenv("TK_BENCH_SETTLE_MS");
    return s != nullptr && *s != '\0' ? std::max(0, std::atoi(s)) : 150;
  }();
  return ms;
}

double cpu_peak_gflops(const tk::DeviceProps& p, bool fp64) {
  const double all = fp64 ? p.peak_fp64_gflops : p.peak_fp32_gflops;
  const int cores = std::atoi(p.cpu_peak_model.c_str());  // the model starts with the core count
  if (all <= 0 || cores <= 0) return 0;
#if defined(_OPENMP)
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  return all / cores * std::min(cores, threads);
}

Medians time_beside(benchmark::State& state, const tk::Device& dev, const std::function<void()>& op,
                    const std::function<void()>& baseline) {
  const auto settle = [&] {
    if (baseline && !is_gpu(dev) && settle_ms() > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms()));
  };
  op();  // warm-up: module load, first touch of pages
  if (baseline) baseline();
  std::vector<double> op_ms, base_ms;
  settle();
  for (auto _ : state) {
    const double ms = time_ms(dev, op);
    op_ms.push_back(ms);
    state.SetIterationTime(ms / 1e3);
  }
  if (baseline) {
    settle();
    for (std::size_t i = 0; i < std::max<std::size_t>(op_ms.size(), 3); ++i) base_ms.push_back(time_ms(dev, baseline));
  }
  record_times(state, op_ms);
  return {median(op_ms), baseline ? median(base_ms) : 0.0};
}

namespace {
// One ceiling per device and size (to the MiB) in a run, in GB/s: the memcpy row of a size sets it (it is
// registered first for the default size); a row of a size without one measures it once.
using CeilingKey = std::pair<std::string, long long>;
std::map<CeilingKey, double>& ceilings() {
  static std::map<CeilingKey, double> c;  // rows run one at a time
  return c;
}
CeilingKey ceiling_key(const tk::Device& dev, double bytes) { return {dev.name(), std::llround(bytes / (1 << 20))}; }
}  // namespace

void run_ceiling_row(benchmark::State& state, const tk::Device& dev, double bytes_per_copy,
                     const std::function<void()>& copy) {
  const Medians m = time_beside(state, dev, copy, nullptr);
  const double gbs = bytes_per_copy / (m.op_ms / 1e3) / 1e9;
  ceilings()[ceiling_key(dev, bytes_per_copy)] = gbs;
  state.counters["GB/s"] = gbs;
  state.counters["memcpy_GB/s"] = gbs;
  state.counters["pct_of_memcpy"] = 100.0;
}

void run_row(benchmark::State& state, const tk::Device& dev, double bytes, double flops, double baseline_bytes_per_copy,
             const std::function<void()>& op, const std::function<void()>& baseline) {
  auto& ceilings = tk::bench::ceilings();
  const CeilingKey key = ceiling_key(dev, baseline_bytes_per_copy);
  const auto known = ceilings.find(key);
  const Medians m = time_beside(state, dev, op, known == ceilings.end() ? baseline : std::function<void()>());
  const double t = m.op_ms / 1e3;
  const double gbs = bytes / t / 1e9;
  const double base_gbs =
      known != ceilings.end() ? known->second : baseline_bytes_per_copy / (m.baseline_ms / 1e3) / 1e9;
  ceilings.emplace(key, base_gbs);
  state.counters["GB/s"] = gbs;
  if (flops > 0) state.counters["GFLOP/s"] = flops / t / 1e9;
  state.counters["memcpy_GB/s"] = base_gbs;
  state.counters["pct_of_memcpy"] = 100.0 * gbs / base_gbs;
}

Pace row_pace(const tk::Device& dev, const Options& opt) {
  return !is_gpu(dev) && !opt.full ? Pace{8, 0} : Pace{0, 0.5};
}
Pace experiment_pace(const tk::Device& dev, const Options& opt) {
  return !is_gpu(dev) && !opt.full ? Pace{5, 0} : Pace{0, 0.2};
}
void pace(benchmark::internal::Benchmark* b, const Pace& p) {
  b->UseManualTime()->Unit(benchmark::kMillisecond);
  if (p.iterations > 0) b->Iterations(p.iterations);
  else b->MinTime(p.min_time);
}

}  // namespace tk::bench
