// kernels/matmul/launch_mma.hpp — what the float GEMM launcher (launch.cpp) asks of the matrix units'
// launchers (launch_mma.cpp), and what those ask of the kernels' launches (launch_mma_units.cpp), in the same
// target namespace; and what the double GEMM launcher (launch_double.cpp) asks of the latter.
#pragma once

#include <algorithm>
#include <cstdint>

#include "convert.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
// The float GEMM (launch.cpp), which the 16-bit path calls on converted copies. Declared here as well for the
// GPU targets' CPU copies (TK_CPU_AS_CUDA / _HIP), which launchers_matmul.hpp does not list.
void gemm(const Device& dev, MatmulVariant variant, const tk::detail::GemmArgs<float>& a, const char* config);
// A float GEMM with Math::tf32: runs it on the matrix units and returns true where this variant on this device
// has them (see launch_mma.cpp); false: the caller computes it exactly.
bool gemm_tf32(const Device& dev, MatmulVariant variant, const tk::detail::GemmArgs<float>& a);

// The matrix units' kernels (launch_mma_units.cpp), which launch_mma.cpp calls where it decides they run: TF32 and
// 16-bit inputs on the warpgroup kernel (`warpgroup`: K > 0 and the copy has it) or on the warp-level one (any K;
// K == 0 is C = beta C).
void gemm_on_units(const Device& dev, bool warpgroup, const tk::detail::GemmArgs<float>& a);
void gemm_on_units(const Device& dev, bool warpgroup, const tk::detail::GemmArgs<float, bf16, float>& a);
void gemm_on_units(const Device& dev, bool warpgroup, const tk::detail::GemmArgs<float, bf16, bf16>& a);
void gemm_on_units(const Device& dev, bool warpgroup, const tk::detail::GemmArgs<float, f16, float>& a);
void gemm_on_units(const Device& dev, bool warpgroup, const tk::detail::GemmArgs<float, f16, f16>& a);
// DGEMM on the matrix units (the policy's f64_on_units decides, launch.cpp): K > 0; a GPU target's copy only
// (the CPU's own copy refuses it).
void gemm_on_units(const Device& dev, const tk::detail::GemmArgs<double>& a);

// P = From(X) element by element for rows x cols (leading dimensions ld, ldp) on dev: the 16-bit inputs to float
// (launch_mma.cpp), an unaligned operand to aligned rows (launch_mma_units.cpp).
template <class From, class To>
void convert(const Device& dev, std::int64_t rows, std::int64_t cols, const From* X, std::int64_t ld, To* P,
             std::int64_t ldp) {
  constexpr int threads = 256;
  const int gx = static_cast<int>((cols + threads - 1) / threads),
            gy = static_cast<int>(std::min<std::int64_t>(rows, 65535));
  tk::launch(dev, {"matmul_convert", {gx, gy, 1}, {threads, 1, 1}, 0}, &tk::kernels::matmul_convert<From, To>, rows,
             cols, X, ld, P, ldp);
}
}  // namespace tk::launchers::TK_TARGET_ID
