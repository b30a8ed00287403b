// kernels/stencil/stencil5_streamed.hpp — tk::stencil_5point's `best`: each thread walks down a strip of
// rows, keeping the rows above, at and below the current one in registers.
//
// Technique: seed 000's data reuse taken into registers, with seed 004's advice for saturating the bus
// (several independent, wide loads in flight per thread). Thread (x, y) of a block owns V consecutive
// columns j .. j + V - 1 (j = j0 + V x) and ROWS consecutive rows starting at i0 + ROWS y. It loads the row
// above its strip and its first row, then for each row i of the strip loads row i + 1 (one V-wide access),
// the two neighbours left and right of its columns in row i (single floats: the neighbouring threads' data,
// in L1), forms the V outputs and slides its three-row window down. Loads per output: (ROWS + 2) / ROWS
// rows of V floats plus 2 / V floats, against 5 floats for naive.hpp and (TY + 2)(TX + 2) / (TY TX) staged
// through shared memory, with a barrier, for smem_tiled.hpp. The strip's loads do not depend on each other:
// with the row loop unrolled a thread has ROWS + 2 wide loads in flight, what a memory-bound kernel needs on
// a GPU whose bus wants ~40 KB in flight per SM. No shared memory, no barrier.
// V > 1 needs rows aligned to V floats (in, out, ld_in and ld_out multiples of V); the launcher picks V = 1
// otherwise. Shapes (launch.cpp): H100 V = 2, ROWS = 4 on 64 x 8 threads, 99% of cudaMemcpy at 8192^2.
// Blocks whose strip and halo lie inside the array (block-uniform test) run without bounds tests; edge
// blocks test each element (zero outside, store only inside). The sum is formed in the same order as
// naive.hpp. Grid: x over column blocks of V block_dim.x columns, y over row segments of ROWS block_dim.y
// rows, which each block steps through by grid_dim.y.
// On a CPU a thread's strip is a loop inside the lanes' vector loop (V = 1: lanes are consecutive columns).
// Preconditions: in and out do not overlap. Work counted by the benchmark: 8 bytes per element.
#pragma once

#include <cstdint>

#include "halo.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/vec.hpp"

namespace tk::kernels {

// v[k] = x(i, j + k), k < V.
template <bool EDGE, int V>
TK_DEVICE void stencil5_load_row(float (&v)[V], const float* __restrict__ in, std::int64_t ld, std::int64_t rows,
                                 std::int64_t cols, std::int64_t i, std::int64_t j) {
  if constexpr (EDGE || V == 1) {
    TK_UNROLL
    for (int k = 0; k < V; ++k) v[k] = read_or_zero<EDGE>(in, ld, rows, cols, i, j + k);
  } else {
    const Vec<float, V> w = load_vec<V>(in + i * ld + j);
    TK_UNROLL
    for (int k = 0; k < V; ++k) v[k] = w.v[k];
  }
}

template <bool EDGE, int V, int ROWS>
TK_DEVICE void stencil5_streamed_strip(std::int64_t i0, std::int64_t j0, std::int64_t rows, std::int64_t cols,
                                       const float* __restrict__ in, std::int64_t ld_in, float* __restrict__ out,
                                       std::int64_t ld_out, float center, float side) {
  TK_THREADS(th) {
    const std::int64_t i = i0 + std::int64_t{th.y} * ROWS, j = j0 + std::int64_t{th.x} * V;
    if (EDGE && (i >= rows || j >= cols)) TK_SKIP();
    float up[V], mid[V], down[V];
    stencil5_load_row<EDGE, V>(up, in, ld_in, rows, cols, i - 1, j);
    stencil5_load_row<EDGE, V>(mid, in, ld_in, rows, cols, i, j);
    TK_UNROLL
    for (int r = 0; r < ROWS; ++r) {
      const std::int64_t ir = i + r;
      stencil5_load_row<EDGE, V>(down, in, ld_in, rows, cols, ir + 1, j);
      const float left = read_or_zero<EDGE>(in, ld_in, rows, cols, ir, j - 1);
      const float right = read_or_zero<EDGE>(in, ld_in, rows, cols, ir, j + V);
      float o[V];
      TK_UNROLL
      for (int k = 0; k < V; ++k) {
        const float w = k == 0 ? left : mid[k - 1], e = k == V - 1 ? right : mid[k + 1];
        o[k] = center * mid[k] + side * (up[k] + down[k] + w + e);
      }
      float* dst = out + ir * ld_out + j;
      if constexpr (EDGE || V == 1) {
        TK_UNROLL
        for (int k = 0; k < V; ++k) {
          if (!EDGE || (ir < rows && j + k < cols)) dst[k] = o[k];
        }
      } else {
        Vec<float, V> w;
        TK_UNROLL
        for (int k = 0; k < V; ++k) w.v[k] = o[k];
        store_vec<V>(dst, w);
      }
      TK_UNROLL
      for (int k = 0; k < V; ++k) {
        up[k] = mid[k];
        mid[k] = down[k];
      }
    }
  }
}

template <int V, int ROWS>
TK_KERNEL void stencil5_streamed(std::int64_t rows, std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                                 float* __restrict__ out, std::int64_t ld_out, float center, float side) {
  const std::int64_t width = std::int64_t{tk::block_dim().x} * V, height = std::int64_t{tk::block_dim().y} * ROWS;
  const std::int64_t j0 = std::int64_t{tk::block_idx().x} * width;
  const std::int64_t segments = (rows + height - 1) / height;
  for (std::int64_t t = tk::block_idx().y; t < segments; t += tk::grid_dim().y) {
    const std::int64_t i0 = t * height;
    if (i0 >= 1 && i0 + height + 1 <= rows && j0 >= 1 && j0 + width + 1 <= cols)  // block-uniform: all inside
      stencil5_streamed_strip<false, V, ROWS>(i0, j0, rows, cols, in, ld_in, out, ld_out, center, side);
    else stencil5_streamed_strip<true, V, ROWS>(i0, j0, rows, cols, in, ld_in, out, ld_out, center, side);
  }
}

}  // namespace tk::kernels
