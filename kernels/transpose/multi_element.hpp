// kernels/transpose/multi_element.hpp — tk::transpose's `best`: the padded shared tile (smem_padded.hpp) with
// a larger tile and the block shape chosen for the target.
//
// Technique: seed 004's advice for saturating the bus, applied to smem_padded.hpp: a larger tile (fewer
// blocks, fewer edge tests, longer runs of each row per tile) and several elements per thread (independent
// loads in flight, shared index arithmetic), with the shape that keeps the machine full:
// - GPUs: a 64 x 64 tile moved by 64 x 16 threads, 4 elements each: 32 registers and 16.6 KiB of shared
//   memory per 1024-thread block, so two blocks fill an SM's 2048 threads (a 64 x 8 block, 8 elements per
//   thread, needs 48 registers and leaves the SM half full: 85% of cudaMemcpy on an H100, against 91% for
//   the 32 x 8 padded tile). TK_TRANSPOSE_TUNE picks another shape for tuning runs (launch.cpp).
// - CPUs: a 128 x 128 tile, one element per thread: a row of the block is eight 16-lane vectors, and
//   128-float runs of `in` and `out` (512 bytes) use DRAM better than 32 or 64 (measured: 64 -> 50%, 128 ->
//   55-62%, 256 -> 44% of memcpy at 8192 x 8192).
// The padding column keeps the column reads conflict-free: TILE is a multiple of 32.
// Preconditions: as naive.hpp. Work counted: 8 bytes per element.
#pragma once

#include "smem_padded.hpp"

namespace tk::kernels {

template <int TILE, int ROWS>
constexpr auto transpose_multi_element = &transpose_smem<TILE, ROWS, transpose_padding>;

}  // namespace tk::kernels
