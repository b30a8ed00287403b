// tilekit/detail/launchers_aos.hpp — the array-of-structs launchers (kernels/aos/launch.cpp).
// Arguments arrive checked; launchers.hpp has the scheme.
#pragma once

#include <cstdint>

#include "tilekit/aos.hpp"
#include "tilekit/device.hpp"
#include "tilekit/detail/launchers.hpp"

#define TK_DECLARE_AOS_LAUNCHERS(target)                                                                            \
  namespace tk::launchers::target {                                                                                 \
  void float3_add(const Device& dev, AosVariant variant, std::int64_t n, const float* in, float* out, float value); \
  void float3_add_soa(const Device& dev, std::int64_t n, const float* in, float* out, float value);                 \
  }

TK_DECLARE_FOR_EVERY_TARGET(TK_DECLARE_AOS_LAUNCHERS)
