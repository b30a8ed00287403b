// kernels/stencil/moving_average_naive.hpp — 1D moving average of radius r, every input read from global
// memory by each of the 2r + 1 outputs that use it (seed 000: the moving average as the example of data
// reuse a tile can capture).
//
// Technique: thread i sums x(i - r) ... x(i + r) (zero outside [0, n)) and scales by 1 / (2r + 1). The
// window loop is block-uniform and stands outside the phases, one phase per offset with the running sum in
// a tk::Private, so on a CPU each offset is one vector loop over the block's threads; on a GPU it is the
// ordinary register loop. Each input is loaded 2r + 1 times (from cache, mostly): the traffic a tile saves
// (moving_average_smem_tiled.hpp).
// Preconditions: in and out do not overlap. Work counted by the benchmark: 8 bytes per element.
#pragma once

#include <cstdint>

#include "halo.hpp"
#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <bool EDGE>
TK_DEVICE void moving_average_naive_block(std::int64_t base, std::int64_t n, const float* __restrict__ in,
                                          float* __restrict__ out, int radius) {
  tk::Private<float> sum(0.f);
  for (int k = -radius; k <= radius; ++k) {  // block-uniform: one phase per offset of the window
    TK_THREADS(th) { sum(th.id) += read_or_zero<EDGE>(in, n, base + th.x + k); }
  }
  const float scale = 1.f / static_cast<float>(2 * radius + 1);
  TK_THREADS(th) {
    const std::int64_t i = base + th.x;
    if (EDGE && i >= n) TK_SKIP();
    out[i] = sum(th.id) * scale;
  }
}

TK_KERNEL void moving_average_naive(std::int64_t n, const float* __restrict__ in, float* __restrict__ out, int radius) {
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  if (base - radius >= 0 && base + tk::block_dim().x + radius <= n)  // block-uniform: the window is inside
    moving_average_naive_block<false>(base, n, in, out, radius);
  else moving_average_naive_block<true>(base, n, in, out, radius);
}

}  // namespace tk::kernels
