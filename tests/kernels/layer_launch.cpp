// tests/kernels/layer_launch.cpp — launchers of the kernel-layer test kernels, compiled once per target.
#include "layer_kernels.hpp"
#include "layer_launchers.hpp"
#include "tilekit/kernel.hpp"

namespace tk::test_launchers::TK_TARGET_ID {

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

}  // namespace tk::test_launchers::TK_TARGET_ID
