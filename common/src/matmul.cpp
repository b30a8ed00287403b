// tk::matmul's variant registry and its Buffer form (the pointer form is tk::gemm's, gemm.cpp).
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
