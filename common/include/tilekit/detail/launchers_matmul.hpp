// tilekit/detail/launchers_matmul.hpp — the matmul launcher each backend provides (see launchers.hpp).
#pragma once

#include <cstdint>

#include "tilekit/device.hpp"
#include "tilekit/matmul.hpp"

#define TK_DECLARE_MATMUL_LAUNCHERS(target)                                                                 \
  namespace tk::launchers::target {                                                                        \
  void matmul(const Device& dev, MatmulVariant variant, std::int64_t M, std::int64_t N, std::int64_t K,      \
              float alpha, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float beta,   \
              float* C, std::int64_t ldc);                                                                   \
  }

TK_DECLARE_MATMUL_LAUNCHERS(cpu)
TK_DECLARE_MATMUL_LAUNCHERS(cuda)
TK_DECLARE_MATMUL_LAUNCHERS(hip)
TK_DECLARE_MATMUL_LAUNCHERS(kokkos)
