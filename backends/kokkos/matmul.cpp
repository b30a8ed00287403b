// The Kokkos backend's GEMM: an independent, plain implementation (one (matrix, i, j) triple per iteration
// of a 3D MDRange, the dot product of op(A)'s row and op(B)'s column accumulated in the element type for
// k = 0..K-1; 16-bit inputs converted to float as they are read), used to cross-check the kernels. Every variant and configuration asked of it runs this one
// implementation.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kokkos_init.hpp"
#include "tilekit/detail/launchers_matmul.hpp"

namespace tk::launchers::kokkos {
namespace {

// T: the scalars and the accumulator; In, Out: the 16-bit GEMMs' elements (converted to T as they are read,
// C rounded to Out as it is written).
template <class T, class In, class Out>
void gemm_impl(const detail::GemmArgs<T, In, Out>& a) {
  ensure_initialized();
  using Policy = Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>, Kokkos::IndexType<std::int64_t>>;
  const detail::GemmArgs<T, In, Out> g = a;
  Kokkos::parallel_for(
      "tk::gemm", Policy({0, 0, 0}, {g.batch, g.M, g.N}),
      KOKKOS_LAMBDA(std::int64_t z, std::int64_t i, std::int64_t j) {
        const In* A = g.A + z * g.sa;
        const In* B = g.B + z * g.sb;
        Out* C = g.C + z * g.sc;
        // op(A)(i, k) and op(B)(k, j): steps along k in each storage
        const std::int64_t a0 = g.ta ? i : i * g.lda, ak = g.ta ? g.lda : 1;
        const std::int64_t b0 = g.tb ? j * g.ldb : j, bk = g.tb ? 1 : g.ldb;
        T acc = 0;
        for (std::int64_t k = 0; k < g.K; ++k) acc += static_cast<T>(A[a0 + k * ak]) * static_cast<T>(B[b0 + k * bk]);
        Out& c = C[i * g.ldc + j];
        c = static_cast<Out>(g.beta == T(0) ? g.alpha * acc : g.alpha * acc + g.beta * static_cast<T>(c));
      });
  Space().fence();
}

}  // namespace

void gemm(const Device&, MatmulVariant, const detail::GemmArgs<float>& a, const char*) { gemm_impl(a); }
void gemm(const Device&, MatmulVariant, const detail::GemmArgs<double>& a, const char*) { gemm_impl(a); }
// The 16-bit inputs: exact products, float sums (Math::tf32 needs nothing: exact FP32 is what TF32 permits).
void gemm(const Device&, MatmulVariant, const detail::GemmArgs<float, bf16, float>& a) { gemm_impl(a); }
void gemm(const Device&, MatmulVariant, const detail::GemmArgs<float, bf16, bf16>& a) { gemm_impl(a); }
void gemm(const Device&, MatmulVariant, const detail::GemmArgs<float, f16, float>& a) { gemm_impl(a); }
void gemm(const Device&, MatmulVariant, const detail::GemmArgs<float, f16, f16>& a) { gemm_impl(a); }
std::vector<const char*> matmul_configs(int) { return {}; }
std::string matmul_tile_choice(const Device&, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t) {
  return "Kokkos: one thread per element of C (no tiles; the cross-check)";
}

}  // namespace tk::launchers::kokkos
