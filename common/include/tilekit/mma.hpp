// tilekit/mma.hpp — the warp's double-precision matrix multiply-accumulate on tensor cores (DMMA), for
// kernels whose per-lane outputs are laid out as the hardware's fragments.
//
//   tk::has_mma_f64                         true where the instructions below exist: CUDA device code for
//                                           sm_80 and later; false on CPUs, AMD GPUs and older NVIDIA GPUs
//   tk::mma_f64_8x8x4(d0, d1, a, b)         D(8 x 8) += A(8 x 4) B(4 x 8) for the warp: lane l holds
//                                           A(l / 4, l % 4) in a, B(l % 4, l / 4) in b, and
//                                           D(l / 4, 2 (l % 4) + {0, 1}) in d0, d1 (mma.sync m8n8k4)
//   tk::mma_f64_16x8x4(d, a0, a1, b)        two of those stacked (rows + 8): a1 = A(l / 4 + 8, l % 4),
//                                           d[2], d[3] the rows + 8 (one m16n8k4 on sm_90, two m8n8k4 before)
//
// Warp-collective: all 32 lanes of a converged warp call it at once, with the same shape. Use it only
// under `if constexpr (tk::has_mma_f64)`; elsewhere the kernel computes the same outputs per lane with
// FMAs from the tiles in shared memory (kernels/matmul/warp_tiling.hpp does exactly that), so the CPU
// executor and checked mode test the tiling, and the GPU tests the instruction.
#pragma once

#include "tilekit/kernel.hpp"

namespace tk {
inline namespace TK_TARGET_NS {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
inline constexpr bool has_mma_f64 = true;
#else
inline constexpr bool has_mma_f64 = false;
#endif

// Templates, so that a call in a discarded `if constexpr` branch is never instantiated where the
// instruction does not exist.
template <class T>
TK_DEVICE void mma_f64_8x8x4(T& d0, T& d1, T a, T b) {
  static_assert(sizeof(T) == 8 && has_mma_f64, "mma_f64_8x8x4: double, CUDA sm_80 or later only");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
#endif
}

template <class T>
TK_DEVICE void mma_f64_16x8x4(T& d0, T& d1, T& d2, T& d3, T a0, T a1, T b) {
  static_assert(sizeof(T) == 8 && has_mma_f64, "mma_f64_16x8x4: double, CUDA sm_80 or later only");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIP__)
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)
               : "d"(a0), "d"(a1), "d"(b));
#else
  mma_f64_8x8x4(d0, d1, a0, b);
  mma_f64_8x8x4(d2, d3, a1, b);
#endif
}

}  // namespace TK_TARGET_NS
}  // namespace tk
