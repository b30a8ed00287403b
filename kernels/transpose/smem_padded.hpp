// kernels/transpose/smem_padded.hpp — the shared-tile transpose with one padding float per tile row, which
// removes the 32-way bank conflict of smem.hpp (seed 003, "Avoiding bank conflicts in shared memory").
//
// Technique: rows of TILE + 1 floats. Phase 2 reads a column, tile[x][y] for x = 0..31, at word addresses
// x * 33 + y: bank (x * 33 + y) % 32 = (x + y) % 32, 32 different banks, one access. Phase 1 still writes
// rows (consecutive banks). Everything else is smem.hpp's kernel, instantiated with PAD = 1. Seed 003 at
// 512 x 512: 4x faster than the unpadded tile, 8x faster than naive. On a CPU the padding keeps a column's
// floats out of the few cache sets that addresses TILE floats apart share.
// Preconditions: as naive.hpp. Block: TILE x ROWS threads (smem.hpp). Work counted: 8 bytes per element.
#pragma once

#include "smem.hpp"

namespace tk::kernels {

// One padding float at the end of each tile row: a column's floats fall in 32 different banks when TILE is
// a multiple of 32 (bank (x * (TILE + 1) + y) % 32 = (x + y) % 32 for a warp's 32 consecutive x).
constexpr int transpose_padding = 1;

template <int TILE, int ROWS>
constexpr auto transpose_smem_padded = &transpose_smem<TILE, ROWS, transpose_padding>;

}  // namespace tk::kernels
