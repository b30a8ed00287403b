// kernels/transpose/launch.cpp — the transpose launchers, compiled once per target.
//
// Grid math: x over the tile columns of `in`, y over its tile rows up to 65535 (a GPU grid's y limit; the
// kernels step through the rest). Shapes, tile x block (reasons in the kernel files):
//   naive          32 x 32 threads, one element each (the seed's)
//   smem, padded   32 x 32 tile: GPUs 32 x 8 threads (4 elements each), CPUs 32 x 32 (one each)
//   best           GPUs 32 x 32 tile, 32 x 8 threads (4 elements each); CPUs 128 x 128, one element per thread
// TK_TRANSPOSE_TUNE=<n> (n = 1..4) gives GPU `best` the n-th of {64 x 16, 64 x 8, 64 x 4, 32 x 16} (tile
// width x block rows) instead, for tuning runs on new hardware; the CPU ignores it. On the H100 at 8192^2
// (tools/gpu-check.sh, 2026-11-23), % of cudaMemcpy: 32 x 8 93.7, 64 x 16 92.4, 64 x 8 84.0, 64 x 4 81.2,
// 32 x 16 76.7.
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "multi_element.hpp"
#include "naive.hpp"
#include "smem.hpp"
#include "smem_padded.hpp"
#include "tilekit/detail/launchers_memory.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

constexpr int max_grid_y = 65535;
constexpr bool on_cpu = tk::this_target == Target::cpu;
constexpr int seed_tile = 32;                   // seed 003: 32 x 32 tiles
constexpr int seed_rows = on_cpu ? 32 : 8;      // block rows of smem and smem_padded
constexpr int best_tile = on_cpu ? 128 : 32;
constexpr int best_rows = on_cpu ? 128 : 8;

Dim3 tile_grid(std::int64_t rows, std::int64_t cols, int tile) {
  const std::int64_t gx = (cols + tile - 1) / tile, gy = (rows + tile - 1) / tile;
  if (gx > 0x7fffffff) tk::detail::fail("tk::transpose: ", cols, " columns need more than 2^31 - 1 tiles");
  return {static_cast<int>(gx), static_cast<int>(std::min<std::int64_t>(gy, max_grid_y)), 1};
}

template <int TILE, int ROWS, class Kernel, class... Args>
void run(const Device& dev, const char* name, Kernel kernel, std::int64_t rows, std::int64_t cols, Args... args) {
  tk::launch(dev, {name, tile_grid(rows, cols, TILE), {TILE, ROWS, 1}, 0}, kernel, rows, cols, args...);
}

int tune_config() {
  static const int config = [] {
    const char* e = std::getenv("TK_TRANSPOSE_TUNE");
    return e ? std::atoi(e) : 0;
  }();
  return config;
}

template <int TILE, int ROWS>
void run_best(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
              float* out, std::int64_t ld_out) {
  run<TILE, ROWS>(dev, "transpose_multi_element", tk::kernels::transpose_multi_element<TILE, ROWS>, rows, cols, in,
                  ld_in, out, ld_out);
}

}  // namespace

void transpose(const Device& dev, TransposeVariant variant, std::int64_t rows, std::int64_t cols, const float* in,
               std::int64_t ld_in, float* out, std::int64_t ld_out) {
  switch (variant) {
    case TransposeVariant::naive:
      return run<seed_tile, seed_tile>(dev, "transpose_naive", &tk::kernels::transpose_naive<seed_tile>, rows, cols,
                                       in, ld_in, out, ld_out);
    case TransposeVariant::smem:
      return run<seed_tile, seed_rows>(dev, "transpose_smem", &tk::kernels::transpose_smem<seed_tile, seed_rows>,
                                       rows, cols, in, ld_in, out, ld_out);
    case TransposeVariant::smem_padded:
      return run<seed_tile, seed_rows>(dev, "transpose_smem_padded",
                                       tk::kernels::transpose_smem_padded<seed_tile, seed_rows>, rows, cols, in, ld_in,
                                       out, ld_out);
    case TransposeVariant::best:
      if constexpr (!on_cpu) {
        switch (tune_config()) {
          case 1: return run_best<64, 16>(dev, rows, cols, in, ld_in, out, ld_out);
          case 2: return run_best<64, 8>(dev, rows, cols, in, ld_in, out, ld_out);
          case 3: return run_best<64, 4>(dev, rows, cols, in, ld_in, out, ld_out);
          case 4: return run_best<32, 16>(dev, rows, cols, in, ld_in, out, ld_out);
          default: break;
        }
      }
      return run_best<best_tile, best_rows>(dev, rows, cols, in, ld_in, out, ld_out);
  }
  tk::detail::fail("tk::transpose: argument 'variant' is ", static_cast<int>(variant), "; expected a tk::TransposeVariant");
}

}  // namespace tk::launchers::TK_TARGET_ID
