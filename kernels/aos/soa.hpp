// kernels/aos/soa.hpp — the float3 update on the struct-of-arrays layout (seed 003: "Prefer Structures of
// Arrays (SoA) over Arrays of Structures (AoS)").
//
// Technique: the x's, y's and z's are three arrays (planes n floats apart), so thread i's three loads are
// each part of a fully coalesced warp access, with no staging: three streams of vector_add's shape. As in
// copy.hpp each thread moves VEC consecutive floats of each plane with one vector access (VEC = 4 when
// the planes are 16-byte aligned), and only the last block tests each element.
// Preconditions: for VEC > 1, in and out are aligned to 4 * VEC bytes and n is a multiple of VEC. out may
// be in. Work counted by the benchmark: 24 bytes per struct.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"
#include "tilekit/vec.hpp"

namespace tk::kernels {

template <int VEC>
TK_KERNEL void float3_add_soa(std::int64_t n, const float* in, float* out, float value) {
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x * VEC;
  if (base + std::int64_t{tk::block_dim().x} * VEC <= n) {  // block-uniform: every thread has VEC structs
    TK_THREADS(th) {
      const std::int64_t i = base + std::int64_t{th.x} * VEC;
      TK_UNROLL
      for (int p = 0; p < 3; ++p) {
        tk::Vec<float, VEC> v = tk::load_vec<VEC>(in + p * n + i);
        for (int k = 0; k < VEC; ++k) v.v[k] += value;
        tk::store_vec<VEC>(out + p * n + i, v);
      }
    }
  } else {
    TK_THREADS(th) {
      for (int k = 0; k < VEC; ++k) {
        const std::int64_t i = base + std::int64_t{th.x} * VEC + k;
        if (i < n) {
          out[i] = in[i] + value;
          out[n + i] = in[n + i] + value;
          out[2 * n + i] = in[2 * n + i] + value;
        }
      }
    }
  }
}

}  // namespace tk::kernels
