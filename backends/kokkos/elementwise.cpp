// The Kokkos backend: the same operations written independently with Kokkos::parallel_for, on Kokkos's
// default execution space (kokkos_init.hpp: the host's threads, or a CUDA GPU). Its results are a second
// opinion for the test suite: they share no kernel code with the CPU, CUDA and HIP targets.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "kokkos_init.hpp"
#include "tilekit/detail/launchers_elementwise.hpp"

namespace tk::launchers::kokkos {

// The CUDA device Kokkos's kernels run on, or -1 where they run on the host (common/src/device.cpp: the Kokkos
// device's memory, copies and pointer checks are then that GPU's).
int cuda_device() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (!space_on_host) {
    ensure_initialized();
    return Kokkos::Cuda().cuda_device();
  }
#endif
  return -1;
}

// Whether the Kokkos versions take plain host pointers (tk::reads_host_memory): known without initialising Kokkos.
bool on_host() { return space_on_host; }

// Where the Kokkos versions run, for tk::Device::props().driver: "Kokkos 4.6.99: OpenMP, 2 threads", or
// "Kokkos 4.6.99: Cuda, device 0".
std::string execution_space() {
  ensure_initialized();
  const int v = KOKKOS_VERSION;
  const std::string where =
      space_on_host ? std::to_string(Space().concurrency()) + " threads" : "device " + std::to_string(cuda_device());
  return "Kokkos " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         ": " + Space::name() + ", " + where;
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
