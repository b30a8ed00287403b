// The Kokkos backend's matmul: an independent, plain implementation (one (i, j) pair per iteration of a
// 2D MDRange, the dot product accumulated in float for k = 0..K-1), used to cross-check the kernels.
// Every variant asked of it runs this one implementation.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kokkos_init.hpp"
#include "tilekit/detail/launchers_matmul.hpp"

namespace tk::launchers::kokkos {

void matmul(const Device&, MatmulVariant, std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A,
            std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  ensure_initialized();
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Policy = Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("tk::matmul", Policy({0, 0}, {M, N}), KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
    float acc = 0.f;
    for (std::int64_t k = 0; k < K; ++k) acc += A[i * lda + k] * B[k * ldb + j];
    C[i * ldc + j] = beta == 0.f ? alpha * acc : alpha * acc + beta * C[i * ldc + j];
  });
  Space().fence();
}

}  // namespace tk::launchers::kokkos
