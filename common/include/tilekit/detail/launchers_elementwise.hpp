// tilekit/detail/launchers_elementwise.hpp — the elementwise launchers (kernels/elementwise/launch.cpp).
// Arguments arrive checked; launchers.hpp has the scheme.
#pragma once

#include <cstdint>

#include "tilekit/device.hpp"
#include "tilekit/detail/launchers.hpp"

#define TK_DECLARE_ELEMENTWISE_LAUNCHERS(target)                                                                      \
  namespace tk::launchers::target {                                                                                   \
  void copy(const Device& dev, std::int64_t n, const float* in, float* out);                                          \
  void vector_add(const Device& dev, std::int64_t n, const float* a, const float* b, float* c);                       \
  void matrix_add(const Device& dev, std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda,          \
                  const float* B, std::int64_t ldb, float* C, std::int64_t ldc);                                      \
  /* C = beta * C (zeros when beta == 0): tk::gemm's product-free case */                                             \
  void matrix_scale(const Device& dev, std::int64_t rows, std::int64_t cols, float beta, float* C, std::int64_t ldc); \
  void matrix_scale(const Device& dev, std::int64_t rows, std::int64_t cols, double beta, double* C,                  \
                    std::int64_t ldc);                                                                                \
  }

TK_DECLARE_FOR_EVERY_TARGET(TK_DECLARE_ELEMENTWISE_LAUNCHERS)
