// tilekit/detail/launchers_stencil.hpp — the stencil launchers (kernels/stencil/launch.cpp).
// Arguments arrive checked; launchers.hpp has the scheme.
#pragma once

#include <cstdint>

#include "tilekit/device.hpp"
#include "tilekit/stencil.hpp"
#include "tilekit/detail/launchers.hpp"

#define TK_DECLARE_STENCIL_LAUNCHERS(target)                                                                           \
  namespace tk::launchers::target {                                                                                    \
  void moving_average(const Device& dev, StencilVariant variant, std::int64_t n, const float* in, float* out,          \
                      int radius);                                                                                     \
  void stencil_5point(const Device& dev, StencilVariant variant, std::int64_t rows, std::int64_t cols,                 \
                      const float* in, std::int64_t ld_in, float* out, std::int64_t ld_out, float center, float side); \
  void convolve_2d(const Device& dev, StencilVariant variant, std::int64_t rows, std::int64_t cols, const float* in,   \
                   std::int64_t ld_in, const float* filter, int radius, float* out, std::int64_t ld_out);              \
  }

TK_DECLARE_FOR_EVERY_TARGET(TK_DECLARE_STENCIL_LAUNCHERS)
