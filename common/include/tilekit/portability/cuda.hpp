// tilekit/portability/cuda.hpp — the vendor header for NVIDIA GPUs (nvcc, LANGUAGE CUDA): what differs from HIP;
// the rest of the layer is tilekit/portability/gpu.hpp.
#pragma once

#include <cuda_runtime.h>

#define TK_TARGET_NS target_cuda
#define TK_TARGET_NAME "cuda"
// Launchers compiled for this target live in namespace tk::launchers::TK_TARGET_ID.
#define TK_TARGET_ID cuda
#define TK_GPU_STREAM_T cudaStream_t
#define TK_GPU_LAUNCH_KERNEL(kernel, grid, block, shared, stream, ...) \
  kernel<<<grid, block, shared, stream>>>(__VA_ARGS__)

#include "tilekit/portability/gpu.hpp"

namespace tk {
inline namespace TK_TARGET_NS {
constexpr Target this_target = Target::cuda;
constexpr int warp_size = 32;
}  // namespace TK_TARGET_NS
}  // namespace tk
