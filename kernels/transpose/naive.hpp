// kernels/transpose/naive.hpp — out = in^T, one element per thread, straight from global memory (seed 003,
// "Uncoalesced transpose").
//
// Technique: the seed's transpose_naive. A BLOCK x BLOCK block of threads covers a BLOCK x BLOCK tile of
// `in`; thread (x, y) reads in(r0 + y, c0 + x) and writes out(c0 + x, r0 + y). Consecutive threads read
// consecutive floats of a row of `in` (coalesced), but write a column of `out`: addresses ld_out floats
// apart, one DRAM burst per float written. On a CPU the same write is a scatter, one element at a time.
// Seed 003 measured the shared-tile version 8x faster at 512 x 512 (smem_padded.hpp).
// Grid: x over tile columns, y over tile rows, which each block steps through by grid_dim.y (a GPU grid's
// y extent is at most 65535). Whether a tile is whole is block-uniform, decided outside the phases.
// Preconditions: ld_in >= cols, ld_out >= rows, in and out do not overlap. 64-bit indices.
// Work counted by the benchmark: 8 bytes per element (read once, written once).
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

template <int BLOCK>
TK_KERNEL void transpose_naive(std::int64_t rows, std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                               float* __restrict__ out, std::int64_t ld_out) {
  const std::int64_t c0 = std::int64_t{tk::block_idx().x} * BLOCK;
  const std::int64_t row_tiles = (rows + BLOCK - 1) / BLOCK;
  for (std::int64_t t = tk::block_idx().y; t < row_tiles; t += tk::grid_dim().y) {
    const std::int64_t r0 = t * BLOCK;
    if (r0 + BLOCK <= rows && c0 + BLOCK <= cols) {  // block-uniform: a whole tile, no per-element test
      TK_THREADS(th) { out[(c0 + th.x) * ld_out + r0 + th.y] = in[(r0 + th.y) * ld_in + c0 + th.x]; }
    } else {
      TK_THREADS(th) {
        const std::int64_t r = r0 + th.y, c = c0 + th.x;
        if (r < rows && c < cols) out[c * ld_out + r] = in[r * ld_in + c];
      }
    }
  }
}

}  // namespace tk::kernels
