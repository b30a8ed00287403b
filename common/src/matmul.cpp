// tk::matmul: argument checks, the variant registry, dispatch.
#include "tilekit/matmul.hpp"

#include <cstdint>
#include <tuple>

#include "checks.hpp"
#include "dispatch.hpp"
#include "tilekit/detail/launchers.hpp"
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

void matmul(const Device& dev, std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A,
            std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
            MatmulVariant variant) {
  const char* call = "tk::matmul";
  using detail::Operand;
  detail::require_nonnegative(call, "M", M);
  detail::require_nonnegative(call, "N", N);
  detail::require_nonnegative(call, "K", K);
  detail::require_ld(call, "lda", lda, "K", K);
  detail::require_ld(call, "ldb", ldb, "N", N);
  detail::require_ld(call, "ldc", ldc, "N", N);
  detail::require(static_cast<int>(variant) >= 0 && static_cast<int>(variant) <= static_cast<int>(MatmulVariant::best),
                  call, "variant", static_cast<int>(variant), "a tk::MatmulVariant");
  // The BLAS quick returns: nothing to compute, or C = 1 * C.
  if (M == 0 || N == 0 || ((alpha == 0.f || K == 0) && beta == 1.f)) return;
  detail::check_pointer(dev, C, call, "C");
  const Operand o_c{"C", C, M, N, ldc, "M", "N", "ldc"};
  detail::require_addressable(call, o_c);
  if (alpha == 0.f || K == 0) {  // no product term: A and B are not read (they may be null, or hold NaN)
    TK_DISPATCH(dev, matrix_scale, dev, M, N, beta, C, ldc);
  }
  detail::check_pointer(dev, A, call, "A");
  detail::check_pointer(dev, B, call, "B");
  const Operand o_a{"A", A, M, K, lda, "M", "K", "lda"}, o_b{"B", B, K, N, ldb, "K", "N", "ldb"};
  detail::require_addressable(call, o_a);
  detail::require_addressable(call, o_b);
  detail::require_disjoint(call, o_c, o_a);
  detail::require_disjoint(call, o_c, o_b);
  TK_DISPATCH(dev, matmul, dev, variant, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void matmul(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const Buffer<float>& A,
            const Buffer<float>& B, float beta, Buffer<float>& C, MatmulVariant variant) {
  const char* call = "tk::matmul";
  // rows * cols, or INT64_MAX when the product overflows (no buffer holds that many elements).
  auto elements = [](std::int64_t rows, std::int64_t cols) {
    std::int64_t n = 0;
    return __builtin_mul_overflow(rows, cols, &n) ? INT64_MAX : n;
  };
  for (const auto& [buf, name, need] : {std::tuple{&A, "A", elements(M, K)}, std::tuple{&B, "B", elements(K, N)}}) {
    if (buf->device() != C.device())
      detail::fail(call, ": argument '", name, "' is on ", buf->device().name(), "; expected ", C.device().name(),
                   ", the device of 'C'");
    if (M >= 0 && N >= 0 && K >= 0 && static_cast<std::int64_t>(buf->size()) < need)
      detail::fail(call, ": argument '", name, "' has ", buf->size(), " elements; expected at least ", need);
  }
  if (M >= 0 && N >= 0 && static_cast<std::int64_t>(C.size()) < elements(M, N))
    detail::fail(call, ": argument 'C' has ", C.size(), " elements; expected at least ", elements(M, N));
  matmul(C.device(), M, N, K, alpha, A.data(), K > 0 ? K : 1, B.data(), N > 0 ? N : 1, beta, C.data(),
         N > 0 ? N : 1, variant);
}

}  // namespace tk
