// bench/matmul.cpp — tk::matmul rows: every variant beside the vendor BLAS from the same run.
//
// Work counted: 2 * M * N * K FLOPs (a multiply and an add per term); bytes: 4 * (M K + K N + M N), each
// matrix moved once (GB/s is reported so that GFLOP/s over GB/s places the row on the roofline). Baseline: cuBLAS SGEMM on CUDA
// (CUBLAS_PEDANTIC_MATH: true FP32, no TF32) and for Kokkos on its GPU, OpenBLAS cblas_sgemm on the CPU (and for
// Kokkos on the host) when found; both timed in
// the same benchmark function right after the row's own iterations, on the same buffers. Inputs are
// random (never zeros), C is NaN-poisoned before the first call (beta = 0 must not read it).
#include <cmath>
#include <random>
#include <string>

#include "bench_common.hpp"

#if defined(TK_BENCH_CUBLAS)
#include <cublas_v2.h>
#endif
#if defined(TK_BENCH_OPENBLAS)
#include <cblas.h>
#endif

namespace tk::bench {
namespace {

struct Shape {
  std::int64_t M, N, K;
};

std::string shape_name(const Shape& s) {
  return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

#if defined(TK_BENCH_CUBLAS)
// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets the operands swapped.
class Cublas {
 public:
  Cublas() {
    check(cublasCreate(&h_), "cublasCreate");
    check(cublasSetMathMode(h_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)");
  }
  ~Cublas() { cublasDestroy(h_); }
  void sgemm(const Shape& s, const float* A, const float* B, float* C) {
    const float alpha = 1.f, beta = 0.f;
    check(cublasSgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.N), static_cast<int>(s.M), static_cast<int>(s.K),
                      &alpha, B, static_cast<int>(s.N), A, static_cast<int>(s.K), &beta, C, static_cast<int>(s.N)),
          "cublasSgemm");
  }

 private:
  static void check(cublasStatus_t st, const char* what) {
    if (st != CUBLAS_STATUS_SUCCESS) tk::detail::fail("tk-bench: ", what, " failed: ", cublasGetStatusString(st));
  }
  cublasHandle_t h_ = nullptr;
};
#endif

// The vendor BLAS for dev, or nullptr-like when there is none for it in this build.
std::function<void(const Shape&, const float*, const float*, float*)> vendor_sgemm(const tk::Device& dev,
                                                                                   std::string* name) {
#if defined(TK_BENCH_CUBLAS)
  if (dev.backend() == tk::Backend::cuda || (dev.backend() == tk::Backend::kokkos && is_gpu(dev))) {  // Kokkos's GPU
    *name = "cuBLAS";
    static Cublas* cublas = new Cublas();  // created once, after the device is chosen; lives to exit
    return [](const Shape& s, const float* A, const float* B, float* C) { cublas->sgemm(s, A, B, C); };
  }
#endif
#if defined(TK_BENCH_OPENBLAS)
  if (!is_gpu(dev)) {  // the CPU, and Kokkos on the host
    *name = "OpenBLAS";
    return [](const Shape& s, const float* A, const float* B, float* C) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.M), static_cast<int>(s.N),
                  static_cast<int>(s.K), 1.f, A, static_cast<int>(s.K), B, static_cast<int>(s.N), 0.f, C,
                  static_cast<int>(s.N));
    };
  }
#endif
  (void)dev;
  *name = "";
  return {};
}

void register_row(const tk::Device& dev, tk::MatmulVariant v, const Shape& s) {
  const std::string name = std::string("matmul/") + tk::to_string(v) + "/" + dev.name() + "/" + shape_name(s);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [dev, v, s](benchmark::State& st) {
        std::mt19937_64 rng(12345);
        std::uniform_real_distribution<float> d(-1.f, 1.f);
        std::vector<float> a(s.M * s.K), b(s.K * s.N);
        for (auto& x : a) x = d(rng);
        for (auto& x : b) x = d(rng);
        tk::Buffer<float> A(dev, a), B(dev, b), C(dev, std::vector<float>(s.M * s.N, std::nanf("")));
        const double flops = 2.0 * s.M * s.N * s.K;
        auto op = [&] { tk::matmul(dev, s.M, s.N, s.K, 1.f, A.data(), s.K, B.data(), s.N, 0.f, C.data(), s.N, v); };
        std::string vendor;
        const auto sgemm = vendor_sgemm(dev, &vendor);
        std::function<void()> base;
        if (sgemm) base = [&] { sgemm(s, A.data(), B.data(), C.data()); };
        const Medians m = time_beside(st, dev, op, base);
        const double gflops = flops / (m.op_ms / 1e3) / 1e9;
        // The fewest bytes a matmul must move: A and B read once, C written once (the roofline's x axis is
        // GFLOP/s over this GB/s: the kernel's arithmetic intensity at its best).
        const double min_bytes = 4.0 * (s.M * s.K + s.K * s.N + s.M * s.N);
        st.counters["GFLOP/s"] = gflops;
        st.counters["GB/s"] = min_bytes / (m.op_ms / 1e3) / 1e9;
        if (sgemm) {
          const double base_gflops = flops / (m.baseline_ms / 1e3) / 1e9;
          st.counters[vendor + "_GFLOP/s"] = base_gflops;
          st.counters["pct_of_" + vendor] = 100.0 * gflops / base_gflops;
        }
      })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

void register_matmul(const tk::Device& dev, const Options& opt) {
  const bool gpu = is_gpu(dev);
  // Every variant at one size; the best variant over the shape set.
  const Shape main_shape = gpu ? Shape{4096, 4096, 4096} : opt.full ? Shape{2048, 2048, 2048} : Shape{1024, 1024, 1024};
  if (dev.backend() == tk::Backend::kokkos) {  // one independent implementation: one row
    register_row(dev, tk::MatmulVariant::best, main_shape);
    return;
  }
  register_row(dev, tk::MatmulVariant::best, main_shape);  // what tk::matmul runs by default
  for (const auto& info : tk::matmul_variants()) {
    if (!gpu && !opt.full && (info.variant == tk::MatmulVariant::naive)) {
      register_row(dev, info.variant, {512, 512, 512});  // the naive kernel is slow on a CPU: a smaller size
      continue;
    }
    register_row(dev, info.variant, main_shape);
  }
  if (gpu) {
    for (const Shape& s : std::vector<Shape>{{1024, 1024, 1024},
                                             {2048, 2048, 2048},
                                             {8192, 8192, 8192},
                                             {4095, 4095, 4095},
                                             {1000, 500, 3000},
                                             {8192, 8192, 256}})
      register_row(dev, tk::MatmulVariant::best, s);
  } else if (opt.full) {
    register_row(dev, tk::MatmulVariant::best, {1000, 500, 3000});
  }
}

}  // namespace tk::bench
