// tilekit/target/hip.hpp — the vendor header for AMD GPUs (hipcc / clang, LANGUAGE HIP).
#pragma once

#include <hip/hip_runtime.h>

#include <utility>

#define TK_TARGET_NS target_hip
#define TK_TARGET_NAME "hip"
// Launchers compiled for this target live in namespace tk::launchers::TK_TARGET_ID.
#define TK_TARGET_ID hip

#include "tilekit/device.hpp"
#include "tilekit/kernel_info.hpp"
#include "tilekit/target/gpu.hpp"

namespace tk {
namespace detail {
bool hip_prepare_launch(const Device& dev, const LaunchSpec& spec, const void* kernel);
void hip_check_launch(const LaunchSpec& spec);
KernelResources hip_describe(const Device& dev, const LaunchSpec& spec, const void* kernel);
}  // namespace detail

inline namespace TK_TARGET_NS {

constexpr Target this_target = Target::hip;
// The wavefront: 64 on CDNA (gfx90a), 32 on RDNA (gfx1030, wave32). Known only in the device pass;
// host code asks the device (DeviceProps::warp_size).
#if defined(__AMDGCN_WAVEFRONT_SIZE)
constexpr int warp_size = __AMDGCN_WAVEFRONT_SIZE;
#else
constexpr int warp_size = 64;
#endif

// The kernel's resources as compiled and the runtime's occupancy for this launch shape (nothing runs).
template <class... P>
KernelResources describe(const Device& dev, const LaunchSpec& spec, void (*kernel)(P...)) {
  return detail::hip_describe(dev, spec, reinterpret_cast<const void*>(kernel));
}

template <class... P, class... A>
void launch(const Device& dev, const LaunchSpec& spec, void (*kernel)(P...), A&&... args) {
  if (auto* sink = detail::describe_sink()) return sink->push_back(describe(dev, spec, kernel));
  if (!detail::hip_prepare_launch(dev, spec, reinterpret_cast<const void*>(kernel))) return;
  kernel<<<dim3(spec.grid.x, spec.grid.y, spec.grid.z), dim3(spec.block.x, spec.block.y, spec.block.z),
           spec.dynamic_shared, 0>>>(static_cast<P>(std::forward<A>(args))...);
  detail::hip_check_launch(spec);
}


}  // namespace TK_TARGET_NS
}  // namespace tk
