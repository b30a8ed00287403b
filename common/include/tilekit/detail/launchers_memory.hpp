// tilekit/detail/launchers_memory.hpp — the launchers of the memory-bound kernels and experiments
// (tilekit/memory_ops.hpp) that every backend provides (see launchers.hpp for the scheme). The CPU, CUDA
// and HIP copies come from kernels/{transpose,aos,stencil,experiments}/launch.cpp, the Kokkos ones from
// backends/kokkos/memory_ops.cpp. Arguments arrive checked.
#pragma once

#include <cstdint>

#include "tilekit/device.hpp"
#include "tilekit/memory_ops.hpp"

#define TK_DECLARE_MEMORY_LAUNCHERS(target)                                                                    \
  namespace tk::launchers::target {                                                                           \
  void transpose(const Device& dev, TransposeVariant variant, std::int64_t rows, std::int64_t cols,            \
                 const float* in, std::int64_t ld_in, float* out, std::int64_t ld_out);                        \
  void float3_add(const Device& dev, AosVariant variant, std::int64_t n, const float* in, float* out,           \
                  float value);                                                                                \
  void float3_add_soa(const Device& dev, std::int64_t n, const float* in, float* out, float value);            \
  void moving_average(const Device& dev, StencilVariant variant, std::int64_t n, const float* in, float* out,   \
                      int radius);                                                                             \
  void stencil_5point(const Device& dev, StencilVariant variant, std::int64_t rows, std::int64_t cols,         \
                      const float* in, std::int64_t ld_in, float* out, std::int64_t ld_out, float center,      \
                      float side);                                                                             \
  void convolve_2d(const Device& dev, StencilVariant variant, std::int64_t rows, std::int64_t cols,            \
                   const float* in, std::int64_t ld_in, const float* filter, int radius, float* out,           \
                   std::int64_t ld_out);                                                                       \
  void increment_pattern(const Device& dev, IncrementPattern pattern, std::int64_t n, float* a);               \
  void strided_read(const Device& dev, std::int64_t n, const float* in, std::int64_t stride,                   \
                    std::int64_t offset, float* out);                                                          \
  void bank_reads(const Device& dev, BankPattern pattern, std::int64_t n, int stride, int reads,               \
                  std::uint32_t* out);                                                                         \
  }

TK_DECLARE_MEMORY_LAUNCHERS(cpu)
#if defined(TK_CPU_DISPATCH)  // the CPU copies of a build with runtime dispatch (cmake/TkKernelSources.cmake)
TK_DECLARE_MEMORY_LAUNCHERS(cpu_v2)
TK_DECLARE_MEMORY_LAUNCHERS(cpu_v3)
TK_DECLARE_MEMORY_LAUNCHERS(cpu_v4)
#endif
TK_DECLARE_MEMORY_LAUNCHERS(cuda)
TK_DECLARE_MEMORY_LAUNCHERS(hip)
TK_DECLARE_MEMORY_LAUNCHERS(kokkos)
