// tests/kernels/layer_launch.cpp — launchers of the kernel-layer test kernels, compiled once per target.
#include "../../kernels/matmul/warp_tiled.hpp"
#include "layer_kernels.hpp"
#include "layer_launchers.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::test_launchers::TK_TARGET_ID {
namespace {

struct MatmulArgs {
  std::int64_t M, N, K;
  const float* A;
  std::int64_t lda;
  const float* B;
  std::int64_t ldb;
  float* C;
  std::int64_t ldc;
  int splits;
  float* partial;
};

// One warp_tiled configuration with 16-lane "warps" (on a CPU the warp is only a layout), C = A B, split
// in `splits` along K (partial: splits x M x N floats) and summed on the host.
template <int BK, int STAGES, bool AL, bool UNROLL, bool PREFETCH>
void warp_tiled_on(const Device& dev, const MatmulArgs& a) {
  // 64 x 64 tiles of 32 x 32 warp tiles, 4 x 2 x 2 per lane: the GPU configurations' code paths with 64
  // outputs per thread instead of 128, which keeps the CPU compile of these kernels short
  constexpr int BM = 64, BN = 64, WM = 32, WN = 32, WNITER = 2, TM = 4, TN = 2, W = 16, VEC = 4;
  using T = tk::kernels::WarpTiling<BM, BN, BK, WM, WN, WNITER, TM, TN, W, STAGES, VEC>;
  const int tiles = static_cast<int>(((a.M + BM - 1) / BM) * ((a.N + BN - 1) / BN));
  const std::int64_t k_per_split = (a.K + std::int64_t{a.splits} * BK - 1) / (std::int64_t{a.splits} * BK) * BK;
  const auto kernel =
      &tk::kernels::matmul_warp_tiled<BM, BN, BK, WM, WN, WNITER, TM, TN, W, STAGES, VEC, AL, 1, UNROLL, PREFETCH>;
  const Dim3 block{T::lanes_n, W / T::lanes_n, T::threads / W};
  tk::launch(dev, {"matmul_warp_tiled", {a.splits * tiles, 1, 1}, block, 0}, kernel, a.M, a.N, a.K, 1.f, a.A, a.lda,
             a.B, a.ldb, 0.f, a.C, a.ldc, k_per_split, a.splits > 1 ? a.partial : static_cast<float*>(nullptr));
  for (std::int64_t i = 0; a.splits > 1 && i < a.M; ++i) {  // on the host: a CPU device's memory is the host's
    for (std::int64_t j = 0; j < a.N; ++j) {
      float sum = 0.f;
      for (int p = 0; p < a.splits; ++p) sum += a.partial[(p * a.M + i) * a.N + j];
      a.C[i * a.ldc + j] = sum;
    }
  }
}

template <bool AL>
void warp_tiled_pick(const Device& dev, int config, const MatmulArgs& a) {
  switch (config) {  // numbered after the GPU configurations of kernels/matmul/launch.cpp whose paths they take
    case 1: return warp_tiled_on<8, 2, AL, true, false>(dev, a);    // two steps per iteration, unchecked loop
    case 4: return warp_tiled_on<8, 3, AL, false, false>(dev, a);   // three-stage cp.async pipeline
    case 6: return warp_tiled_on<16, 2, AL, true, false>(dev, a);   // the same as 1 with BK = 16
    case 10: return warp_tiled_on<8, 2, AL, true, true>(dev, a);    // 1 with fragment pipelining
    default: tk::detail::fail("warp_tiled_config: argument 'config' is ", config, "; expected 1, 4, 6 or 10");
  }
}

}  // namespace

void where_am_i(const Device& dev, Dim3 grid, Dim3 block, std::int64_t* out) {
  tk::launch(dev, {"where_am_i", grid, block, 0}, &tk::kernels::test::where_am_i, out);
}

void reverse_segments(const Device& dev, int block, std::int64_t n, const float* in, float* out) {
  const int grid = static_cast<int>((n + block - 1) / block);
  tk::launch(dev, {"reverse_segments", {grid, 1, 1}, {block, 1, 1}, sizeof(float) * block},
             &tk::kernels::test::reverse_segments, n, in, out);
}

void block_sums(const Device& dev, std::int64_t n, const float* in, double* sums) {
  constexpr int block = 128, rounds = 3;
  const int grid = static_cast<int>((n + block * rounds - 1) / (block * rounds));
  tk::launch(dev, {"block_sums", {grid, 1, 1}, {block, 1, 1}, 0}, &tk::kernels::test::block_sums<block, rounds>, n, in,
             sums);
}

void report_warp_size(const Device& dev, int* out) {
  tk::launch(dev, {"report_warp_size", {1, 1, 1}, {64, 1, 1}, 0}, &tk::kernels::test::report_warp_size, out);
}

void raw_launch(const Device& dev, Dim3 grid, Dim3 block, std::size_t dynamic_shared, std::int64_t* out) {
  tk::launch(dev, {"raw_launch", grid, block, dynamic_shared}, &tk::kernels::test::where_am_i, out);
}

void staged_copy(const Device& dev, int bytes, int blocks, int rounds, std::int64_t n, const float* in, float* out) {
  const LaunchSpec spec{"staged_copy", {blocks, 1, 1}, {64, 1, 1}, 0};
  switch (bytes) {
    case 4: return tk::launch(dev, spec, &tk::kernels::test::staged_copy<4, 3>, n, rounds, in, out);
    case 8: return tk::launch(dev, spec, &tk::kernels::test::staged_copy<8, 4>, n, rounds, in, out);
    default: return tk::launch(dev, spec, &tk::kernels::test::staged_copy<16, 3>, n, rounds, in, out);
  }
}

void warp_tiled_config(const Device& dev, int config, bool aligned, std::int64_t M, std::int64_t N, std::int64_t K,
                       const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C, std::int64_t ldc,
                       int splits, float* partial) {
  if constexpr (tk::this_target == Target::cpu) {  // the GPUs run these through tk::matmul and TK_MATMUL_TUNE
    const MatmulArgs a{M, N, K, A, lda, B, ldb, C, ldc, splits, partial};
    if (aligned) return warp_tiled_pick<true>(dev, config, a);
    return warp_tiled_pick<false>(dev, config, a);
  } else {
    tk::detail::fail("warp_tiled_config: built for the CPU executor only, called on ", dev.name());
  }
}

}  // namespace tk::test_launchers::TK_TARGET_ID
