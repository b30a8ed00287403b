// tilekit/portability/hip.hpp — the vendor header for AMD GPUs (hipcc / clang, LANGUAGE HIP): what differs from
// CUDA; the rest of the layer is tilekit/portability/gpu.hpp.
#pragma once

#include <hip/hip_runtime.h>

#define TK_TARGET_NS target_hip
#define TK_TARGET_NAME "hip"
// Launchers compiled for this target live in namespace tk::launchers::TK_TARGET_ID.
#define TK_TARGET_ID hip
#define TK_GPU_STREAM_T hipStream_t
// hipLaunchKernelGGL: the one spelling both a HIP compiler and HIP-CPU (the hip-cpu preset: the HIP backend
// compiled by g++ or clang against AMD's header-only HIP runtime for CPUs, which has no <<< >>>) accept.
#define TK_GPU_LAUNCH_KERNEL(kernel, grid, block, shared, stream, ...) \
  hipLaunchKernelGGL(kernel, grid, block, shared, stream, __VA_ARGS__)

#include "tilekit/portability/gpu.hpp"

namespace tk {
inline namespace TK_TARGET_NS {
constexpr Target this_target = Target::hip;
// The wavefront: 64 on CDNA (gfx90a), 32 on RDNA (gfx1030, wave32). Known only in the device pass;
// host code asks the device (DeviceProps::warp_size). HIP-CPU: 64 (its device reports the same).
#if defined(__AMDGCN_WAVEFRONT_SIZE)
constexpr int warp_size = __AMDGCN_WAVEFRONT_SIZE;
#else
constexpr int warp_size = 64;
#endif
}  // namespace TK_TARGET_NS
}  // namespace tk
