// kernels/matmul/policy/cuda.hpp — the CUDA GEMM policy: warp_tiled's configurations for NVIDIA GPUs (sm_90
// measured), the rule that picks one, and the machine model of the wave plan. To add a configuration: an
// entry below, its name in the list, a rule in pick (or TK_MATMUL_CONFIG alone), and its row in
// the pick test (tests/test_gpu_shapes.cpp). The rule is described in docs/design.md#what-best-runs; what each
// configuration measured is in docs/performance.md#h100-sgemm.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "gpu.hpp"

namespace tk::kernels::matmul_configs {

using namespace tk::kernels::matmul_config;

// float, every storage, 16-byte rows: K > 1536 and about a wave of 128 x 256 tiles or more, and single products of K
// >= 768 (>= 500 in NN) whose 128 x 64 tiles would leave each SM a block alone after a round of three
// (square_tiles_fill_better). With two stages it
// lost nothing from NN to TN, where the 128 x 256 tile of 256 threads lost 6%; with three it beats that tile
// in NN as well, and in TT the 256 x 128 tile of 256 threads that TT took before (on each of the seven shapes
// it served). The lean epilogue costs it a spill in NN (
// docs/history/performance-log.md#nvidia-h100-the-code-a-block-runs-once-per-tile-and-128-x-64-tiles-for-batches-and-short-k-2026-11-25-evening).
struct cuda_square {
  static constexpr const char* name = "cuda_square";
  static constexpr GemmConfig config = matmul_config::config(Block{128, 128, 8}, Warp{64, 64, 4}, Thread{8, 4},
                                                             Lanes{32}, Stages{3}, BlocksPerSM{2}, whole_strips);
};
// float, both operands stored along k (NT), where cuda_square would run: its strips fetched in pairs (a warp's
// loads read 64 bytes of 8 lines, not 32 bytes of 16), staged after 6 k rows of an even step and 4 of an odd
// one, and the lean epilogue (its registers fall better with it: without it, or staged after 5 and 4 rows, NT
// ran 7% slower;
// docs/history/performance-log.md#nvidia-h100-sgemm-nt-with-its-strips-fetched-in-pairs--nt-at-99-of-nn-2026-11-26-issue-12).
struct cuda_square_nt {
  static constexpr const char* name = "cuda_square_nt";
  static constexpr GemmConfig config = matmul_config::config(cuda_square::config, StripPairs{6, 4}, lean_epilogue);
};
// float, one matrix with few rows of C (thin_tiles; and 65-96 rows in NN and TN, pick; batches, batch_tiles):
// 32 x 128 x 16 tiles of four 32 x 32 warps. B, which the product reads once, streams through 128-column strips; the
// strips of 16 k read 64 bytes of each of B's lines when they lie along k. 128-row tiles held at most 64 useful rows,
// and the matrix-vector kernel's second form (8 accumulators a thread) ran 5-8 rows slower.
struct cuda_thin_m {
  static constexpr const char* name = "cuda_thin_m";
  static constexpr GemmConfig config =
      matmul_config::config(Block{32, 128, 16}, Warp{32, 32, 2}, Thread{4, 4}, Lanes{32}, Stages{3}, BlocksPerSM{3},
                            whole_strips, lean_epilogue);
};
// float, one matrix with few columns of C (thin_tiles; tall batches, batch_tiles): cuda_thin_m turned round, 128 x 32 x
// 16 tiles.
struct cuda_thin_n {
  static constexpr const char* name = "cuda_thin_n";
  static constexpr GemmConfig config = matmul_config::config(cuda_thin_m::config, Block{128, 32, 16});
};
// float, the rest: batches, K <= 1536, rows that are not 16-byte multiples, C of less than a wave (with
// split-K). Its code per tile is short, and three blocks per SM hide what one block waits for.
struct cuda_mid {
  static constexpr const char* name = "cuda_mid";
  static constexpr GemmConfig config =
      matmul_config::config(Block{128, 64, 8}, Warp{64, 32, 2}, Thread{8, 4}, Lanes{32}, Stages{3}, BlocksPerSM{3},
                            whole_strips, lean_epilogue);
};
// float, batches of matrices with C of at most 64 x 64 (batch_tiles): 64 x 64 x 8 tiles of four 32 x 32 warps,
// 128 threads, four blocks per SM asked for. Batches of 48^3 and 64^3 ran at 88-95% of cuBLAS in every
// storage, against 50-60% on cuda_mid's 128 x 64 tiles, of which they filled half or less; 16-deep strips lost
// up to 11 points at 48^3 (
// docs/history/performance-log.md#nvidia-h200-strided-batches-of-small-sgemms-2026-11-28-issue-41).
struct cuda_batch_64 {
  static constexpr const char* name = "cuda_batch_64";
  static constexpr GemmConfig config = matmul_config::config(Block{64, 64, 8}, Warp{32, 32, 2}, Thread{4, 4}, Lanes{32},
                                                             Stages{3}, BlocksPerSM{4}, whole_strips, lean_epilogue);
};
// float, batches of matrices whose C 32 x 32 tiles cover better than 64 x 64 ones (batch_tiles: 32^3, 96^3):
// one warp per 32 x 32 x 8 tile, 32 outputs a lane. Batches of 32^3 ran at 100-111% of cuBLAS, of 96^3 at
// 97-105%; four 16 x 16 warps per tile (8 outputs a lane) reached 90-97% at 32^3 and 72-73% at 96^3.
struct cuda_batch_32 {
  static constexpr const char* name = "cuda_batch_32";
  static constexpr GemmConfig config = matmul_config::config(Block{32, 32, 8}, Warp{32, 32, 2}, Thread{4, 4}, Lanes{32},
                                                             Stages{3}, BlocksPerSM{16}, whole_strips, lean_epilogue);
};
// float, rows that are not 16-byte multiples (scalar loads), K > 1536 and about a wave of 128 x 256 tiles or
// more: 256 threads, one block per SM. Scalar loads take more registers and instructions per strip than
// vectors; this tile's 255-register budget holds them without a spill, and its larger tile reads fewer strips
// per output than cuda_mid's (
// docs/history/performance-log.md#nvidia-h200-sgemm-on-unaligned-operands--a-128-x-256-tile-packing-and-a-matrix-vector-tail-2026-11-26).
struct cuda_wide {
  static constexpr const char* name = "cuda_wide";
  static constexpr GemmConfig config =
      matmul_config::config(Block{128, 256, 8}, Warp{64, 64, 4}, Thread{8, 4}, Lanes{32});
};
// float, cuda_mid and cuda_square with their strips copied by tk::copy_async into a ring of three shared buffers
// (pipeline_async.hpp): two strips on their way and no staging registers, as cuBLAS's sm80 FFMA kernels copy theirs
// (docs/performance.md#h100-sgemm-vs-cublas-kernels).
struct cuda_mid_async {
  static constexpr const char* name = "cuda_mid_async";
  static constexpr GemmConfig config = matmul_config::config(cuda_mid::config, async_copies);
};
struct cuda_square_async {
  static constexpr const char* name = "cuda_square_async";
  static constexpr GemmConfig config = matmul_config::config(cuda_square::config, async_copies);
};
// cuda_mid with four buffers, three strips on their way.
struct cuda_mid_async4 {
  static constexpr const char* name = "cuda_mid_async4";
  static constexpr GemmConfig config = matmul_config::config(cuda_mid::config, Stages{4}, async_copies);
};
// double: 64 outputs (128 registers) per lane, 256 threads, one block per SM. A lane's outputs are 4 x 4
// sub-tiles of 2 x 2: the 8 lane rows of a warp then read 8 adjacent 16-byte pairs of A, one shared-memory
// wavefront per read, where 8 x 8 lane tiles (64-byte rows, 16 banks apart) took four.
struct cuda_f64 {
  static constexpr const char* name = "cuda_f64";
  static constexpr GemmConfig config =
      matmul_config::config(Block{128, 128, 8}, Warp{64, 32, 4}, Thread{2, 2}, Lanes{32});
};
// double, batches of matrices that each hold less than a wave of 128 x 128 tiles: half tiles, 128 threads, two
// blocks per SM.
struct cuda_f64_batched {
  static constexpr const char* name = "cuda_f64_batched";
  static constexpr GemmConfig config =
      matmul_config::config(Block{64, 128, 8}, Warp{32, 64, 4}, Thread{2, 2}, Lanes{32}, BlocksPerSM{2});
};
// double, C of less than a wave of 128 x 128 tiles (and split-K): 32 outputs per lane, 128 threads.
struct cuda_f64_small {
  static constexpr const char* name = "cuda_f64_small";
  static constexpr GemmConfig config =
      matmul_config::config(Block{64, 64, 8}, Warp{32, 32, 2}, Thread{4, 4}, Lanes{32});
};
// double on the FP64 tensor cores (sm_80+; warp_tiling.hpp): each lane owns the DMMA fragment's two outputs in
// each of 8 x 4 sub-tiles of 8 x 8 (64 outputs), 256 threads, one block per SM; one m16n8k4 per pair of
// sub-tiles and 4 k (one m8n8k4 per sub-tile measured 32% slower on the H100:
// docs/history/performance-log.md#nvidia-h100-dgemm-on-the-fp64-tensor-cores-2026-11-24). Without the
// instruction (before sm_80, the CPU executor) the same tiling runs as FMAs.
struct cuda_dmma {
  static constexpr const char* name = "cuda_dmma";
  static constexpr GemmConfig config =
      matmul_config::config(Block{128, 128, 8}, Warp{64, 32, 4}, Thread{1, 2}, Lanes{32});
};
// double on tensor cores, C of less than a wave of 128 x 128 tiles: 64 x 64 tiles, 128 threads, 32 outputs per
// lane.
struct cuda_dmma_small {
  static constexpr const char* name = "cuda_dmma_small";
  static constexpr GemmConfig config =
      matmul_config::config(Block{64, 64, 8}, Warp{32, 32, 4}, Thread{1, 2}, Lanes{32});
};

}  // namespace tk::kernels::matmul_configs

namespace tk::kernels::matmul_policy {

struct Cuda : Gpu<Cuda> {
  template <class T>
  using configs = std::conditional_t<
      sizeof(T) == 4,
      matmul_config::List<matmul_configs::cuda_square, matmul_configs::cuda_square_nt, matmul_configs::cuda_mid,
                          matmul_configs::cuda_wide, matmul_configs::cuda_thin_m, matmul_configs::cuda_thin_n,
                          matmul_configs::cuda_batch_64, matmul_configs::cuda_batch_32, matmul_configs::cuda_mid_async,
                          matmul_configs::cuda_square_async, matmul_configs::cuda_mid_async4>,
      matmul_config::List<matmul_configs::cuda_f64, matmul_configs::cuda_f64_batched, matmul_configs::cuda_f64_small,
                          matmul_configs::cuda_dmma, matmul_configs::cuda_dmma_small>>;

  // FP64 tensor cores at twice the FMA rate (DMMA, tilekit/mma.hpp): the data-centre parts sm_80 (A100) and
  // sm_90 (H100, H200). The consumer parts (sm_86, sm_89) have the instruction but little FP64 of either kind,
  // and later architectures are unmeasured: they keep the FMA configurations. (The library must be built for
  // sm_80 or later too: a compute_70 PTX build run on an H100 would run the tiling's FMA path.)
  static bool fp64_tensor_cores(const Device& dev) {
    const std::string& arch = dev.props().arch;
    return dev.backend() == Backend::cuda && (arch == "sm_80" || arch == "sm_90");
  }

  // DGEMM's `best` on the portable matrix-unit kernel (mma_tiled.hpp: 128 x 64 x 16 tiles of four 32 x 64 warp
  // tiles, one m16n8k8 FP64 mma.sync per fragment and 8 k, each k step's fragments read while the step before is
  // multiplied, three strips in flight through cp.async, two blocks per SM; launch_mma_units.cpp) on sm_90, for every
  // product with K > 0, single or batched, whatever its alignment, instead of warp_tiled's cuda_dmma (128 x 128 x 8
  // tiles, one m16n8k4 per 4 k, strips staged through registers) or cuda_dmma_small (64 x 64 tiles). Single products
  // follow its wave plan (f64_units_plan) and peel (f64_units_peel). Until its fragments went in flight the kernel
  // took only products that the plan split or whose C held a wave of 128 x 128 tiles with 16-byte lines or blocks
  // filling their waves to 80%, and batches so filled; measured on the H100 since (docs/performance.md#
  // h100-dgemm-every-product), same run, % of cuBLAS, that rule's kernel against this one: 1111 x 4444 x 2222 TN (lines
  // off 16 bytes, waves 79.5% full: cuda_dmma) 68.1-68.2 against 74.6, 1535 x 3072 x 2048 TN 83.6-83.7 / 87.6, 1700^3 NN
  // 60.4-60.5 / 71.0, 4500 x 900 x 3001 NN 92.4-92.8 / 93.4, 2500 x 2500 x 999 NN 100.6-100.9 / 100.1, a batch of
  // 200^3 x 100 (waves 75.7% full) NN / TN 53.3-55.5 / 63.1 and 55.3-57.5 / 58.2; C of fewer than a wave of 128 x 128
  // tiles that the plan leaves whole (cuda_dmma_small): 1024^3 NN / TN 78.5-80.5 / 81.5 and 80.5-83.2 / 79.3, 1024 x
  // 1024 x 2048 51.0-52.4 / 76.0 and 52.5-53.0 / 78.5. sm_80 (four m8n8k4 per mma) is unmeasured and keeps cuda_dmma.
  // On the CPU executor (this copy's tests) every product with K > 0 takes it.
  static bool f64_on_units(const Device& dev, const tk::detail::GemmArgs<double>& a) {
    if (dev.backend() == Backend::cpu) return a.K > 0;
    if (dev.backend() != Backend::cuda || dev.props().arch != "sm_90" || dev.props().multiprocessors < 1) return false;
    return f64_units_on(a);
  }
  // f64_on_units's shape rule on an sm_90 GPU: every product that multiplies (K > 0; C = beta C is warp_tiled's).
  static bool f64_units_on(const tk::detail::GemmArgs<double>& a) { return a.K > 0; }
  // The FP64 tiling's tile (launch_mma_units.cpp asserts that its CUDA tiling is this one).
  struct Tile {
    int bm, bn, bk;
  };
  static constexpr Tile f64_tile{128, 64, 16};
  // The wave plan of a single product on that kernel (waves.hpp; batches are not split): its tiles, two blocks an
  // SM, on the FP64 tensor cores' machine (machine: twice the FP64 FMA rate), all of C split along K or none of it.
  // The plan's hybrid (whole tile rows unsplit, the rest split) is not taken: on the H100, same run, 2049^3 ran at
  // 60.3% of cuBLAS with it (2048 rows, and one split 8 ways) against 63.6% unsplit, 1536 x 3072 x 2048 at 85.0
  // against 84.1 (docs/performance.md#h100-dgemm-wave-plan). TK_MATMUL_SPLIT forces a plan; the CPU executor plans
  // for policy/gpu.hpp's pretend GPU, so that its tests run split products.
  static matmul_waves::Plan f64_units_plan(const Device& dev, const tk::detail::GemmArgs<double>& a) {
    return f64_units_plan_on(a, dev.backend() == Backend::cuda ? f64_machine(dev) : matmul_waves::pretend_gpu);
  }
  static matmul_waves::Plan f64_units_plan_on(const tk::detail::GemmArgs<double>& a, const matmul_waves::Machine& m) {
    if (a.batch != 1 || a.K <= 0) return {};
    if (const int forced = tk::detail::knobs().matmul_split; forced > 0) return forced_plan(a.K, f64_tile.bk, forced);
    const matmul_waves::Plan p = matmul_waves::plan(a.M, a.N, a.K, f64_tile.bm, f64_tile.bn, f64_tile.bk, 8, m);
    return p.dp_rows > 0 ? matmul_waves::Plan{} : p;
  }
  // DGEMM's peel (waves.hpp): the last rows or columns of C, at most f64_peel_most of them past whole tiles, run
  // apart (a matrix-vector product each: launch.cpp's run_peeled), where the rest of C, on this kernel, then fills
  // fewer rounds by the plan's model (priced as f64_units_plan runs it: whole plans, and none where the hybrid would
  // win). On sm_90; the CPU executor peels for its pretend GPU (its tests). On the H100, same runs, % of cuBLAS,
  // peeled against not (a temporary switch): 2050^3 95.1 against 80.2, 2056^3 85.7 / 71.3, 4097^3 99.7-100.2 /
  // 97.7, 8193 x 2049 x 1024 97.0 / 96.9; since mma_strip_load copies a partial chunk in flight (2026-12-06, fifth
  // session), 2049^3 NN / TN / NT 95.8 / 95.4 / 93.9 (69.1 / 72.4 unpeeled on cuda_dmma) and 1025 x 2049 x 1024 NN /
  // TN 83.2 / 80.3 (57.5 / 60.3) (docs/performance.md#h100-dgemm-partial-chunks).
  static constexpr int64_t f64_peel_most = 8;
  static matmul_waves::Peel f64_units_peel(const Device& dev, const tk::detail::GemmArgs<double>& a) {
    if (dev.backend() == Backend::cpu) return f64_units_peel_on(a, matmul_waves::pretend_gpu);
    if (dev.backend() != Backend::cuda || dev.props().arch != "sm_90") return {};
    return f64_units_peel_on(a, f64_machine(dev));
  }
  // The peel `best` takes (launch.cpp), given the target's rule `units` (f64_on_units): where the rest of C goes to
  // the MMA kernel. (Until mma_strip_load copied a partial chunk in flight, a peeled NN or TN 2049^3, B stored K x N
  // with an odd N, waited on plain loads in every strip of its last column of tiles: 66-68% of cuBLAS, so the peel
  // was kept to products whose whole went to that kernel too or whose B is stored N x K.)
  template <class Units>
  static matmul_waves::Peel f64_units_peel_where(const Device& dev, const tk::detail::GemmArgs<double>& a,
                                                 Units units) {
    return f64_units_peel_taken(f64_units_peel(dev, a), a, units);
  }
  // The peel p of a, where the rest of C goes to the MMA kernel by `units`; otherwise none.
  template <class Units>
  static matmul_waves::Peel f64_units_peel_taken(const matmul_waves::Peel& p, const tk::detail::GemmArgs<double>& a,
                                                 Units units) {
    if (p.rows == 0 && p.cols == 0) return {};
    tk::detail::GemmArgs<double> main = a;
    main.M -= p.rows;
    main.N -= p.cols;
    return units(main) ? p : matmul_waves::Peel{};
  }
  static matmul_waves::Peel f64_units_peel_on(const tk::detail::GemmArgs<double>& a, const matmul_waves::Machine& m) {
    if (a.batch != 1 || a.K <= 0) return {};
    return matmul_waves::peel(a.M, a.N, a.K, f64_tile.bm, f64_tile.bn, f64_tile.bk, 8, m, f64_peel_most, 8, false);
  }
  // The FP64 tiling's machine: two blocks an SM, on the FP64 tensor cores.
  static matmul_waves::Machine f64_machine(const Device& dev) { return machine(dev, 8, 2, true); }

  // `best`'s warpgroup kernel (128 x 256 tiles, launch_mma_units.cpp) takes a batch only where each matrix's C
  // holds more elements than a 128 x 128 tile of the warp-level kernel (mma_tiled.hpp), which takes the others. On the
  // H200, same run, a batch of 1000 products of 64^3 ran at 28-39% of cuBLAS in TF32 and 29-42% in BF16 on the
  // warpgroup kernel, 48% and 54-62% on the warp-level one (docs/performance.md#h200-split-k-warpgroup).
  static bool warpgroup_batch(std::int64_t M, std::int64_t N, std::int64_t batch) {
    return batch == 1 || M * N > 128 * 128;
  }

  // The wave plan's machine for the warpgroup kernel (waves.hpp; one block of 193 KiB per SM): its FLOP rate taken
  // as half the dense peak of sm_90's matrix units (4096 FLOP per SM and clock in BF16 and FP16, 2048 in TF32):
  // about 535 TFLOP/s in BF16 on the H200, where the kernel reaches about 380 at 4096^3.
  static matmul_waves::Machine warpgroup_machine(const Device& dev, bool tf32) {
    return machine_of(dev, 1, tf32 ? 512 : 1024);
  }

  // The wave plan's machine: FMA lanes per SM, 128 float on sm_90 and consumer parts, 64 on the other
  // data-centre parts; double half of that on data-centre parts (twice that on the FP64 tensor cores), 2 on
  // consumer parts.
  static matmul_waves::Machine machine(const Device& dev, int bytes, int per_sm, bool mma_tiling) {
    const std::string& arch = dev.props().arch;
    const bool sm90 = arch.rfind("sm_90", 0) == 0, datacentre = sm90 || arch == "sm_80" || arch == "sm_70";
    double lanes = sm90 || !datacentre ? 128 : 64;
    if (bytes == 8) lanes = datacentre ? lanes / 2 : 2;
    if (bytes == 8 && mma_tiling && fp64_tensor_cores(dev)) lanes *= 2;  // DMMA: twice the FP64 FMA rate
    return machine_of(dev, per_sm, lanes);
  }

  // One matrix (not a batch): C of 9-64 rows on cuda_thin_m, 9-32 columns on cuda_thin_n; from 5 rows
  // (columns) where the other operand's lines lie along k. Each was faster there, in every storage, than the
  // matrix-vector kernel and than 128-row tiles; with 33-64 columns cuda_mid's 64-column tiles beat
  // cuda_thin_n (
  // docs/history/performance-log.md#nvidia-h100-thin-tiles-for-c-of-few-rows-or-columns-2026-11-26-issue-12).
  template <class T>
  static bool thin_tiles(const GemmArgs<T>& a) {
    if constexpr (sizeof(T) != 4) {
      (void)a;
      return false;
    } else {
      const bool m_small = a.M <= a.N;
      const int64_t rows = m_small ? a.M : a.N;
      const bool along_k = m_small ? a.tb : !a.ta;
      return a.batch == 1 && rows <= (m_small ? 64 : 32) && rows >= (along_k ? 5 : 9);
    }
  }

  // A batch of matrices with both sides of C in 16-96 (and float): tiles of 64 x 64 (cuda_batch_64) or 32 x 32
  // (cuda_batch_32), whichever wastes less of its area on the sides (64 x 64 on a tie: it ran faster at 48^3 and
  // 64^3), where cuda_mid's 128 x 64 tiles held half of their outputs or less and the matrix-vector kernel,
  // which took sides of 16-32 in NN and TN, ran at 9% of cuBLAS at 32^3. Measured on an H200 at 32^3, 48^3, 64^3 and 96^3 in every
  // storage, and K up to 1024; from 128^3 on, cuda_mid's 100-105% stays (
  // docs/history/performance-log.md#nvidia-h200-strided-batches-of-small-sgemms-2026-11-28-issue-41). K is not
  // considered: longer K was not measured, and the long-K rule's 128 x 128 and 128 x 256 tiles would hold a
  // quarter of such a C or less.
  // With one side of 16-32 and the other over 96, the same tiles of 32 x 32; from 1000 columns on a side of at
  // most 32 rows, the thin tiles (cuda_thin_m). Before, such batches ran on the matrix-vector kernel (a side of
  // at most 32 where the other operand's lines lie along j), on cuda_mid or on 64 x 64 tiles, at 14-94% of cuBLAS
  // (geometric means 36-68%). On an H200, 13 shapes (sides 16-32 against 128-2048, K 32-512, batches of
  // 50-10000) in every storage: 32 x 32 tiles 65-125% (geometric mean 91%), against 64 x 64 tiles' 47-97% and the
  // thin tiles' 21-146%; the thin tiles won at 24 x 1000 x 256 x 200 and 32 x 2048 x 512 x 50 by 3-18% in NN, NT
  // and TN and lost 3-4% in TT; on narrower C they led by 0.3-6 points in NN and NT at four shapes and trailed in
  // TN and TT (
  // docs/history/performance-log.md#nvidia-h200-batches-with-a-side-of-16-32-2026-11-29-issue-41).
  // With 16-32 columns, the thin tiles across columns (cuda_thin_n, 128-row tiles) where M >= 128, the 128-row
  // tiles leave no more rows empty than 32-row ones would (M within 31 rows under a multiple of 128) and the
  // storage is not TN. On an H200, each forced on 16 shapes in the four storages, % of cuBLAS: on the ten such
  // shapes (M of 128-2048, K 128-1024) cuda_thin_n led cuda_batch_32 in 25 of 30 NN, NT and TT rows (by up to 17
  // points; behind by 2-6 in five), and trailed in 8 of 10 TN rows (by up to 7). On the six others (M of 200-4000
  // whose last 128-row tile held fewer rows, and 100 x 20) cuda_batch_32 led in 19 of 24 rows
  // (docs/performance.md#h200-sgemm-small-side-batches). A column-major call reaches this rule transposed (C^T:
  // 16-32 rows of C, and its NT is the TN here).
  // Sides under 16 stay on the matrix-vector kernel, unmeasured here. Returns the configuration, or nullptr.
  template <class T>
  static const char* batch_tiles(const GemmArgs<T>& a) {
    if constexpr (sizeof(T) != 4) {
      (void)a;
      return nullptr;
    } else {
      if (a.batch == 1 || std::min(a.M, a.N) < 16) return nullptr;
      if (std::max(a.M, a.N) > 96) {
        if (std::min(a.M, a.N) > 32) return nullptr;
        if (a.M <= 32) return a.N >= 1000 ? matmul_configs::cuda_thin_m::name : matmul_configs::cuda_batch_32::name;
        const bool rows_whole = (a.M + 127) / 128 * 128 == (a.M + 31) / 32 * 32;
        const bool tn = a.ta && !a.tb;
        return rows_whole && a.M >= 128 && !tn ? matmul_configs::cuda_thin_n::name
                                               : matmul_configs::cuda_batch_32::name;
      }
      // the share of a tile's area that holds C, for tiles of t x t: (M N) / (M rounded up to t)(N to t)
      const auto covered = [&](int64_t t) {
        return static_cast<double>(a.M * a.N) / static_cast<double>((a.M + t - 1) / t * t * ((a.N + t - 1) / t * t));
      };
      return covered(64) >= covered(32) ? matmul_configs::cuda_batch_64::name : matmul_configs::cuda_batch_32::name;
    }
  }

  // A batch (float) that would run on cuda_mid, whose 128-row tiles would leave at least a quarter of their
  // rows empty where 64-row tiles hold C's rows whole: M of 129-192 (two 128-row tiles, a quarter empty, against
  // three of 64) or at most 64 (half empty). cuda_batch_64's 64 x 64 tiles have the same 64 columns. (A side of
  // 16-32 takes batch_tiles first; a side under 16 within the matrix-vector kernel's reach, rows in NN and TN or
  // columns in TN and TT, goes there first: tiles_not_gemv leaves this rule out, unmeasured.) On an H200,
  // in every storage: 192 x 320 x 128 x 1000 85-91% of cuBLAS against cuda_mid's 77-82%, 64 x 320 x 128 x 1000
  // 86-91% against 53-59%, 160^3 84-93% against 72-83%, 192 x 1024 x 256 x 200 80-89% against 73-80%, 150^3
  // (scalar loads) 64-76% against 46-60%. 320 x 320 (a sixth empty) and 256^3 stay on cuda_mid at 84-92% (
  // docs/history/performance-log.md#nvidia-h200-batches-whose-rows-would-leave-128-row-tiles-a-quarter-empty-2026-11-28-issue-41).
  template <class T>
  static bool batch_rows_64(const GemmArgs<T>& a) {
    if constexpr (sizeof(T) != 4) {
      (void)a;
      return false;
    } else {
      const int64_t rows_mid = (a.M + 127) / 128 * 128, rows_64 = (a.M + 63) / 64 * 64;
      return a.batch > 1 && std::min(a.M, a.N) >= 16 && 3 * rows_mid >= 4 * rows_64;
    }
  }

  // One matrix whose cuda_mid tiles would fill more than a quarter and at most half of the SMs (513^3: 45 tiles of
  // 128 x 64 on the H200's 132 SMs; 640^3: 50), K <= 1024, both sides >= 256: cuda_batch_64's 64 x 64 tiles, twice
  // the blocks of half the outputs (a quarter or less with 16-byte rows: the thin tiles, pick). On an H200, one
  // lease, each with its wave plan, % of cuBLAS's same call in NN / NT / TN / TT: 513^3 91.8 / 84.1 / 90.8 / 76.2
  // against cuda_mid's 67.4 / 72.9 / 69.7 / 69.7; 640^3 103.8 / 91.1 / 122.8 / 94.4 against 82.6 / 78.3 / 97.3 /
  // 76.3. Over half the SMs they lost at 1000^3 (128 tiles: 76-77 against 83-92) and were mixed at 1536^3 (NN / NT /
  // TN / TT 89.6 / 75.8 / 95.7 / 85.2 against 89.0 / 79.9 / 86.9 / 80.7, where cuda_mid split 4 ways along K reached
  // 91-100: the wave plan's to find) (docs/performance.md#h200-fp32-half-wave-tiles). 768^3 (72 tiles) was not run
  // on them and stays on cuda_mid.
  template <class T>
  static bool half_wave_tiles_64(const GemmArgs<T>& a, int64_t sms) {
    const int64_t tiles = matmul_args::tile_count(a, 128, 64);
    return a.batch == 1 && a.K <= 1024 && a.M >= 256 && a.N >= 256 && 4 * tiles > sms && 2 * tiles <= sms;
  }

  // One matrix of float with 16-byte rows, K >= 768 (>= 500 in NN), whose cuda_mid tiles (128 x 64, three an SM)
  // give the SMs more than 3.5 and at most 4.25 blocks each: a round of three, then a round of about one block an
  // SM, which runs alone at about 2/3 of the SM's rate (waves.hpp's lone_block_rate). cuda_square's 128 x 128 tiles
  // (two an SM) then fill one round of two, and the wave plan's hybrid splits their few extra tiles along K; so
  // there must be at most 2.2 of those an SM (the measured shapes had 1.9-2.19), which leaves out C of at most 64
  // columns (as many tiles either way) and of 129-192 (three of 64 columns against two of 128), unmeasured. On an
  // H200 (132 SMs), one lease, % of cuBLAS's same call NN / NT / TN / TT, cuda_mid's plan against cuda_square's
  // (cuda_square_nt in NT): 2048 x 2048 x 1024 (512 tiles of 128 x 64: 3.9 an SM) 69.6 / 86.5 / 80.8 / 86.6
  // against 87.8 / 91.6 / 84.3 / 92.5; 1800 x 2300 x 1400 (540: 4.1) 89.6 / 71.8 / 73.7 / 69.9 against 101.8 / 79.0
  // / 85.9 / 82.1; 1800 x 2300 x 1000 +7 to +13 points; 1024 x 4096 x 1024, 4096 x 1024 x 1536, 1700 x 2400 x 1200
  // and three unseen shapes of 3.7-3.9 an SM +4 to +27. Shorter K gained in NN alone: 2048 x 2048 x 512 NN 69.6
  // against 79.3 (NT / TN / TT 1.3-2.6 points lost), 2100 x 1900 x 700 NN 68.6 against 83.0 (the others within 2
  // points), at K = 256 it lost in every storage but NN. Outside the range cuda_mid won: 1792 x 1792 x 1024 (2.97 an
  // SM) by 13-24 points, 2200 x 2200 x 1000 and 1400 (4.8) by 6-14, 2560 x 2560 x 1024 (6.1) by 13-16, 3072 x
  // 3072 x 1024 (8.7) by 2-7; 4096 x 4096 x 1024 (15.5) was level. At the edges, a second lease: 1664 x 2048 x 1024
  // (3.15 an SM) cuda_mid ahead by 0.5-4.6 points, 1792 x 2048 x 1024 (3.39) level (-1 to +3.7), 2176 x 2048 x 1024
  // (4.12) cuda_square ahead by 5-7, 2176 x 2112 x 1024 (4.25) and 2304 x 2048 x 1024 (4.36) level
  // (docs/performance.md#h200-fp32-square-tiles-k-1024).
  template <class T>
  static bool square_tiles_fill_better(const GemmArgs<T>& a, int64_t sms) {
    if constexpr (sizeof(T) != 4) {
      (void)a, (void)sms;
      return false;
    } else {
      const bool nn = !a.ta && !a.tb;
      if (a.batch != 1 || sms < 1 || a.K < (nn ? 500 : 768) || !matmul_args::vec_ok(a)) return false;
      const int64_t mid_tiles = matmul_args::tile_count(a, 128, 64),
                    square_tiles = matmul_args::tile_count(a, 128, 128);
      return 2 * mid_tiles > 7 * sms && 4 * mid_tiles <= 17 * sms && 5 * square_tiles <= 11 * sms;
    }
  }

  // The products that take warp_tiled's tiles where the matrix-vector kernel would otherwise run.
  template <class T>
  static bool tiles_not_gemv(const GemmArgs<T>& a) {
    return thin_tiles(a) || batch_tiles(a) != nullptr;
  }

  template <class T>
  static const char* pick(const Device& dev, const GemmArgs<T>& a) {
    namespace cfg = matmul_configs;
    using matmul_args::tile_count, matmul_args::vec_ok;
    const int sms = dev.props().multiprocessors;
    if constexpr (sizeof(T) == 4) {
      if (thin_tiles(a)) return a.M <= a.N ? cfg::cuda_thin_m::name : cfg::cuda_thin_n::name;
      if (const char* c = batch_tiles(a)) return c;
      // Long K over a wave or more: the 128 x 128 tiles for 16-byte rows (NT: strips in pairs), the 128 x 256
      // ones for rows that are not (scalar loads, where packing did not pay).
      if (a.K > 1536 && int64_t{tile_count(a, 128, 256)} * a.batch >= sms - sms / 8) {
        if (!vec_ok(a)) return cfg::cuda_wide::name;
        return !a.ta && a.tb ? cfg::cuda_square_nt::name : cfg::cuda_square::name;
      }
      // 65-96 rows of C where cuda_mid would run, N >= 2048, B's lines along n (NN, TN) and 16-byte rows (not a
      // copy packed with padded lines of A): three 32-row tiles beat one of 128 rows by 3-14% on every shape
      // measured; in NT and TT, from 104 rows and on a packed A of 65 rows they lost (
      // docs/history/performance-log.md#nvidia-h100-65-127-rows-of-c-the-pick-against-the-thin-tiles-65-96-rows-in-nn-and-tn-on-them-2026-11-26-issue-12).
      if (a.batch == 1 && a.M <= 96 && a.M > 64 && a.N >= 2048 && !a.tb && vec_ok(a) && matmul_args::lines_a(a) == a.M)
        return cfg::cuda_thin_m::name;
      // One matrix whose cuda_mid tiles would fill at most a quarter of the SMs (512^3: 32 tiles of 128 x 64 on
      // 132 SMs), K <= 1024, both sides >= 256 and 16-byte rows: the thin tiles across the smaller side, twice as
      // many blocks of half the outputs. On an H200 they ran 5-27% faster than cuda_mid in NN and NT on 384^3,
      // 512^3, 640 x 384 x 512, 384 x 640 x 512, 256 x 1024 x 1024 and 1024 x 256 x 1024; at 512 x 512 x 2048 they
      // lost 5-8% in NT, and at 640^3 and 768^3 (50 and 72 tiles) cuda_mid stays. Narrower C, unaligned rows and
      // the 65-96-row shapes that the rule above leaves out were not measured here: they keep cuda_mid (
      // docs/history/performance-log.md#nvidia-h200-sgemm-of-sides-384-1536-against-each-tile-configuration-2026-11-28-issue-41).
      if (a.batch == 1 && a.K <= 1024 && a.M >= 256 && a.N >= 256 && vec_ok(a) && tile_count(a, 128, 64) <= sms / 4)
        return a.M <= a.N ? cfg::cuda_thin_m::name : cfg::cuda_thin_n::name;
      if (square_tiles_fill_better(a, sms)) return !a.ta && a.tb ? cfg::cuda_square_nt::name : cfg::cuda_square::name;
      if (half_wave_tiles_64(a, sms)) return cfg::cuda_batch_64::name;
      if (batch_rows_64(a)) return cfg::cuda_batch_64::name;
      return cfg::cuda_mid::name;
    } else {
      const int64_t per_matrix = tile_count(a, 128, 128);
      const bool dmma = fp64_tensor_cores(dev);
      if (per_matrix * a.batch < sms) return dmma ? cfg::cuda_dmma_small::name : cfg::cuda_f64_small::name;
      if (dmma) return cfg::cuda_dmma::name;
      return a.batch > 1 && per_matrix < sms ? cfg::cuda_f64_batched::name : cfg::cuda_f64::name;
    }
  }
};

}  // namespace tk::kernels::matmul_policy
