// kernels/experiments/strided_read.hpp — seed 003's and 004's coalescing scenarios as reads: out[i] =
// in[offset + i * stride].
//
// stride 1, offset 0: a warp reads 128 consecutive bytes, one aligned segment (bus utilisation 100%).
// stride 1, offset not a multiple of 32 floats: the same bytes straddle two segments (seed 004, scenario
// three: 50% of the bus, though neighbouring warps reuse the other half from L2). stride s: a warp's 32
// floats spread over 32 s floats, so each 32-byte sector brings 4 bytes of use once s >= 8 (scenario five).
// The writes are coalesced in every case, so the time over stride 1 is the cost of the read pattern.
// Preconditions: in holds offset + (n - 1) * stride + 1 floats; in and out do not overlap.
// Work counted by the benchmark: 8 bytes per element (the useful bytes, not the sectors moved).
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

TK_KERNEL void strided_read(std::int64_t n, const float* __restrict__ in, std::int64_t stride, std::int64_t offset,
                            float* __restrict__ out) {
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  const float* src = in + offset;
  if (base + tk::block_dim().x <= n) {  // block-uniform: every thread has an element
    TK_THREADS(th) { out[base + th.x] = src[(base + th.x) * stride]; }
  } else {
    TK_THREADS(th) {
      if (base + th.x < n) out[base + th.x] = src[(base + th.x) * stride];
    }
  }
}

}  // namespace tk::kernels
