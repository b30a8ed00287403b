// bench/gemm.cpp — tk::gemm rows: SGEMM in every op(A)/op(B), DGEMM, strided batched SGEMM, TF32, BF16 and FP16
// GEMM, each beside the vendor BLAS's same call from the same run, on the same buffers. The vendor is called
// as a user calls it: on CUDA, FP32 SGEMM with CUBLAS_PEDANTIC_MATH (true FP32, no TF32); DGEMM with cuBLAS's
// default math (its FP64 tensor cores: IEEE double); TF32 with CUBLAS_COMPUTE_32F_FAST_TF32, BF16 and FP16
// (C float) with CUBLAS_COMPUTE_32F, through cublasGemmEx / cublasGemmStridedBatchedEx. On the CPU OpenBLAS
// (float and double; the 16-bit rows have no CPU baseline). Row-major operands (the vendor gets the
// column-major equivalent: operands swapped, the same ops). Work counted: 2 M N K FLOPs per product.
//
// Names: gemm/<s|d|tf32|bf16|f16>gemm_<opA><opB>[_batched]/<variant>/<device>/<M>x<N>x<K>[x<batch>]. DGEMM
// rows on a GPU also report pct_of_fp64_fma_peak: FP64 FMA units x 2 x clock (sm_90: 64 per SM; the H100
// SXM's 33.5 TFLOP/s), the ceiling of a kernel without tensor cores; cuBLAS DGEMM uses the FP64 tensor cores
// (DMMA, twice that rate).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <type_traits>

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
  bool user = false;  // CPU: A, B and C in std::vectors (malloc's alignment), for both libraries, not tilekit's buffers
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
// cuBLAS's default math: what a user's DGEMM, TF32, BF16 and FP16 calls get.
cublasHandle_t cublas_default() {
  static cublasHandle_t h = [] {
    cublasHandle_t x = nullptr;
    if (cublasCreate(&x) != CUBLAS_STATUS_SUCCESS) tk::detail::fail("tk-bench: cublasCreate failed");
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
      st = cublasDgemmStridedBatched(cublas_default(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(),
                                     int(o.ldb), o.sb, o.A.data(), int(o.lda), o.sa, &beta, o.C.data(), int(o.ldc),
                                     o.sc, int(r.batch));
    }
  } else if constexpr (sizeof(T) == 4) {
    st = cublasSgemm(cublas(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(), int(o.ldb), o.A.data(),
                     int(o.lda), &beta, o.C.data(), int(o.ldc));
  } else {
    st = cublasDgemm(cublas_default(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(), int(o.ldb), o.A.data(),
                     int(o.lda), &beta, o.C.data(), int(o.ldc));
  }
  if (st != CUBLAS_STATUS_SUCCESS) tk::detail::fail("tk-bench: cuBLAS GEMM failed: ", cublasGetStatusString(st));
}
#endif

// The matrix units' precisions: TF32 (float operands, Math::tf32), BF16 and FP16 (C float).
enum class Prec { tf32, bf16, f16 };
const char* prec_name(Prec p) { return p == Prec::tf32 ? "tf32" : p == Prec::bf16 ? "bf16" : "f16"; }

template <class In>
struct Operands16 {
  tk::Buffer<In> A, B;
  tk::Buffer<float> C;
  std::int64_t lda, ldb, ldc, sa, sb, sc;
};

template <class In>
Operands16<In> make_operands16(const tk::Device& dev, const GemmRow& r) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  const bool ta = r.oa == tk::Op::trans, tb = r.ob == tk::Op::trans;
  std::vector<In> a(r.M * r.K * r.batch), b(r.K * r.N * r.batch);
  for (auto& x : a) x = static_cast<In>(d(rng));
  for (auto& x : b) x = static_cast<In>(d(rng));
  return {tk::Buffer<In>(dev, a),
          tk::Buffer<In>(dev, b),
          tk::Buffer<float>(dev, std::vector<float>(r.M * r.N * r.batch, std::numeric_limits<float>::quiet_NaN())),
          ta ? r.M : r.K,
          tb ? r.K : r.N,
          r.N,
          r.M * r.K,
          r.K * r.N,
          r.M * r.N};
}

#if defined(TK_BENCH_CUBLAS)
template <class In>
void cublas_gemm16(Prec p, const GemmRow& r, Operands16<In>& o) {
  const float alpha = 1, beta = 0;
  const cudaDataType_t in = p == Prec::tf32 ? CUDA_R_32F : p == Prec::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  const cublasComputeType_t compute = p == Prec::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const int m = static_cast<int>(r.N), n = static_cast<int>(r.M), k = static_cast<int>(r.K);
  cublasStatus_t st;
  if (r.batch > 1) {
    st = cublasGemmStridedBatchedEx(cublas_default(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(), in,
                                    int(o.ldb), o.sb, o.A.data(), in, int(o.lda), o.sa, &beta, o.C.data(), CUDA_R_32F,
                                    int(o.ldc), o.sc, int(r.batch), compute, CUBLAS_GEMM_DEFAULT);
  } else {
    st = cublasGemmEx(cublas_default(), cu_op(r.ob), cu_op(r.oa), m, n, k, &alpha, o.B.data(), in, int(o.ldb),
                      o.A.data(), in, int(o.lda), &beta, o.C.data(), CUDA_R_32F, int(o.ldc), compute,
                      CUBLAS_GEMM_DEFAULT);
  }
  if (st != CUBLAS_STATUS_SUCCESS) tk::detail::fail("tk-bench: cuBLAS GemmEx failed: ", cublasGetStatusString(st));
}
#endif

template <class In>
void register_gemm16_row(const tk::Device& dev, Prec prec, const GemmRow& r,
                         tk::MatmulVariant v = tk::MatmulVariant::best) {
  std::string name = std::string("gemm/") + prec_name(prec) + "gemm_" + tk::to_string(r.oa) + tk::to_string(r.ob) +
                     (r.batch > 1 ? "_batched/" : "/") + tk::to_string(v) + "/" + dev.name() + "/" +
                     std::to_string(r.M) + "x" + std::to_string(r.N) + "x" + std::to_string(r.K);
  if (r.batch > 1) name += "x" + std::to_string(r.batch);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [dev, prec, r, v](benchmark::State& st) {
        Operands16<In> o = make_operands16<In>(dev, r);
        auto op = [&] {
          if constexpr (std::is_same_v<In, float>) {
            tk::gemm_strided_batched(dev, tk::Layout::row_major, r.oa, r.ob, r.M, r.N, r.K, 1.f, o.A.data(), o.lda,
                                     o.sa, o.B.data(), o.ldb, o.sb, 0.f, o.C.data(), o.ldc, o.sc, r.batch, v,
                                     tk::Math::tf32);
          } else {
            tk::gemm_strided_batched(dev, tk::Layout::row_major, r.oa, r.ob, r.M, r.N, r.K, 1.f, o.A.data(), o.lda,
                                     o.sa, o.B.data(), o.ldb, o.sb, 0.f, o.C.data(), o.ldc, o.sc, r.batch, v);
          }
        };
        std::string vendor;
        std::function<void()> base;
#if defined(TK_BENCH_CUBLAS)
        if (dev.backend() == tk::Backend::cuda) vendor = "cuBLAS", base = [&] { cublas_gemm16<In>(prec, r, o); };
#endif
        // On a CPU a 16-bit row stands beside tilekit's own SGEMM of the same values
        // (issue 40's yardstick: BF16 at 1.5 times it where the CPU has AVX512_BF16)
        std::vector<float> a32, b32;
        std::optional<tk::Buffer<float>> fa, fb;
        if (dev.backend() == tk::Backend::cpu && !std::is_same_v<In, float>) {
          for (const In& x : o.A.to_host()) a32.push_back(static_cast<float>(x));
          for (const In& x : o.B.to_host()) b32.push_back(static_cast<float>(x));
          fa.emplace(dev, a32);
          fb.emplace(dev, b32);
          vendor = "tilekit_SGEMM";
          base = [&] {
            tk::gemm_strided_batched(dev, tk::Layout::row_major, r.oa, r.ob, r.M, r.N, r.K, 1.f, fa->data(), o.lda,
                                     o.sa, fb->data(), o.ldb, o.sb, 0.f, o.C.data(), o.ldc, o.sc, r.batch);
          };
        }
        const Medians m = time_beside(st, dev, op, base);
        const double flops = 2.0 * r.M * r.N * r.K * r.batch;
        const double gflops = flops / (m.op_ms / 1e3) / 1e9;
        st.counters["GFLOP/s"] = gflops;
        if (base) {
          st.counters[vendor + "_GFLOP/s"] = flops / (m.baseline_ms / 1e3) / 1e9;
          st.counters["pct_of_" + vendor] = 100.0 * m.baseline_ms / m.op_ms;
        }
        // a BF16 row on a CPU with AVX512_BF16 or AMX: % of the cores' BF16 peak on the unit the call runs on (AMX's
        // where `best` (C of more than 8 columns) or smem_dynamic takes the tile kernel: tilekit/matmul.hpp; a run
        // forced to a copy without AVX-512, TK_CPU_ISA=x86-64-v3, converts instead and is still given against it)
        const tk::DeviceProps& p = dev.props();
        const bool amx = p.peak_amx_bf16_gflops > 0 &&
                         ((v == tk::MatmulVariant::best && r.N > 8) || v == tk::MatmulVariant::smem_dynamic);
        const double unit_peak = amx ? p.peak_amx_bf16_gflops : p.peak_bf16_gflops;
        if (dev.backend() == tk::Backend::cpu && prec == Prec::bf16 && unit_peak > 0) {
          const double fp32 = cpu_peak_gflops(p, false);
          if (fp32 > 0 && p.peak_fp32_gflops > 0) {
            const double peak = fp32 * unit_peak / p.peak_fp32_gflops;
            st.counters["peak_GFLOP/s"] = peak;
            st.counters["pct_of_peak"] = 100.0 * gflops / peak;
          }
        }
      })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

#if defined(TK_BENCH_OPENBLAS)
CBLAS_TRANSPOSE cb_op(tk::Op o) { return o == tk::Op::trans ? CblasTrans : CblasNoTrans; }
template <class T>
void openblas_gemm(const GemmRow& r, const Operands<T>& o, const T* A, const T* B, T* C) {
  for (std::int64_t z = 0; z < r.batch; ++z) {  // OpenBLAS has no strided batched call: one call per matrix
    const int m = int(r.M), n = int(r.N), k = int(r.K);
    if constexpr (sizeof(T) == 4) {
      cblas_sgemm(CblasRowMajor, cb_op(r.oa), cb_op(r.ob), m, n, k, 1.f, A + z * o.sa, int(o.lda), B + z * o.sb,
                  int(o.ldb), 0.f, C + z * o.sc, int(o.ldc));
    } else {
      cblas_dgemm(CblasRowMajor, cb_op(r.oa), cb_op(r.ob), m, n, k, 1., A + z * o.sa, int(o.lda), B + z * o.sb,
                  int(o.ldb), 0., C + z * o.sc, int(o.ldc));
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
        // a user's data: the same values in std::vectors, which both libraries then take (host memory: CPU rows alone)
        std::vector<T> ua, ub, uc;
        if (r.user) {
          ua = o.A.to_host(), ub = o.B.to_host(), uc = o.C.to_host();
        }
        const T* const A = r.user ? ua.data() : o.A.data();
        const T* const B = r.user ? ub.data() : o.B.data();
        T* const C = r.user ? uc.data() : o.C.data();
        auto op = [&] {
          tk::gemm_strided_batched(dev, tk::Layout::row_major, r.oa, r.ob, r.M, r.N, r.K, T(1), A, o.lda, o.sa, B,
                                   o.ldb, o.sb, T(0), C, o.ldc, o.sc, r.batch, v);
        };
        std::string vendor;
        std::function<void()> base;
#if defined(TK_BENCH_CUBLAS)
        if (dev.backend() == tk::Backend::cuda) vendor = "cuBLAS", base = [&] { cublas_gemm<T>(r, o); };
#endif
#if defined(TK_BENCH_OPENBLAS)
        if (dev.backend() == tk::Backend::cpu) vendor = "OpenBLAS", base = [&] { openblas_gemm<T>(r, o, A, B, C); };
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
        if (dev.backend() == tk::Backend::cpu) {
          if (const double peak = cpu_peak_gflops(p, sizeof(T) == 8); peak > 0) {
            st.counters["peak_GFLOP/s"] = peak;
            st.counters["pct_of_peak"] = 100.0 * gflops / peak;
          }
        }
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
                        std::int64_t N, std::int64_t K, std::int64_t batch, bool user_data) {
  register_gemm_row<float>(dev, tk::MatmulVariant::best, {oa, ob, M, N, K, batch, user_data && !is_gpu(dev)}, name);
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
  // the matrix units' precisions (C float): square products in every storage, and a batch
  const std::int64_t h = gpu ? 4096 : 512;
  for (tk::Op oa : {N, T}) {
    for (tk::Op ob : {N, T}) {
      register_gemm16_row<float>(dev, Prec::tf32, {oa, ob, h, h, h});
      register_gemm16_row<tk::bf16>(dev, Prec::bf16, {oa, ob, h, h, h});
      register_gemm16_row<tk::f16>(dev, Prec::f16, {oa, ob, h, h, h});
      // on a GPU, the warp-level kernel beside `best` (which is the warpgroup kernel on sm_90)
      if (gpu) register_gemm16_row<tk::bf16>(dev, Prec::bf16, {oa, ob, h, h, h}, tk::MatmulVariant::warp_tiled);
      if (gpu) register_gemm16_row<float>(dev, Prec::tf32, {oa, ob, h, h, h}, tk::MatmulVariant::warp_tiled);
    }
  }
  register_gemm16_row<tk::bf16>(dev, Prec::bf16, {N, N, 256, 256, 256, gpu ? 512 : 4});
  // --gemm-shapes: DGEMM and the matrix units' precisions at the user's shapes, in --ops's storages (NN by default)
  std::size_t at = 0;
  while (at < opt.gemm_shapes.size()) {
    const std::size_t end = std::min(opt.gemm_shapes.find(',', at), opt.gemm_shapes.size());
    const std::string item = opt.gemm_shapes.substr(at, end - at);
    at = end + 1;
    std::int64_t d[4] = {0, 0, 0, 1};
    int got = 0;
    for (std::size_t i = 0; i <= item.size();) {
      const std::size_t x = std::min(item.find('x', i), item.size());
      const std::string part = item.substr(i, x - i);
      std::size_t used = 0;
      try {
        if (got < 4) d[got] = std::stoll(part, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (got >= 4 || part.empty() || used != part.size()) {
        got = -1;
        break;
      }
      ++got;
      i = x + 1;
    }
    if (got < 3 || d[0] < 1 || d[1] < 1 || d[2] < 1 || d[3] < 1)
      tk::detail::fail("--gemm-shapes: '", item, "': expected MxNxK or MxNxKxBATCH, each >= 1");
    // in each storage --ops names (NN by default)
    for (const auto& [oa, ob] : parse_ops(opt.ops)) {
      const GemmRow row{oa, ob, d[0], d[1], d[2], d[3]};
      register_gemm_row<double>(dev, tk::MatmulVariant::best, row);
      register_gemm16_row<float>(dev, Prec::tf32, row);
      register_gemm16_row<tk::bf16>(dev, Prec::bf16, row);
      register_gemm16_row<tk::f16>(dev, Prec::f16, row);
      // on a GPU, the warp-level kernel beside `best`: the measurements behind the shape rule that picks one
      if (gpu) register_gemm16_row<float>(dev, Prec::tf32, row, tk::MatmulVariant::warp_tiled);
      if (gpu) register_gemm16_row<tk::bf16>(dev, Prec::bf16, row, tk::MatmulVariant::warp_tiled);
    }
  }
  if (gpu) {
    register_gemm_row<double>(dev, tk::MatmulVariant::best, {N, N, 256, 256, 256, 512});
    // batches of smaller and of larger matrices than the 256^3 the targets name
    register_gemm_row<float>(dev, tk::MatmulVariant::best, {N, N, 128, 128, 128, 4096});
    register_gemm_row<float>(dev, tk::MatmulVariant::best, {N, N, 512, 512, 512, 64});
  }
}

}  // namespace tk::bench
