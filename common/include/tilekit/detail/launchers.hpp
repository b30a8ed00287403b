// tilekit/detail/launchers.hpp — the launchers every backend provides, declared once per backend.
//
// A launcher owns the grid math and the tile constants of an op; the same launcher source is compiled
// once per target into namespace tk::launchers::<target> (see tk_add_kernel_sources in cmake/), and
// the public entries (common/src/ops.cpp) check arguments and pick the backend's launcher. The Kokkos
// backend provides the same list from its own, independent implementations (backends/kokkos/).
#pragma once

#include <cstdint>

#include "tilekit/device.hpp"

#define TK_DECLARE_LAUNCHERS(target)                                                                      \
  namespace tk::launchers::target {                                                                      \
  void copy(const Device& dev, std::int64_t n, const float* in, float* out);                             \
  void vector_add(const Device& dev, std::int64_t n, const float* a, const float* b, float* c);          \
  void matrix_add(const Device& dev, std::int64_t rows, std::int64_t cols, const float* A,               \
                  std::int64_t lda, const float* B, std::int64_t ldb, float* C, std::int64_t ldc);       \
  /* C = beta * C (zeros when beta == 0): tk::matmul's product-free case */                              \
  void matrix_scale(const Device& dev, std::int64_t rows, std::int64_t cols, float beta, float* C,       \
                    std::int64_t ldc);                                                                   \
  void matrix_scale(const Device& dev, std::int64_t rows, std::int64_t cols, double beta, double* C,     \
                    std::int64_t ldc);                                                                   \
  }

TK_DECLARE_LAUNCHERS(cpu)
#if defined(TK_CPU_DISPATCH)  // the CPU copies of a build with runtime dispatch (cmake/TkKernelSources.cmake)
TK_DECLARE_LAUNCHERS(cpu_v2)
TK_DECLARE_LAUNCHERS(cpu_v3)
TK_DECLARE_LAUNCHERS(cpu_v4)
#endif
TK_DECLARE_LAUNCHERS(cuda)
TK_DECLARE_LAUNCHERS(hip)
TK_DECLARE_LAUNCHERS(kokkos)
