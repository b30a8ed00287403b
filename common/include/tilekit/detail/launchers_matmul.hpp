// tilekit/detail/launchers_matmul.hpp — the GEMM launchers (kernels/matmul/launch.cpp; see launchers.hpp for the
// scheme).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/detail/launchers.hpp"
#include "tilekit/matmul.hpp"

namespace tk::detail {

// A checked GEMM in the kernels' terms: row-major, op(A) M x K stored as is (ta false, lda) or transposed,
// op(B) K x N likewise, `batch` matrices `s*` elements apart. M, N, K, batch >= 1; a launcher splits batches
// larger than a grid's 65535 y-blocks itself. m_read, n_read (the launchers' own, for packed copies): how far
// a line of A stored transposed (of B as stored) may be read, past M (N) into padding; 0: to M (N) only.
// T: the scalars' (and accumulators') type; In: A's and B's elements; Out: C's (the 16-bit GEMMs: float
// scalars, tk::bf16 or tk::f16 inputs, float or 16-bit C). math: Math::tf32 lets a float GEMM round its inputs
// to TF32 on the matrix units (launch_mma.cpp). K == 0 only in the 16-bit launchers (C = beta * C).
template <class T, class In = T, class Out = T>
struct GemmArgs {
  std::int64_t M = 0, N = 0, K = 0;
  T alpha = T(1);
  const In* A = nullptr;
  std::int64_t lda = 0, sa = 0;
  bool ta = false;
  const In* B = nullptr;
  std::int64_t ldb = 0, sb = 0;
  bool tb = false;
  T beta = T(0);
  Out* C = nullptr;
  std::int64_t ldc = 0, sc = 0;
  std::int64_t batch = 1;
  std::int64_t m_read = 0, n_read = 0;
  Math math = Math::exact;
};

}  // namespace tk::detail

// gemm: the float and double GEMM (a float one with math == Math::tf32 may run on the matrix units) and the
// 16-bit inputs' (launch_mma.cpp: the matrix units where the device has them, else the float kernels on
// converted copies). `config` names one of the target's warp_tiled configurations (matmul_configs) to use instead of
// the launcher's choice, or is null. matmul_configs: the names, for the element size `bytes` (4 or 8).
// matmul_tile_choice: the tile `best` takes for an M x N x K product, and why (tk::matmul_tile_choice).
#define TK_DECLARE_MATMUL_LAUNCHERS(target)                                                                            \
  namespace tk::launchers::target {                                                                                    \
  void gemm(const Device& dev, MatmulVariant variant, const detail::GemmArgs<float>& a, const char* config = nullptr); \
  void gemm(const Device& dev, MatmulVariant variant, const detail::GemmArgs<double>& a,                               \
            const char* config = nullptr);                                                                             \
  void gemm(const Device& dev, MatmulVariant variant, const detail::GemmArgs<float, bf16, float>& a);                  \
  void gemm(const Device& dev, MatmulVariant variant, const detail::GemmArgs<float, bf16, bf16>& a);                   \
  void gemm(const Device& dev, MatmulVariant variant, const detail::GemmArgs<float, f16, float>& a);                   \
  void gemm(const Device& dev, MatmulVariant variant, const detail::GemmArgs<float, f16, f16>& a);                     \
  std::vector<const char*> matmul_configs(int bytes);                                                                  \
  std::string matmul_tile_choice(const Device& dev, int bytes, std::int64_t M, std::int64_t N, std::int64_t K,         \
                                 std::int64_t batch);                                                                  \
  }

TK_DECLARE_FOR_EVERY_TARGET(TK_DECLARE_MATMUL_LAUNCHERS)
