// bench/bench_common.cpp — timing, the memcpy ceiling and the reporting row shared by every benchmark.
#include "bench_common.hpp"

#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <map>
#include <mutex>
#include <cstring>
#include <thread>

#include "tilekit/detail/memory.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(TK_BENCH_OPENBLAS)
#include <cblas.h>
#endif

namespace tk::bench {

#if defined(TK_BENCH_OPENBLAS)
namespace {
// The ISA an OpenBLAS core type's kernels use: 3 AVX-512, 2 AVX2 and FMA, 1 anything older (its generic
// fallbacks, Prescott among them). OpenBLAS 0.3.21's names for x86-64; an OpenBLAS built for one core names it in
// capitals ("SKYLAKEX").
int openblas_core_level(const std::string& core) {
  for (const char* c : {"SkylakeX", "Cooperlake", "SapphireRapids"})
    if (strcasecmp(core.c_str(), c) == 0) return 3;
  for (const char* c : {"Haswell", "Zen"})
    if (strcasecmp(core.c_str(), c) == 0) return 2;
  return 1;
}

// An environment variable's value, read once and taken out of the environment so that no child inherits it.
std::string take_env(const char* name) {
  const char* v = std::getenv(name);
  std::string s = v != nullptr ? v : "";
  unsetenv(name);
  return s;
}
// The core tk-bench's restart was asked to replace (TK_BENCH_OPENBLAS_TOOK); "" when tk-bench did not restart.
const std::string& replaced_core() {
  static const std::string core = take_env("TK_BENCH_OPENBLAS_TOOK");
  return core;
}
// The OPENBLAS_CORETYPE the restart replaced (TK_BENCH_OPENBLAS_USER); "" when it was unset.
const std::string& replaced_setting() {
  static const std::string core = take_env("TK_BENCH_OPENBLAS_USER");
  return core;
}
}  // namespace

std::string openblas_core_note() {
  static const std::string note = [] {
    const std::string core = openblas_get_corename();
    std::string n = "OpenBLAS core " + core;
    const char* env = std::getenv("OPENBLAS_CORETYPE");
    const std::string& took = replaced_core();
    const std::string& user = replaced_setting();
    if (!took.empty() && env != nullptr && strcasecmp(took.c_str(), core.c_str()) == 0)
      n += std::string(" (OPENBLAS_CORETYPE=") + env + " changed nothing: an OpenBLAS built for one core)";
    else if (!took.empty() && env != nullptr && !user.empty())
      n += " (set by tk-bench: OPENBLAS_CORETYPE=" + user + " is below tilekit's ISA)";  // (one table line)
    else if (!took.empty() && env != nullptr) n += " (set by tk-bench: OpenBLAS took this CPU for " + took + ")";
    else if (env != nullptr) n += *env != '\0' ? " (OPENBLAS_CORETYPE)" : " (OPENBLAS_CORETYPE empty)";
    return n;
  }();
  return note;
}

void openblas_fair_core(char** argv) {
#if defined(__linux__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // the restart has happened (its marker present, even empty), or the user keeps OPENBLAS_CORETYPE as set (an
  // empty one too). The markers are read and taken out of the environment first, before any getenv below.
  const bool restarted = std::getenv("TK_BENCH_OPENBLAS_TOOK") != nullptr;
  (void)replaced_core();
  (void)replaced_setting();
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  const char* as_set = std::getenv("TK_BENCH_OPENBLAS_AS_SET");
  if (restarted || (set != nullptr && (*set == '\0' || (as_set != nullptr && *as_set != '\0')))) return;
  const std::string user = set != nullptr ? set : "";  // (setenv below may replace the string `set` points at)
  const std::string core = openblas_get_corename();
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  int cpu = avx512 ? 3 : avx2 ? 2 : 1;
  // tilekit's kernels run below the CPU where TK_CPU_ISA picks a lower copy, or the build has one for a lower
  // level: OpenBLAS may too (the AVX2 comparison: TK_CPU_ISA=x86-64-v3 OPENBLAS_CORETYPE=Haswell)
  const std::string ours = tk::cpu_kernel_isa();  // "x86-64-vN (...)", or "one copy, -march=..."
  if (const std::size_t at = ours.find("x86-64-v"); at != std::string::npos && at + 8 < ours.size()) {
    const char level = ours[at + 8];
    if (level >= '2' && level <= '4') cpu = std::min(cpu, level - '1');
  }
  // a core below that, whether OpenBLAS chose it or the environment set it (a machine image's
  // OPENBLAS_CORETYPE=Haswell ran OpenBLAS at half its speed on an AVX-512 AMD host), is replaced
  if (openblas_core_level(core) >= cpu) return;
  const char* fair = cpu == 3                  ? (__builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX")
                     : __builtin_cpu_is("amd") ? "Zen"
                                               : "Haswell";
  // OpenBLAS reads OPENBLAS_CORETYPE when it loads, before main: the program starts again with it set.
  // (/proc/self/exe is the program: under valgrind or an explicit ld.so it is not; set OPENBLAS_CORETYPE there.)
  if (set != nullptr) setenv("TK_BENCH_OPENBLAS_USER", user.c_str(), 1);
  setenv("OPENBLAS_CORETYPE", fair, 1);
  setenv("TK_BENCH_OPENBLAS_TOOK", core.c_str(), 1);
  execv("/proc/self/exe", argv);
  std::fprintf(
      stderr,
      "tk-bench: OpenBLAS runs its %s kernels on this CPU, and restarting with OPENBLAS_CORETYPE=%s failed: %s\n",
      core.c_str(), fair, std::strerror(errno));
  if (set != nullptr) {
    setenv("OPENBLAS_CORETYPE", user.c_str(), 1);
  } else {
    unsetenv("OPENBLAS_CORETYPE");
  }
  unsetenv("TK_BENCH_OPENBLAS_TOOK");
  unsetenv("TK_BENCH_OPENBLAS_USER");
#else
  (void)argv;
#endif
}
#else
std::string openblas_core_note() { return ""; }
void openblas_fair_core(char**) {}
#endif

const char* omp_wait_policy() {
  const char* v = std::getenv("OMP_WAIT_POLICY");
  return v && *v ? v : "unset";
}

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

namespace {

// Copies [lo, hi) of src to dst with non-temporal stores (SSE2's 16-byte ones; the bytes before dst's first
// 16-byte boundary and the tail through memcpy), then fences them. memcpy elsewhere.
void copy_streamed(char* dst, const char* src, std::size_t lo, std::size_t hi) {
#if defined(__SSE2__)
  std::size_t i = lo + (16 - reinterpret_cast<std::uintptr_t>(dst + lo) % 16) % 16;
  if (i > hi) i = hi;
  std::memcpy(dst + lo, src + lo, i - lo);
  for (; i + 64 <= hi; i += 64) {
    for (int q = 0; q < 64; q += 16) {
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + q),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + q)));
    }
  }
  std::memcpy(dst + i, src + i, hi - i);
  _mm_sfence();
#else
  std::memcpy(dst + lo, src + lo, hi - lo);
#endif
}

// The CPU copy: one contiguous piece per OpenMP thread (64-byte boundaries), each through memcpy or, with
// `streamed`, copy_streamed.
void cpu_copy(void* dst, const void* src, std::size_t bytes, bool streamed) {
  const auto piece = [&](std::size_t t, std::size_t n) {
    const std::size_t lines = (bytes + 63) / 64;
    const std::size_t lo = std::min(bytes, lines * t / n * 64), hi = std::min(bytes, lines * (t + 1) / n * 64);
    if (hi <= lo) return;
    if (streamed) copy_streamed(static_cast<char*>(dst), static_cast<const char*>(src), lo, hi);
    else std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  };
#if defined(_OPENMP)
#pragma omp parallel
  piece(static_cast<std::size_t>(omp_get_thread_num()), static_cast<std::size_t>(omp_get_num_threads()));
#else
  piece(0, 1);
#endif
}

}  // namespace

// The memory-bound rows' CPU ceiling: the faster of two copies of the same bytes, each thread one contiguous
// piece: the C library's memcpy, and non-temporal stores (which do not read the destination's lines first).
// The choice is made per size and thread count, on its first call, from the best of 5 timed runs of each, interleaved.
// (Until 2026-11-29 the ceiling was memcpy in pieces of 1 MiB: glibc copies those with plain stores, and on
// host D that ran 16-48% below the faster of these two from 4 MiB on, which flattered every CPU row set against
// it: docs/performance.md#cpu-ceiling.) Without SSE2 both are memcpy.
void device_memcpy(const tk::Device& dev, void* dst, const void* src, std::size_t bytes) {
  if (is_gpu(dev)) return tk::detail::copy_bytes(dev, dst, src, bytes, tk::detail::CopyKind::device_to_device);
  static std::mutex m;
  static std::map<std::pair<std::size_t, int>, bool> choice;  // (bytes, threads) -> streamed
#if defined(_OPENMP)
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  bool streamed = false;
  {
    std::lock_guard<std::mutex> lock(m);
    const auto key = std::make_pair(bytes, threads);
    auto it = choice.find(key);
    if (it == choice.end()) {
      double best[2] = {1e300, 1e300};
      for (int round = 0; round < 5; ++round) {
        for (int k = 0; k < 2; ++k) {
          const auto t0 = std::chrono::steady_clock::now();
          cpu_copy(dst, src, bytes, k == 1);
          best[k] = std::min(best[k], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
      }
      it = choice.emplace(key, best[1] < best[0]).first;
    }
    streamed = it->second;
  }
  cpu_copy(dst, src, bytes, streamed);
}

int settle_ms() {
  static const int ms = [] {
    const char* s = std::getenv("TK_BENCH_SETTLE_MS");
    return s != nullptr && *s != '\0' ? std::max(0, std::atoi(s)) : 150;
  }();
  return ms;
}

double measured_clock_khz() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const double khz = [] {
    // 8 dependent one-cycle register adds per pass: a pass takes 8 cycles (the loop's own decrement and branch run
    // beside the chain; an add of an immediate would not do: Golden Cove's renamer folds chains of those). Timed by
    // the thread's CPU clock, so that time the thread is not running does not count as cycles; the best of 20
    // blocks of 2^18 passes (2.1 M cycles, under a millisecond each).
    constexpr std::uint64_t passes = std::uint64_t{1} << 18;
    const auto now = [] {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    };
    double best = 0;
    for (int round = 0; round < 20; ++round) {
      std::uint64_t x = 0, n = passes, one = 1;
      const double t0 = now();
      asm volatile(
          "1:\n\t"
          "add %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\t"
          "add %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\tadd %2, %0\n\t"
          "dec %1\n\tjnz 1b"
          : "+r"(x), "+r"(n)
          : "r"(one)
          : "cc");
      const double s = now() - t0;
      if (s > 0) best = std::max(best, 8.0 * static_cast<double>(passes) / s / 1e3);
    }
    return best;
  }();
  return khz;
#else
  return 0;
#endif
}

double cpu_clock_scale(const tk::DeviceProps& p) {
  const double khz = measured_clock_khz();
  return p.clock_khz > 0 && khz > static_cast<double>(p.clock_khz) ? khz / static_cast<double>(p.clock_khz) : 1.0;
}

double cpu_peak_gflops(const tk::DeviceProps& p, bool fp64) {
  double all = fp64 ? p.peak_fp64_gflops : p.peak_fp32_gflops;
  const int cores = std::atoi(p.cpu_peak_model.c_str());  // the model starts with the core count
  if (all <= 0 || cores <= 0) return 0;
  all *= cpu_clock_scale(p);  // a clock the cores run above what the system reports (a VM's base clock)
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
