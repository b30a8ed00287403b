// kernels/elementwise/launch.cpp — launchers of copy, vector_add, matrix_add and matrix_scale, compiled once per
// target.
//
// Grid math: 256 threads per block (8 warps on NVIDIA, 4 wavefronts on CDNA, 16 AVX-512 vectors on a
// CPU): enough warps per block for the scheduler to hide memory latency with a few resident blocks per
// multiprocessor, and a multiple of every target's warp. Each thread moves VEC = 4 floats when every
// pointer (and leading dimension) allows 16-byte accesses, else 1.
#include <cstdint>

#include "copy.hpp"
#include "matrix_add.hpp"
#include "matrix_scale.hpp"
#include "tilekit/detail/launchers_elementwise.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"
#include "vector_add.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

constexpr int block_threads = 256;
constexpr int max_grid_y = 65535;

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

int blocks_for(std::int64_t threads, const char* call) {
  const std::int64_t blocks = (threads + block_threads - 1) / block_threads;
  if (blocks > 0x7fffffff) tk::detail::fail(call, ": ", threads, " threads need more than 2^31 - 1 blocks");
  return static_cast<int>(blocks);
}

template <int VEC>
void launch_copy(const Device& dev, std::int64_t n, const float* in, float* out) {
  const LaunchSpec spec{"copy", {blocks_for((n + VEC - 1) / VEC, "tk::copy"), 1, 1}, {block_threads, 1, 1}, 0};
  tk::launch(dev, spec, &tk::kernels::copy<VEC>, n, in, out);
}

template <int VEC>
void launch_vector_add(const Device& dev, std::int64_t n, const float* a, const float* b, float* c) {
  const LaunchSpec spec{
      "vector_add", {blocks_for((n + VEC - 1) / VEC, "tk::vector_add"), 1, 1}, {block_threads, 1, 1}, 0};
  tk::launch(dev, spec, &tk::kernels::vector_add<VEC>, n, a, b, c);
}

template <int VEC>
void launch_matrix_add(const Device& dev, std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda,
                       const float* B, std::int64_t ldb, float* C, std::int64_t ldc) {
  const int gy = static_cast<int>(rows < max_grid_y ? rows : max_grid_y);
  const LaunchSpec spec{
      "matrix_add", {blocks_for((cols + VEC - 1) / VEC, "tk::matrix_add"), gy, 1}, {block_threads, 1, 1}, 0};
  tk::launch(dev, spec, &tk::kernels::matrix_add<VEC>, rows, cols, A, lda, B, ldb, C, ldc);
}

}  // namespace

void copy(const Device& dev, std::int64_t n, const float* in, float* out) {
  if (aligned16(in) && aligned16(out)) return launch_copy<4>(dev, n, in, out);
  launch_copy<1>(dev, n, in, out);
}

void vector_add(const Device& dev, std::int64_t n, const float* a, const float* b, float* c) {
  if (aligned16(a) && aligned16(b) && aligned16(c)) return launch_vector_add<4>(dev, n, a, b, c);
  launch_vector_add<1>(dev, n, a, b, c);
}

void matrix_add(const Device& dev, std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda,
                const float* B, std::int64_t ldb, float* C, std::int64_t ldc) {
  if (aligned16(A) && aligned16(B) && aligned16(C) && lda % 4 == 0 && ldb % 4 == 0 && ldc % 4 == 0)
    return launch_matrix_add<4>(dev, rows, cols, A, lda, B, ldb, C, ldc);
  launch_matrix_add<1>(dev, rows, cols, A, lda, B, ldb, C, ldc);
}

template <class T>
void matrix_scale_impl(const Device& dev, std::int64_t rows, std::int64_t cols, T beta, T* C, std::int64_t ldc) {
  const int gy = static_cast<int>(rows < max_grid_y ? rows : max_grid_y);
  const LaunchSpec spec{"matrix_scale", {blocks_for(cols, "tk::gemm"), gy, 1}, {block_threads, 1, 1}, 0};
  tk::launch(dev, spec, &tk::kernels::matrix_scale<T>, rows, cols, beta, C, ldc);
}

void matrix_scale(const Device& dev, std::int64_t rows, std::int64_t cols, float beta, float* C, std::int64_t ldc) {
  matrix_scale_impl(dev, rows, cols, beta, C, ldc);
}

void matrix_scale(const Device& dev, std::int64_t rows, std::int64_t cols, double beta, double* C, std::int64_t ldc) {
  matrix_scale_impl(dev, rows, cols, beta, C, ldc);
}

}  // namespace tk::launchers::TK_TARGET_ID
