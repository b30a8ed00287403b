// tilekit/detail/knobs.hpp — the tuning knobs: environment variables that override a launcher's choice,
// for tuning runs and tools/gpu-check.sh. Read once, here and nowhere else (common/src/knobs.cpp); the
// README's "Environment variables" lists them. A value that is unset, empty or out of range means "the
// launcher's own choice" (0 or "").
#pragma once

#include <string>

namespace tk::detail {

struct Knobs {
  std::string matmul_config;  // TK_MATMUL_CONFIG: warp_tiled's configuration, by its role or derived name
                              // (kernels/matmul/policy/)
  int transpose_tune = 0;     // TK_TRANSPOSE_TUNE: 1-9, the GPU transpose's alternative tiles; on a CPU 64, 128
                              // or 256, the tile's side, 1 no strips where out's rows are unaligned, 512-4096
                              // the strips' rows per block (transpose/launch.cpp)
  int stencil_tune = 0;       // TK_STENCIL_TUNE: 1-N, the streamed 5-point stencil's alternative shapes
  int stencil_stream = 0;     // TK_STENCIL_STREAM: 1 never, 2 always stream the CPU 5-point stencil's stores
  int stencil_order = 0;      // TK_STENCIL_ORDER: the CPU 5-point stencil's grids of > 16 rows and >= 64 columns: 1
                              // each block down its own columns (64 x 2 blocks under 4096 columns), 2 row sweeps
  int stencil_grid_y = 0;     // TK_STENCIL_GRID_Y: a cap on the stencils' 2D grid rows (1 to 65534; larger: the
                              // GPU launchers' tuned cap of 128 for every stencil)
  int matmul_pack = 1;        // TK_MATMUL_PACK: 0 no packing of unaligned GEMM operands (nor TF32 operands
                              // transposed first for the warpgroup kernel), 2 packing of every single product that
                              // has them, whatever its size (and every such TF32 operand transposed first)
                              // (measurements; kernels/matmul/pack_rule.hpp)
  int matmul_split = 0;       // TK_MATMUL_SPLIT: 1 no split along K in the GPU GEMM kernels' wave plans
                              // (warp_tiled and the warpgroup kernel), 2-256 at most that many splits of every
                              // single product, fewer where K's strips would leave one empty (measurements;
                              // kernels/matmul/waves.hpp)
  int matmul_warpgroup = 0;   // TK_MATMUL_WARPGROUP: 1 the sm_90 warpgroup GEMM's block-barrier kernel everywhere;
                              // anything else (0, unset; 2) its tensor-copy kernel where the layout allows
                              // (kernels/matmul/launch_mma_units.cpp)
  int matmul_row_tiles = 0;   // TK_MATMUL_ROW_TILES: 1-16, the CPU GEMM's tiles of C per block (register_tiled's
                              // row_tiles, kernels/matmul/cpu_block.hpp) for every unsplit product, at most its rows
                              // of tiles (measurements; tests of the blocks' several tiles on small shapes)
  std::string cpu_isa;        // TK_CPU_ISA: x86-64-v2, -v3 or -v4 (or v2, v3, v4): the CPU kernels' copy, in a
                              // build with runtime dispatch (TK_CPU_ARCH=dispatch); at most what the CPU runs
};

// The knobs of this process, read from the environment at the first call.
const Knobs& knobs();

}  // namespace tk::detail
