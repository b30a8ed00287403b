// tests/kernels/layer_launch.cpp — launchers of the kernel-layer test kernels, compiled once per target.
#include <cstring>
#include <tuple>
#include <type_traits>

#include "../../kernels/matmul/config.hpp"
#include "../../kernels/matmul/warp_tiled.hpp"
#include "layer_kernels.hpp"
#include "layer_launchers.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::test_launchers::TK_TARGET_ID {
namespace {

namespace mc = tk::kernels::matmul_config;

// warp_tiled's code paths with 16-lane "warps" (on a CPU the warp is only a layout) and 64 x 64 tiles of
// 32 x 32 warp tiles, 4 x 2 x 2 per lane: 64 outputs per thread instead of 128, which keeps the CPU compile
// of these kernels short.
constexpr mc::GemmConfig small_tiles =
    mc::config(mc::Block{64, 64, 8}, mc::Warp{32, 32, 2}, mc::Thread{4, 2}, mc::Lanes{16});
struct unrolled_bk8 {
  static constexpr const char* name = "unrolled_bk8";  // two steps per iteration, the unchecked loop
  static constexpr mc::GemmConfig config = small_tiles;
};
struct unrolled_bk16 {
  static constexpr const char* name = "unrolled_bk16";  // the same with partial last strips of 16
  static constexpr mc::GemmConfig config = mc::config(small_tiles, mc::Block{64, 64, 16});
};
struct rolled_bk8 {
  static constexpr const char* name = "rolled_bk8";  // one step per iteration, run-time buffer indices
  static constexpr mc::GemmConfig config = mc::config(small_tiles, mc::rolled);
};
struct one_stage {
  static constexpr const char* name = "one_stage";  // the CPU's single buffer
  static constexpr mc::GemmConfig config = mc::config(small_tiles, mc::Stages{1});
};

template <class Cfg, bool AL, class T>
void warp_tiled_on(const Device& dev, const tk::detail::GemmArgs<T>& a, int splits, T* partial) {
  using W = tk::kernels::WarpTilingOf<Cfg>;
  const int tiles = static_cast<int>(((a.M + W::bm - 1) / W::bm) * ((a.N + W::bn - 1) / W::bn));
  tk::kernels::matmul_detail::GemmParams<T> p;
  p.M = a.M;
  p.N = a.N;
  p.K = a.K;
  p.alpha = a.alpha;
  p.beta = a.beta;
  p.A = a.A;
  p.lda = a.lda;
  p.sa = a.sa;
  p.B = a.B;
  p.ldb = a.ldb;
  p.sb = a.sb;
  p.C = a.C;
  p.ldc = a.ldc;
  p.sc = a.sc;
  p.k_per_split = (a.K + std::int64_t{splits} * W::bk - 1) / (std::int64_t{splits} * W::bk) * W::bk;
  p.partial = splits > 1 ? partial : nullptr;
  p.m_read = a.M;
  p.n_read = a.N;
  const Dim3 block{W::lanes_n, W::warp / W::lanes_n, W::threads / W::warp};
  // Every storage of A and B, float and double, in unrolled_bk8 (the path with the most cases); the other
  // configurations in float with both operands as stored or both transposed (their loop forms do not depend
  // on the storage), which keeps the checked build's compile of this file within minutes.
  constexpr bool all = std::is_same_v<Cfg, unrolled_bk8>;
  if (!all && (sizeof(T) != 4 || a.ta != a.tb))
    tk::detail::fail("warp_tiled_config: ", Cfg::name, " is compiled for float with op(A) = op(B) only");
  auto run = [&](auto ta, auto tb) {
    const auto kernel = &tk::kernels::matmul_warp_tiled<Cfg, T, AL, ta.value, tb.value>;
    std::apply(
        [&](auto... x) {
          tk::launch(dev, {"matmul_warp_tiled", {splits * tiles, static_cast<int>(a.batch), 1}, block, 0}, kernel,
                     x...);
        },
        tk::kernels::matmul_detail::warp_tiled_args(p));
  };
  if constexpr (all) {
    if (a.ta) {
      if (a.tb) run(std::true_type{}, std::true_type{});
      else run(std::true_type{}, std::false_type{});
    } else {
      if (a.tb) run(std::false_type{}, std::true_type{});
      else run(std::false_type{}, std::false_type{});
    }
  } else if constexpr (sizeof(T) == 4) {
    if (a.ta) run(std::true_type{}, std::true_type{});
    else run(std::false_type{}, std::false_type{});
  }
  for (std::int64_t i = 0; splits > 1 && i < a.M; ++i) {  // on the host: a CPU device's memory is the host's
    for (std::int64_t j = 0; j < a.N; ++j) {
      T sum = 0;
      for (int p = 0; p < splits; ++p) sum += partial[(p * a.M + i) * a.N + j];
      T& c = a.C[i * a.ldc + j];
      c = a.beta == T(0) ? a.alpha * sum : a.alpha * sum + a.beta * c;
    }
  }
}

template <class T, class... Cs>
void pick(const Device& dev, const char* config, bool aligned, const tk::detail::GemmArgs<T>& a, int splits, T* partial,
          mc::List<Cs...>) {
  const bool found =
      ((std::strcmp(config, Cs::name) == 0 ? (aligned ? warp_tiled_on<Cs, true>(dev, a, splits, partial)
                                                      : warp_tiled_on<Cs, false>(dev, a, splits, partial),
                                              true)
                                           : false) ||
       ...);
  if (!found) tk::detail::fail("warp_tiled_config: argument 'config' is '", config, "'; not a test configuration");
}

using TestConfigs = mc::List<unrolled_bk8, unrolled_bk16, rolled_bk8, one_stage>;

template <class T>
void warp_tiled_config_impl(const Device& dev, const char* config, bool aligned, const tk::detail::GemmArgs<T>& a,
                            int splits, T* partial) {
  if constexpr (tk::this_target == Target::cpu) {  // the GPUs run their own configurations (TK_MATMUL_CONFIG)
    pick(dev, config, aligned, a, splits, partial, TestConfigs{});
  } else {
    tk::detail::fail("warp_tiled_config: built for the CPU executor only, called on ", dev.name());
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

bool pair_dot_lanes(const Device& dev, int n, const std::uint32_t* a, const std::uint32_t* b, float* c) {
  if (tk::mma::pair_dot_native && dev.backend() == Backend::cpu && dev.props().peak_bf16_gflops <= 0) return false;
  tk::launch(dev, {"pair_dot_lanes", {(n + 63) / 64, 1, 1}, {64, 1, 1}, 0}, &tk::kernels::test::pair_dot_lanes, n, a, b,
             c);
  return true;
}

int tile_dot_once(const Device& dev, float* c, std::int64_t ldc, const std::uint32_t* a, std::int64_t lda,
                  const std::uint32_t* b, std::int64_t ldb, int steps, bool accumulate) {
  if (tk::mma::tile_dot_native && dev.backend() == Backend::cpu && dev.props().peak_amx_bf16_gflops <= 0) return -1;
  tk::launch(dev, {"tile_dot_once", {1, 1, 1}, {32, 1, 1}, 0}, &tk::kernels::test::tile_dot_once, c, ldc, a, lda, b,
             ldb, steps, accumulate ? 1 : 0);
  return tk::mma::tile_dot_native ? 1 : 0;
}

void rows_phase(const Device& dev, Dim3 block, int rows, int* out) {
  tk::launch(dev, {"rows_phase", {1, 1, 1}, block, 0}, &tk::kernels::test::rows_phase, rows, out);
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

void barrier_relay(const Device& dev, int stages, int blocks, int rounds, const float* in, float* out) {
  const LaunchSpec spec{"barrier_relay", {blocks, 1, 1}, {256, 1, 1}, 0};
  if (stages == 2) return tk::launch(dev, spec, &tk::kernels::test::barrier_relay<2>, rounds, in, out);
  tk::launch(dev, spec, &tk::kernels::test::barrier_relay<3>, rounds, in, out);
}

void tensor_copy(const Device& dev, const tk::TensorBox& box, int c0, int c1, int c2, unsigned expect, int bytes,
                 unsigned char* out) {
  const tk::TensorMap map = tk::tensor_map(box);
  tk::launch(dev, {"tensor_copy", {1, 1, 1}, {128, 1, 1}, 32768 + 1024}, &tk::kernels::test::tensor_copy, map, c0, c1,
             c2, expect, bytes, out);
}

std::vector<const char*> warp_tiled_test_configs() {
  return {unrolled_bk8::name, unrolled_bk16::name, rolled_bk8::name, one_stage::name};
}

void warp_tiled_config(const Device& dev, const char* config, bool aligned, const tk::detail::GemmArgs<float>& a,
                       int splits, float* partial) {
  warp_tiled_config_impl(dev, config, aligned, a, splits, partial);
}

void warp_tiled_config(const Device& dev, const char* config, bool aligned, const tk::detail::GemmArgs<double>& a,
                       int splits, double* partial) {
  warp_tiled_config_impl(dev, config, aligned, a, splits, partial);
}

}  // namespace tk::test_launchers::TK_TARGET_ID
