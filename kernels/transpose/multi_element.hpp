// kernels/transpose/multi_element.hpp — tk::transpose's GPU `best`: the padded shared tile (smem_padded.hpp) with
// a larger tile and the block shape chosen for the target.
//
// Technique: seed 004's advice for saturating the bus, applied to smem_padded.hpp: a larger tile (fewer
// blocks, fewer edge tests, longer runs of each row per tile) and several elements per thread (independent
// loads in flight, shared index arithmetic), with the shape that keeps the machine full:
// - GPUs: measured on an H100 at 8192 x 8192, the best shape is the padded 32 x 32 tile on 32 x 8 threads
//   (4 elements each) — the same shape as smem_padded's GPU launch — at 93.7% of cudaMemcpy; larger tiles
//   lost (64 x 64 on 64 x 16 threads: 92.4%; on 64 x 8 threads, 8 elements each and 48 registers: 84%), so
//   on GPUs `best` is that shape, and TK_TRANSPOSE_TUNE picks the others for tuning runs (launch.cpp).
// - CPUs run another kernel as `best` (cpu_squares.hpp: squares through registers, streamed stores); this
//   one's 128 x 128 tile with one element per thread reached 31-62% of memcpy there (
// docs/history/performance-log.md#cpu-transpose-the-tiles-side-from-the-l2-2026-11-24-issue-13).
// The padding column keeps the column reads conflict-free: TILE is a multiple of 32.
// Preconditions: as naive.hpp. Work counted: 8 bytes per element.
#pragma once

#include "smem_padded.hpp"

namespace tk::kernels {

template <int TILE, int ROWS>
constexpr auto transpose_multi_element = &transpose_smem<TILE, ROWS, transpose_padding>;

}  // namespace tk::kernels
