// kernels/experiments/increment.hpp — seed 003's coalescing experiment: a[i]++ with some threads sent
// elsewhere, as one kernel per pattern (tk::IncrementPattern).
//
// The seed's results (12K blocks x 256 threads, 3M floats), time relative to coalesced:
//   coalesced               a[i]++                                        t = 1.0
//   three_of_four           if (i % 4 != 0) a[i]++                        t = 1.0  (the idle lanes cost nothing:
//                                                                                   the warp's bytes stay in one segment)
//   fourth_to_a0            ... else a[0]++                               t = 24.6 (4x uncoalesced, 8x contention
//                                                                                   on a[0]: 25% of all threads)
//   fourth_to_block_start   ... else a[blockIdx.x * blockDim.x]++        t = 3.7  (contention only within a block)
// The seed's a[0]++ from many threads is a data race: most updates are lost and the result is undefined.
// Here the redirected updates use tk::atomic_add (atomicAdd on GPUs, an OpenMP atomic on CPUs), which makes
// the result exact and testable; the contention the seed measured is still there (atomics to one address
// serialise in the L2 on a GPU, and bounce a cache line between cores on a CPU). A phase with an atomic
// does not vectorise on a CPU. The redirected element is a multiple of 4, so no element is updated both
// plainly and atomically.
// Preconditions: block size a multiple of 4 (the launcher uses tk::coalescing_block = 256).
// Work counted by the benchmark: 8 bytes per element (read and written once).
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"
#include "tilekit/experiments.hpp"

namespace tk::kernels {

template <IncrementPattern P, bool EDGE>
TK_DEVICE void increment_block(std::int64_t base, std::int64_t n, float* a) {
  TK_THREADS(th) {
    const std::int64_t i = base + th.x;
    if (EDGE && i >= n) TK_SKIP();
    if constexpr (P == IncrementPattern::coalesced) {
      a[i] += 1.f;
    } else {
      if ((i & 3) != 0) {
        a[i] += 1.f;
      } else if constexpr (P == IncrementPattern::fourth_to_a0) {
        tk::atomic_add(&a[0], 1.f);  // the seed's a[0]++, made atomic
      } else if constexpr (P == IncrementPattern::fourth_to_block_start) {
        tk::atomic_add(&a[base], 1.f);  // the seed's a[startOfBlock]++, made atomic
      }
    }
  }
}

template <IncrementPattern P>
TK_KERNEL void increment(std::int64_t n, float* a) {
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  if (base + tk::block_dim().x <= n)  // block-uniform: every thread has an element
    increment_block<P, false>(base, n, a);
  else increment_block<P, true>(base, n, a);
}

}  // namespace tk::kernels
