// kernels/stencil/moving_average_smem_tiled.hpp — the 1D moving average with the block's window (its
// outputs plus a halo of r on each side) loaded into shared memory once.
//
// Technique: a block of B threads computes B outputs from B + 2r inputs: it loads them, coalesced, into
// dynamic shared memory (zero outside [0, n)), then each thread sums its 2r + 1 neighbours from the tile.
// Each input leaves global memory (1 + 2r / B) times instead of 2r + 1 times: the reuse seed 000 points
// at. The sum runs in the same order as moving_average_naive.hpp, so both give the same floats.
// Preconditions: dynamic shared memory of (block_dim.x + 2 * radius) floats; in and out do not overlap.
// Work counted by the benchmark: 8 bytes per element.
#pragma once

#include <cstdint>

#include "halo.hpp"
#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <bool EDGE>
TK_DEVICE void moving_average_tiled_block(float* tile, std::int64_t base, std::int64_t n, const float* __restrict__ in,
                                          float* __restrict__ out, int radius) {
  const int b = tk::block_dim().x, w = b + 2 * radius;
  for (int w0 = 0; w0 < w; w0 += b) {  // block-uniform: the window, b floats at a time
    TK_THREADS(th) {
      if (w0 + th.x < w) tile[w0 + th.x] = read_or_zero<EDGE>(in, n, base - radius + w0 + th.x);
    }
  }
  TK_BARRIER();  // the whole window, halo included, is loaded before a thread reads its neighbours' inputs
  tk::Private<float> sum(0.f);
  for (int k = 0; k <= 2 * radius; ++k) {  // block-uniform: one phase per offset, as in the naive kernel
    TK_THREADS(th) { sum(th.id) += tile[th.x + k]; }
  }
  const float scale = 1.f / static_cast<float>(2 * radius + 1);
  TK_THREADS(th) {
    const std::int64_t i = base + th.x;
    if (EDGE && i >= n) TK_SKIP();
    out[i] = sum(th.id) * scale;
  }
}

TK_KERNEL void moving_average_smem_tiled(std::int64_t n, const float* __restrict__ in, float* __restrict__ out,
                                         int radius) {
  float* tile = tk::dynamic_shared<float>();  // block_dim.x + 2 * radius floats: outputs and halo
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  if (base - radius >= 0 && base + tk::block_dim().x + radius <= n)  // block-uniform: the window is inside
    moving_average_tiled_block<false>(tile, base, n, in, out, radius);
  else moving_average_tiled_block<true>(tile, base, n, in, out, radius);
}

}  // namespace tk::kernels
