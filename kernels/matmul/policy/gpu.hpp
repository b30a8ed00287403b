// kernels/matmul/policy/gpu.hpp — what the CUDA and HIP GEMM policies share: register_tiled's one tile, the
// matrix-vector kernel's blocks, the wave plan of warp_tiled and the tile-choice text. A target's own file
// (cuda.hpp, hip.hpp) adds its configurations, its pick and its machine model. The rule `best` follows is
// described once, in docs/design.md#what-best-runs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "../args.hpp"
#include "../config.hpp"
#include "../waves.hpp"
#include "tilekit/detail/knobs.hpp"
#include "tilekit/detail/per_device.hpp"
#include "tilekit/device.hpp"
#include "tilekit/kernel.hpp"

namespace tk::kernels::matmul_policy {

using std::int64_t;
using tk::detail::GemmArgs;

// register_tiled's block: BM x BN x BK, TM x TN outputs per thread, VEC-element loads.
template <int BM, int BN, int BK, int TM, int TN, int VEC>
struct RegisterTile {
  static constexpr int bm = BM, bn = BN, bk = BK, tm = TM, tn = TN, vec = VEC;
};

// The gemv kernel's block on a GPU: threads read 16 bytes each (8 with more than 8 accumulators). First form
// (W's lines along j): 64 x 4 threads, chunks of 32 k; with more than 8 accumulators 128 x 1 (no shared sums),
// chunks of 16. Second (along k): a warp along k per line, 256 threads.
template <class T, bool ALONG_K, int R>
struct GpuGemvShape {
  static constexpr bool many = R > 8;
  static constexpr int vec = (many ? 8 : 16) / static_cast<int>(sizeof(T));
  static constexpr int bx = ALONG_K ? tk::warp_size : many ? 128 : 64;
  static constexpr int by = ALONG_K ? 256 / tk::warp_size : many ? 1 : 4;
  static constexpr int kc = ALONG_K ? bx * vec * 4 : many ? 16 : 32;
  static constexpr int per_block = ALONG_K ? by : bx * vec;
};

// Target: the derived policy (Cuda, Hip), which provides configs<T>, pick and machine.
template <class Target>
struct Gpu {
  // `best` runs warp_tiled (after the matrix-vector routing).
  static constexpr bool best_register_tiled = false;
  // The runtime's blocks per multiprocessor for `kernel` with `block` (for slots and plan), asked once per
  // device: `cache` is a static of the calling launcher's template, one per kernel instantiation.
  template <class Kernel>
  static int occupancy(tk::detail::PerDevice<int>& cache, const Device& dev, const char* name, Dim3 block,
                       Kernel kernel) {
    return cache.get(dev.index(), [&] {
      const int b = tk::describe(dev, {name, {1, 1, 1}, block, 0}, kernel).runtime_blocks_per_multiprocessor;
      return b > 0 ? b : 2;
    });
  }

  // Up to this many rows (or columns) of C, `best` streams the other operand once (gemv.hpp): 8 where W's
  // lines lie along k (its second form's threads would read R vectors of X from shared memory per vector of
  // W), else 32 for floats and 16 for doubles (32 accumulators of one double spilled on gfx1030,
  // tools/amdgpu-resources).
  template <class T>
  static constexpr int64_t gemv_max_rows(bool along_k) {
    return along_k ? 8 : sizeof(T) == 8 ? 16 : 32;
  }
  template <class T, bool ALONG_K, int R>
  using gemv_shape = GpuGemvShape<T, ALONG_K, R>;

  // smem_dynamic's tile: the largest whose two strips fit the block's shared memory and whose threads fit a
  // block (32 on current GPUs: 8 KiB of floats, 1024 threads).
  template <class T>
  static int dynamic_tile(const Device& dev) {
    const DeviceProps& p = dev.props();
    int t = 32;
    while (t > 1 && (int64_t{2} * t * t * int64_t{sizeof(T)} > p.shared_per_block || t * t > p.max_threads_per_block))
      t /= 2;
    return t;
  }

  // Blocks that run at once, from the runtime's blocks per SM.
  static int slots(const Device& dev, int per_sm) { return per_sm * dev.props().multiprocessors; }

  // Products routed to warp_tiled's tiles instead of the matrix-vector kernel: none by default.
  template <class T>
  static bool tiles_not_gemv(const GemmArgs<T>&) {
    return false;
  }

  // register_tiled: 128 x 128 x 8 with 8 x 8 per thread (256 threads), 16-byte loads where aligned.
  template <class T, class Run>
  static void register_tiled(const Device&, const GemmArgs<T>& a, Run&& run) {
    constexpr int V = 16 / sizeof(T);
    if (matmul_args::vec_ok(a)) return run(RegisterTile<128, 128, 8, 8, 8, V>{}, a, int64_t{1});
    run(RegisterTile<128, 128, 8, 8, 8, 1>{}, a, int64_t{1});
  }
  // register_tiled's tiles per block: one on a GPU.
  template <class T>
  static int row_tiles(const Device&, const GemmArgs<T>&, int, int, int64_t) {
    return 1;
  }

  // warp_tiled's plan for one product (waves.hpp): rows run unsplit first, the rest split along K; batches
  // run as they are. On the CPU executor (the tests run the GPU launchers' shapes there) the plan is for a
  // pretend GPU of 4 slots, 20 FLOP per byte and free launches, so that every plan runs in the tests.
  template <class Cfg, class T>
  static matmul_waves::Plan plan(const Device& dev, const GemmArgs<T>& a, int per_sm) {
    using W = WarpTilingOf<Cfg>;
    if (a.batch > 1) return {};
    if (const int forced = tk::detail::knobs().matmul_split; forced > 0) return forced_plan(a.K, W::bk, forced);
    matmul_waves::Machine m = dev.backend() == Backend::cpu
                                  ? matmul_waves::pretend_gpu
                                  : Target::machine(dev, static_cast<int>(sizeof(T)), per_sm, W::mma_layout);
    // float on sm_90 (H100, H200): a whole split's partial products that fit the L2 priced at split_traffic_rate
    // (waves.hpp; measured there only: other GPUs, whose DRAM may be much slower against their FLOP rate, the other
    // precisions and AMD's GPUs keep the DRAM's price)
    if (sizeof(T) == 4 && dev.backend() == Backend::cuda && dev.props().arch == "sm_90")
      m = matmul_waves::onchip_partials(m, dev.props().peak_bandwidth_gbs() * 1e9,
                                        static_cast<double>(dev.props().l2_bytes));
    return matmul_waves::plan(a.M, a.N, a.K, W::bm, W::bn, W::bk, sizeof(T), m);
  }

  // The plan TK_MATMUL_SPLIT forces (knobs.hpp): 1 no split, else `forced` splits, at most one per strip of bk, each
  // a whole number of strips (so that none is empty).
  static matmul_waves::Plan forced_plan(int64_t K, int64_t bk, int forced) {
    int64_t s = std::min<int64_t>(forced, (K + bk - 1) / bk);
    if (s <= 1) return {};
    const int64_t per = (K + s * bk - 1) / (s * bk) * bk;
    return {0, (K + per - 1) / per};
  }

  // The machine for the wave plan from a target's FMA lanes per SM: the blocks that run at once, the peak
  // FLOP rate over the peak DRAM bandwidth, a kernel launch's cost, 8 us (the H100 measurement in waves.hpp),
  // and the multiprocessors.
  static matmul_waves::Machine machine_of(const Device& dev, int per_sm, double lanes) {
    const DeviceProps& p = dev.props();
    const double flops = lanes * 2.0 * p.multiprocessors * static_cast<double>(p.clock_khz) * 1e3;
    const double bw = p.peak_bandwidth_gbs() * 1e9;
    constexpr double launch_seconds = 8e-6;
    return {int64_t{per_sm} * p.multiprocessors, bw > 0 ? flops / bw : 0.0, launch_seconds * bw, p.multiprocessors};
  }

  // What `best` runs for an M x N x K product past the matrix-vector routing, in words (tk::matmul_tile_choice).
  template <class T>
  static std::string tile_choice(const Device& dev, const GemmArgs<T>& a) {
    const char* role = Target::pick(dev, a);
    return std::string("warp_tiled, configuration ") + role + " = " +
           derived_name(role, typename Target::template configs<T>{}) +
           " (for no transpose, K = " + std::to_string(a.K) +
           (a.batch > 1 ? ", a batch of " + std::to_string(a.batch) : std::string()) + ")";
  }

  template <class... Cs>
  static std::string derived_name(const char* role, matmul_config::List<Cs...>) {
    std::string n;
    (void)((std::string(Cs::name) == role ? (n = matmul_config::config_name(Cs::config), true) : false) || ...);
    return n;
  }
};

}  // namespace tk::kernels::matmul_policy
