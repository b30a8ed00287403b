// tilekit/detail/launchers_matmul.hpp — the GEMM launcher each backend provides (see launchers.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/matmul.hpp"

namespace tk::detail {

// A checked GEMM in the kernels' terms: row-major, op(A) M x K stored as is (ta false, lda) or transposed,
// op(B) K x N likewise, `batch` matrices `s*` elements apart. M, N, K, batch >= 1; a launcher splits batches
// larger than a grid's 65535 y-blocks itself.
template <class T>
struct GemmArgs {
  std::int64_t M, N, K;
  T alpha;
  const T* A;
  std::int64_t lda, sa;
  bool ta;
  const T* B;
  std::int64_t ldb, sb;
  bool tb;
  T beta;
  T* C;
  std::int64_t ldc, sc;
  std::int64_t batch;
};

}  // namespace tk::detail

// gemm: `config` names one of the target's warp_tiled configurations (matmul_configs) to use instead of
// the launcher's choice, or is null. matmul_configs: the names, for the element size `bytes` (4 or 8).
#define TK_DECLARE_MATMUL_LAUNCHERS(target)                                                                  \
  namespace tk::launchers::target {                                                                         \
  void gemm(const Device& dev, MatmulVariant variant, const detail::GemmArgs<float>& a,                     \
            const char* config = nullptr);                                                                  \
  void gemm(const Device& dev, MatmulVariant variant, const detail::GemmArgs<double>& a,                    \
            const char* config = nullptr);                                                                  \
  std::vector<const char*> matmul_configs(int bytes);                                                       \
  }

TK_DECLARE_MATMUL_LAUNCHERS(cpu)
#if defined(TK_CPU_DISPATCH)  // the CPU copies of a build with runtime dispatch (cmake/TkKernelSources.cmake)
TK_DECLARE_MATMUL_LAUNCHERS(cpu_v2)
TK_DECLARE_MATMUL_LAUNCHERS(cpu_v3)
TK_DECLARE_MATMUL_LAUNCHERS(cpu_v4)
#endif
TK_DECLARE_MATMUL_LAUNCHERS(cuda)
TK_DECLARE_MATMUL_LAUNCHERS(hip)
TK_DECLARE_MATMUL_LAUNCHERS(kokkos)
