// bench/gemm.cpp — tk::gemm rows: SGEMM in every op(A)/op(B), DGEMM, strided batched SGEMM, each beside the
// vendor BLAS's same call from the same run (cuBLAS with CUBLAS_PEDANTIC_MATH on CUDA: true FP32, no TF32;
// OpenBLAS on the CPU), on the same buffers. Row-major operands (the vendor gets the column-major
// equivalent: operands swapped, the same ops). Work counted: 2 M N K FLOPs per product.
//
// Names: gemm/<s|d>gemm_<opA><opB>[_batched]/<variant>/<device>/<M>x<N>x<K>[x<batch>]. DGEMM rows on a GPU
// also report pct_of_fp64_fma_peak: FP64 FMA units x 2 x clock (sm_90: 64 per SM; the H100 SXM's 33.5
// TFLOP/s), the ceiling of a kernel without tensor cores; cuBLAS DGEMM uses the FP64 tensor cores (DMMA).
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "bench_common.hpp"
#include "tilekit/matmul.hpp"

#if defined(TK_BENCH_CUBLAS)
#include <cublas_v2.h>
#endif
#if defined(TK_BENCH_OPENBLAS)
#include <cblas.h>
#endif

namespace tk::bench {
namespace {

struct GemmRow {
  tk::Op oa, ob;
  std::int64_t M, N, K, batch = 1;
};

template <class T>
struct Operands {
  tk::Buffer<T> A, B, C;
  std::int64_t lda, ldb, ldc, sa, sb, sc;
};

template <class T>
Operands<T> make_operands(const tk::Device& dev, const GemmRow& r) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<T> d(T(-1), T(1));
  const bool ta = r.oa == tk::Op::trans, tb = r.ob == tk::Op::trans;
  const std::int64_t lda = ta ? r.M : r.K, ldb = tb ? r.K : r.N, ldc = r.N;
  std::vector<T> a(r.M * r.K * r.batch), b(r.K * r.N * r.batch);
  for (auto& x : a) x = d(rng);
  for (auto& x : b) x = d(rng);
  return {tk::Buffer<T>(dev, a),
          tk::Buffer<T>(dev, b),
          tk::Buffer<T>(dev, std::vector<T>(r.M * r.N * r.batch, std::numeric_limits<T>::quiet_NaN())),
          lda,
          ldb,
          ldc,
          r.M * r.K,
          r.K * r.N,
          r.M * r.N};
}

#if defined(TK_BENCH_CUBLAS)
cublasHandle_t cublas() {
  static cublasHandle_t h = [] {
    cublasHandle_t x = nullptr;
    if (cublasCreate(&x) != CUBLAS_STATUS_SUCCESS) tk::detail::fail("tk-bench: cublasCreate failed");
    if (cublasSetMathMode(x, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS)
      tk::detail::fail("tk-bench: cublasSetMathMode failed");
    return x;
  }();
  return h;
}
cublasOperation_t cu_op(tk::Op o) { return o == tk::Op::trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: B first, the same ops.
template <class T>
void cublas_gemm(const GemmRow& r, Operands<T>& o) {
  const T alpha = 1, beta = 0;
  cublasStatus_t st;
  const int m = static_cast<int>(r.N), n = static_cast<int>(r.M), k = static_cast<int>(r.K);
  if (r.batch > 1) {
    if constexpr (sizeof(T) == 4) {
      st = cublasSgemmStridedBatched(cublas(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(), int(o.ldb), o.sb,
                                     o.A.data(), int(o.lda), o.sa, &beta, o.C.data(), int(o.ldc), o.sc, int(r.batch));
    } else {
      st = cublasDgemmStridedBatched(cublas(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(), int(o.ldb), o.sb,
                                     o.A.data(), int(o.lda), o.sa, &beta, o.C.data(), int(o.ldc), o.sc, int(r.batch));
    }
  } else if constexpr (sizeof(T) == 4) {
    st = cublasSgemm(cublas(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(), int(o.ldb), o.A.data(),
                     int(o.lda), &beta, o.C.data(), int(o.ldc));
  } else {
    st = cublasDgemm(cublas(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(), int(o.ldb), o.A.data(),
                     int(o.lda), &beta, o.C.data(), int(o.ldc));
  }
  if (st != CUBLAS_STATUS_SUCCESS) tk::detail::fail("tk-bench: cuBLAS GEMM failed: ", cublasGetStatusString(st));
}
#endif

#if defined(TK_BENCH_OPENBLAS)
CBLAS_TRANSPOSE cb_op(tk::Op o) { return o == tk::Op::trans ? CblasTrans : CblasNoTrans; }
template <class T>
void openblas_gemm(const GemmRow& r, Operands<T>& o) {
  for (std::int64_t z = 0; z < r.batch; ++z) {  // OpenBLAS has no strided batched call: one call per matrix
    const int m = int(r.M), n = int(r.N), k = int(r.K);
    if constexpr (sizeof(T) == 4) {
      cblas_sgemm(CblasRowMajor, cb_op(r.oa), cb_op(r.ob), m, n, k, 1.f, o.A.data() + z * o.sa, int(o.lda),
                  o.B.data() + z * o.sb, int(o.ldb), 0.f, o.C.data() + z * o.sc, int(o.ldc));
    } else {
      cblas_dgemm(CblasRowMajor, cb_op(r.oa), cb_op(r.ob), m, n, k, 1., o.A.data() + z * o.sa, int(o.lda),
                  o.B.data() + z * o.sb, int(o.ldb), 0., o.C.data() + z * o.sc, int(o.ldc));
    }
  }
}
#endif

template <class T>
void register_gemm_row(const tk::Device& dev, tk::MatmulVariant v, const GemmRow& r, std::string name = "") {
  if (name.empty()) {
    name = std::string("gemm/") + (sizeof(T) == 4 ? "s" : "d") + "gemm_" + tk::to_string(r.oa) + tk::to_string(r.ob) +
           (r.batch > 1 ? "_batched/" : "/") + tk::to_string(v) + "/" + dev.name() + "/" + std::to_string(r.M) + "x" +
           std::to_string(r.N) + "x" + std::to_string(r.K);
    if (r.batch > 1) name += "x" + std::to_string(r.batch);
  }
  benchmark::RegisterBenchmark(
      name.c_str(),
      [dev, v, r](benchmark::State& st) {
        Operands<T> o = make_operands<T>(dev, r);
        auto op = [&] {
          tk::gemm_strided_batched(dev, tk::Layout::row_major, r.oa, r.ob, r.M, r.N, r.K, T(1), o.A.data(), o.lda, o.sa,
                                   o.B.data(), o.ldb, o.sb, T(0), o.C.data(), o.ldc, o.sc, r.batch, v);
        };
        std::string vendor;
        std::function<void()> base;
#if defined(TK_BENCH_CUBLAS)
        if (dev.backend() == tk::Backend::cuda) vendor = "cuBLAS", base = [&] { cublas_gemm<T>(r, o); };
#endif
#if defined(TK_BENCH_OPENBLAS)
        if (dev.backend() == tk::Backend::cpu) vendor = "OpenBLAS", base = [&] { openblas_gemm<T>(r, o); };
#endif
        const Medians m = time_beside(st, dev, op, base);
        const double flops = 2.0 * r.M * r.N * r.K * r.batch;
        const double gflops = flops / (m.op_ms / 1e3) / 1e9;
        st.counters["GFLOP/s"] = gflops;
        if (base) {
          const double base_gflops = flops / (m.baseline_ms / 1e3) / 1e9;
          st.counters[vendor + "_GFLOP/s"] = base_gflops;
          st.counters["pct_of_" + vendor] = 100.0 * gflops / base_gflops;
        }
        const tk::DeviceProps& p = dev.props();
        if (sizeof(T) == 8 && dev.backend() == tk::Backend::cuda && p.clock_khz > 0 && p.arch.rfind("sm_90", 0) == 0) {
          const double peak = 64.0 * 2 * p.multiprocessors * p.clock_khz * 1e3 / 1e9;  // GFLOP/s, FP64 FMA units
          st.counters["fp64_fma_peak_GFLOP/s"] = peak;
          st.counters["pct_of_fp64_fma_peak"] = 100.0 * gflops / peak;
          st.counters["pct_of_fp64_tensor_peak"] = 100.0 * gflops / (2 * peak);  // DMMA: twice the FMA rate
        }
      })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

void register_sgemm_row(const tk::Device& dev, const std::string& name, tk::Op oa, tk::Op ob, std::int64_t M,
                        std::int64_t N, std::int64_t K) {
  register_gemm_row<float>(dev, tk::MatmulVariant::best, {oa, ob, M, N, K}, name);
}

void register_gemm(const tk::Device& dev, const Options& opt) {
  if (dev.backend() == tk::Backend::kokkos) return;  // the cross-check is not a speed contender
  const bool gpu = is_gpu(dev);
  const std::int64_t n = gpu ? 4096 : opt.full ? 2048 : 1024;
  const tk::Op N = tk::Op::none, T = tk::Op::trans;
  for (tk::Op oa : {N, T}) {
    for (tk::Op ob : {N, T}) register_gemm_row<float>(dev, tk::MatmulVariant::best, {oa, ob, n, n, n});
  }
  register_gemm_row<double>(dev, tk::MatmulVariant::best, {N, N, n, n, n});
  register_gemm_row<double>(dev, tk::MatmulVariant::best, {T, T, n, n, n});
  if ((gpu || opt.full) && n != 2048) register_gemm_row<double>(dev, tk::MatmulVariant::best, {N, N, 2048, 2048, 2048});
  if (gpu) register_gemm_row<double>(dev, tk::MatmulVariant::best, {N, N, 1024, 1024, 1024});  // under a wave
  register_gemm_row<float>(dev, tk::MatmulVariant::best, {N, N, 256, 256, 256, gpu ? 512 : 64});
  register_gemm_row<float>(dev, tk::MatmulVariant::best, {T, N, 256, 256, 256, gpu ? 512 : 64});
  // A side of C of at most 8 (kernels/matmul/gemv.hpp): one row of C in every storage (both of the kernel's
  // forms for each operand), one column, 8 rows, and a double GEMV.
  const std::int64_t g = gpu ? 8192 : opt.full ? 4096 : 2048;
  for (tk::Op oa : {N, T}) {
    for (tk::Op ob : {N, T}) register_gemm_row<float>(dev, tk::MatmulVariant::best, {oa, ob, 1, g, g});
  }
  register_gemm_row<float>(dev, tk::MatmulVariant::best, {N, N, g, 1, g});
  register_gemm_row<float>(dev, tk::MatmulVariant::best, {T, N, g, 1, g});
  register_gemm_row<float>(dev, tk::MatmulVariant::best, {N, N, 8, g, g / 2});
  register_gemm_row<double>(dev, tk::MatmulVariant::best, {N, N, 1, g, g});
  if (gpu) {
    register_gemm_row<double>(dev, tk::MatmulVariant::best, {N, N, 256, 256, 256, 512});
    // batches of smaller and of larger matrices than the 256^3 the targets name
    register_gemm_row<float>(dev, tk::MatmulVariant::best, {N, N, 128, 128, 128, 4096});
    register_gemm_row<float>(dev, tk::MatmulVariant::best, {N, N, 512, 512, 512, 64});
  }
}

}  // namespace tk::bench
