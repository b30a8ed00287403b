// tilekit/target/cuda.hpp — the vendor header for NVIDIA GPUs (nvcc, LANGUAGE CUDA).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#define TK_TARGET_NS target_cuda
#define TK_TARGET_NAME "cuda"
// Launchers compiled for this target live in namespace tk::launchers::TK_TARGET_ID.
#define TK_TARGET_ID cuda

#include "tilekit/device.hpp"
#include "tilekit/kernel_info.hpp"
#include "tilekit/target/gpu.hpp"

namespace tk {
namespace detail {
// Checks the device is a usable CUDA device, makes it current and checks the launch shape against
// its limits (raising the kernel's dynamic shared-memory limit when it asks for more than 48 KiB).
// Returns false for an empty grid, which launches nothing.
bool cuda_prepare_launch(const Device& dev, const LaunchSpec& spec, const void* kernel);
void cuda_check_launch(const LaunchSpec& spec);
KernelResources cuda_describe(const Device& dev, const LaunchSpec& spec, const void* kernel);
}  // namespace detail

inline namespace TK_TARGET_NS {

constexpr Target this_target = Target::cuda;
constexpr int warp_size = 32;

// The kernel's resources as compiled and the runtime's occupancy for this launch shape (nothing runs).
template <class... P>
KernelResources describe(const Device& dev, const LaunchSpec& spec, void (*kernel)(P...)) {
  return detail::cuda_describe(dev, spec, reinterpret_cast<const void*>(kernel));
}

// Launches kernel on dev's queue (asynchronous); launch errors throw tk::Error naming spec.name.
template <class... P, class... A>
void launch(const Device& dev, const LaunchSpec& spec, void (*kernel)(P...), A&&... args) {
  if (auto* sink = detail::describe_sink()) return sink->push_back(describe(dev, spec, kernel));
  if (!detail::cuda_prepare_launch(dev, spec, reinterpret_cast<const void*>(kernel))) return;
  kernel<<<dim3(spec.grid.x, spec.grid.y, spec.grid.z), dim3(spec.block.x, spec.block.y, spec.block.z),
           spec.dynamic_shared, 0>>>(static_cast<P>(std::forward<A>(args))...);
  detail::cuda_check_launch(spec);
}


}  // namespace TK_TARGET_NS
}  // namespace tk
