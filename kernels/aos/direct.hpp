// kernels/aos/direct.hpp — the seed's float3 update read straight from the array of structs (seed 003,
// "Uncoalesced float3 access code").
//
// Technique: thread i loads struct i as three 4-byte loads 12 bytes apart (x, y, z), adds `value` to each
// and stores them back. A warp's load of x touches 32 floats spread over 384 bytes: three 128-byte
// segments per instruction for a third of the bytes, and the same three again for y and for z. Seed 003
// measured this 2.6x slower than staging through shared memory (smem_staged.hpp) on its GPU; on GPUs with
// an L1 cache in front of global memory the y and z loads hit the lines the x load brought in, and the gap
// mostly closes (the DRAM traffic is the same). On a CPU the stride-3 access is one vector load per struct
// component group plus shuffles.
// Block: any size (256 from the launcher); whether the block's structs are all inside [0, n) is
// block-uniform. out may be in (each thread reads its struct before writing it).
// Work counted by the benchmark: 24 bytes per struct (12 read, 12 written).
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <bool EDGE>
TK_DEVICE void float3_add_direct_block(std::int64_t base, std::int64_t n, const float* in, float* out, float value) {
  TK_THREADS(th) {
    const std::int64_t i = base + th.x;
    if (EDGE && i >= n) TK_SKIP();
    const float x = in[3 * i], y = in[3 * i + 1], z = in[3 * i + 2];
    out[3 * i] = x + value;
    out[3 * i + 1] = y + value;
    out[3 * i + 2] = z + value;
  }
}

TK_KERNEL void float3_add_direct(std::int64_t n, const float* in, float* out, float value) {
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  if (base + tk::block_dim().x <= n)  // block-uniform: every thread has a struct
    float3_add_direct_block<false>(base, n, in, out, value);
  else float3_add_direct_block<true>(base, n, in, out, value);
}

}  // namespace tk::kernels
