// kernels/elementwise/vector_add.hpp — c[i] = a[i] + b[i], seed 000's roofline example.
//
// Seed 000 works out its ceiling on a K40: each addition (1 FLOP) moves 12 bytes in float (24 in double),
// so at 288 GB/s it can do 288 / 24 = 12 GFLOP/s, 0.8% of the 1.43 TFLOP/s peak. No reuse: every byte is
// used once, so no tile can help; the only lever is to move the bytes at full bandwidth.
// Technique: VEC = 1 is the seed's kernel (one element per thread); VEC = 4 moves each operand with one
// 16-byte access per thread, as in copy.hpp, with the same block-uniform split into interior blocks and
// the one tail block. c may be a or b (in place), so nothing is marked restrict.
// Preconditions: for VEC > 1, a, b and c are aligned to 4 * VEC bytes.
// Work counted by the benchmark: 1 FLOP and 12 bytes per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"
#include "tilekit/vec.hpp"

namespace tk::kernels {

template <int VEC>
TK_KERNEL void vector_add(std::int64_t n, const float* a, const float* b, float* c) {
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x * VEC;
  if (base + std::int64_t{tk::block_dim().x} * VEC <= n) {  // block-uniform: every thread has VEC elements
    TK_THREADS(th) {
      const std::int64_t i = base + std::int64_t{th.x} * VEC;
      const tk::Vec<float, VEC> x = tk::load_vec<VEC>(a + i), y = tk::load_vec<VEC>(b + i);
      tk::Vec<float, VEC> z;
      for (int k = 0; k < VEC; ++k) z.v[k] = x.v[k] + y.v[k];
      tk::store_vec<VEC>(c + i, z);
    }
  } else {
    TK_THREADS(th) {
      for (int k = 0; k < VEC; ++k) {
        const std::int64_t i = base + std::int64_t{th.x} * VEC + k;
        if (i < n) c[i] = a[i] + b[i];
      }
    }
  }
}

}  // namespace tk::kernels
