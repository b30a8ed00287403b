// kernels/stencil/launch.cpp — the stencil launchers, compiled once per target.
//
// Grid math. GPUs: moving_average runs 256 threads per block over 256 outputs (the tiled kernel's window
// is 256 + 2r floats of dynamic shared memory); the 2D kernels use blocks of 32 x 8 threads (a warp per
// row, 256 threads); naive blocks compute 32 x 8 outputs, tiled blocks a 32 x 32 tile (4 rows per thread,
// which cuts the halo's share of the loads to 13% for the 5-point stencil). CPUs: 1024-thread lines (the
// executor's per-block and per-phase costs amortised over more elements: 1.3 -> 1.0 ns per output, both
// kernels) and 64 x 8 blocks and tiles, one row per thread: a tile then reads 8 + 2r rows of `in` at a
// time, few enough streams for the hardware prefetchers to follow (32-row tiles ran 3x slower than naive
// at 4096 x 4096; 8-row tiles 1.2x). Grid x covers the column blocks, y the row blocks up to 65535 (the
// kernels step through the rest).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <utility>

#include "convolve_naive.hpp"
#include "convolve_smem_tiled.hpp"
#include "moving_average_naive.hpp"
#include "moving_average_smem_tiled.hpp"
#include "stencil5_flat.hpp"
#include "stencil5_naive.hpp"
#include "stencil5_smem_tiled.hpp"
#include "stencil5_streamed.hpp"
#include "tilekit/detail/knobs.hpp"
#include "tilekit/detail/launchers_stencil.hpp"
#include "tilekit/detail/pow2.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

constexpr bool on_cpu = tk::this_target == Target::cpu;
constexpr int line_threads = on_cpu ? 1024 : 256;     // moving_average: threads (and outputs) per block
constexpr int bx = on_cpu ? 64 : 32, by = 8;          // 2D blocks: columns (a warp's worth on GPUs), rows
constexpr int tile_x = bx, tile_y = on_cpu ? 8 : 32;  // 2D tiled kernels: the block's output tile
constexpr int max_grid_y = 65535;

// The 2D kernels' grid rows are capped: each block then walks several row blocks (a block-uniform loop in
// the kernel), so fewer, longer-lived blocks stream the array. On GPUs 128 rows of blocks: the naive 5-point
// stencil at 8192^2 on an H100 went from 55.7% of cudaMemcpy (one row block per block) to 72.9%
// (caps 2048 / 512 / 128 / 32: 55.8 / 66.5 / 72.9 / 73.1%). CPUs keep the hardware's limit.
// TK_STENCIL_GRID_Y=<n> sets another cap, for tuning runs.
int grid_y_cap() {
  static const int cap = [] {
    const int v = tk::detail::knobs().stencil_grid_y;
    if (v > 0 && v < max_grid_y) return v;
    return on_cpu ? max_grid_y : 128;
  }();
  return cap;
}

// stencil5_streamed (`best` for the 5-point stencil): V columns and ROWS rows per thread, blocks of BX x BY
// threads, and no cap on the grid's rows beyond the hardware's. GPUs: 64 x 8 threads, 2 columns (8-byte
// accesses) by 4 rows each: a block strip of 128 x 32. Measured on an H100 at 8192 x 8192, % of cudaMemcpy
// (grid rows capped at 128 / 512 / 1024 / 4096; run-to-run spread about 1 point):
//   V x ROWS, BX x BY:   4x8, 32x8: 80 (cap 128)   2x8, 64x4: 92 / 95      4x4, 32x8: 90 (cap 128)
//                        2x4, 64x4: 93 / 99 / 100 / 100   2x4, 64x8: 97 / 99 / 99 / 99   4x2, 32x8: 95 / 99 / 99 / 99
//                        2x16, 64x2: 86 / 88       1x4, 128x2: 85 / 89       2x4, 128x2: 90 / 97
// Short strips win: a thread's 4 + 2 row loads are in flight at once, and more blocks are resident; 2x4 on
// 64x8 is the steadiest.
// CPUs, until 2026-11-29 (the grids of cpu_narrow_below columns or more now take run_cpu_columns, below): a
// block is one row of 256 lanes (consecutive columns) walking 2 rows: it reads 4 rows of 1 KiB and writes 2,
// each a sequential run, and the block to its right continues the same rows, so a thread streams a band of 2
// rows across the whole grid (the band above's last row still in L2). The GPU-like 64 x 8 threads
// by 8 rows made 66 short runs of 256 bytes per block, more streams than the prefetchers follow. Measured on
// host C (2-core AMD EPYC Zen 4 VM, 1 MiB L2 per core, 2 threads), the geometric mean of 8192^2, 8191x8193,
// 3000x5001, 1000x30011 and 4095x4097 in % of the same run's OpenMP memcpy, three runs each (the host is
// noisy): 64 x 8 by 8 rows 57 / 41 / 58; 256 x 1 by 2 rows 93 / 86 / 97; by 3 rows 89 / 99 / 71; 256 x 2 by 2
// rows 92 / 106 / 76 (on three or four of the shapes: 512 x 1 by 4 rows about 70, by 2 about 88; 2048 x 1 by 1
// row about 50, with blocks that did not walk down their columns). Narrow grids (cols < cpu_narrow_below) take
// 64 x 2 threads by 4 rows instead: a 256-wide block there leaves its first and last block columns, a large
// share of a narrow row, to the edge path that tests every element. Same host, ms per call, 256 x 1 by 2 rows against
// 64 x 2 by 4: 30011x997 15.2 / 11.0, 20000x500 7.8 / 4.9, 3000x5001 4.3 / 3.9, 4095x4097 5.8 / 7.0, 8191x8193 18.8 /
// 26.6, 1000x30011 7.2 / 8.4.
// TK_STENCIL_TUNE=<n> picks the n-th alternative below (the GPU's or the CPU's list), for tuning runs.
struct StreamedShape {
  int v, rows, bx, by;
};
constexpr StreamedShape streamed_shape = on_cpu ? StreamedShape{1, 2, 256, 1} : StreamedShape{2, 4, 64, 8};
constexpr StreamedShape cpu_narrow_shape{1, 4, 64, 2};
constexpr std::int64_t cpu_narrow_below = 4096;
constexpr std::array<StreamedShape, 5> gpu_alternatives{
    {{2, 4, 64, 4}, {4, 2, 32, 8}, {2, 8, 64, 4}, {4, 4, 32, 8}, {4, 8, 32, 8}}};
constexpr std::array<StreamedShape, 7> cpu_alternatives{
    {{1, 8, 64, 8}, {1, 3, 256, 1}, {1, 2, 256, 2}, {1, 4, 512, 1}, {1, 2, 512, 1}, {1, 2, 64, 4}, {1, 2, 128, 2}}};
template <bool CPU>
constexpr auto alternatives() {
  if constexpr (CPU) return cpu_alternatives;
  else return gpu_alternatives;
}
constexpr auto streamed_alternatives = alternatives<on_cpu>();

// Skinny grids: the strip blocks above span 32 rows (GPUs) or 1 to 8 (CPUs) and 128 or 64 to 4096 columns, and
// leave most of their threads idle on a grid with fewer (1 x 2^24 on an H100: 12% of cudaMemcpy; 2^24 x 1: 5%). There
// the block takes the grid's shape, skinny_threads threads in all:
// - 16 rows or fewer (a GPU strip block at most half full): a thread per V columns of one row (ROWS = 1),
//   the block along the row, one row of blocks: each block walks every row of its columns, so the rows it
//   has just read are in L1 and each element comes from memory once (a row of blocks per grid row read 3
//   rows per row written). % of memcpy, a row of blocks per grid row -> one: host D 3 x 3000017 32 -> 107-120,
//   16 x 1000003 60 -> 78-187 (noisy); H200 3 x 3000017 40 -> 50-57, 16 x 1000003 47 -> 68-74;
// - else fewer than 64 columns, stored without padding: stencil5_flat (run_flat below);
// - else fewer than 64 columns: a thread per column (V = 1), BX the power of two at or above cols, the rest
//   of the block's threads down the rows.
// The thread-per-column blocks each walk several row segments: at most 1024 rows of blocks (about one wave of
// resident blocks on an H100).
constexpr int skinny_threads = on_cpu ? 1024 : 256, skinny_rows_cap = 1024;
constexpr int skinny_strip_rows = on_cpu ? 8 : streamed_shape.rows;  // few columns: rows a thread walks

int stencil_tune() {
  static const int n = [] {
    const int v = tk::detail::knobs().stencil_tune;
    return v >= 1 && v <= static_cast<int>(std::size(streamed_alternatives)) ? v : 0;
  }();
  return n;
}

Dim3 grid_2d(std::int64_t rows, std::int64_t cols, int tx, int ty, const char* call, int cap = grid_y_cap()) {
  const std::int64_t gx = (cols + tx - 1) / tx, gy = (rows + ty - 1) / ty;
  if (gx > 0x7fffffff) tk::detail::fail(call, ": ", cols, " columns need more than 2^31 - 1 blocks");
  return {static_cast<int>(gx), static_cast<int>(std::min<std::int64_t>(gy, cap)), 1};
}

}  // namespace

template <int V, int ROWS, int BX, int BY, bool STAGED = false, bool SWEEP = false>
void run_streamed(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                  float* out, std::int64_t ld_out, float center, float side, int rows_cap = max_grid_y) {
  const char* call = "tk::stencil_5point";
  const auto aligned = [](const void* p, std::int64_t ld) {
    return reinterpret_cast<std::uintptr_t>(p) % (sizeof(float) * V) == 0 && ld % V == 0;
  };
  if constexpr (V > 1) {
    if (!aligned(in, ld_in) || !aligned(out, ld_out))  // rows not V-float aligned: one column per thread
      return run_streamed<1, ROWS, BX, BY, STAGED, SWEEP>(dev, rows, cols, in, ld_in, out, ld_out, center, side,
                                                          rows_cap);
  }
  // No cap on the grid's rows beyond rows_cap unless TK_STENCIL_GRID_Y asks for one (the tuning runs below).
  const int cap = tk::detail::knobs().stencil_grid_y > 0 ? grid_y_cap() : rows_cap;
  const std::size_t stage = STAGED ? sizeof(float) * BX * V * BY * ROWS : 0;
  Dim3 grid = grid_2d(rows, cols, BX * V, BY * ROWS, call, cap);
  if constexpr (SWEEP) grid.x = 1;  // each block crosses the whole width
  return tk::launch(dev,
                    {SWEEP    ? (STAGED ? "stencil5_rows_staged" : "stencil5_rows")
                     : STAGED ? "stencil5_streamed_staged"
                              : "stencil5_streamed",
                     grid,
                     {BX, BY, 1},
                     stage},
                    &tk::kernels::stencil5_streamed<V, ROWS, STAGED, SWEEP>, rows, cols, in, ld_in, out, ld_out, center,
                    side);
}

// CPUs: whether a grid's rows are staged and streamed out, with its reads prefetched (stencil5_streamed's STAGED):
// when its input and output together exceed half the last-level cache (the device's L3, else its cores' L2s),
// which the host's other work shares. Host D' (2-core Intel Xeon VM, Emerald Rapids, 300 MiB L3), 2 threads, ms,
// three interleaved runs, plain / staged: 8191x8193 35.4-38.2 / 26.0-26.9, 5003x13001 29.7-37.7 / 22.1-28.8,
// 6000x6000 15.2-19.6 / 13.0-15.0, 8192^2 28.4-33.0 / 26.2-30.0, 5000x7001 14.1-18.9 / 14.3-17.6, 16384x4096
// 32.3-37.0 / 30.0-38.8 (no gain); under the line, 4096^2 4.9-6.7 / 6.0-7.4 and 3000x5001 4.3-5.9 / 4.6-6.8
// (docs/performance.md#cpu-stencil-staged-streamed-stores). A device that reports no cache sizes never stages.
// The narrow grids' blocks (cpu_narrow_shape) staged ran slower: 30011x997 19.3-20.0 -> 24.2-28.3 ms, 12000x3001
// 19.2-21.5 -> 31.6-34.1. TK_STENCIL_STREAM=1 never, 2 always (tuning runs, and the tests of the staged kernel).
bool cpu_stream_out(const Device& dev, std::int64_t rows, std::int64_t cols) {
  const int knob = tk::detail::knobs().stencil_stream;
  if (knob == 1 || knob == 2) return knob == 2;
  const auto& p = dev.props();
  const std::int64_t llc = p.l3_bytes > 0 ? p.l3_bytes : p.l2_bytes * std::max(1, p.multiprocessors);
  return llc > 0 && 2 * rows * cols * std::int64_t{sizeof(float)} > llc / 2;
}

// CPUs, grids of cpu_narrow_below columns or more (and over 16 rows): blocks of one row of W lanes, each walking
// down a run of consecutive rows of its W columns (stencil5_streamed's CPU order), so the rows above and at the one
// it reads stay in L1; W the widest of 4096, 2048 and 1024 whose three rows fit half the core's L1 data cache
// (2048 with host D's 48 KiB, 1024 with host C's 32 KiB), and enough runs of rows for 8 blocks per core (the
// device's cores: its logical CPUs, not the OpenMP threads a run may be limited to). Host D,
// 2 threads, ms (best of 9, two interleaved rounds), against the 256 x 1 by 2-row blocks before: 8192^2 28.2-28.9 /
// 31.1-31.9, 16384x4096 25.7-29.3 / 31.0-31.9, 5003x13001 25.3-27.0 / 28.5-29.0, 4096^2 4.6-4.8 / 6.4-6.6,
// 4095x4097 5.4-5.5 / 6.7-7.0, 1000x30011 10.2-11.1 / 12.9-13.0, 5000x7001 14.8-15.1 / 15.4-15.5, 8191x8193
// 29.8-30.0 / 30.1-30.6 (
// docs/history/performance-log.md#cpu-the-5-point-stencils-blocks-walk-down-their-columns-host-d-2026-11-29-issue-44).
// Host C has not run it.
template <int W, bool STAGED>
void run_cpu_columns_of(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                        float* out, std::int64_t ld_out, float center, float side) {
  const std::int64_t gx = (cols + W - 1) / W, want = std::int64_t{8} * std::max(1, dev.props().multiprocessors);
  const std::int64_t gy = std::min<std::int64_t>(std::max<std::int64_t>(1, (want + gx - 1) / gx), rows);
  run_streamed<1, 1, W, 1, STAGED>(dev, rows, cols, in, ld_in, out, ld_out, center, side, static_cast<int>(gy));
}

// The block's width: the widest of 4096, 2048, 1024 (and 512 when staged) whose rows in L1 fit half of it: the
// three it reads, and when staged its buffer and the prefetched rows as well.
template <bool STAGED>
void run_cpu_columns_staged(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in,
                            std::int64_t ld_in, float* out, std::int64_t ld_out, float center, float side) {
  const std::int64_t l1 = dev.props().l1_bytes > 0 ? dev.props().l1_bytes : 32 * 1024;
  const std::int64_t rows_in_l1 = STAGED ? 4 + tk::kernels::stencil5_prefetch_rows : 3;
  const auto fits = [&](std::int64_t w) { return rows_in_l1 * w * std::int64_t{sizeof(float)} <= l1 / 2; };
  if (fits(4096)) return run_cpu_columns_of<4096, STAGED>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
  if (fits(2048)) return run_cpu_columns_of<2048, STAGED>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
  if (!STAGED || fits(1024))
    return run_cpu_columns_of<1024, STAGED>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
  run_cpu_columns_of<512, STAGED>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
}

// CPUs, every grid of more than 16 rows and 64 columns or more on AMD's cores (with full-width AVX-512 the narrow ones
// too; see the floors below) whose
// rows are short enough for four to fit half a core's L2: the row sweeps (stencil5_streamed's SWEEP). Blocks of one
// row of 256 lanes, each block's strips crossing the grid's whole width before its next row, a run of consecutive
// rows per block (8 blocks a core), staged and streamed out where cpu_stream_out says: a thread then reads and writes
// whole rows in order, where the column walks above make each row of a block's columns a new 1-4 KiB stream. Host A
// (2-core AMD EPYC VM, Zen 5, L1d 48 KiB, L2 1 MiB a core), ms, interleaved rounds, column walks (or, under 4096
// columns, cpu_narrow_shape) / sweeps of 256 lanes, 2 threads: 8192^2 17.3-17.9 / 5.9-12.4, 8191x8193 20.3-22.0 / 7.1-11.6,
// 5000x7001 10.7-11.5 / 3.8-6.1, 6000x11000 17.4-19.3 / 9.7-9.9, 4096^2 2.5-4.3 / 2.2-2.7, 1000x30011 8.8-9.4 /
// 4.9-5.5; 30011x997 7.7-9.9 / 4.4-5.4, 12000x3001 8.9-10.2 / 5.2-6.2, 20000x500 3.0-3.9 / 1.6-1.9, 100000x100
// 3.7-4.9 / 2.5-3.0; one thread, 8192^2 36.1 / 15.1, 8191x8193 39.1 / 15.6. Sweeps of 128 and 64 lanes ran alike,
// of 512 and 1024 lanes 10-40% slower, and 512 lanes by two rows a strip slower still. Where the rows are longer (31
// x 600001: 2.4 MB a row) a block's three-row window leaves the L2, and the sweep read 31 x 600001 in 7.9 ms against
// 4.9-5.8 for the column walks (docs/performance.md#cpu-stencil-row-sweeps). Intel's hosts keep the column walks,
// which host D measured faster than row bands of 256 x 2 (without streamed stores, 2026-11-29); the sweeps have not
// run there (nor on Hygon's Zen-based parts, which keep them too). Grids of at most 16 rows keep their column walks.
// Copies of the kernels with AVX-512 on cores whose FMA pipes are 256 bits wide (Zen 4) sweep only rows of at least
// one block of lanes (256 columns): host C's kind (2-core AMD EPYC VM, Zen 4, L1d 32 KiB, L2 1 MiB a core), column
// walks or cpu_narrow_shape / sweeps, 2 threads, ms, interleaved rounds: 200000x64 3.6-4.3 / 10.5-11.6, 100000x100
// 3.6-6.7 / 6.1-9.4, 60000x150 6.7-6.9 / 8.1-8.8, 50000x170 4.6-6.5 / 5.7-7.6, 50000x300 7.0-11.1 / 6.2-9.3,
// 20000x500 4.0-6.8 / 2.9-5.7, 10000x700 2.1-2.6 / 1.8-2.1, 30011x997 10.2-13.4 / 9.4-13.3, 24000x1024 10.4-11.6 /
// 5.2-7.5, 8192^2 32.1-40.6 / 15.0-18.3. Two narrow widths go the other way and keep their column walks: 80000x128
// 6.3-6.7 / 5.0-5.3 and 50000x200 7.1-9.1 / 3.3-4.3. Which difference from Zen 5 (100000x100 faster swept, above)
// sets the narrow grids' order is not established: the FMA pipes' width is the one the library knows.
// Copies of the kernels without AVX-512 (AVX2) sweep only rows of at least four blocks of lanes (1024 columns):
// host E (2-core AMD EPYC VM, Zen 3, AVX2 only, L2 512 KiB a core), column walks or cpu_narrow_shape / sweeps, 2
// threads, ms, interleaved rounds: 100000x100 13.1-15.5 / 52.3-58.2, 50000x300 16.7-20.0 / 34.3-36.6, 20000x500
// 9.1-12.0 / 12.4-14.8, 30011x997 22.2-30.0 / 26.9-31.3; 24000x1024 15.2-16.2 / 8.1-9.1, 20000x1200 20.2-20.6 /
// 15.3-15.8, 12000x2000 20.9-21.6 / 12.4-13.1, 8192^2 66.1-81.4 / 21.6-29.2, 1000x30011 23.9-24.6 / 10.9-12.2.
// TK_STENCIL_ORDER=1 forces the column walks, 2 the sweeps (tuning runs, and the tests of both).
constexpr int cpu_sweep_lanes = 256;

bool cpu_row_sweeps(const Device& dev, std::int64_t cols) {
  const int knob = tk::detail::knobs().stencil_order;
  if (knob == 1 || knob == 2) return knob == 2;
  const std::int64_t l2 = dev.props().l2_bytes > 0 ? dev.props().l2_bytes : 512 * 1024;
#if defined(__AVX512F__)  // this copy of the kernels (compiled once per instruction set, picked at run time)
  // (Zen 4 runs each AVX-512 op in two 256-bit passes)
  const std::int64_t narrowest = dev.props().simd_datapath_bits >= 512 ? 0 : cpu_sweep_lanes;
#else
  constexpr std::int64_t narrowest = 4 * cpu_sweep_lanes;
#endif
  return dev.props().vendor == "AuthenticAMD" && cols >= narrowest && 4 * cols * std::int64_t{sizeof(float)} <= l2 / 2;
}

template <bool STAGED>
void run_cpu_rows(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                  float* out, std::int64_t ld_out, float center, float side) {
  const std::int64_t want = std::int64_t{8} * std::max(1, dev.props().multiprocessors);
  const std::int64_t gy = std::min<std::int64_t>(want, rows);
  run_streamed<1, 1, cpu_sweep_lanes, 1, STAGED, true>(dev, rows, cols, in, ld_in, out, ld_out, center, side,
                                                       static_cast<int>(gy));
}

template <bool CPU = on_cpu>  // (a template: a GPU build, which never calls it, then compiles no staged kernel)
void run_cpu_columns(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                     float* out, std::int64_t ld_out, float center, float side) {
  if constexpr (CPU) {
    const bool stream = cpu_stream_out(dev, rows, cols);
    if (cpu_row_sweeps(dev, cols)) {
      if (stream) return run_cpu_rows<true>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
      return run_cpu_rows<false>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
    }
    if (stream) return run_cpu_columns_staged<true>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
  }
  run_cpu_columns_staged<false>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
}

// stencil5_flat (fewer than 64 columns, no padding: ld_in = ld_out = cols): blocks of the whole rows that fit
// flat_threads threads, each walking flat_segments runs of its width. CPUs: 1024 threads by 16 runs (about
// 64 KiB of `in` per block, so the executor's per-block cost stays small against the block's work). GPUs: 256
// threads by 8 runs. Against the thread-per-column blocks below (which grids with padding still take), % of
// the same run's memcpy:
//   host D (2-core Intel Xeon VM, 2 threads): 3000017 x 3 15-24 -> 190-226 (the arrays, 36 MB, fit its L3);
//   H200, 3000017 x 3 / 1000003 x 31 / 16777216 x 1 / 4000000 x 7: 52.6 / 52.8 / 40.5 / 45.6 ->
//   73 / 66 / 67 / 67 (GPU threads x runs 256 x 4 / 8 / 16 and 512 x 4: 62-73, 65-73, 65-71, 60-69).
constexpr int flat_threads = on_cpu ? 1024 : 256, flat_segments = on_cpu ? 16 : 8;

void run_flat(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, float* out, float center,
              float side) {
  const std::int64_t width = flat_threads / cols * cols, per_block = width * flat_segments;
  const std::int64_t blocks = (rows * cols + per_block - 1) / per_block;
  if (blocks > 0x7fffffff) tk::detail::fail("tk::stencil_5point: ", rows, " rows need more than 2^31 - 1 blocks");
  return tk::launch(dev, {"stencil5_flat", {static_cast<int>(blocks), 1, 1}, {static_cast<int>(width), 1, 1}, 0},
                    &tk::kernels::stencil5_flat, rows, cols, in, out, center, side, std::int64_t{flat_segments});
}

template <std::size_t... I>
void run_streamed_alternative(int n, const Device& dev, std::int64_t rows, std::int64_t cols, const float* in,
                              std::int64_t ld_in, float* out, std::int64_t ld_out, float center, float side,
                              std::index_sequence<I...>) {
  constexpr auto& a = streamed_alternatives;
  (void)((n == static_cast<int>(I) + 1 &&
          (run_streamed<a[I].v, a[I].rows, a[I].bx, a[I].by>(dev, rows, cols, in, ld_in, out, ld_out, center, side),
           true)) ||
         ...);
}

void moving_average(const Device& dev, StencilVariant variant, std::int64_t n, const float* in, float* out,
                    int radius) {
  const std::int64_t blocks = (n + line_threads - 1) / line_threads;
  if (blocks > 0x7fffffff) tk::detail::fail("tk::moving_average: ", n, " elements need more than 2^31 - 1 blocks");
  const Dim3 grid{static_cast<int>(blocks), 1, 1}, block{line_threads, 1, 1};
  switch (variant) {
    case StencilVariant::best:  // naive: its taps come from L1 (H100: 54% against 39% of cudaMemcpy; CPU: 19 / 14%)
    case StencilVariant::naive:
      return tk::launch(dev, {"moving_average_naive", grid, block, 0}, &tk::kernels::moving_average_naive, n, in, out,
                        radius);
    case StencilVariant::smem_tiled:
      return tk::launch(dev, {"moving_average_smem_tiled", grid, block, sizeof(float) * (line_threads + 2 * radius)},
                        &tk::kernels::moving_average_smem_tiled, n, in, out, radius);
  }
  tk::detail::fail("tk::moving_average: argument 'variant' is ", static_cast<int>(variant),
                   "; expected a tk::StencilVariant");
}

void stencil_5point(const Device& dev, StencilVariant variant, std::int64_t rows, std::int64_t cols, const float* in,
                    std::int64_t ld_in, float* out, std::int64_t ld_out, float center, float side) {
  const char* call = "tk::stencil_5point";
  switch (variant) {
    case StencilVariant::best: {
      if (const int n = stencil_tune(); n > 0)
        return run_streamed_alternative(n, dev, rows, cols, in, ld_in, out, ld_out, center, side,
                                        std::make_index_sequence<std::size(streamed_alternatives)>{});
      constexpr auto s = streamed_shape;
      if (rows <= 16)
        return run_streamed<s.v, 1, skinny_threads, 1>(dev, rows, cols, in, ld_in, out, ld_out, center, side, 1);
      if (cols < 64) {
        if (ld_in == cols && ld_out == cols) return run_flat(dev, rows, cols, in, out, center, side);
        return tk::detail::with_pow2_at_least<64>(cols, [&](auto bx) {
          constexpr int BX = decltype(bx)::value;
          run_streamed<1, skinny_strip_rows, BX, skinny_threads / BX>(dev, rows, cols, in, ld_in, out, ld_out, center,
                                                                      side, skinny_rows_cap);
        });
      }
      if constexpr (on_cpu) {
        constexpr auto n = cpu_narrow_shape;
        if (cols < cpu_narrow_below && !cpu_row_sweeps(dev, cols))
          return run_streamed<n.v, n.rows, n.bx, n.by>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
        return run_cpu_columns(dev, rows, cols, in, ld_in, out, ld_out, center, side);
      }
      return run_streamed<s.v, s.rows, s.bx, s.by>(dev, rows, cols, in, ld_in, out, ld_out, center, side);
    }
    case StencilVariant::naive:
      return tk::launch(dev, {"stencil5_naive", grid_2d(rows, cols, bx, by, call), {bx, by, 1}, 0},
                        &tk::kernels::stencil5_naive, rows, cols, in, ld_in, out, ld_out, center, side);
    case StencilVariant::smem_tiled:
      return tk::launch(dev, {"stencil5_smem_tiled", grid_2d(rows, cols, tile_x, tile_y, call), {tile_x, by, 1}, 0},
                        &tk::kernels::stencil5_smem_tiled<tile_x, tile_y, by>, rows, cols, in, ld_in, out, ld_out,
                        center, side);
  }
  tk::detail::fail(call, ": argument 'variant' is ", static_cast<int>(variant), "; expected a tk::StencilVariant");
}

void convolve_2d(const Device& dev, StencilVariant variant, std::int64_t rows, std::int64_t cols, const float* in,
                 std::int64_t ld_in, const float* filter, int radius, float* out, std::int64_t ld_out) {
  const char* call = "tk::convolve_2d";
  if (variant == StencilVariant::best)  // GPUs: the shared tile (H100: 31% against 18%); CPUs: naive (11 / 9%)
    variant = on_cpu ? StencilVariant::naive : StencilVariant::smem_tiled;
  switch (variant) {
    case StencilVariant::best:
    case StencilVariant::naive:
      return tk::launch(dev, {"convolve_naive", grid_2d(rows, cols, bx, by, call), {bx, by, 1}, 0},
                        &tk::kernels::convolve_naive, rows, cols, in, ld_in, filter, radius, out, ld_out);
    case StencilVariant::smem_tiled: {
      const std::size_t width = 2 * radius + 1;
      const std::size_t floats = width * width + (tile_y + width - 1) * (tile_x + width - 1);
      return tk::launch(
          dev,
          {"convolve_smem_tiled", grid_2d(rows, cols, tile_x, tile_y, call), {tile_x, by, 1}, sizeof(float) * floats},
          &tk::kernels::convolve_smem_tiled<tile_x, tile_y, by>, rows, cols, in, ld_in, filter, radius, out, ld_out);
    }
  }
  tk::detail::fail(call, ": argument 'variant' is ", static_cast<int>(variant), "; expected a tk::StencilVariant");
}

}  // namespace tk::launchers::TK_TARGET_ID
