// kernels/matmul/configs.hpp — warp_tiled's tile configurations, by name: the one list that the launcher
// (launch.cpp), the tests (tests/test_gpu_shapes.cpp runs each through the CPU executor), the GPU script
// (tools/gpu-check.sh, through `tk-info --matmul-configs` and TK_MATMUL_CONFIG) and tuning all use. To try
// a new shape, add a type to its target's list; docs/performance.md#h100-sgemm has what each one measured.
#pragma once

#include "warp_tiling.hpp"

namespace tk::kernels::matmul_configs {

// Block BM x BN x BK, warp tiles WM x WN of WNITER column sub-tiles, TM x TN outputs per lane, WARP lanes;
// STAGES strips in flight (1: one shared buffer; 2: double buffering; 3: two strips on their way in
// registers), MINB blocks per multiprocessor asked of the compiler (its register budget), UNROLL: two k
// steps per iteration with constant buffer indices; WHOLE: when every strip of the block is full, all its
// steps run in that loop without bounds tests (the last ones fetch the last strip again); LEAN: a tile inside C is stored
// without a bounds test per output (warp_tiled.hpp). WHOLE and LEAN shorten the code a block runs once per
// tile, which is what batches of small matrices and short K pay for (
// docs/history/performance-log.md#nvidia-h100-the-code-a-block-runs-once-per-tile-and-128-x-64-tiles-for-batches-and-short-k-2026-11-25-evening).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int WARP, int STAGES = 2, int MINB = 1,
          bool UNROLL = true, bool WHOLE = false, bool LEAN = false>
struct WarpConfig {
  using Tiling = WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN, WARP>;
  static constexpr int stages = STAGES, min_blocks = MINB;
  static constexpr bool unroll = UNROLL, whole = WHOLE, lean = LEAN;
  // Strips fetched two at a time (strip_pairs.hpp; three stages), each staged after stage_at k rows of an even
  // step's multiply and stage_odd of an odd one's (warp_tiled.hpp)
  static constexpr bool pairs = false;
  static constexpr int stage_at = 0, stage_odd = 0;
};

template <class... Configs>
struct List {};

// ---- CUDA (sm_90), 32-lane warps ----
// float, every storage, K > 1536, 16-byte rows and about a wave of 128 x 256 tiles or more: 128 x 128 tiles
// of 128 threads (four 64 x 64 warps, 128 outputs per lane), two blocks per SM, three stages (two strips on
// their way in registers), whole strips unchecked. With two stages it lost nothing from NN to TN, where the
// 128 x 256 tile of 256 threads lost 6%; with three it beats that tile in NN as well, and in TT the 256 x 128
// tile of 256 threads that TT took before (on each of the seven shapes it served). The lean epilogue costs it
// a spill in NN (
// docs/history/performance-log.md#nvidia-h100-the-code-a-block-runs-once-per-tile-and-128-x-64-tiles-for-batches-and-short-k-2026-11-25-evening).
struct cuda_square : WarpConfig<128, 128, 8, 64, 64, 4, 8, 4, 32, 3, 2, true, true> {
  static constexpr const char* name = "cuda_square";
};
// float, both operands stored along k (NT), where cuda_square would run: cuda_square with its strips fetched
// in pairs (a warp's loads read 64 bytes of 8 lines, not 32 bytes of 16), staged after 6 k rows of an even
// step and 4 of an odd one, and the lean epilogue (its registers fall better with it: without it, or
// staged after 5 and 4 rows, NT ran 7% slower;
// docs/history/performance-log.md#nvidia-h100-sgemm-nt-with-its-strips-fetched-in-pairs--nt-at-99-of-nn-2026-11-26-issue-12).
struct cuda_square_nt : cuda_square {
  static constexpr const char* name = "cuda_square_nt";
  static constexpr bool pairs = true, lean = true;
  static constexpr int stage_at = 6, stage_odd = 4;
};
// float, one matrix with few rows of C: 9-64, or 5-64 where B's lines lie along k (NT, TT; launch.cpp,
// thin_tiles), and 65-96 with N >= 2048 in NN and TN (launch.cpp, pick): 32 x 128 x 16 tiles of 128 threads
// (four 32 x 32 warps, 32 outputs per lane), three stages, three blocks per SM. B, which the product reads once, streams through 128-column strips; the strips of 16
// k read 64 bytes of each of B's lines when they lie along k. 128-row tiles held at most 64 useful rows, and
// the matrix-vector kernel's second form (8 accumulators a thread) ran 5-8 rows slower.
struct cuda_thin_m : WarpConfig<32, 128, 16, 32, 32, 2, 4, 4, 32, 3, 3, true, true, true> {
  static constexpr const char* name = "cuda_thin_m";
};
// float, one matrix with 9-32 columns of C, or 5-32 where A's lines lie along k (NN, NT): cuda_thin_m
// turned round, 128 x 32 x 16 tiles (four 32 x 32 warps over m).
struct cuda_thin_n : WarpConfig<128, 32, 16, 32, 32, 2, 4, 4, 32, 3, 3, true, true, true> {
  static constexpr const char* name = "cuda_thin_n";
};
// float, the rest: batches, K <= 1536, rows that are not 16-byte multiples, C of less than a wave (with
// split-K): 128 x 64 x 8 tiles of 128 threads, three blocks per SM, three stages, whole strips unchecked and
// the lean epilogue. Its code per tile is short, and three blocks per SM hide what one block waits for.
struct cuda_mid : WarpConfig<128, 64, 8, 64, 32, 2, 8, 4, 32, 3, 3, true, true, true> {
  static constexpr const char* name = "cuda_mid";
};
// float, rows that are not 16-byte multiples (scalar loads), K > 1536 and about a wave of 128 x 256 tiles or
// more: 128 x 256 tiles of 256 threads, two stages, one block per SM. Scalar loads take more registers and
// instructions per strip than vectors; this tile's 255-register budget holds them without a spill, and its
// larger tile reads fewer strips per output than cuda_mid's (
// docs/history/performance-log.md#nvidia-h200-sgemm-on-unaligned-operands--a-128-x-256-tile-packing-and-a-matrix-vector-tail-2026-11-26).
struct cuda_wide : WarpConfig<128, 256, 8, 64, 64, 4, 8, 4, 32> {
  static constexpr const char* name = "cuda_wide";
};
// double: 64 outputs (128 registers) per lane, 256 threads, one block per SM. A lane's outputs are 4 x 4
// sub-tiles of 2 x 2 (TM = TN = 2): the 8 lane rows of a warp then read 8 adjacent 16-byte pairs of A, one
// shared-memory wavefront per read, where 8 x 8 lane tiles (64-byte rows, 16 banks apart) took four.
struct cuda_f64 : WarpConfig<128, 128, 8, 64, 32, 4, 2, 2, 32> {
  static constexpr const char* name = "cuda_f64";
};
// double, batches of matrices that each hold less than a wave of 128 x 128 tiles: half tiles, 128 threads,
// two blocks per SM.
struct cuda_f64_batched : WarpConfig<64, 128, 8, 32, 64, 4, 2, 2, 32, 2, 2> {
  static constexpr const char* name = "cuda_f64_batched";
};
// double, C of less than a wave of 128 x 128 tiles (and split-K): 32 outputs per lane, 128 threads.
struct cuda_f64_small : WarpConfig<64, 64, 8, 32, 32, 2, 4, 4, 32> {
  static constexpr const char* name = "cuda_f64_small";
};
// double on the FP64 tensor cores (sm_80+; warp_tiling.hpp): each lane owns the DMMA fragment's two
// outputs in each of 8 x 4 sub-tiles of 8 x 8 (64 outputs), 256 threads, one block per SM; one m16n8k4 per
// pair of sub-tiles and 4 k (one m8n8k4 per sub-tile measured 32% slower on the H100:
// docs/history/performance-log.md#nvidia-h100-dgemm-on-the-fp64-tensor-cores-2026-11-24).
// Without the instruction (before sm_80, the CPU executor) the same tiling runs as FMAs.
struct cuda_dmma : WarpConfig<128, 128, 8, 64, 32, 4, 1, 2, 32> {
  static constexpr const char* name = "cuda_dmma";
};
// double on tensor cores, C of less than a wave of 128 x 128 tiles: 64 x 64 tiles, 128 threads, 32 outputs per
// lane.
struct cuda_dmma_small : WarpConfig<64, 64, 8, 32, 32, 4, 1, 2, 32> {
  static constexpr const char* name = "cuda_dmma_small";
};
using CudaFloat = List<cuda_square, cuda_square_nt, cuda_mid, cuda_wide, cuda_thin_m, cuda_thin_n>;
using CudaDouble = List<cuda_f64, cuda_f64_batched, cuda_f64_small, cuda_dmma, cuda_dmma_small>;

// ---- HIP, 64-lane wavefronts (not measured on AMD hardware; no spills, tools/amdgpu-resources) ----
// Rolled, strips of 8: with 16 the compiler hoists a whole strip's shared loads and spills.
struct hip_f32 : WarpConfig<128, 128, 8, 64, 64, 2, 8, 4, 64, 2, 1, false> {
  static constexpr const char* name = "hip_f32";
};
// double: 16 outputs per lane (with 32, gfx1030 spilled 68-106 VGPRs: the compiler hoists a strip's
// fragments, 8 k x 12 doubles).
struct hip_f64 : WarpConfig<64, 64, 8, 32, 32, 2, 4, 2, 64, 2, 1, false> {
  static constexpr const char* name = "hip_f64";
};
using HipFloat = List<hip_f32>;
using HipDouble = List<hip_f64>;

// ---- CPU: a "warp" is one vector of lanes (16 floats, 8 doubles in AVX-512); one stage, since there is no
// global-memory latency for a second buffer to hide ----
struct cpu_f32 : WarpConfig<96, 64, 128, 6, 64, 4, 6, 1, 16, 1> {
  static constexpr const char* name = "cpu_f32";
};
struct cpu_f64 : WarpConfig<96, 64, 128, 6, 32, 4, 6, 1, 8, 1> {  // BK 128: see launch.cpp, register_tiled
  static constexpr const char* name = "cpu_f64";
};
using CpuFloat = List<cpu_f32>;
using CpuDouble = List<cpu_f64>;

}  // namespace tk::kernels::matmul_configs
