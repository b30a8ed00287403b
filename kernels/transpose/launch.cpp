// kernels/transpose/launch.cpp — the transpose launchers, compiled once per target.
//
// Grid math: x over the tile columns of `in`, y over its tile rows up to 65535 (a GPU grid's y limit;
// the kernels step through the rest). naive, smem and smem_padded use the seed's 32 x 32 blocks of
// 32 x 32 threads on every target. `best` (multi_element.hpp) takes its shape from the target: a
// 64 x 64 tile moved by 64 x 8 threads on GPUs, a 128 x 128 tile with one element per thread on CPUs
// (reasons in multi_element.hpp).
#include <algorithm>
#include <cstdint>

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
constexpr int seed_tile = 32;  // seed 003: 32 x 32 blocks, one element per thread
constexpr bool on_cpu = tk::this_target == Target::cpu;
constexpr int best_tile = on_cpu ? 128 : 64;
constexpr int best_rows = on_cpu ? 128 : 8;

Dim3 tile_grid(std::int64_t rows, std::int64_t cols, int tile) {
  const std::int64_t gx = (cols + tile - 1) / tile, gy = (rows + tile - 1) / tile;
  if (gx > 0x7fffffff) tk::detail::fail("tk::transpose: ", cols, " columns need more than 2^31 - 1 tiles");
  return {static_cast<int>(gx), static_cast<int>(std::min<std::int64_t>(gy, max_grid_y)), 1};
}

}  // namespace

void transpose(const Device& dev, TransposeVariant variant, std::int64_t rows, std::int64_t cols, const float* in,
               std::int64_t ld_in, float* out, std::int64_t ld_out) {
  switch (variant) {
    case TransposeVariant::naive:
      return tk::launch(dev, {"transpose_naive", tile_grid(rows, cols, seed_tile), {seed_tile, seed_tile, 1}, 0},
                        &tk::kernels::transpose_naive<seed_tile>, rows, cols, in, ld_in, out, ld_out);
    case TransposeVariant::smem:
      return tk::launch(dev, {"transpose_smem", tile_grid(rows, cols, seed_tile), {seed_tile, seed_tile, 1}, 0},
                        &tk::kernels::transpose_smem<seed_tile>, rows, cols, in, ld_in, out, ld_out);
    case TransposeVariant::smem_padded:
      return tk::launch(dev,
                        {"transpose_smem_padded", tile_grid(rows, cols, seed_tile), {seed_tile, seed_tile, 1}, 0},
                        tk::kernels::transpose_smem_padded<seed_tile>, rows, cols, in, ld_in, out, ld_out);
    case TransposeVariant::best:
      return tk::launch(dev,
                        {"transpose_multi_element", tile_grid(rows, cols, best_tile), {best_tile, best_rows, 1}, 0},
                        &tk::kernels::transpose_multi_element<best_tile, best_rows>, rows, cols, in, ld_in, out,
                        ld_out);
  }
  tk::detail::fail("tk::transpose: argument 'variant' is ", static_cast<int>(variant), "; expected a tk::TransposeVariant");
}

}  // namespace tk::launchers::TK_TARGET_ID
