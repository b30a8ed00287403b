// The Kokkos backend: the same operations written independently with Kokkos::parallel_for, on Kokkos's
// default host execution space, over the caller's host memory. Its results are a second opinion for the
// test suite: they share no kernel code with the CPU, CUDA and HIP targets.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "kokkos_init.hpp"
#include "tilekit/detail/launchers_elementwise.hpp"

namespace tk::launchers::kokkos {
namespace {

using Space = Kokkos::DefaultHostExecutionSpace;

}  // namespace

// Where the Kokkos versions run, for tk::Device::props().driver: "Kokkos 4.6.99: OpenMP, 2 threads".
std::string execution_space() {
  ensure_initialized();
  const int v = KOKKOS_VERSION;
  return "Kokkos " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         ": " + Space::name() + ", " + std::to_string(Space().concurrency()) + " threads";
}

void copy(const Device&, std::int64_t n, const float* in, float* out) {
  ensure_initialized();
  Kokkos::parallel_for(
      "tk::copy", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(std::int64_t i) { out[i] = in[i]; });
  Space().fence();
}

void vector_add(const Device&, std::int64_t n, const float* a, const float* b, float* c) {
  ensure_initialized();
  Kokkos::parallel_for(
      "tk::vector_add", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(std::int64_t i) { c[i] = a[i] + b[i]; });
  Space().fence();
}

void matrix_add(const Device&, std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda, const float* B,
                std::int64_t ldb, float* C, std::int64_t ldc) {
  ensure_initialized();
  using Policy = Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      "tk::matrix_add", Policy({0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { C[i * ldc + j] = A[i * lda + j] + B[i * ldb + j]; });
  Space().fence();
}

template <class T>
void matrix_scale_impl(std::int64_t rows, std::int64_t cols, T beta, T* C, std::int64_t ldc) {
  ensure_initialized();
  using Policy = Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      "tk::matrix_scale", Policy({0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { C[i * ldc + j] = beta == T(0) ? T(0) : beta * C[i * ldc + j]; });
  Space().fence();
}

void matrix_scale(const Device&, std::int64_t rows, std::int64_t cols, float beta, float* C, std::int64_t ldc) {
  matrix_scale_impl(rows, cols, beta, C, ldc);
}

void matrix_scale(const Device&, std::int64_t rows, std::int64_t cols, double beta, double* C, std::int64_t ldc) {
  matrix_scale_impl(rows, cols, beta, C, ldc);
}

}  // namespace tk::launchers::kokkos
