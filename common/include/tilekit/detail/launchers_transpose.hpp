// tilekit/detail/launchers_transpose.hpp — the transpose launcher (kernels/transpose/launch.cpp).
// Arguments arrive checked; launchers.hpp has the scheme. transpose_tile_choice: the tile `best` takes
// for a rows x cols matrix, and why (tk::transpose_tile_choice).
#pragma once

#include <cstdint>
#include <string>

#include "tilekit/device.hpp"
#include "tilekit/transpose.hpp"
#include "tilekit/detail/launchers.hpp"

#define TK_DECLARE_TRANSPOSE_LAUNCHERS(target)                                                                       \
  namespace tk::launchers::target {                                                                                  \
  void transpose(const Device& dev, TransposeVariant variant, std::int64_t rows, std::int64_t cols, const float* in, \
                 std::int64_t ld_in, float* out, std::int64_t ld_out);                                               \
  std::string transpose_tile_choice(const Device& dev, std::int64_t rows, std::int64_t cols);                        \
  }

TK_DECLARE_FOR_EVERY_TARGET(TK_DECLARE_TRANSPOSE_LAUNCHERS)
