// kernels/aos/smem_staged.hpp — the float3 update with coalesced loads and stores staged through shared
// memory (seed 003, "Coalescing + tiling float3 strategy").
//
// Technique: the seed's accessInt3Shared. A block of BLOCK threads owns BLOCK structs = 3 * BLOCK
// consecutive floats. Phase 1: thread t loads floats t, t + BLOCK, t + 2 * BLOCK of that range, so each
// warp instruction reads 32 consecutive floats (one 128-byte segment). Phase 2: thread t updates its own
// struct in shared memory, words 3t, 3t + 1, 3t + 2 (a warp's stride-3 reads hit 32 different banks:
// 3 is odd). Phase 3 writes the range back in the coalesced order of phase 1. Seed 003: 2.6x faster
// than direct.hpp on its GPU; the DRAM traffic is the same, so on cached GPUs the gap is small.
// Preconditions: launched with BLOCK threads per block. out may be in: a block reads its whole range
// before writing any of it, and blocks own disjoint ranges.
// Work counted by the benchmark: 24 bytes per struct.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

// The block's `len` structs (len == BLOCK unless EDGE) at src / dst through s.
template <bool EDGE, int BLOCK>
TK_DEVICE void float3_add_staged_block(float* s, int len, const float* src, float* dst, float value) {
  TK_THREADS(th) {
    TK_UNROLL
    for (int k = 0; k < 3; ++k) {
      const int f = th.x + k * BLOCK;
      if (!EDGE || f < 3 * len) s[f] = src[f];
    }
  }
  TK_BARRIER();  // every float of the block's structs is in shared memory before a thread reads its struct
  TK_THREADS(th) {
    if (EDGE && th.x >= len) TK_SKIP();
    TK_UNROLL
    for (int k = 0; k < 3; ++k) s[3 * th.x + k] += value;  // the seed's a.x += 2; a.y += 2; a.z += 2
  }
  TK_BARRIER();  // every struct is updated before the floats leave in phase 1's coalesced order
  TK_THREADS(th) {
    TK_UNROLL
    for (int k = 0; k < 3; ++k) {
      const int f = th.x + k * BLOCK;
      if (!EDGE || f < 3 * len) dst[f] = s[f];
    }
  }
}

template <int BLOCK>
TK_KERNEL void float3_add_smem_staged(std::int64_t n, const float* in, float* out, float value) {
  TK_SHARED_ARRAY(float, s, [3 * BLOCK]);  // the block's BLOCK structs, as the seed's s_data[256 * 3]
  const std::int64_t base = std::int64_t{tk::block_idx().x} * BLOCK;
  if (base + BLOCK <= n)  // block-uniform: the block has all BLOCK structs
    float3_add_staged_block<false, BLOCK>(s, BLOCK, in + 3 * base, out + 3 * base, value);
  else float3_add_staged_block<true, BLOCK>(s, static_cast<int>(n - base), in + 3 * base, out + 3 * base, value);
}

}  // namespace tk::kernels
