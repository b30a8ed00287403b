// kernels/matmul/policy/cpu.hpp — the CPU GEMM policy: `best` runs register_tiled in blocks chosen from the
// CPU's L2, the shape and the threads (cpu_block.hpp), with a register tile from the vector registers of the
// instruction set this copy is compiled for; warp_tiled's CPU configurations (a "warp" is one vector of
// lanes); the matrix-vector kernel's blocks; and the tile-choice text. docs/design.md#what-best-runs describes
// the rule.
#pragma once

#include <algorithm>
#include <string>

#include "../cpu_block.hpp"
#include "gpu.hpp"
#include "tilekit/detail/cpu_threads.hpp"

namespace tk::kernels::matmul_configs {

using namespace tk::kernels::matmul_config;

// One stage: there is no global-memory latency for a second buffer to hide.
struct cpu_f32 {
  static constexpr const char* name = "cpu_f32";
  static constexpr GemmConfig config =
      matmul_config::config(Block{96, 64, 128}, Warp{6, 64, 4}, Thread{6, 1}, Lanes{16}, Stages{1});
};
struct cpu_f64 {
  static constexpr const char* name = "cpu_f64";
  static constexpr GemmConfig config = matmul_config::config(cpu_f32::config, Warp{6, 32, 4}, Lanes{8});
};

}  // namespace tk::kernels::matmul_configs

namespace tk::kernels::matmul_policy {

// The gemv kernel's block on a CPU: threads are one line of vector lanes (VEC 1: a vector of threads reads a
// run of a line). First form: 512 threads across j, chunks of 32 k; second: 32 lines of 64 threads along k,
// chunks of 256.
template <class T, bool ALONG_K, int R>
struct CpuGemvShape {
  static constexpr int vec = 1;
  static constexpr int bx = ALONG_K ? 64 : 512;
  static constexpr int by = ALONG_K ? 32 : 1;
  static constexpr int kc = ALONG_K ? 256 : R > 8 ? 16 : 32;
  static constexpr int per_block = ALONG_K ? by : bx * vec;
};

struct Cpu {
  template <class T>
  using configs = std::conditional_t<sizeof(T) == 4, matmul_config::List<matmul_configs::cpu_f32>,
                                     matmul_config::List<matmul_configs::cpu_f64>>;
  // `best` runs register_tiled: it loads its strips straight into the block's arrays and beats warp_tiled,
  // whose GPU-shaped loads cost more than they hide (
  // docs/history/performance-log.md#cpu-the-same-kernel-sources-on-the-2-core-avx-512-machine-20483).
  static constexpr bool best_register_tiled = true;
  // DGEMM's `best` never runs the matrix units' kernel on the CPU's own copy (see Cuda::f64_on_units).
  static bool f64_on_units(const Device&, const tk::detail::GemmArgs<double>&) { return false; }
  // No occupancy to ask: a CPU's blocks run on the executor's threads (slots).
  template <class Kernel>
  static int occupancy(tk::detail::PerDevice<int>&, const Device&, const char*, Dim3, Kernel) {
    return 0;
  }

  // The register tile (register_tiled's TM x TN outputs per thread, i.e. TM rows by TN vectors of threads'
  // columns), from the vector registers: TM * TN accumulators, TN vectors of B and one broadcast of A must fit,
  // TM * TN >= 2 pipes x 4 cycles of FMA latency, and the largest such tile has the fewest loads per FMA,
  // (TM + TN) / (TM TN). 32 registers (AVX-512): 6 x 4 (24 + 4 + 1 = 29); 16 (AVX2, SSE): 6 x 2
  // (12 + 2 + 1 = 15), where 6 x 4 spilled and ran at half the speed (
  // docs/history/performance-log.md#cpu-the-same-host-strips-loaded-a-line-at-a-time-register-tile-from-the-register-count-2026-11-24).
  struct tile {
#if defined(__AVX512F__)
    static constexpr int registers = 32, tm = 6, tn = 4;
#else
    static constexpr int registers = 16, tm = 6, tn = 2;
#endif
    static_assert(tm * tn + tn + 1 <= registers && tm * tn >= 8, "the accumulators stay in registers");
  };

  // A CPU has the vector registers for no more than 8 x 1 accumulators in the matrix-vector kernel.
  template <class T>
  static constexpr int64_t gemv_max_rows(bool) {
    return 8;
  }
  template <class T, bool ALONG_K, int R>
  using gemv_shape = CpuGemvShape<T, ALONG_K, R>;

  // Blocks a CPU runs at once, for split-K's and the block width's purposes: 4 per thread of the team the
  // executor's grid loop will run on (OpenMP's: OMP_NUM_THREADS, omp_set_num_threads, tk-bench --threads).
  static int slots(const Device&, int = 0) { return tk::detail::cpu_block_slots(); }

  // smem_dynamic's tile: 32 (well inside L1; a CPU block has no shared-memory or thread limit).
  template <class T>
  static int dynamic_tile(const Device&) {
    return 32;
  }

  template <class T>
  static bool tiles_not_gemv(const GemmArgs<T>&) {
    return false;
  }
  template <class T>
  static const char* pick(const Device&, const GemmArgs<T>&) {
    if constexpr (sizeof(T) == 4) return matmul_configs::cpu_f32::name;
    else return matmul_configs::cpu_f64::name;
  }

  // The block for this product (cpu_block.hpp states the model), and the ways it splits K (batches: none).
  template <class T>
  static matmul_cpu::Block block(const Device& dev, int64_t M, int64_t N, int64_t batch) {
    return matmul_cpu::block_n(dev.props().l2_bytes, sizeof(T), tile::tn, M, N, batch, slots(dev));
  }
  static int splits(int64_t M, int64_t N, int64_t K, int64_t batch, const matmul_cpu::Block& b) {
    if (batch > 1) return 1;
    const int64_t tiles = ((M + b.bm - 1) / b.bm) * ((N + b.bn - 1) / b.bn);
    return matmul_cpu::k_splits(tiles, tk::detail::cpu_executor_threads(), K);
  }

  // register_tiled: BM x BN x BK = 192 x (32 TN x {1, 2, 4, ...} <= 512) x 128, the width from the L2 and the
  // shape, or for C of at most 96 rows (or too few 192-row blocks for the threads) 48 x {32, 64} TN x 128; 16 TN wide for C of at most 16 TN columns, and 8 TN
  // wide with a thread tile of TM x TN / 2 for C of at most 8 TN columns where TN >= 4 (cpu_block.hpp). A last
  // row of 192-row blocks holding at most 96 rows of C runs as a product of its own, in 48-row blocks
  // (tail_rows). The strips are loaded a line at a time whatever the alignment (Strip::load_lines); VEC only
  // shapes the GPU's chunks. A single product with fewer blocks than threads splits K (k_splits).
  template <class T, class Run>
  static void register_tiled(const Device& dev, const GemmArgs<T>& a, Run&& run) {
    namespace mc = matmul_cpu;
    // (a C that takes 48-row blocks whole has no tail)
    if (const int64_t tail = mc::tail_rows(a.M); tail > 0 && block<T>(dev, a.M, a.N, a.batch).bm == mc::bm) {
      register_tiled(dev, matmul_args::rows_of(a, 0, a.M - tail), run);
      return register_tiled(dev, matmul_args::rows_of(a, a.M - tail, tail), run);
    }
    constexpr int TM = tile::tm, TN = tile::tn, V = 16 / sizeof(T);
    const auto b = block<T>(dev, a.M, a.N, a.batch);
    const int64_t s = splits(a.M, a.N, a.K, a.batch, b);
    if constexpr (TN >= 4 && TN % 2 == 0) {  // C of at most 8 TN columns: a thread tile of TN / 2 vectors
      if (b.narrow) {
        if (b.bm == mc::small_bm)
          return run(RegisterTile<mc::small_bm, mc::few_bn_tn * TN / 2, mc::bk, TM, TN / 2, V>{}, a, s);
        return run(RegisterTile<mc::bm, mc::few_bn_tn * TN / 2, mc::bk, TM, TN / 2, V>{}, a, s);
      }
    }
    if (b.bm == mc::small_bm) {
      if (b.bn == mc::few_bn_tn * TN)
        return run(RegisterTile<mc::small_bm, mc::few_bn_tn * TN, mc::bk, TM, TN, V>{}, a, s);
      if (b.bn == 32 * TN) return run(RegisterTile<mc::small_bm, 32 * TN, mc::bk, TM, TN, V>{}, a, s);
      return run(RegisterTile<mc::small_bm, mc::small_bn_tn * TN, mc::bk, TM, TN, V>{}, a, s);
    }
    if (b.bn == mc::few_bn_tn * TN) return run(RegisterTile<mc::bm, mc::few_bn_tn * TN, mc::bk, TM, TN, V>{}, a, s);
    if constexpr (256 * TN <= mc::max_bn) {
      if (b.bn == 256 * TN) return run(RegisterTile<mc::bm, 256 * TN, mc::bk, TM, TN, V>{}, a, s);
    }
    if (b.bn == 128 * TN) return run(RegisterTile<mc::bm, 128 * TN, mc::bk, TM, TN, V>{}, a, s);
    if (b.bn == 64 * TN) return run(RegisterTile<mc::bm, 64 * TN, mc::bk, TM, TN, V>{}, a, s);
    return run(RegisterTile<mc::bm, 32 * TN, mc::bk, TM, TN, V>{}, a, s);
  }

  // register_tiled's tiles of C per block, one above the other (cpu_block.hpp's row_tiles); one where K is split.
  template <class T>
  static int row_tiles(const Device& dev, const GemmArgs<T>& a, int bm, int bn, int64_t splits) {
    if (splits > 1) return 1;
    const int64_t tiles_m = (a.M + bm - 1) / bm;
    if (const int forced = tk::detail::knobs().matmul_row_tiles; forced > 0)
      return static_cast<int>(std::min<int64_t>({forced, matmul_cpu::max_row_tiles, std::max<int64_t>(tiles_m, 1)}));
    const int64_t tiles_n = (a.N + bn - 1) / bn;  // (the last row and column of tiles: the part of C they hold)
    return matmul_cpu::row_tiles(tiles_m, tiles_n, a.batch, slots(dev),
                                 static_cast<double>(a.M - (tiles_m - 1) * bm) / bm,
                                 static_cast<double>(a.N - (tiles_n - 1) * bn) / bn);
  }

  // warp_tiled (not `best` on a CPU): split K (one matrix only) when C's tiles cannot fill the cores and each
  // split keeps at least 8 strips.
  template <class Cfg, class T>
  static matmul_waves::Plan plan(const Device& dev, const GemmArgs<T>& a, int) {
    using W = WarpTilingOf<Cfg>;
    const int64_t max_splits = a.batch > 1 ? 1 : std::max<int64_t>(1, a.K / (8 * W::bk));
    const int t = matmul_args::tile_count(a, W::bm, W::bn);
    return {0, std::min<int64_t>({max_splits, std::max(1, slots(dev) / t), 64})};
  }

  // What `best` runs for an M x N x K product past the matrix-vector routing, in words.
  template <class T>
  static std::string tile_choice(const Device& dev, const GemmArgs<T>& a) {
    const int64_t M = a.M, N = a.N, K = a.K;
    const int64_t tail = block<T>(dev, M, N, a.batch).bm == matmul_cpu::bm ? matmul_cpu::tail_rows(M) : 0;
    const auto b = block<T>(dev, M - tail, N, a.batch);
    const int lanes = tk::warp_size * 4 / static_cast<int>(sizeof(T));  // warp_size: the float lanes
    const int s = splits(M - tail, N, K, a.batch, b);
    tk::detail::GemmArgs<T> main = a;
    main.M = M - tail;
    const int rt = row_tiles(dev, main, b.bm, b.bn, s);
    const auto str = [](auto v) { return std::to_string(v); };
    return "register_tiled, block " + str(b.bm) + " x " + str(b.bn) + " x " + str(matmul_cpu::bk) +
           (s > 1 ? ", K split " + str(s) + " ways (fewer blocks than threads)" : std::string()) +
           (rt > 1 ? ", up to " + str(rt) + " tiles of C a block (each strip of B copied once for them)"
                   : std::string()) +
           (tail > 0 ? ", the last " + str(tail) + " rows in 48-row blocks of their own" : std::string()) +
           (a.batch > 1 ? ", a batch of " + str(a.batch) : std::string()) + " (" + b.why + "; L2 " +
           str(dev.props().l2_bytes >> 10) + " KiB, " + str(slots(dev)) + " block slots), thread " + str(tile::tm) +
           " x " + str(b.narrow ? tile::tn / 2 : tile::tn) + " vectors (" + str(tile::registers) +
           " vector registers; a vector of threads is " + str(lanes) + " lanes)";
  }
};

}  // namespace tk::kernels::matmul_policy
