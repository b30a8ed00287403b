// kernels/transpose/cpu_tile.hpp — the side of the CPU `best` transpose's tile, from the matrix and the
// threads: a stated model, as kernels/matmul/cpu_block.hpp is for the matmul.
//
// On a CPU a block moves a T x T tile as 16 x 16 squares through registers (cpu_squares.hpp): a row of
// squares reads 16 rows of `in` along T floats, and writes 64-byte lines of `out` that go straight to
// memory (streamed) or, when `out`'s rows are not 64-byte aligned, through the cache, 2 T lines at a time.
// Each line of `in` and `out` is touched once, so the caches hold no tile: the L2 sets no limit up to
// T = 256 (32 KiB of partial `out` lines), and longer runs stream better. So:
//   - T = 256, the longest runs (measured at 8192^2 on a 2-core EPYC, 1 MiB L2, 2 threads: 256 -> 32.7-36.6
//     GB/s, 128 -> 29.8-31.1, 64 -> 25.6-27.3;
// docs/history/performance-log.md#cpu-transpose-16-x-16-squares-through-registers-streamed-stores-2026-11-25-issue-13);
//   - then halved, down to 64, while the grid would have fewer than `slots` tiles (4 per thread of the
//     executor's team), so that small matrices keep every thread busy.
// (The kernel before the squares read the tile into the block's array and wrote `out` through the cache:
// its model kept 2 T^2 floats within a quarter of L2, which gave 128 on a 1 MiB L2.)
// TK_TRANSPOSE_TUNE=64, 128 or 256 forces the squares on a tile of that side, whatever the alignment of `out`'s rows
// (tuning runs and the tests of each side); =1 sends unaligned `out` rows to the squares on the tile the model picks
// (never cpu_strips.hpp), 512 to 4096 (a multiple of 16) to the strips, with that many rows per block.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"  // tk::kernels is the target's namespace

namespace tk::kernels::transpose_cpu {

struct Tile {
  int side;         // 64, 128 or 256
  const char* why;  // the rule that settled it
};

// rows x cols the matrix, `slots` the tiles that keep the threads busy.
constexpr Tile tile_for(std::int64_t rows, std::int64_t cols, std::int64_t slots) {
  Tile t{256, "the longest runs"};
  const auto tiles = [&](std::int64_t s) { return ((rows + s - 1) / s) * ((cols + s - 1) / s); };
  while (t.side > 64 && tiles(t.side) < slots) t = {t.side / 2, "halved toward 4 tiles per thread (64 at least)"};
  return t;
}

// Whether `out`'s rows, ld floats apart, crowd the L1's sets: the most of 16 consecutive rows (a square's) whose
// first bytes fall in one set of the 4 KiB that a way of the L1 spans (32 KiB of 8 ways on Zen 4, 48 KiB of 12
// on Zen 5 and Emerald Rapids). Squares write `out` through the cache where its rows are not 64-byte aligned, 16
// rows at a time: with rows a multiple of 1024 floats apart (or a float off it) all 16 fall in one or two sets and
// evict each other, and the strips (cpu_strips.hpp) are faster; elsewhere the squares are. On host A (Zen 5, 2
// threads, a std::vector's data: ms per call) squares against strips: 6000 x 11000 19-21 against 28-30, 5000 x 7001
// 9-13 against 18-19, 30011 x 997 7-8 against 12-13, 7919 x 7907 18 against 27-29, 5003 x 13001 15-22 against
// 35-37; but 8192 x 8192 44 against 22, 8191 x 8193 27-31 against 20-21, 16384 x 4096 41-43 against 23-24 (rows
// 2^13, 2^13 - 1, 2^14 apart: 15-16 in one set) and 8192 x 7919 38 against 29. (`in`'s rows, read, mattered
// less: 7919 x 8192 ran 18.6 ms either way.)
constexpr int rows_per_l1_set(std::int64_t ld) {
  int most = 0;
  for (int r = 0; r < 16; ++r) {
    int same = 0;
    for (int q = 0; q < 16; ++q) same += (r * ld * 4 % 4096) / 64 == (q * ld * 4 % 4096) / 64;
    most = same > most ? same : most;
  }
  return most;
}
// The strips where out's rows share an L1 set more than two to a set: faster than the squares on every host kind
// measured with AVX-512 (the AVX2 copy keeps the squares there: avx2_keeps_squares below). Elsewhere the faster of
// the two depends on the core (the race below).
constexpr bool strips_for_stride(std::int64_t ld_out) { return rows_per_l1_set(ld_out) > 2; }

// The race: where out's rows are not 64-byte aligned and crowd no set, which of squares and strips is faster is the
// core's, not a cache size's, and no host kind wins both ways. Measured, 2 threads, a std::vector's data:
//   - host A (Zen 5, 48 KiB L1): the squares, 1.4-2.5 times the strips (ms per call, above);
//   - host C (Zen 4, 32 KiB L1; 2026-12-03): the strips, 1.2-1.8 times the squares (GB/s): 7919 x 7907 18.4 / 17.5
//     against 11.7 / 10.7, 6000 x 11000 17.7 / 19.1 against 11.1 / 9.8, 5000 x 7001 14.0 / 16.4 against
//     11.4 / 10.0, 30011 x 997 16.6 / 17.9 against 11.5 / 12.5;
//   - host B (an Intel Xeon, 48 KiB L1; 2026-11-27): the strips, 5000 x 7001 at 77.5% of memcpy against 32.8%, 30011 x
//     997 at 82.6% against 34.0%;
//   - host E (Zen 3, AVX2 only, 32 KiB L1; 2026-12-05, the strips' AVX2 code): the strips, 1.5-2.4 times the squares
//     (GB/s): 7919 x 7907 27.0 / 27.3 against 14.7 / 15.6, 6000 x 11000 26.0 / 26.6 against 13.3 / 15.1, 30011 x 997
//     29.2 / 30.0 against 12.1 / 15.6.
// So the launcher measures on the machine in front of it, on the user's own calls: the first race_calls calls of
// at least race_elements elements (and race_min_side rows and columns) each transpose their first
// race_split(cols) columns of `in` with the strips and the rest with the squares, timed apart (the first call
// strips first, the second squares first: whichever runs first in a process pays its start, and a first touch of
// `out` costs each half in proportion, its own rows of `out`). The process then takes the squares where their best
// time per element is under race_margin of the strips', else the strips; before that, the strips.
constexpr std::int64_t race_elements = std::int64_t{1} << 23;  // 32 MiB read: each half long past any L2
constexpr std::int64_t race_min_side = 512;                    // two blocks of strips' columns at least
constexpr int race_calls = 2;
constexpr double race_margin = 0.9;  // the squares only where clearly faster: the strips win on 3 host kinds of 4
constexpr bool races(std::int64_t rows, std::int64_t cols) {
  return rows >= race_min_side && cols >= race_min_side && rows * cols >= race_elements;
}
// The columns of `in` that the strips take in a race: half, in whole blocks of 256.
constexpr std::int64_t race_split(std::int64_t cols) { return cols / 512 * 256; }
// The pick from each kernel's best seconds per element over the race's calls.
constexpr bool squares_won(double strips, double squares) { return squares < race_margin * strips; }

// Where the build has the strips but not the skinny kernels (the AVX2 copy): matrices of at most 64 rows (`out`'s
// rows at most 64 floats, mostly partial lines, which the strips store masked and unstreamed), of at most 16 columns
// (one strip a block), and `out` rows that crowd the L1's sets keep the squares. Measured on host E (Zen 3, 2
// threads, 2026-12-05, GB/s, squares against strips): 31 x 600001 20.6 against 7.8, 16 x 1048576 from a std::vector
// 14.4-23.6 against 8.9, 1048576 x 16 from a std::vector 21.6-22.6 against 17.4-17.6; crowded rows 8191 x 8193
// 18.4-20.0 against 16.0-17.6, 8192^2 from a std::vector 15.4-15.5 against 14.7-14.9, 4096 x 16384 from one
// 15.5-16.5 against 14.9 (16384 x 4096 13.9-14.5 against 14.8-15.4); but 600001 x 31 13.1-18.7 against 35.0-37.7.
// And matrices under the race's size (below) whose two arrays fit in half the last-level cache (llc_bytes; 0: unknown,
// no such rule; a larger one, on a host of a large cache, is left to the race, unmeasured there): there the
// strips' streamed stores send out past a cache it would have stayed in. Host E (32 MiB L3, 2026-12-05, tk-bench
// --sweep, tilekit's buffers and a std::vector, GB/s, squares against strips): 700 x 900 (5 MB) 57.3-66.7 against
// 14.7-28.2, 1000^2 (8 MB) 61.2-89.2 against 26.1-43.1 (one run of tilekit's buffers 38.3 against 34.6); at 1500 x
// 1501 (18 MB) mixed: 32.9-45.4 against 22.5-24.0 in two runs, 19.7-37.2 against 26.0-30.3 in two more; 1800 x 1900
// (27 MB) 18.1-21.7 against 24.6-35.9, 2500 x 2600 16.1-18.3 against 14.5-24.3, 3001 x 2999 13.1-16.1 against
// 22.3-23.7.
constexpr bool avx2_keeps_squares(std::int64_t rows, std::int64_t cols, std::int64_t ld_out,
                                  std::int64_t llc_bytes = 0) {
  return rows <= 64 || cols <= 16 || strips_for_stride(ld_out) ||
         (llc_bytes > 0 && !races(rows, cols) &&
          2 * rows * cols * static_cast<std::int64_t>(sizeof(float)) <= llc_bytes / 2);
}

// The rows of a block of transpose_strips (cpu_strips.hpp, 256 columns a block), where `out`'s rows are not
// 64-byte aligned: each row of `out` a block writes has a partial line at either end, written through the cache,
// so the count of blocks of rows is that of the most rows a block that keep `slots` blocks for the threads, from 2048
// (1 partial line in 64) down to 256 (1 in 8); then the rows are spread evenly over that many blocks of rows, in
// whole squares (16 rows): every block but the last the same rows, the last short by less than 16 a block (so a
// block may take fewer than 256 rows: 2096 rows in 9 blocks of 240 and one of 176 for one column of blocks). The
// executor hands each thread a run of the grid's blocks in order (x fastest, static schedule), so unequal blocks
// of rows are unequal work: 5000 rows as 2048, 2048 and 904 left one of 2 threads 61% of the work. Host C (Zen 4,
// 2 threads, a std::vector's data, GB/s, 2048 rows a block against even blocks; 2026-12-07, three rounds): 5000 x
// 7001 22.2-23.3 against 26.5-27.9 (1680), 5003 x 13001 21.5-22.7 against 26.1 (1680), 3000 x 20000 21.2-22.0
// against 30.6-32.5 (1504); 7919 x 7907 25.2-26.9 against 26.1-27.4 (1984). (Blocks of 1024 rows ran about as
// fast as the even ones there; one thread, 5000 x 7001, ran alike either way.)
constexpr std::int64_t strip_rows_for(std::int64_t rows, std::int64_t cols, std::int64_t slots) {
  std::int64_t h = 2048;
  const auto blocks = [&](std::int64_t x) { return ((cols + 255) / 256) * ((rows + x - 1) / x); };
  while (h > 256 && blocks(h) < slots) h /= 2;
  const std::int64_t row_blocks = (rows + h - 1) / h;
  return ((rows + row_blocks - 1) / row_blocks + 15) / 16 * 16;  // at most h: h is a multiple of 16
}

}  // namespace tk::kernels::transpose_cpu
