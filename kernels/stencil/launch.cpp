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
#include <cstdint>
#include <cstdlib>

#include "convolve_naive.hpp"
#include "convolve_smem_tiled.hpp"
#include "moving_average_naive.hpp"
#include "moving_average_smem_tiled.hpp"
#include "stencil5_naive.hpp"
#include "stencil5_smem_tiled.hpp"
#include "tilekit/detail/launchers_memory.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

constexpr bool on_cpu = tk::this_target == Target::cpu;
constexpr int line_threads = on_cpu ? 1024 : 256;  // moving_average: threads (and outputs) per block
constexpr int bx = on_cpu ? 64 : 32, by = 8;        // 2D blocks: columns (a warp's worth on GPUs), rows
constexpr int tile_x = bx, tile_y = on_cpu ? 8 : 32;  // 2D tiled kernels: the block's output tile
constexpr int max_grid_y = 65535;

// The 2D kernels' grid rows are capped: each block then walks several row blocks (a block-uniform loop in
// the kernel), so fewer, longer-lived blocks stream the array. On GPUs 128 rows of blocks: the naive 5-point
// stencil at 8192^2 on an H100 went from 55.7% of cudaMemcpy (one row block per block) to 72.9%
// (caps 2048 / 512 / 128 / 32: 55.8 / 66.5 / 72.9 / 73.1%). CPUs keep the hardware's limit.
// TK_STENCIL_GRID_Y=<n> sets another cap, for tuning runs.
int grid_y_cap() {
  static const int cap = [] {
    const char* e = std::getenv("TK_STENCIL_GRID_Y");
    const int v = e ? std::atoi(e) : 0;
    if (v > 0 && v < max_grid_y) return v;
    return on_cpu ? max_grid_y : 128;
  }();
  return cap;
}

Dim3 grid_2d(std::int64_t rows, std::int64_t cols, int tx, int ty, const char* call) {
  const std::int64_t gx = (cols + tx - 1) / tx, gy = (rows + ty - 1) / ty;
  if (gx > 0x7fffffff) tk::detail::fail(call, ": ", cols, " columns need more than 2^31 - 1 blocks");
  return {static_cast<int>(gx), static_cast<int>(std::min<std::int64_t>(gy, grid_y_cap())), 1};
}

}  // namespace

void moving_average(const Device& dev, StencilVariant variant, std::int64_t n, const float* in, float* out,
                    int radius) {
  const std::int64_t blocks = (n + line_threads - 1) / line_threads;
  if (blocks > 0x7fffffff) tk::detail::fail("tk::moving_average: ", n, " elements need more than 2^31 - 1 blocks");
  const Dim3 grid{static_cast<int>(blocks), 1, 1}, block{line_threads, 1, 1};
  switch (variant) {
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
  switch (variant) {
    case StencilVariant::naive:
      return tk::launch(dev, {"convolve_naive", grid_2d(rows, cols, bx, by, call), {bx, by, 1}, 0},
                        &tk::kernels::convolve_naive, rows, cols, in, ld_in, filter, radius, out, ld_out);
    case StencilVariant::smem_tiled: {
      const std::size_t width = 2 * radius + 1;
      const std::size_t floats = width * width + (tile_y + width - 1) * (tile_x + width - 1);
      return tk::launch(dev,
                        {"convolve_smem_tiled", grid_2d(rows, cols, tile_x, tile_y, call), {tile_x, by, 1},
                         sizeof(float) * floats},
                        &tk::kernels::convolve_smem_tiled<tile_x, tile_y, by>, rows, cols, in, ld_in, filter, radius,
                        out, ld_out);
    }
  }
  tk::detail::fail(call, ": argument 'variant' is ", static_cast<int>(variant), "; expected a tk::StencilVariant");
}

}  // namespace tk::launchers::TK_TARGET_ID
