// kernels/matmul/launch.cpp — the GEMM launchers, compiled once per target: grid math, the tile
// configuration of each target (configs.hpp), the choice of `best` and of split-K.
//
// Per target (the kernel text is the same for all; docs/performance.md#devices has the measurements):
// - CUDA (sm_90): warp_tiled, float in six configurations picked by the size of C, K, the alignment and
//   the storage (pick, below), double on the FP64 tensor cores of sm_80 and sm_90 (cuda_dmma from a wave of 128 x 128 tiles up,
//   cuda_dmma_small below; elsewhere cuda_f64, cuda_f64_batched for batches of matrices smaller than a
//   wave, and cuda_f64_small below a wave in all); register_tiled
//   128 x 128 x 8 with 8 x 8 per thread (256 threads).
// - HIP: warp_tiled with 64-lane wavefronts (256 threads), within the 64 KiB LDS.
// - CPU: `best` is register_tiled with 6 x 4 outputs per thread (AVX-512; 6 x 2 with 16 vector registers:
//   cpu_tile) and a 192 x BN x 128 block whose width BN, 32 TN x {1, 2, 4, ...} <= 512, comes from the L2, the
//   shape and the threads (cpu_block.hpp: 512 for floats and 256 for doubles with a 1 MiB L2 and large matrices;
//   C of at most 96 rows takes 48 x 64 TN blocks, C of at most 16 TN columns 16 TN wide ones).
//   A phase's simd loop runs one AVX-512 vector of threads at a time (16 floats, 8 doubles), each with
//   6 x 4 = 24 vector accumulators that stay in registers through the k loop. The block's strips of A and
//   B stay in L2; they are loaded a line at a time (vector copies; Strip::load_lines), the next strip's
//   lines asked into L2 meanwhile. A single product with fewer blocks than threads splits K (k_splits), and
//   a last row of blocks with at most 96 rows of C runs apart in 48-row blocks (tail_rows).
// Transposed operands take the same kernels: each is compiled for the four storage combinations, which
// differ only in how a strip is loaded (common.hpp, Strip).
// Every target: `best` runs a C of at most 8 rows or columns (32 on a GPU when the large operand's lines lie
// along C's) through gemv.hpp, which reads the large operand once, split along K to fill the machine; except
// on CUDA for one float matrix with 5-8 rows or columns in gemv.hpp's second form, or 9-32 in its first,
// which run on the thin tiles (thin_tiles), as do 33-64 rows.
// - CUDA float configurations: cuda_square (cuda_square_nt for NT) from about a wave of 128 x 256 tiles with
//   K > 1536 and 16-byte rows, cuda_wide for such shapes without 16-byte rows, cuda_thin_m and cuda_thin_n for
//   few rows or columns (thin_tiles; cuda_thin_m also for 65-96 rows in NN and TN), cuda_mid for the rest (pick).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "configs.hpp"
#include "cpu_block.hpp"
#include "gemv.hpp"
#include "naive.hpp"
#include "pack.hpp"
#include "pack_rule.hpp"
#include "register_tiled.hpp"
#include "smem_dynamic.hpp"
#include "smem_tiled.hpp"
#include "splitk_reduce.hpp"
#include "tilekit/detail/cpu_threads.hpp"
#include "tilekit/detail/knobs.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/detail/per_device.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"
#include "warp_tiled.hpp"
#include "waves.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

using std::int64_t;
using tk::detail::GemmArgs;
namespace cfg = tk::kernels::matmul_configs;

template <class T>
int tile_count(const GemmArgs<T>& a, int64_t bm, int64_t bn) {
  const int64_t t = ((a.M + bm - 1) / bm) * ((a.N + bn - 1) / bn);
  if (t > 0x7fffffff) tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 tiles");
  return static_cast<int>(t);
}

// 16-byte accesses need 16-byte aligned matrices whose rows stay aligned (and, in a batch, whose matrices
// stay aligned: one matrix's strides are never used).
template <class T>
bool vec_ok(const T* X, int64_t ld, int64_t stride, int64_t batch) {
  constexpr int64_t vec = 16 / sizeof(T);
  return reinterpret_cast<std::uintptr_t>(X) % 16 == 0 && ld % vec == 0 && (batch == 1 || stride % vec == 0);
}
template <class T>
bool vec_ok(const GemmArgs<T>& a) {
  return vec_ok(a.A, a.lda, a.sa, a.batch) && vec_ok(a.B, a.ldb, a.sb, a.batch);
}

// The rows [m0, m0 + rows) of C and the operands' matching rows.
template <class T>
GemmArgs<T> rows_of(const GemmArgs<T>& a, int64_t m0, int64_t rows) {
  GemmArgs<T> r = a;
  r.M = rows;
  r.A = a.ta ? a.A + m0 : a.A + m0 * a.lda;
  r.C = a.C + m0 * a.ldc;
  r.m_read = a.m_read > 0 ? a.m_read - m0 : 0;
  return r;
}

// Calls launch(grid_y, first) for the batch in chunks of at most 65535 matrices (a grid's y limit).
template <class T, class F>
void over_batch(const GemmArgs<T>& a, F&& launch) {
  for (int64_t first = 0; first < a.batch; first += 65535) launch(static_cast<int>(std::min<int64_t>(65535, a.batch - first)), first);
}

template <class T>
void run_naive(const Device& dev, const GemmArgs<T>& a) {
  constexpr int S = 16;
  over_batch(a, [&](int gy, int64_t z) {
    tk::launch(dev, {"matmul_naive", {tile_count(a, S, S), gy, 1}, {S, S, 1}, 0}, &tk::kernels::matmul_naive<T>, a.M,
               a.N, a.K, a.alpha, a.A + z * a.sa, a.lda, a.sa, a.ta, a.B + z * a.sb, a.ldb, a.sb, a.tb, a.beta,
               a.C + z * a.sc, a.ldc, a.sc);
  });
}

template <int TILE, class T>
void run_smem_tiled(const Device& dev, const GemmArgs<T>& a) {
  over_batch(a, [&](int gy, int64_t z) {
    tk::launch(dev, {"matmul_smem_tiled", {tile_count(a, TILE, TILE), gy, 1}, {TILE, TILE, 1}, 0},
               &tk::kernels::matmul_smem_tiled<T, TILE>, a.M, a.N, a.K, a.alpha, a.A + z * a.sa, a.lda, a.sa, a.ta,
               a.B + z * a.sb, a.ldb, a.sb, a.tb, a.beta, a.C + z * a.sc, a.ldc, a.sc);
  });
}

template <class T>
void run_smem_dynamic(const Device& dev, const GemmArgs<T>& a) {
  // The largest tile whose two strips fit the block's shared memory and whose threads fit a block:
  // 32 on current GPUs (8 KiB of floats, 1024 threads) and on CPUs (well inside L1).
  const DeviceProps& p = dev.props();
  int t = 32;
  if constexpr (tk::this_target != Target::cpu) {  // a CPU block has no shared-memory or thread limit
    while (t > 1 && (int64_t{2} * t * t * int64_t{sizeof(T)} > p.shared_per_block || t * t > p.max_threads_per_block))
      t /= 2;
  }
  over_batch(a, [&](int gy, int64_t z) {
    tk::launch(dev, {"matmul_smem_dynamic", {tile_count(a, t, t), gy, 1}, {t, t, 1}, std::size_t{2} * t * t * sizeof(T)},
               &tk::kernels::matmul_smem_dynamic<T>, a.M, a.N, a.K, a.alpha, a.A + z * a.sa, a.lda, a.sa, a.ta,
               a.B + z * a.sb, a.ldb, a.sb, a.tb, a.beta, a.C + z * a.sc, a.ldc, a.sc);
  });
}

// Calls f.template operator()<TA, TB>() for the run-time storage flags: each kernel with compile-time ones.
template <class T, class F>
void with_storage(const GemmArgs<T>& a, F&& f) {
  if (a.ta) {
    if (a.tb) return f(std::true_type{}, std::true_type{});
    return f(std::true_type{}, std::false_type{});
  }
  if (a.tb) return f(std::false_type{}, std::true_type{});
  return f(std::false_type{}, std::false_type{});
}

// The second kernel of split-K: C = alpha * (the sum of the `splits` partial products) + beta * C, where the
// partial products are rows x cols slabs whose element (i, j) is C's element at C[i * ci + j * cj]
// (splitk_reduce.hpp); the first overload for slabs in C's own coordinates.
template <class T>
void launch_splitk_reduce(const Device& dev, int64_t rows, int64_t cols, int64_t splits, const T* partial, T alpha,
                          T beta, T* C, int64_t ci, int64_t cj) {
  constexpr int threads = 256;
  const int gx = static_cast<int>((cols + threads - 1) / threads), gy = static_cast<int>(std::min<int64_t>(rows, 65535));
  tk::launch(dev, {"matmul_splitk_reduce", {gx, gy, 1}, {threads, 1, 1}, 0}, &tk::kernels::matmul_splitk_reduce<T>,
             rows, cols, static_cast<int>(splits), partial, alpha, beta, C, ci, cj);
}
template <class T>
void launch_splitk_reduce(const Device& dev, const GemmArgs<T>& a, int64_t splits, const T* partial) {
  launch_splitk_reduce(dev, a.M, a.N, splits, partial, a.alpha, a.beta, a.C, a.ldc, int64_t{1});
}

// `splits` > 1 (a CPU's single products only): the grid holds splits x tiles blocks, each over its share of
// K (register_tiled.hpp, SPLIT), and launch_splitk_reduce sums them into C.
template <int BM, int BN, int BK, int TM, int TN, int VEC, class T>
void run_register_tiled(const Device& dev, const GemmArgs<T>& a, int64_t splits = 1) {
  with_storage(a, [&](auto ta, auto tb) {
    const Dim3 block{BN / TN, BM / TM, 1};
    if (splits > 1) {
      const auto kernel = &tk::kernels::matmul_register_tiled<T, BM, BN, BK, TM, TN, VEC, ta.value, tb.value, true>;
      const int64_t k_per_split = (a.K + splits * BK - 1) / (splits * BK) * BK;
      const tk::detail::Workspace scratch(dev, sizeof(T) * splits * a.M * a.N);
      auto* partial = static_cast<T*>(scratch.get());
      tk::launch(dev, {"matmul_register_tiled(split-K)", {static_cast<int>(splits) * tile_count(a, BM, BN), 1, 1}, block, 0},
                 kernel, a.M, a.N, a.K, a.alpha, a.A, a.lda, a.sa, a.B, a.ldb, a.sb, a.beta, a.C, a.ldc, a.sc,
                 k_per_split, partial);
      launch_splitk_reduce(dev, a, splits, static_cast<const T*>(partial));
      return;
    }
    const auto kernel = &tk::kernels::matmul_register_tiled<T, BM, BN, BK, TM, TN, VEC, ta.value, tb.value>;
    over_batch(a, [&](int gy, int64_t z) {
      tk::launch(dev, {"matmul_register_tiled", {tile_count(a, BM, BN), gy, 1}, block, 0}, kernel, a.M, a.N, a.K,
                 a.alpha, a.A + z * a.sa, a.lda, a.sa, a.B + z * a.sb, a.ldb, a.sb, a.beta, a.C + z * a.sc, a.ldc, a.sc,
                 a.K, static_cast<T*>(nullptr));
    });
  });
}

// The CPU's register tile (register_tiled's TM x TN outputs per thread, i.e. TM rows by TN vectors of
// threads' columns), from the vector registers of the instruction set this copy is compiled for: TM * TN
// accumulators, TN vectors of B and one broadcast of A must fit, TM * TN >= 2 pipes x 4 cycles of FMA
// latency, and the largest such tile has the fewest loads per FMA, (TM + TN) / (TM TN). 32 registers
// (AVX-512): 6 x 4 (24 + 4 + 1 = 29); 16 (AVX2, SSE): 6 x 2 (12 + 2 + 1 = 15), where 6 x 4 spilled and ran
// at half the speed (
// docs/history/performance-log.md#cpu-the-same-host-strips-loaded-a-line-at-a-time-register-tile-from-the-register-count-2026-11-24). The block is BN / TN threads wide (cpu_block.hpp chooses BN).
struct cpu_tile {
#if defined(__AVX512F__)
  static constexpr int registers = 32, tm = 6, tn = 4;
#else
  static constexpr int registers = 16, tm = 6, tn = 2;
#endif
  static_assert(tm * tn + tn + 1 <= registers && tm * tn >= 8, "the accumulators stay in registers");
};

// Blocks a CPU runs at once, for split-K's and the block width's purposes: tk::detail::cpu_block_slots, 4 per
// thread of the team the executor's grid loop will run on (OpenMP's: OMP_NUM_THREADS, omp_set_num_threads,
// tk-bench --threads; one thread without OpenMP).
[[maybe_unused]] int cpu_slots(const Device&) { return tk::detail::cpu_block_slots(); }

// The CPU block's width for this product (cpu_block.hpp states the model).
template <class T>
[[maybe_unused]] tk::kernels::matmul_cpu::Block cpu_block(const Device& dev, int64_t M, int64_t N, int64_t batch) {
  return tk::kernels::matmul_cpu::block_n(dev.props().l2_bytes, sizeof(T), cpu_tile::tn, M, N, batch, cpu_slots(dev));
}

// The ways a CPU splits K for this product in blocks of `block` (batches: none).
[[maybe_unused]] int cpu_splits(int64_t M, int64_t N, int64_t K, int64_t batch, const tk::kernels::matmul_cpu::Block& block) {
  if (batch > 1) return 1;
  const int64_t tiles = ((M + block.bm - 1) / block.bm) * ((N + block.bn - 1) / block.bn);
  return tk::kernels::matmul_cpu::k_splits(tiles, tk::detail::cpu_executor_threads(), K);
}

template <class T>
void run_register_tiled(const Device& dev, const GemmArgs<T>& a) {
  constexpr int V = 16 / sizeof(T);
  if constexpr (tk::this_target == Target::cpu) {
    // A last row of 192-row blocks holding at most 96 rows of C runs as a product of its own, in 48-row
    // blocks (cpu_block.hpp, tail_rows).
    if (const int64_t tail = tk::kernels::matmul_cpu::tail_rows(a.M); tail > 0) {
      run_register_tiled(dev, rows_of(a, 0, a.M - tail));
      return run_register_tiled(dev, rows_of(a, a.M - tail, tail));
    }
    // BM x BN x BK = 192 x (32 TN x {1, 2, 4, ...} <= 512) x 128, the width from the L2 and the shape, or
    // for C of at most 96 rows 48 x 64 TN x 128; 16 TN wide for C of at most 16 TN columns (cpu_block.hpp).
    // The strips are loaded a line at a time whatever the alignment (Strip::load_lines); V only shapes the
    // GPU's chunks. A single product with fewer blocks than threads splits K (cpu_block.hpp, k_splits).
    namespace mc = tk::kernels::matmul_cpu;
    constexpr int TM = cpu_tile::tm, TN = cpu_tile::tn;
    const auto block = cpu_block<T>(dev, a.M, a.N, a.batch);
    const int bn = block.bn;
    const int64_t s = cpu_splits(a.M, a.N, a.K, a.batch, block);
    if (block.bm == mc::small_bm) {
      if (bn == mc::few_bn_tn * TN)
        return run_register_tiled<mc::small_bm, mc::few_bn_tn * TN, mc::bk, TM, TN, V>(dev, a, s);
      return run_register_tiled<mc::small_bm, mc::small_bn_tn * TN, mc::bk, TM, TN, V>(dev, a, s);
    }
    if (bn == mc::few_bn_tn * TN) return run_register_tiled<mc::bm, mc::few_bn_tn * TN, mc::bk, TM, TN, V>(dev, a, s);
    if constexpr (256 * TN <= mc::max_bn) {
      if (bn == 256 * TN) return run_register_tiled<mc::bm, 256 * TN, mc::bk, TM, TN, V>(dev, a, s);
    }
    if (bn == 128 * TN) return run_register_tiled<mc::bm, 128 * TN, mc::bk, TM, TN, V>(dev, a, s);
    if (bn == 64 * TN) return run_register_tiled<mc::bm, 64 * TN, mc::bk, TM, TN, V>(dev, a, s);
    return run_register_tiled<mc::bm, 32 * TN, mc::bk, TM, TN, V>(dev, a, s);
  } else {
    if (vec_ok(a)) return run_register_tiled<128, 128, 8, 8, 8, V>(dev, a);
    return run_register_tiled<128, 128, 8, 8, 8, 1>(dev, a);
  }
}

// FP64 tensor cores at twice the FMA rate (DMMA, tilekit/mma.hpp): the data-centre parts sm_80 (A100) and
// sm_90 (H100, H200). The consumer parts (sm_86, sm_89) have the instruction but little FP64 of either kind,
// and later architectures are unmeasured: they keep the FMA configurations. The library must be built for
// sm_80 or later too (a compute_70 PTX build run on an H100 would run the tiling's FMA path).
[[maybe_unused]] bool fp64_tensor_cores(const Device& dev) {
  const std::string& arch = dev.props().arch;
  return tk::this_target == Target::cuda && (arch == "sm_80" || arch == "sm_90");
}

// The machine for the wave plan (waves.hpp): the blocks of a configuration that run at once; the peak FLOP
// rate (FMA lanes per SM: 128 float on sm_90 and consumer parts, 64 on the other data-centre parts, double
// half of that on data-centre parts) over the DRAM bandwidth; and a kernel launch's cost, 8 us (the H100
// measurement in waves.hpp). The CPU executor running the GPU launchers' shapes (tests) plans for a pretend
// GPU of 4 slots, 20 FLOP per byte and free launches, so that every plan runs in the tests on any machine.
[[maybe_unused]] constexpr double launch_seconds = 8e-6;
[[maybe_unused]] tk::kernels::matmul_waves::Machine wave_machine(const Device& dev, int bytes, int per_sm,
                                                                   bool tensor_cores) {
#if defined(TK_CPU_AS_CUDA) || defined(TK_CPU_AS_HIP)
  (void)dev, (void)bytes, (void)per_sm, (void)tensor_cores;
  return {4, 20.0};
#else
  const DeviceProps& p = dev.props();
  const bool sm90 = p.arch.rfind("sm_90", 0) == 0, datacentre = sm90 || p.arch == "sm_80" || p.arch == "sm_70";
  double lanes = sm90 || !datacentre ? 128 : 64;
  if (bytes == 8) lanes = datacentre ? lanes / 2 : 2;
  if (bytes == 8 && tensor_cores) lanes *= 2;  // DMMA: twice the FP64 FMA rate
  const double flops = lanes * 2.0 * p.multiprocessors * static_cast<double>(p.clock_khz) * 1e3;
  const double bw = p.peak_bandwidth_gbs() * 1e9;
  return {std::int64_t{per_sm} * p.multiprocessors, bw > 0 ? flops / bw : 0.0, launch_seconds * bw};
#endif
}

// How far a line of A stored transposed (of B as stored) may be read: M (N), or a packed copy's padded length.
template <class T>
int64_t lines_a(const GemmArgs<T>& a) {
  return a.m_read > a.M ? a.m_read : a.M;
}
template <class T>
int64_t lines_b(const GemmArgs<T>& a) {
  return a.n_read > a.N ? a.n_read : a.N;
}

template <class Cfg, class T, bool AL, bool TA, bool TB>
void launch_warp_tiled(const Device& dev, const GemmArgs<T>& a, int64_t splits) {
  using W = typename Cfg::Tiling;
  const int t = tile_count(a, W::bm, W::bn);
  const auto kernel = &tk::kernels::matmul_warp_tiled<Cfg, T, AL, TA, TB>;
  const Dim3 block{W::lanes_n, W::warp / W::lanes_n, W::threads / W::warp};
  if (splits == 1) {
    over_batch(a, [&](int gy, int64_t z) {
      tk::launch(dev, {"matmul_warp_tiled", {t, gy, 1}, block, 0}, kernel, a.M, a.N, a.K, a.alpha, a.A + z * a.sa,
                 a.lda, a.sa, a.B + z * a.sb, a.ldb, a.sb, a.beta, a.C + z * a.sc, a.ldc, a.sc, a.K,
                 static_cast<T*>(nullptr), lines_a(a), lines_b(a));
    });
    return;
  }
  const int64_t k_per_split = (a.K + splits * W::bk - 1) / (splits * W::bk) * W::bk;
  const tk::detail::Workspace scratch(dev, sizeof(T) * splits * a.M * a.N);
  auto* partial = static_cast<T*>(scratch.get());
  tk::launch(dev, {"matmul_warp_tiled(split-K)", {static_cast<int>(splits) * t, 1, 1}, block, 0}, kernel, a.M, a.N,
             a.K, a.alpha, a.A, a.lda, a.sa, a.B, a.ldb, a.sb, a.beta, a.C, a.ldc, a.sc, k_per_split, partial, lines_a(a),
             lines_b(a));
  launch_splitk_reduce(dev, a, splits, static_cast<const T*>(partial));
}

template <class Cfg, class T, bool AL, bool TA, bool TB>
void run_warp_tiled(const Device& dev, const GemmArgs<T>& a) {
  using W = typename Cfg::Tiling;
  if (a.K / W::bk >= 0x7fffffff) tk::detail::fail("tk::gemm: K = ", a.K, " needs more than 2^31 - 1 strips of ", W::bk);
  const auto kernel = &tk::kernels::matmul_warp_tiled<Cfg, T, AL, TA, TB>;
  const Dim3 block{W::lanes_n, W::warp / W::lanes_n, W::threads / W::warp};
  // The runtime's occupancy for this kernel, asked once per instantiation and device (a static here, in
  // the template, not in a helper shared by every kernel of the same signature).
  static tk::detail::PerDevice<int> occupancy;
  const int per_sm = occupancy.get(dev.index(), [&] {
    if constexpr (tk::this_target == Target::cpu) {
      return 0;
    } else {
      const int b = tk::describe(dev, {"matmul_warp_tiled", {1, 1, 1}, block, 0}, kernel)
                        .runtime_blocks_per_multiprocessor;
      return b > 0 ? b : 2;
    }
  });
  if constexpr (tk::this_target == Target::cpu) {
    // Split K (one matrix only) when C's tiles cannot fill the cores and each split keeps at least 8 strips.
    const int64_t max_splits = a.batch > 1 ? 1 : std::max<int64_t>(1, a.K / (8 * W::bk));
    const int slots = cpu_slots(dev), t = tile_count(a, W::bm, W::bn);
    return launch_warp_tiled<Cfg, T, AL, TA, TB>(dev, a, std::min<int64_t>({max_splits, std::max(1, slots / t), 64}));
  } else {
    // GPUs: the wave plan (waves.hpp); batches run as they are.
    namespace mw = tk::kernels::matmul_waves;
    const mw::Plan plan = a.batch > 1 ? mw::Plan{}
                                      : mw::plan(a.M, a.N, a.K, W::bm, W::bn, W::bk, sizeof(T), wave_machine(dev, sizeof(T), per_sm, W::mma_layout && fp64_tensor_cores(dev)));
    if (plan.dp_rows > 0) launch_warp_tiled<Cfg, T, AL, TA, TB>(dev, rows_of(a, 0, plan.dp_rows), 1);
    launch_warp_tiled<Cfg, T, AL, TA, TB>(dev, rows_of(a, plan.dp_rows, a.M - plan.dp_rows), plan.splits);
  }
}

// CUDA floats, one matrix (not a batch): C of 9-64 rows runs on cuda_thin_m (32-row tiles), C of 9-32 columns
// on cuda_thin_n (32-column tiles); from 5 rows (columns) where the other operand's lines lie along k
// (gemv.hpp's second form, whose 8 accumulators per thread read X from shared memory at every vector of
// W). Each was faster there, in every storage, than the matrix-vector kernel and than 128-row tiles; with
// 33-64 columns cuda_mid's 64-column tiles beat cuda_thin_n (
// docs/history/performance-log.md#nvidia-h100-thin-tiles-for-c-of-few-rows-or-columns-2026-11-26-issue-12).
template <class T>
bool thin_tiles(const GemmArgs<T>& a) {
  if constexpr (tk::this_target == Target::cuda && sizeof(T) == 4) {
    const bool m_small = a.M <= a.N;
    const int64_t rows = m_small ? a.M : a.N;
    const bool along_k = m_small ? a.tb : !a.ta;
    return a.batch == 1 && rows <= (m_small ? 64 : 32) && rows >= (along_k ? 5 : 9);
  } else {
    (void)a;
    return false;
  }
}

// ---- products with a side of C of at most 8, or 32 (gemv.hpp) ----

// Up to this many rows (or columns) of C, `best` streams the other operand once (gemv.hpp) instead of
// running 128-row tiles that are mostly empty: 8 (three sizes of accumulators: 1, 4, 8); on a GPU, where W's
// lines lie along j (the first form), 32 for floats and 16 for doubles (also 16 and 32 accumulators of VEC
// outputs, which keep the multiply-adds, not the loads, the bound). A CPU has the vector registers for no
// more than 8 x 1, and the second form's threads would read R vectors of X from shared memory per vector
// of W.
// Doubles on a GPU stop at 16: 32 accumulators of one double spilled on gfx1030 (tools/amdgpu-resources).
template <class T>
constexpr std::int64_t gemv_max_rows(bool along_k) {
  return tk::this_target == Target::cpu || along_k ? 8 : sizeof(T) == 8 ? 16 : 32;
}

// The gemv kernel's block for this target: a CPU's threads are one line of vector lanes (VEC 1: a vector of
// threads reads a run of a line), a GPU's read 16 bytes each. First form (W's lines along j): BX threads
// across j, BY rows of threads over alternate k (on a GPU 64 x 4; with more than 8 accumulators 128 x 1,
// whose block needs no shared sums), chunks of KC; second (along k): rows of BX threads (a warp on a GPU)
// along k.
template <class T, bool ALONG_K, int R>
struct GemvShape {
  static constexpr bool cpu = tk::this_target == Target::cpu, many = R > 8;
  static constexpr int vec = cpu ? 1 : (many ? 8 : 16) / static_cast<int>(sizeof(T));
  static constexpr int bx = ALONG_K ? (cpu ? 64 : tk::warp_size) : (cpu ? 512 : many ? 128 : 64);
  static constexpr int by = ALONG_K ? (cpu ? 4 : 256 / tk::warp_size) : (cpu || many ? 1 : 4);
  static constexpr int kc = ALONG_K ? (cpu ? 256 : bx * vec * 4) : many ? 16 : 32;
  static constexpr int per_block = ALONG_K ? by : bx * vec;
};

template <class T, int R, bool ALONG_K, bool ALIGNED>
void launch_gemv(const Device& dev, const GemmArgs<T>& a, bool m_small) {
  using S = GemvShape<T, ALONG_K, R>;
  const auto kernel = &tk::kernels::matmul_gemv<T, R, S::vec, S::bx, S::by, S::kc, ALONG_K, ALIGNED>;
  // Few rows of C: W is B, the vectors are rows of op(A), output (r, j) is C(r, j). Few columns: W is A, the
  // vectors are columns of op(B), output (r, j) is C(j, r). (gemv.hpp's coordinates.)
  const int64_t J = m_small ? a.N : a.M, rows = m_small ? a.M : a.N;
  const T* W = m_small ? a.B : a.A;
  const int64_t ldw = m_small ? a.ldb : a.lda, sw = m_small ? a.sb : a.sa;
  const T* X = m_small ? a.A : a.B;
  const int64_t sx = m_small ? a.sa : a.sb;
  const bool x_along_k = m_small ? !a.ta : a.tb;  // X(r, k) at X[r * ld + k], else at X[k * ld + r]
  const int64_t xld = m_small ? a.lda : a.ldb;
  const int64_t xr = x_along_k ? xld : 1, xk = x_along_k ? 1 : xld;
  const int64_t yr = m_small ? a.ldc : 1, yj = m_small ? 1 : a.ldc;
  const int64_t blocks_j = (J + S::per_block - 1) / S::per_block;
  const Dim3 block{S::bx, S::by, 1};

  // Split K (one matrix) until the grid fills the machine twice over, each split a whole number of chunks.
  int64_t splits = 1;
  if (a.batch == 1) {
    int slots = 0;
    if constexpr (tk::this_target == Target::cpu) {
      slots = cpu_slots(dev);
    } else {
      static tk::detail::PerDevice<int> occupancy;  // per instantiation and device, as in run_warp_tiled
      const int per_sm = occupancy.get(dev.index(), [&] {
        const int b = tk::describe(dev, {"matmul_gemv", {1, 1, 1}, block, 0}, kernel).runtime_blocks_per_multiprocessor;
        return b > 0 ? b : 2;
      });
      slots = per_sm * dev.props().multiprocessors;
    }
    const int64_t chunks = (a.K + S::kc - 1) / S::kc;
    splits = std::max<int64_t>(1, std::min<int64_t>(chunks, (2 * int64_t{slots} + blocks_j - 1) / blocks_j));
  }
  const int64_t k_per_split = (a.K + splits * S::kc - 1) / (splits * S::kc) * S::kc;
  if (k_per_split > 0) splits = (a.K + k_per_split - 1) / k_per_split;
  if (blocks_j * splits > 0x7fffffff)
    tk::detail::fail("tk::gemm: ", a.M, " x ", a.N, " needs more than 2^31 - 1 blocks of ", S::per_block);
  const int gx = static_cast<int>(blocks_j * splits);
  if (splits <= 1) {
    over_batch(a, [&](int gy, int64_t z) {
      tk::launch(dev, {"matmul_gemv", {gx, gy, 1}, block, 0}, kernel, J, a.K, static_cast<int>(rows), a.alpha,
                 W + z * sw, ldw, sw, X + z * sx, xr, xk, sx, a.beta, a.C + z * a.sc, yr, yj, a.sc, a.K,
                 static_cast<T*>(nullptr));
    });
    return;
  }
  // The partial sums in the kernel's own rows x J coordinates (coalesced along j), which the reduction maps
  // to C's: with few columns of C they are C's transposed. (In C's coordinates, 8192 x 32 x 4096 with A
  // stored transposed put every partial store a 128-byte stride apart and left 7 of 8 reduction threads
  // idle:
  // docs/history/performance-log.md#nvidia-h100-sgemm-in-all-four-storages-over-the-sweep-tt-on-cuda_square-nt-staged-mid-multiply-few-columns-of-c-2026-11-26-evening.)
  const tk::detail::Workspace scratch(dev, sizeof(T) * splits * a.M * a.N);
  auto* partial = static_cast<T*>(scratch.get());
  tk::launch(dev, {"matmul_gemv(split-K)", {gx, 1, 1}, block, 0}, kernel, J, a.K, static_cast<int>(rows), a.alpha, W,
             ldw, sw, X, xr, xk, sx, a.beta, a.C, yr, yj, a.sc, k_per_split, partial);
  launch_splitk_reduce(dev, rows, J, splits, static_cast<const T*>(partial), a.alpha, a.beta, a.C, yr, yj);
}

// Runs the product through gemv.hpp when C has at most gemv_max_rows rows or columns; false otherwise.
template <class T>
bool run_gemv(const Device& dev, const GemmArgs<T>& a) {
  const bool m_small = a.M <= a.N;
  const int64_t rows = m_small ? a.M : a.N;
  // W's lines lie along k when it is B stored transposed or A as stored (gemv.hpp's second form).
  const bool along_k = m_small ? a.tb : !a.ta;
  if (rows > gemv_max_rows<T>(along_k) || rows < 1) return false;
  // 16-byte vectors: W and its lines 16-byte aligned (a CPU's VEC is 1: always).
  constexpr int64_t vec = GemvShape<T, false, 1>::vec;
  const T* W = m_small ? a.B : a.A;
  const int64_t ldw = m_small ? a.ldb : a.lda, sw = m_small ? a.sb : a.sa;
  const bool aligned = vec == 1 || (reinterpret_cast<std::uintptr_t>(W) % 16 == 0 && ldw % vec == 0 &&
                                     (a.batch == 1 || sw % vec == 0));
  const auto go = [&](auto r, auto k_form) {
    constexpr int R = decltype(r)::value;
    constexpr bool K_FORM = decltype(k_form)::value;
    if constexpr (vec == 1) {
      launch_gemv<T, R, K_FORM, false>(dev, a, m_small);
    } else {
      if (aligned) return launch_gemv<T, R, K_FORM, true>(dev, a, m_small);
      launch_gemv<T, R, K_FORM, false>(dev, a, m_small);
    }
  };
  const auto sized = [&](auto k_form) {
    if (rows == 1) return go(std::integral_constant<int, 1>{}, k_form);
    if (rows <= 4) return go(std::integral_constant<int, 4>{}, k_form);
    if (rows <= 8) return go(std::integral_constant<int, 8>{}, k_form);
    if constexpr (!decltype(k_form)::value && gemv_max_rows<T>(false) > 8) {
      if (rows <= 16) return go(std::integral_constant<int, 16>{}, k_form);
      if constexpr (gemv_max_rows<T>(false) > 16) return go(std::integral_constant<int, 32>{}, k_form);
    }
  };
  if (along_k) sized(std::true_type{});
  else sized(std::false_type{});
  return true;
}

// The columns [n0, n0 + cols) of C and the operands' matching columns.
template <class T>
GemmArgs<T> cols_of(const GemmArgs<T>& a, int64_t n0, int64_t cols) {
  GemmArgs<T> r = a;
  r.N = cols;
  r.B = a.tb ? a.B + n0 * a.ldb : a.B + n0;
  r.C = a.C + n0;
  r.n_read = a.n_read > 0 ? a.n_read - n0 : 0;
  return r;
}

template <class Cfg, class T>
void run_config(const Device& dev, const GemmArgs<T>& a) {
  const bool al = vec_ok(a);
  // 16-byte rows whose lines end inside a chunk: B as stored with N not a multiple of VEC, A stored
  // transposed with M not one. The blocks of the last column (row) of tiles cannot clamp their loads to a
  // whole chunk (Strip::clamps), so they run every step with bounds tests, and in a single wave the slowest
  // block sets the kernel's time (
  // docs/history/performance-log.md#nvidia-h200-sgemm-on-unaligned-operands--a-128-x-256-tile-packing-and-a-matrix-vector-tail-2026-11-26). Such a product runs its first N - N % VEC columns
  // (M - M % VEC rows) here and the other 1-3 through the matrix-vector kernel, which reads the other
  // operand once.
  constexpr int64_t vec = 16 / sizeof(T);
  // part(first, count): the product over columns (rows) [first, first + count) of C
  const auto split = [&](int64_t whole, auto part) {
    const int64_t body = whole - whole % vec;
    run_config<Cfg>(dev, part(0, body));
    const GemmArgs<T> tail = part(body, whole - body);
    if (!run_gemv(dev, tail)) run_config<Cfg>(dev, tail);
  };
  // A packed copy's lines are padded to whole chunks and may be read to their end (n_read, m_read): no tail.
  if (al && !a.tb && a.N > vec && lines_b(a) % vec != 0)
    return split(a.N, [&](int64_t first, int64_t count) { return cols_of(a, first, count); });
  if (al && a.ta && a.M > vec && lines_a(a) % vec != 0)
    return split(a.M, [&](int64_t first, int64_t count) { return rows_of(a, first, count); });
  with_storage(a, [&](auto ta, auto tb) {
    if (al) return run_warp_tiled<Cfg, T, true, ta.value, tb.value>(dev, a);
    return run_warp_tiled<Cfg, T, false, ta.value, tb.value>(dev, a);
  });
}

// This target's configurations for T.
template <class T>
auto configs_for() {
  if constexpr (tk::this_target == Target::cpu) {
    if constexpr (sizeof(T) == 4) return cfg::CpuFloat{};
    else return cfg::CpuDouble{};
  } else if constexpr (tk::this_target == Target::hip) {
    if constexpr (sizeof(T) == 4) return cfg::HipFloat{};
    else return cfg::HipDouble{};
  } else {
    if constexpr (sizeof(T) == 4) return cfg::CudaFloat{};
    else return cfg::CudaDouble{};
  }
}

template <class T, class... Cs>
bool run_named(const Device& dev, const GemmArgs<T>& a, const char* name, cfg::List<Cs...>) {
  return ((std::strcmp(name, Cs::name) == 0 ? (run_config<Cs>(dev, a), true) : false) || ...);
}

template <class... Cs>
std::vector<const char*> names(cfg::List<Cs...>) {
  return {Cs::name...};
}

// The launcher's choice among the target's configurations (docs/performance.md#h100-sgemm has the measurements).
template <class T>
const char* pick(const Device& dev, const GemmArgs<T>& a) {
  if constexpr (tk::this_target == Target::cuda && sizeof(T) == 4) {
    // Long K over a wave or more: the 128 x 128 tiles for 16-byte rows (NT: strips in pairs), the 128 x 256
    // ones for rows that are not (scalar loads, where packing did not pay: worth_packing); the 128 x 64
    // tiles, three blocks per SM, for the rest: short K (a block's prologue and epilogue weigh), batches of
    // small matrices and C of less than a wave.
    if (thin_tiles(a)) return a.M <= a.N ? cfg::cuda_thin_m::name : cfg::cuda_thin_n::name;
    const int sms = dev.props().multiprocessors;
    if (a.K > 1536 && int64_t{tile_count(a, 128, 256)} * a.batch >= sms - sms / 8) {
      if (!vec_ok(a)) return cfg::cuda_wide::name;
      return !a.ta && a.tb ? cfg::cuda_square_nt::name : cfg::cuda_square::name;
    }
    // 65-96 rows of C where cuda_mid would run, N >= 2048, B's lines along n (NN, TN) and 16-byte rows (not a
    // copy packed with padded lines of A): three 32-row tiles beat one of 128 rows by 3-14% on every shape
    // measured; in NT and TT, from 104 rows and on a packed A of 65 rows they lost (
    // docs/history/performance-log.md#nvidia-h100-65-127-rows-of-c-the-pick-against-the-thin-tiles-65-96-rows-in-nn-and-tn-on-them-2026-11-26-issue-12).
    if (a.batch == 1 && a.M <= 96 && a.M > 64 && a.N >= 2048 && !a.tb && vec_ok(a) && lines_a(a) == a.M)
      return cfg::cuda_thin_m::name;
    return cfg::cuda_mid::name;
  } else if constexpr (tk::this_target == Target::cuda) {
    const DeviceProps& p = dev.props();
    const int sms = p.multiprocessors;
    const int64_t per_matrix = tile_count(a, 128, 128);
    const bool dmma = fp64_tensor_cores(dev);  // (the CPU executor's own props say "x86_64 ...": no)
    if (per_matrix * a.batch < sms) return dmma ? cfg::cuda_dmma_small::name : cfg::cuda_f64_small::name;  // < a wave
    if (dmma) return cfg::cuda_dmma::name;
    return a.batch > 1 && per_matrix < sms ? cfg::cuda_f64_batched::name : cfg::cuda_f64::name;
  } else {
    return names(configs_for<T>()).front();
  }
}

// TK_MATMUL_CONFIG=<name> forces a configuration in every call of its precision (tuning runs,
// tools/gpu-check.sh): nullptr when unset or naming the other precision's (a double configuration leaves float
// GEMMs alone); a name that is neither precision's is refused.
template <class T>
const char* forced_config() {
  const std::string& forced = tk::detail::knobs().matmul_config;
  if (forced.empty()) return nullptr;
  using Other = std::conditional_t<sizeof(T) == 4, double, float>;
  for (const char* n : names(configs_for<T>()))
    if (forced == n) return n;
  std::string known;
  for (const char* n : names(configs_for<Other>())) {
    if (forced == n) return nullptr;
    known += std::string(known.empty() ? "" : ", ") + n;
  }
  for (const char* n : names(configs_for<T>())) known += std::string(known.empty() ? "" : ", ") + n;
  const char* call = tk::detail::current_call();
  tk::detail::fail("tk::", call ? call : "gemm", ": TK_MATMUL_CONFIG is '", forced,
                   "', not one of this target's configurations: ", known);
}

template <class T>
void run_warp_tiled_as_is(const Device& dev, const GemmArgs<T>& a, const char* config) {
  const char* forced = config ? nullptr : forced_config<T>();
  const char* name = config ? config : forced ? forced : pick(dev, a);
  if (!run_named(dev, a, name, configs_for<T>())) {
    std::string known;
    for (const char* n : names(configs_for<T>())) known += std::string(known.empty() ? "" : ", ") + n;
    tk::detail::fail("tk::gemm: warp_tiled configuration '", name, "' (argument 'config') is not one of this target's for ",
                     sizeof(T) == 4 ? "float" : "double", ": ", known);
  }
}

// Packing (pack.hpp): a single product whose A or B rows are not 16-byte multiples runs on copies of those
// operands with aligned rows, padded to whole chunks (so no matrix-vector tail either), when its arithmetic
// outweighs the copy (pack_rule.hpp). TK_MATMUL_PACK=0 turns it off, 2 packs every such product.
template <class T>
bool worth_packing(const GemmArgs<T>& a) {
  const int knob = tk::detail::knobs().matmul_pack;
  if (a.batch != 1 || knob == 0 || vec_ok(a)) return false;
  return knob == 2 || tk::kernels::matmul_packing::pays(a.M, a.N, a.K);
}

// Runs run(args) on a copy of `a` whose unaligned operands are packed into a workspace on the call's
// stream. If the workspace cannot be had (device memory is short), on `a` as it is.
template <class T, class F>
void with_packed(const Device& dev, const GemmArgs<T>& a, F&& run) {
  constexpr int64_t vec = 16 / sizeof(T);
  // rows x cols as stored: A is M x K (K x M transposed), B K x N (N x K transposed)
  const auto stored = [](int64_t rows, int64_t cols, bool t) { return t ? std::pair{cols, rows} : std::pair{rows, cols}; };
  const auto [ar, ac] = stored(a.M, a.K, a.ta);
  const auto [br, bc] = stored(a.K, a.N, a.tb);
  const bool pa = !vec_ok(a.A, a.lda, a.sa, 1), pb = !vec_ok(a.B, a.ldb, a.sb, 1);
  const auto round = [](int64_t n, int64_t to) { return (n + to - 1) / to * to; };
  const int64_t lda = round(ac, vec), ldb = round(bc, vec);
  const int64_t a_elems = pa ? round(ar * lda, 64) : 0, b_elems = pb ? br * ldb : 0;
  std::optional<tk::detail::Workspace> scratch;
  try {
    scratch.emplace(dev, sizeof(T) * static_cast<std::size_t>(a_elems + b_elems));
  } catch (const tk::Error&) {
    return run(a);
  }
  T* const base = static_cast<T*>(scratch->get());
  GemmArgs<T> p = a;
  const auto pack = [&](const T* X, int64_t ld, int64_t rows, int64_t cols, T* P, int64_t ldp) {
    constexpr int threads = 256, per_thread = 4;
    const int gx = static_cast<int>((ldp + threads * per_thread - 1) / (threads * per_thread));
    const int gy = static_cast<int>(std::min<int64_t>(rows, 65535));
    tk::launch(dev, {"matmul_pack", {gx, gy, 1}, {threads, 1, 1}, 0}, &tk::kernels::matmul_pack<T, per_thread>, rows,
               cols, X, ld, P, ldp);
  };
  if (pa) {
    pack(a.A, a.lda, ar, ac, base, lda);
    p.A = base;
    p.lda = lda;
    p.sa = 0;
    if (a.ta) p.m_read = lda;  // K x M: lines along m, zero from M to lda
  }
  if (pb) {
    pack(a.B, a.ldb, br, bc, base + a_elems, ldb);
    p.B = base + a_elems;
    p.ldb = ldb;
    p.sb = 0;
    if (!a.tb) p.n_read = ldb;  // K x N: lines along n, zero from N to ldb
  }
  run(p);
}

template <class T>
void run_warp_tiled(const Device& dev, const GemmArgs<T>& a, const char* config) {
  if (worth_packing(a)) return with_packed(dev, a, [&](const GemmArgs<T>& p) { run_warp_tiled_as_is(dev, p, config); });
  run_warp_tiled_as_is(dev, a, config);
}

template <class T>
void gemm_impl(const Device& dev, MatmulVariant variant, const GemmArgs<T>& a, const char* config) {
  switch (variant) {
    case MatmulVariant::naive: return run_naive(dev, a);
    case MatmulVariant::smem_tiled16: return run_smem_tiled<16>(dev, a);
    case MatmulVariant::smem_tiled32: return run_smem_tiled<32>(dev, a);
    case MatmulVariant::smem_dynamic: return run_smem_dynamic(dev, a);
    case MatmulVariant::register_tiled: return run_register_tiled(dev, a);
    case MatmulVariant::warp_tiled: return run_warp_tiled(dev, a, config);
    case MatmulVariant::best:
      // A side of C of at most 8 (32), unless a configuration is asked for (the argument; on a GPU target
      // TK_MATMUL_CONFIG, whose tuning runs time that configuration on every shape).
      if (!config && (tk::this_target == Target::cpu || !forced_config<T>()) && !thin_tiles(a) &&
          run_gemv(dev, a))
        return;
      // Measured (
      // docs/history/performance-log.md#cpu-the-same-kernel-sources-on-the-2-core-avx-512-machine-20483): on a CPU the register-tiled kernel, which loads its strips straight
      // into the block's arrays, beats the warp-tiled one, whose GPU-shaped loads cost more than they hide.
      if constexpr (tk::this_target == Target::cpu) return run_register_tiled(dev, a);
      return run_warp_tiled(dev, a, config);
  }
  tk::detail::fail("tk::gemm: argument 'variant' is ", static_cast<int>(variant), "; expected a tk::MatmulVariant");
}

}  // namespace

// The double GEMM is compiled in a translation unit of its own (launch_double.cpp, which includes this file
// with TK_MATMUL_DOUBLE_TU): the two element types' kernel instantiations then compile in parallel, and this
// file, each target's longest compile (the CPU executor's CUDA shapes in a checked build: 4.7 minutes), no
// longer holds a build's last minutes alone.
#if defined(TK_MATMUL_DOUBLE_TU)
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<double>& a, const char* config) {
  gemm_impl(dev, variant, a, config);
}
#else
void gemm(const Device& dev, MatmulVariant variant, const GemmArgs<float>& a, const char* config) {
  gemm_impl(dev, variant, a, config);
}

std::vector<const char*> matmul_configs(int bytes) {
  return bytes == 8 ? names(configs_for<double>()) : names(configs_for<float>());
}

namespace {
template <class T>
std::string tile_choice(const Device& dev, int64_t M, int64_t N, int64_t K) {
  const GemmArgs<T> a{M, N, K, T(1), nullptr, K, 0, false, nullptr, N, 0, false, T(0), nullptr, N, 0, 1};
  if (std::min(M, N) >= 1 && std::min(M, N) <= gemv_max_rows<T>(M > N) && !thin_tiles(a)) {
    return "gemv (C has " + std::to_string(std::min(M, N)) + (M <= N ? " rows" : " columns") + ", at most " +
           std::to_string(gemv_max_rows<T>(M > N)) + " here: the other operand is read once, split along K to fill " +
           "the machine)";
  }
  if constexpr (tk::this_target == Target::cpu) {
    const int64_t tail = tk::kernels::matmul_cpu::tail_rows(M);
    const auto b = cpu_block<T>(dev, M - tail, N, 1);
    const int lanes = tk::warp_size * 4 / static_cast<int>(sizeof(T));  // warp_size: the float lanes
    const int splits = cpu_splits(M - tail, N, K, 1, b);
    return "register_tiled, block " + std::to_string(b.bm) + " x " + std::to_string(b.bn) +
           " x " + std::to_string(tk::kernels::matmul_cpu::bk) +
           (splits > 1 ? ", K split " + std::to_string(splits) + " ways (fewer blocks than threads)" : std::string()) +
           (tail > 0 ? ", the last " + std::to_string(tail) + " rows in 48-row blocks of their own" : std::string()) +
           " (" + b.why + "; L2 " +
           std::to_string(dev.props().l2_bytes >> 10) + " KiB, " + std::to_string(cpu_slots(dev)) +
           " block slots), thread " + std::to_string(cpu_tile::tm) + " x " + std::to_string(cpu_tile::tn) +
           " vectors (" + std::to_string(cpu_tile::registers) + " vector registers; a vector of threads is " +
           std::to_string(lanes) + " lanes)";
  } else {
    return std::string("warp_tiled, configuration ") + pick(dev, a) + " (for no transpose, K = " + std::to_string(K) + ")";
  }
}
}  // namespace

std::string matmul_tile_choice(const Device& dev, int bytes, int64_t M, int64_t N, int64_t K) {
  return bytes == 8 ? tile_choice<double>(dev, M, N, K) : tile_choice<float>(dev, M, N, K);
}
#endif  // TK_MATMUL_DOUBLE_TU

}  // namespace tk::launchers::TK_TARGET_ID
