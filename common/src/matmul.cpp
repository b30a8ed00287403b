// tk::matmul: argument checks, the variant registry, dispatch.
#include "tilekit/matmul.hpp"

#include <cstdint>
#include <tuple>

#include "dispatch.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"

namespace tk {

const std::vector<MatmulVariantInfo>& matmul_variants() {
  static const std::vector<MatmulVariantInfo> all{
      {MatmulVariant::naive, "naive", "one thread per output, operands from global memory: CGMA 1", "000, 001"},
      {MatmulVariant::smem_tiled16, "smem_tiled16", "16 x 16 tiles of A and B shared by a block: CGMA 16", "001, 002"},
      {MatmulVariant::smem_tiled32, "smem_tiled32", "32 x 32 tiles: CGMA 32, 1024 threads per block", "000, 001, 002"},
      {MatmulVariant::smem_dynamic, "smem_dynamic", "the tile size chosen at run time, in dynamic shared memory", "004"},
      {MatmulVariant::register_tiled, "register_tiled",
       "TM x TN outputs per thread from registers, vector loads, A transposed in shared memory", "001 (registers)"},
      {MatmulVariant::warp_tiled, "warp_tiled",
       "warp tiles, double-buffered k loop, rasterised blocks, split-K for skinny C", "002 (blocking)"},
  };
  return all;
}

const char* to_string(MatmulVariant v) {
  if (v == MatmulVariant::best) return "best";
  for (const auto& info : matmul_variants())
    if (info.variant == v) return info.name;
  return "unknown";
}

namespace {
// Element ranges [p, p + n) and [q, q + m) are disjoint.
bool disjoint(const float* p, std::int64_t n, const float* q, std::int64_t m) {
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(q);
  return a + sizeof(float) * n <= b || b + sizeof(float) * m <= a;
}
}  // namespace

void matmul(const Device& dev, std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A,
            std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
            MatmulVariant variant) {
  const char* call = "tk::matmul";
  using detail::require;
  require(M >= 0, call, "M", M, "M >= 0");
  require(N >= 0, call, "N", N, "N >= 0");
  require(K >= 0, call, "K", K, "K >= 0");
  require(lda >= K && lda >= 1, call, "lda", lda, "lda >= max(1, K)");
  require(ldb >= N && ldb >= 1, call, "ldb", ldb, "ldb >= max(1, N)");
  require(ldc >= N && ldc >= 1, call, "ldc", ldc, "ldc >= max(1, N)");
  require(static_cast<int>(variant) >= 0 && static_cast<int>(variant) <= static_cast<int>(MatmulVariant::best), call,
          "variant", static_cast<int>(variant), "a tk::MatmulVariant");
  if (M == 0 || N == 0) return;
  detail::check_pointer(dev, C, call, "C");
  if (K > 0) {
    detail::check_pointer(dev, A, call, "A");
    detail::check_pointer(dev, B, call, "B");
    const std::int64_t span_c = (M - 1) * ldc + N;
    if (!disjoint(C, span_c, A, (M - 1) * lda + K)) detail::fail(call, ": arguments 'C' and 'A' overlap");
    if (!disjoint(C, span_c, B, (K - 1) * ldb + N)) detail::fail(call, ": arguments 'C' and 'B' overlap");
  }
  TK_DISPATCH(dev, matmul, dev, variant, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void matmul(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const Buffer<float>& A,
            const Buffer<float>& B, float beta, Buffer<float>& C, MatmulVariant variant) {
  const char* call = "tk::matmul";
  for (const auto& [buf, name, need] : {std::tuple{&A, "A", M * K}, std::tuple{&B, "B", K * N}}) {
    if (buf->device() != C.device())
      detail::fail(call, ": argument '", name, "' is on ", buf->device().name(), "; expected ", C.device().name(),
                   ", the device of 'C'");
    if (M >= 0 && N >= 0 && K >= 0 && static_cast<std::int64_t>(buf->size()) < need)
      detail::fail(call, ": argument '", name, "' has ", buf->size(), " elements; expected at least ", need);
  }
  if (M >= 0 && N >= 0 && static_cast<std::int64_t>(C.size()) < M * N)
    detail::fail(call, ": argument 'C' has ", C.size(), " elements; expected at least ", M * N);
  matmul(C.device(), M, N, K, alpha, A.data(), K > 0 ? K : 1, B.data(), N > 0 ? N : 1, beta, C.data(),
         N > 0 ? N : 1, variant);
}

}  // namespace tk
