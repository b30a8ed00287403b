// kernels/matmul/pack.hpp — packing: an operand whose rows are not 16-byte multiples (or whose first
// element is not 16-byte aligned) copied into a workspace whose rows are, before warp_tiled multiplies it.
// warp_tiled loads its strips in 16-byte chunks; where an operand's rows do not allow them, each chunk
// takes VEC scalar loads (common.hpp, fetch), which costs a large product more than one pass over the
// operand does (launch.cpp, run_warp_tiled;
// docs/history/performance-log.md#nvidia-h100-packed-copies-padded-to-whole-chunks-and-packing-from-smaller-products-2026-11-26). BLAS libraries pack their operands for
// the same reason (and, on CPUs, for locality).
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tk::kernels {

// P = X for `rows` rows of `cols` elements, X with leading dimension ld, P with ldp >= cols (the caller makes P
// and ldp 16-byte multiples); P's rows are zero from cols to ldp, so that the product may read them whole
// (warp_tiled.hpp, m_read and n_read). Rows over grid y-blocks; along a row, each block takes U x its threads'
// elements, thread x those at x, x + threads, ...: a warp reads and writes consecutive elements, and each
// thread has U loads in flight before it stores (one element per thread ran at a quarter of the H200's
// bandwidth).
template <class T, int U>
TK_KERNEL void matmul_pack(std::int64_t rows, std::int64_t cols, const T* X, std::int64_t ld, T* P, std::int64_t ldp) {
  const std::int64_t nt = tk::block_dim().x, j = std::int64_t{tk::block_idx().x} * nt * U;
  for (std::int64_t i = tk::block_idx().y; i < rows; i += tk::grid_dim().y) {
    const T* x = X + i * ld + j;
    T* p = P + i * ldp + j;
    const std::int64_t n = cols - j, np = ldp - j;  // elements of this row (of P's) from j on
    TK_THREADS(th) {
      T v[U];
      TK_UNROLL
      for (int u = 0; u < U; ++u) v[u] = th.x + u * nt < n ? x[th.x + u * nt] : T(0);
      TK_UNROLL
      for (int u = 0; u < U; ++u)
        if (th.x + u * nt < np) p[th.x + u * nt] = v[u];
    }
  }
}

}  // namespace tk::kernels
