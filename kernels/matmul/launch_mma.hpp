// kernels/matmul/launch_mma.hpp — what the float GEMM launcher (launch.cpp) asks of the matrix units'
// launchers (launch_mma.cpp), in the same target namespace.
#pragma once

#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
// The float GEMM (launch.cpp), which the 16-bit path calls on converted copies. Declared here as well for the
// GPU targets' CPU copies (TK_CPU_AS_CUDA / _HIP), which launchers_matmul.hpp does not list.
void gemm(const Device& dev, MatmulVariant variant, const tk::detail::GemmArgs<float>& a, const char* config);
// A float GEMM with Math::tf32: runs it on the matrix units and returns true where this variant on this device
// has them (see launch_mma.cpp); false: the caller computes it exactly.
bool gemm_tf32(const Device& dev, MatmulVariant variant, const tk::detail::GemmArgs<float>& a);
}  // namespace tk::launchers::TK_TARGET_ID
