// tests/kernels/layer_launchers.hpp — the test launchers each target provides.
#pragma once

#include <cstddef>
#include <cstdint>

#include <vector>

#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/tensor_box.hpp"
#include "tilekit/device.hpp"
#include "tilekit/kernel_types.hpp"

#define TK_DECLARE_TEST_LAUNCHERS(target)                                                                              \
  namespace tk::test_launchers::target {                                                                               \
  void where_am_i(const Device& dev, Dim3 grid, Dim3 block, std::int64_t* out);                                        \
  void reverse_segments(const Device& dev, int block, std::int64_t n, const float* in, float* out);                    \
  void block_sums(const Device& dev, std::int64_t n, const float* in, double* sums);                                   \
  void report_warp_size(const Device& dev, int* out);                                                                  \
  /* tk::mma::pair_dot on n threads (n x 16 lanes); false where this copy has the instruction and the CPU lacks it */  \
  bool pair_dot_lanes(const Device& dev, int n, const std::uint32_t* a, const std::uint32_t* b, float* c);             \
  /* tk::mma::tile_dot_32x32 once: 1 where it ran AMX's instruction, 0 its emulation, -1 not run (this copy has the  \
     instruction and the process may not use it) */ \
  int tile_dot_once(const Device& dev, float* c, std::int64_t ldc, const std::uint32_t* a, std::int64_t lda,           \
                    const std::uint32_t* b, std::int64_t ldb, int steps, bool accumulate);                             \
  void rows_phase(const Device& dev, Dim3 block, int rows, int* out);                                                  \
  void raw_launch(const Device& dev, Dim3 grid, Dim3 block, std::size_t dynamic_shared, std::int64_t* out);            \
  void staged_copy(const Device& dev, int bytes, int blocks, int rounds, std::int64_t n, const float* in, float* out); \
  void barrier_relay(const Device& dev, int stages, int blocks, int rounds, const float* in, float* out);              \
  /* one tk::copy_tensor_async of box's box at (c0, c1, c2), the barrier expecting `expect` bytes: the first \
     `bytes` bytes of the destination (at most 32 KiB) into out */         \
  void tensor_copy(const Device& dev, const tk::TensorBox& box, int c0, int c1, int c2, unsigned expect, int bytes,    \
                   unsigned char* out);                                                                                \
  /* warp_tiled under one of the test configurations (CPU only): split in `splits` along K, the partial   \
     products (splits x M x N) summed on the host; aligned: the 16-byte path (the caller checks)  */            \
  std::vector<const char*> warp_tiled_test_configs();                                                                  \
  void warp_tiled_config(const Device& dev, const char* config, bool aligned, const tk::detail::GemmArgs<float>& a,    \
                         int splits, float* partial);                                                                  \
  void warp_tiled_config(const Device& dev, const char* config, bool aligned, const tk::detail::GemmArgs<double>& a,   \
                         int splits, double* partial);                                                                 \
  }

TK_DECLARE_TEST_LAUNCHERS(cpu)
TK_DECLARE_TEST_LAUNCHERS(cuda)
TK_DECLARE_TEST_LAUNCHERS(hip)
