// kernels/elementwise/copy.hpp — out[i] = in[i]: the bandwidth ceiling every memory-bound kernel is
// measured against (seed 003: a kernel that moves each byte once, in full DRAM bursts).
//
// Technique: one thread moves VEC consecutive floats with one vector access (VEC = 4: a 16-byte load and
// store per thread, so a warp moves 512 contiguous bytes per instruction, four full 128-byte segments).
// Whether a block's range is whole is decided once per block, outside the phases: interior blocks run a
// branch-free phase (one vector loop on a CPU), and only the last block checks each element.
// Preconditions: in and out do not overlap; for VEC > 1 both are aligned to 4 * VEC bytes.
// Work counted by the benchmark: 0 FLOPs, 8 bytes per element (read once, written once).
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"
#include "tilekit/vec.hpp"

namespace tk::kernels {

template <int VEC>
TK_KERNEL void copy(std::int64_t n, const float* __restrict__ in, float* __restrict__ out) {
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x * VEC;
  if (base + std::int64_t{tk::block_dim().x} * VEC <= n) {  // block-uniform: every thread has VEC elements
    TK_THREADS(th) {
      const std::int64_t i = base + std::int64_t{th.x} * VEC;
      tk::store_vec<VEC>(out + i, tk::load_vec<VEC>(in + i));
    }
  } else {
    TK_THREADS(th) {
      for (int k = 0; k < VEC; ++k) {
        const std::int64_t i = base + std::int64_t{th.x} * VEC + k;
        if (i < n) out[i] = in[i];
      }
    }
  }
}

}  // namespace tk::kernels
