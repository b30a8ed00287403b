// tilekit/detail/launchers_experiments.hpp — the experiments' launchers (kernels/experiments/launch.cpp).
// Arguments arrive checked; launchers.hpp has the scheme.
#pragma once

#include <cstdint>

#include "tilekit/device.hpp"
#include "tilekit/experiments.hpp"
#include "tilekit/detail/launchers.hpp"

#define TK_DECLARE_EXPERIMENTS_LAUNCHERS(target)                                                                      \
  namespace tk::launchers::target {                                                                                   \
  void increment_pattern(const Device& dev, IncrementPattern pattern, std::int64_t n, float* a);                      \
  void strided_read(const Device& dev, std::int64_t n, const float* in, std::int64_t stride, std::int64_t offset,     \
                    float* out);                                                                                      \
  void bank_reads(const Device& dev, BankPattern pattern, std::int64_t n, int stride, int reads, std::uint32_t* out); \
  }

TK_DECLARE_FOR_EVERY_TARGET(TK_DECLARE_EXPERIMENTS_LAUNCHERS)
