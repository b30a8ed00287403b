// kernels/matmul/launch.cpp — the matmul launchers, compiled once per target: grid math, the tile
// parameters of each target, the choice of `best` and of split-K.
//
// Tile parameters, per target (the kernel text is the same for all):
// - CUDA (sm_90): warp_tiled in three configurations picked by the size of C and K (cuda_config below),
//   double-buffered with 64 x 64 or 64 x 32 warp tiles of 8 x 4 per lane; CGMA 85 to 170.
//   register_tiled 128 x 128 x 8 with 8 x 8 per thread (256 threads, 8 KiB).
// - HIP: the same tiles with 64-lane wavefronts (256 threads); 33 KiB, within the 64 KiB LDS.
// - CPU: `best` is register_tiled with a 192 x 128 block tile and 6 x 4 outputs per thread, threads
//   32 wide: a phase's simd loop runs 16 threads (one AVX-512 vector) at a time, each with 6 x 4 = 24
//   vector accumulators that stay in registers through the k loop (6 broadcasts of A and 4 vectors of B
//   per 24 FMAs). BK = 128: the block's strips of A (98 KiB) and B (64 KiB) stay in L2, and loading them
//   (scalar, transposing) costs (1/BM + 1/BN) of the multiply — measured 63-68% of OpenBLAS with 96 x 64
//   tiles, 86-89% with 192 x 128. warp_tiled on the CPU: 96 x 64 tiles, one 16-lane vector per warp, one
//   stage (there is no global-memory latency for a second buffer to hide).
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "naive.hpp"
#include "register_tiled.hpp"
#include "smem_dynamic.hpp"
#include "smem_tiled.hpp"
#include "splitk_reduce.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"
#include "warp_tiled.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

using std::int64_t;

struct Args {
  int64_t M, N, K;
  float alpha;
  const float* A;
  int64_t lda;
  const float* B;
  int64_t ldb;
  float beta;
  float* C;
  int64_t ldc;
};

int tiles(const Args& a, int64_t bm, int64_t bn) {
  const int64_t t = ((a.M + bm - 1) / bm) * ((a.N + bn - 1) / bn);
  if (t > 0x7fffffff) tk::detail::fail("tk::matmul: ", a.M, " x ", a.N, " needs more than 2^31 - 1 tiles");
  return static_cast<int>(t);
}

// 16-byte accesses need 16-byte aligned matrices whose rows stay aligned.
bool vec4_ok(const Args& a) {
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return aligned(a.A) && aligned(a.B) && a.lda % 4 == 0 && a.ldb % 4 == 0;
}

void run_naive(const Device& dev, const Args& a) {
  constexpr int T = 16;
  tk::launch(dev, {"matmul_naive", {tiles(a, T, T), 1, 1}, {T, T, 1}, 0}, &tk::kernels::matmul_naive, a.M, a.N, a.K,
             a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
}

template <int TILE>
void run_smem_tiled(const Device& dev, const Args& a) {
  tk::launch(dev, {"matmul_smem_tiled", {tiles(a, TILE, TILE), 1, 1}, {TILE, TILE, 1}, 0},
             &tk::kernels::matmul_smem_tiled<TILE>, a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
}

void run_smem_dynamic(const Device& dev, const Args& a) {
  // The largest tile whose two strips fit the block's shared memory and whose threads fit a block:
  // 32 on current GPUs (8 KiB, 1024 threads) and on CPUs (8 KiB, well inside L1).
  const DeviceProps& p = dev.props();
  int t = 32;
  if constexpr (tk::this_target != Target::cpu) {  // a CPU block has no shared-memory or thread limit
    while (t > 1 && (std::int64_t{2} * t * t * 4 > p.shared_per_block || t * t > p.max_threads_per_block)) t /= 2;
  }
  tk::launch(dev, {"matmul_smem_dynamic", {tiles(a, t, t), 1, 1}, {t, t, 1}, std::size_t{2} * t * t * sizeof(float)},
             &tk::kernels::matmul_smem_dynamic, a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
}

template <int BM, int BN, int BK, int TM, int TN, int VEC>
void run_register_tiled(const Device& dev, const Args& a) {
  tk::launch(dev, {"matmul_register_tiled", {tiles(a, BM, BN), 1, 1}, {BN / TN, BM / TM, 1}, 0},
             &tk::kernels::matmul_register_tiled<BM, BN, BK, TM, TN, VEC>, a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B,
             a.ldb, a.beta, a.C, a.ldc);
}

void run_register_tiled(const Device& dev, const Args& a) {
  if constexpr (tk::this_target == Target::cpu) {
    if (vec4_ok(a)) return run_register_tiled<192, 128, 128, 6, 4, 4>(dev, a);
    return run_register_tiled<192, 128, 128, 6, 4, 1>(dev, a);
  } else {
    if (vec4_ok(a)) return run_register_tiled<128, 128, 8, 8, 8, 4>(dev, a);
    return run_register_tiled<128, 128, 8, 8, 8, 1>(dev, a);
  }
}

// Blocks the device runs at once: split-K aims to fill them when C has too few tiles. On a GPU, the
// multiprocessors times the kernel's own occupancy (`per_sm`, the runtime's answer for that kernel: the
// 128 x 256 kernel fits one block per SM, the short-K 128 x 64 one three); on a CPU, 4 blocks per core.
int parallel_slots(const Device& dev, int per_sm) {
  const DeviceProps& p = dev.props();
  return tk::this_target == Target::cpu ? 4 * std::max(1, p.multiprocessors) : per_sm * p.multiprocessors;
}

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int WARP, int STAGES, bool ALIGNED,
          int MINB = 1, bool UNROLL = true, bool PREFETCH = false>
void run_warp_tiled(const Device& dev, const Args& a) {
  constexpr int VEC = 4;
  using T = tk::kernels::WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN, WARP, STAGES, VEC>;
  const int t = tiles(a, BM, BN);
  const auto kernel =
      &tk::kernels::matmul_warp_tiled<BM, BN, BK, WM, WN, WNITER, TM, TN, WARP, STAGES, VEC, ALIGNED, MINB, UNROLL,
                                      PREFETCH>;
  const Dim3 block{T::lanes_n, WARP / T::lanes_n, T::threads / WARP};
  // The runtime's occupancy for this kernel, asked once per instantiation (a static here, in the
  // template, not in a helper shared by every kernel of the same signature).
  static const int per_sm = [&] {
    if constexpr (tk::this_target == Target::cpu) {
      return 0;
    } else {
      const int b = tk::describe(dev, {"matmul_warp_tiled", {1, 1, 1}, block, 0}, kernel)
                        .runtime_blocks_per_multiprocessor;
      return b > 0 ? b : 2;
    }
  }();
  // Split K when C's tiles cannot fill the device and each split keeps at least 8 strips of BK.
  const int64_t max_splits = std::max<int64_t>(1, a.K / (8 * BK));
  const int64_t splits = std::min<int64_t>({max_splits, std::max(1, parallel_slots(dev, per_sm) / t), 64});
  const int64_t k_per_split = (a.K + splits * BK - 1) / (splits * BK) * BK;
  if (splits == 1) {
    tk::launch(dev, {"matmul_warp_tiled", {t, 1, 1}, block, 0}, kernel, a.M, a.N, a.K, a.alpha, a.A,
               a.lda, a.B, a.ldb, a.beta, a.C, a.ldc, a.K, static_cast<float*>(nullptr));
    return;
  }
  const tk::detail::Workspace scratch(dev, sizeof(float) * splits * a.M * a.N);
  auto* partial = static_cast<float*>(scratch.get());
  tk::launch(dev, {"matmul_warp_tiled(split-K)", {static_cast<int>(splits) * t, 1, 1}, block, 0}, kernel,
             a.M, a.N, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc, k_per_split, partial);
  constexpr int threads = 256;
  const int gx = static_cast<int>((a.N + threads - 1) / threads), gy = static_cast<int>(std::min<int64_t>(a.M, 65535));
  tk::launch(dev, {"matmul_splitk_reduce", {gx, gy, 1}, {threads, 1, 1}, 0}, &tk::kernels::matmul_splitk_reduce, a.M,
             a.N, static_cast<int>(splits), static_cast<const float*>(partial), a.alpha, a.beta, a.C, a.ldc);
}

// CUDA tile configurations (% of the same-run cuBLAS on an H100; tuning runs vary by a point or two, the
// smallest shapes more; docs/performance.md has the final run). "Unrolled": the k loop runs two steps per
// iteration so each step's shared buffers are constants, and the steps whose next strip lies inside K run
// without bounds tests (warp_tiled.hpp).
//   1: 128 x 256 x 8, 64 x 64 warp tiles of 8 x 4 x 4 per lane, 256 threads, unrolled, 243 registers, 25 KiB:
//      about a wave of tiles or more (4096^3 92%, 2048^3 90-91%, 8192^3 94%, 4095^3 91-92%; rolled 82%)
//   2: 128 x 64 x 16, 64 x 32 warp tiles, 128 threads, rolled, three blocks per SM (168 registers): short K
//      (8192 x 8192 x 256: 97%; unrolled, two blocks per SM: 76-83%)
//   6: 2 unrolled: the rest — small C with long K, split-K (1024^3 85-88%, 1000 x 500 x 3000 82-84%)
// Alternatives for tuning runs (TK_MATMUL_TUNE=<n>, TK_TUNE="0 1 ..." tools/gpu-check.sh), not picked:
//   0: 128 x 128 x 8, 64 x 64 warp tiles, 128 threads, rolled, 233 registers (2048^3: 74%)
//   3: 128 x 128 x 16, 64 x 32 warp tiles, 256 threads held to 128 registers for two blocks per SM,
//      rolled, spills (2048^3: 76-78%)
//   4, 5: 1 and 2 with three stages of cp.async copies and fragment pipelining, rolled (255 registers; the
//      unaligned builds spill): correct (the GPU tests pass with them forced) but slower (4096^3 74-79%;
//      unrolled with constant stage indices, measured at 578c457 and removed since: 74.6%, 73.5% for
//      256 x 128 x 8)
//   7: 1 rolled (225 registers; 82%)
//   8: 256 x 128 x 8, unrolled (4096^3 91% with a block-uniform fast path, 85% with the separate loop)
//   9: 0 unrolled (255 registers; 78%)
//   10, 11, 12: 1, 8 and 6 with fragment pipelining (PREFETCH; 4096^3 87-88%, 84%; 1024^3 83-86%)
}  // namespace

#if defined(TK_CPU_AS_CUDA)
// The tests of the CUDA shapes on the CPU force each configuration in turn (tests/test_gpu_shapes.cpp).
int forced_cuda_config = -1;
#endif

namespace {

int cuda_config(const Device& dev, const Args& a) {
#if defined(TK_CPU_AS_CUDA)
  if (forced_cuda_config >= 0) return forced_cuda_config;
#endif
  static const int forced = [] {
    const char* e = std::getenv("TK_MATMUL_TUNE");
    return e ? std::atoi(e) : -1;
  }();
  if (forced >= 0) return forced;
  const int sms = dev.props().multiprocessors;
  if (a.K <= 512) return 2;                          // short K: prologue and epilogue weigh; smaller tiles
  if (tiles(a, 128, 256) >= sms - sms / 8) return 1;  // about a wave or more of the largest tiles
  return 6;
}

template <bool AL>
void run_warp_tiled_cuda(const Device& dev, const Args& a) {
  switch (cuda_config(dev, a)) {
    case 1: return run_warp_tiled<128, 256, 8, 64, 64, 4, 8, 4, 32, 2, AL>(dev, a);
    case 2: return run_warp_tiled<128, 64, 16, 64, 32, 2, 8, 4, 32, 2, AL, 3, false>(dev, a);
    case 3: return run_warp_tiled<128, 128, 16, 64, 32, 2, 8, 4, 32, 2, AL, 2, false>(dev, a);
    case 4: return run_warp_tiled<128, 256, 8, 64, 64, 4, 8, 4, 32, 3, AL, 1, false>(dev, a);
    case 5: return run_warp_tiled<128, 64, 16, 64, 32, 2, 8, 4, 32, 3, AL, 1, false>(dev, a);
    case 6: return run_warp_tiled<128, 64, 16, 64, 32, 2, 8, 4, 32, 2, AL, 1, true>(dev, a);
    case 7: return run_warp_tiled<128, 256, 8, 64, 64, 4, 8, 4, 32, 2, AL, 1, false>(dev, a);
    case 8: return run_warp_tiled<256, 128, 8, 64, 64, 4, 8, 4, 32, 2, AL>(dev, a);
    case 9: return run_warp_tiled<128, 128, 8, 64, 64, 4, 8, 4, 32, 2, AL>(dev, a);
    case 10: return run_warp_tiled<128, 256, 8, 64, 64, 4, 8, 4, 32, 2, AL, 1, true, true>(dev, a);
    case 11: return run_warp_tiled<256, 128, 8, 64, 64, 4, 8, 4, 32, 2, AL, 1, true, true>(dev, a);
    case 12: return run_warp_tiled<128, 64, 16, 64, 32, 2, 8, 4, 32, 2, AL, 1, true, true>(dev, a);
    default: return run_warp_tiled<128, 128, 8, 64, 64, 4, 8, 4, 32, 2, AL, 1, false>(dev, a);
  }
}

void run_warp_tiled(const Device& dev, const Args& a) {
  const bool v4 = vec4_ok(a);
  if constexpr (tk::this_target == Target::cpu) {
    if (v4) return run_warp_tiled<96, 64, 128, 6, 64, 4, 6, 1, 16, 1, true>(dev, a);
    return run_warp_tiled<96, 64, 128, 6, 64, 4, 6, 1, 16, 1, false>(dev, a);
  } else if constexpr (tk::this_target == Target::hip) {
    // The rolled k loop, as before the CUDA unrolling (not measured on AMD hardware either way), with strips
    // of 8: with 16 the compiler hoists a whole strip's shared loads and spills (gfx1030: 460 bytes of scratch;
    // gfx90a: 20 VGPRs into AGPRs); with 8, 215 and 238 VGPRs and no spill (tools/amdgpu-resources).
    if (v4) return run_warp_tiled<128, 128, 8, 64, 64, 2, 8, 4, 64, 2, true, 1, false>(dev, a);
    return run_warp_tiled<128, 128, 8, 64, 64, 2, 8, 4, 64, 2, false, 1, false>(dev, a);
  } else {
    if (v4) return run_warp_tiled_cuda<true>(dev, a);
    return run_warp_tiled_cuda<false>(dev, a);
  }
}

}  // namespace

void matmul(const Device& dev, MatmulVariant variant, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
            int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  const Args a{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
  switch (variant) {
    case MatmulVariant::naive: return run_naive(dev, a);
    case MatmulVariant::smem_tiled16: return run_smem_tiled<16>(dev, a);
    case MatmulVariant::smem_tiled32: return run_smem_tiled<32>(dev, a);
    case MatmulVariant::smem_dynamic: return run_smem_dynamic(dev, a);
    case MatmulVariant::register_tiled: return run_register_tiled(dev, a);
    case MatmulVariant::warp_tiled: return run_warp_tiled(dev, a);
    case MatmulVariant::best:
      // Measured (docs/performance.md): on a CPU the register-tiled kernel, which loads its strips straight
      // into the block's arrays, beats the warp-tiled one, whose GPU-shaped loads cost more than they hide.
      if constexpr (tk::this_target == Target::cpu) return run_register_tiled(dev, a);
      return run_warp_tiled(dev, a);
  }
  tk::detail::fail("tk::matmul: argument 'variant' is ", static_cast<int>(variant), "; expected a tk::MatmulVariant");
}

}  // namespace tk::launchers::TK_TARGET_ID
