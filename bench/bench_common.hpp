// bench/bench_common.hpp — what every benchmark file shares: options, device timing, the memcpy ceiling and
// the row that reports a kernel beside that ceiling.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tilekit/tilekit.hpp"

namespace tk::bench {

struct Options {
  std::vector<tk::Device> devices;
  bool full = false;
  double size_mib = 0;              // 0: the default for the device
  bool sweep = false;               // the shape sweep (sweep.cpp) instead of the suite
  std::string shapes;               // --shapes: the sweep's shapes instead of its own (sweep.cpp parses them)
  std::string ops = "NN";           // --ops: the sweep's SGEMM storages, op(A) op(B), or --gemm-shapes' (parse_ops)
  std::string gemm_shapes;          // --gemm-shapes: extra DGEMM, TF32, BF16 and FP16 rows (gemm.cpp parses them)
  bool experiments = false;         // the access-pattern experiments (coalescing, banks) instead of the suite
  std::string format = "console";   // --benchmark_format: stdout's format (report.hpp)
  std::string out_format = "json";  // --benchmark_out_format: the file's
  std::string out_file;             // --benchmark_out
};

double median(std::vector<double> v);
// A row's timed calls, in ms: the counters `ms` (their median: the time every format reports, report.hpp) and
// `spread_pct` (interquartile range / median, percent: above 10 the row is marked noisy).
void record_times(benchmark::State& state, std::vector<double> ms);
// The threads of the CPU rows: tilekit's OpenMP team and OpenBLAS alike.
void set_cpu_threads(int n);
bool is_gpu(const tk::Device& d);
// Times fn on dev: device events on a GPU, the steady clock on the CPU (whose calls are synchronous).
double time_ms(const tk::Device& dev, const std::function<void()>& fn);
// The ceiling of memory-bound rows: copy `bytes` from src to dst on the device.
void device_memcpy(const tk::Device& dev, void* dst, const void* src, std::size_t bytes);
// Times `op` under the benchmark loop (after one warm-up call), then `baseline` (if any) as many times,
// each with time_ms; records op's times (record_times) and returns both medians in milliseconds. On a CPU,
// before each block of timed calls beside a baseline, the threads of the library that ran last settle first
// (settle_ms(): OpenBLAS's pool spins for a while after a call, and would take cores from tilekit's).
struct Medians {
  double op_ms, baseline_ms;
};
Medians time_beside(benchmark::State& state, const tk::Device& dev, const std::function<void()>& op,
                    const std::function<void()>& baseline);
// The pause before each timed block of a CPU row with a baseline: 150 ms, or TK_BENCH_SETTLE_MS (0: none).
int settle_ms();
// A CPU GEMM row's yardstick besides OpenBLAS: the peak FLOP/s (DeviceProps::peak_fp32_gflops or
// peak_fp64_gflops, all physical cores) scaled to the cores the run's OpenMP threads can use; 0 if unknown.
// Where the cores run faster than the clock the system reports (a virtual machine's /proc/cpuinfo gives its
// base clock: 2.3 GHz on a Xeon whose cores run scalar code at 2.8-2.9 GHz), the peak is scaled by
// cpu_clock_scale(). AVX-512 code runs at a lower clock than scalar code (2.66 GHz there), so the scaled peak
// errs high: the percentage does not flatter. (tk-info's peak is DeviceProps's, unscaled.)
double cpu_peak_gflops(const tk::DeviceProps& p, bool fp64);

// --ops=LIST: "NN", "NT", "TN", "TT" (op(A) op(B)), comma separated; exits 2 naming the item otherwise (sweep.cpp).
std::vector<std::pair<tk::Op, tk::Op>> parse_ops(const std::string& list);
// The calling core's clock in kHz, measured once (x86-64: a chain of dependent one-cycle adds timed by the
// thread's CPU clock, the best of 20 blocks of under a millisecond); 0 where it is not measured.
double measured_clock_khz();
// measured_clock_khz() / p.clock_khz where the measured clock is the higher one, else 1.
double cpu_clock_scale(const tk::DeviceProps& p);
// OpenBLAS picks its kernels from the CPU's model when it loads, and one older than the CPU takes a new CPU for
// an old one (Debian 12's 0.3.21 runs its SSE3 "Prescott" kernels on an Emerald Rapids Xeon: a sixth of its
// AVX-512 speed, a baseline that flatters tilekit). Called first in main: where the core OpenBLAS runs uses less
// than the ISA of tilekit's kernels (the CPU's AVX-512 or AVX2, or the lower copy TK_CPU_ISA asks for), whether
// OpenBLAS chose it or OPENBLAS_CORETYPE set it (a machine image's OPENBLAS_CORETYPE=Haswell halved OpenBLAS's
// speed on an AVX-512 AMD host), it sets OPENBLAS_CORETYPE to the core of that ISA (Cooperlake with AVX512_BF16,
// else SkylakeX; Haswell, or Zen on AMD) and starts tk-bench again (execv of /proc/self/exe,
// TK_BENCH_OPENBLAS_TOOK and TK_BENCH_OPENBLAS_USER marking the restart). TK_BENCH_OPENBLAS_AS_SET=1 (any
// non-empty value), or an empty OPENBLAS_CORETYPE, keeps the environment's core. openblas_core_note() says which
// core runs and why ("" without OpenBLAS).
void openblas_fair_core(char** argv);
std::string openblas_core_note();
// OMP_WAIT_POLICY as this process has it ("unset": the OpenMP runtime's default, which lets idle threads spin a
// while before they sleep). Under "passive" every launch of a CPU kernel wakes sleeping threads: on a 2-core VM
// SGEMM 256^3 took 0.23 ms passive against 0.09 ms by default (docs/performance.md#cpu-wait-policy).
const char* omp_wait_policy();
// One memory-bound row: runs `op` under the benchmark loop and reports GB/s (bytes / median time), GFLOP/s
// when flops > 0, the ceiling's GB/s and the percentage. The ceiling (`baseline`, copying
// baseline_bytes_per_copy) is timed once per device and size in a run, by the first row of that size.
// The ceiling's own row: times `copy` (bytes_per_copy read + written) and makes it the ceiling of that size.
void run_ceiling_row(benchmark::State& state, const tk::Device& dev, double bytes_per_copy,
                     const std::function<void()>& copy);
void run_row(benchmark::State& state, const tk::Device& dev, double bytes, double flops, double baseline_bytes_per_copy,
             const std::function<void()>& op, const std::function<void()>& baseline);

// A buffer of n copies of v. Every input is written before it is read: on the CPU an untouched allocation
// reads as the kernel's shared zero page, which sits in cache and would make the read side free (for the
// memcpy ceiling too); and garbage may be denormal, which CPUs compute slowly.
template <class T>
tk::Buffer<T> filled(const tk::Device& dev, std::int64_t n, T v) {
  return tk::Buffer<T>(dev, std::vector<T>(static_cast<std::size_t>(n), v));
}

// How long a row runs: GPU rows (and --full) for Google Benchmark's minimum time; the CPU quick suite a fixed
// number of iterations per row (8 for a row, 5 for an experiment: medians enough for ratios), so that each
// row's set-up happens once and the whole suite stays short.
struct Pace {
  int iterations;   // > 0: exactly this many (CPU quick suite)
  double min_time;  // else: Google Benchmark's minimum time, seconds
};
Pace row_pace(const tk::Device& dev, const Options& opt);
Pace experiment_pace(const tk::Device& dev, const Options& opt);
void pace(benchmark::internal::Benchmark* b, const Pace& p);

// Each op family registers its rows for one device (bench/<family>.cpp).
void register_elementwise(const tk::Device& dev, const Options& opt);
void register_matmul(const tk::Device& dev, const Options& opt);
void register_gemm(const tk::Device& dev, const Options& opt);
void register_transpose(const tk::Device& dev, const Options& opt);
void register_aos(const tk::Device& dev, const Options& opt);
void register_stencil(const tk::Device& dev, const Options& opt);
void register_experiments(const tk::Device& dev, const Options& opt);
void register_sweep(const tk::Device& dev, const Options& opt);
// One row-major SGEMM row of the `best` variant, op(A) op(B), beside the vendor BLAS (gemm.cpp), named `name`;
// strided batched (contiguous matrices) when batch > 1; with user_data (CPU only), A, B and C in std::vectors
// (malloc's alignment, not tilekit's 64 bytes), which the vendor BLAS then takes as well.
void register_sgemm_row(const tk::Device& dev, const std::string& name, tk::Op oa, tk::Op ob, std::int64_t M,
                        std::int64_t N, std::int64_t K, std::int64_t batch = 1, bool user_data = false);

// The sweep's report: per op and ceiling, the geometric mean of the rows' percentages and the worst row; and
// per transposed SGEMM storage (sgemm_NT, ...), its GFLOP/s as a percentage of the same shape's NN row of the
// same run, where both were run.
class SweepSummary {
 public:
  void add(const std::string& name, const std::map<std::string, double>& counters);
  void print(std::FILE* f) const;

 private:
  struct Group {
    int rows = 0;
    double log_sum = 0, worst = 0;
    std::string worst_shape;
    void add(double pct, const std::string& shape);
  };
  std::map<std::string, Group> groups_;
  // GFLOP/s of the SGEMM rows by device, op ("sgemm", "sgemm_NT", ...) and shape
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> gflops_;
};

}  // namespace tk::bench
