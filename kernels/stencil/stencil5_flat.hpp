// kernels/stencil/stencil5_flat.hpp — tk::stencil_5point's `best` on a grid of few columns stored without
// padding (ld_in = ld_out = cols, cols < 64: a user's std::vector of a few-column grid), read as one run of
// rows x cols floats.
//
// Technique: seed 004's coalescing applied to a grid too narrow for a block of columns. Thread x of a block
// takes element k = k0 + x of the run, k0 a multiple of block_dim.x, which the launcher makes a whole number
// of rows, so every thread's column j = x mod cols stays the same from one segment to the next. Its four
// neighbours are the elements cols before and after it (the rows above and below: a few hundred bytes away,
// in L1) and the ones before and after it in its row (zero where j is the first or last column). Consecutive
// threads read and write consecutive floats, so a GPU warp's accesses coalesce and a CPU block's loop over its
// threads is one vectorised pass over a contiguous run. The 2D kernels' blocks, a thread per column, left a
// CPU's vector loop a few lanes wide and a GPU warp's accesses a few floats per row: 3000017 x 3 ran at 15-24%
// of memcpy on an Intel Xeon VM and 53% on an H200, flat at 190% (its L3 holds the arrays) and 73%
// (launch.cpp has the shapes).
//
// j = x mod cols without a division (none vectorises on a CPU): q = (x m) >> 18 with m = floor(2^18 / cols)
// + 1 is x / cols rounded down for every x < 2^11 and cols < 64 (x m / 2^18 exceeds x / cols by at most
// x / 2^18 < 1/128, less than the 1/cols that separates x / cols from the next integer), and x m < 2^29 fits
// an int. So block_dim.x <= 1024, cols < 64 (launcher's preconditions).
// A block walks `segments` runs of block_dim.x elements, one after the other (block-uniform loop). Runs whose
// reads stay inside the array (block-uniform test) load without clamps; the others (the first run, and the
// last one or two) clamp each index into the array and zero what lies outside. The sum is formed in the same order as naive.hpp.
// Preconditions: in and out do not overlap; rows x cols fits the run (ld = cols). Work counted by the
// benchmark: 8 bytes per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <bool EDGE>
TK_DEVICE void stencil5_flat_run(std::int64_t k0, std::int64_t n, int cols, int m, const float* __restrict__ in,
                                 float* __restrict__ out, float center, float side) {
  TK_THREADS(th) {
    const int j = th.x - ((th.x * m) >> 18) * cols;
    const std::int64_t k = k0 + th.x;
    float mid, up, down, left, right;
    if constexpr (EDGE) {  // indices clamped into [0, n): the loads stay unconditional
      const std::int64_t last = n - 1, kc = k < last ? k : last;
      const std::int64_t ku = kc - cols > 0 ? kc - cols : 0, kd = kc + cols < last ? kc + cols : last;
      const std::int64_t kl = kc > 0 ? kc - 1 : 0, kr = kc < last ? kc + 1 : last;
      const float xm = in[kc], xu = in[ku], xd = in[kd], xl = in[kl], xr = in[kr];
      mid = xm;
      up = k >= cols ? xu : 0.f;
      down = k + cols < n ? xd : 0.f;
      left = j > 0 ? xl : 0.f;
      right = j < cols - 1 ? xr : 0.f;
    } else {
      const float xl = in[k - 1], xr = in[k + 1];
      mid = in[k];
      up = in[k - cols];
      down = in[k + cols];
      left = j > 0 ? xl : 0.f;
      right = j < cols - 1 ? xr : 0.f;
    }
    const float o = center * mid + side * (up + down + left + right);
    if (!EDGE || k < n) out[k] = o;
  }
}

TK_KERNEL void stencil5_flat(std::int64_t rows, std::int64_t cols, const float* __restrict__ in,
                             float* __restrict__ out, float center, float side, std::int64_t segments) {
  const std::int64_t n = rows * cols, width = tk::block_dim().x;
  const int c = static_cast<int>(cols), m = (1 << 18) / c + 1;
  for (std::int64_t s = 0; s < segments; ++s) {
    const std::int64_t k0 = (std::int64_t{tk::block_idx().x} * segments + s) * width;
    if (k0 >= n) return;                       // block-uniform
    if (k0 >= cols && k0 + width + cols <= n)  // block-uniform: every read inside
      stencil5_flat_run<false>(k0, n, c, m, in, out, center, side);
    else stencil5_flat_run<true>(k0, n, c, m, in, out, center, side);
  }
}

}  // namespace tk::kernels
