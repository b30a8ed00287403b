// kernels/transpose/cpu_tile.hpp — the side of the CPU `best` transpose's tile, from the CPU's L2, the matrix
// and the threads: a stated model, as kernels/matmul/cpu_block.hpp is for the matmul.
//
// On a CPU a block transposes a T x T tile (multi_element.hpp: one element per thread): it reads T runs of
// T floats of `in` into its shared array (T x (T + 1) floats), then writes T runs of T floats of `out`. Its
// working set is about 2 T^2 floats: the array, and the T lines of `out` it fills, which the stores allocate
// in cache before they leave. The longer the runs, the better DRAM streams them (T = 32: runs of 128 bytes);
// but the working set must stay in L2 beside the input rows streaming in and the other blocks' lines, or
// the array's column reads and the stores miss. So:
//   - T is the largest of 64, 128, 256 with 2 T^2 x 4 bytes <= L2 / 4 (a 1 MiB L2 gives 128, 2 MiB 256,
//     512 KiB 128, 256 KiB 64); measured at 8192^2 on a 1 MiB-L2 AMD EPYC: 64 -> 50%, 128 -> 55-62%,
//     256 -> 44% of memcpy (docs/performance.md);
//   - then halved, down to 64, while the grid would have fewer than `slots` tiles (4 per thread of the
//     executor's team), so that small matrices keep every thread busy.
// TK_TRANSPOSE_TUNE=64, 128 or 256 forces the side (tuning runs and the tests of each side).
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"  // tk::kernels is the target's namespace

namespace tk::kernels::transpose_cpu {

struct Tile {
  int side;         // 64, 128 or 256
  const char* why;  // the rule that settled it
};

// `l2` the L2 bytes per core (0: unknown), rows x cols the matrix, `slots` the tiles that keep the threads busy.
constexpr Tile tile_for(std::int64_t l2, std::int64_t rows, std::int64_t cols, std::int64_t slots) {
  const auto fits = [&](std::int64_t t) { return 2 * t * t * 4 <= l2 / 4; };
  Tile t{l2 > 0 ? 64 : 128, l2 > 0 ? "the largest whose tile and output lines, 2 T^2 floats, fit a quarter of L2"
                                    : "L2 size unknown: 128"};
  if (l2 > 0) {
    if (!fits(64)) t.why = "even 64's tile and output lines exceed a quarter of L2: the smallest";
    for (int s = 128; s <= 256 && fits(s); s *= 2) t.side = s;
  }
  const auto tiles = [&](std::int64_t s) { return ((rows + s - 1) / s) * ((cols + s - 1) / s); };
  while (t.side > 64 && tiles(t.side) < slots) t = {t.side / 2, "halved until the grid has 4 tiles per thread"};
  return t;
}

}  // namespace tk::kernels::transpose_cpu
