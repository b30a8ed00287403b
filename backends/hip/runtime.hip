// The HIP backend's runtime glue: the shared GPU glue with HIP's names, device properties, pointers.
#include <hip/hip_runtime.h>

#define TK_GPU_API(name) hip##name
#define TK_GPU_API_NAME "hip"
#define TK_GPU_NAME "hip"
#define TK_GPU_NAME_UPPER "HIP"
#define TK_GPU_BACKEND ::tk::Backend::hip
#define TK_GPU_PREPARE_LAUNCH hip_prepare_launch
#define TK_GPU_CHECK_LAUNCH hip_check_launch
#define TK_GPU_DESCRIBE hip_describe
#define TK_GPU_ATTR_MEMORY_POOLS hipDeviceAttributeMemoryPoolsSupported
#include "../gpu/runtime_impl.hpp"

namespace tk::detail {

#if defined(__HIP_CPU_RT__)
// HIP-CPU runs its null stream's work on two threads at once: each time its runtime drains the streams, one thread
// (std::async) takes the null stream's queued work and the other, walking every stream, takes what was queued on the
// null stream since, so a kernel can run beside the kernel before it (a GEMM reading operands still being
// converted: CI's hip-cpu step, hip_best_bf16_float, about once in 30 runs under load). Other streams are drained by
// one thread, in order. So tilekit's default queue there is a stream of its own, created once and never destroyed
// (work may still be queued when the process ends); a queue's own stream is itself.
void* hip_cpu_stream(void* s) {
  if (s != nullptr) return s;
  static const hipStream_t own = [] {
    hipStream_t x = nullptr;
    TK_GPU_CHECK(hipStreamCreate(&x), "tilekit's default queue", "hipStreamCreate");
    return x;
  }();
  return own;
}
#endif

// hipStreamGetDevice is not in the HIP 5 runtime this backend is built and checked with: no check.
int GpuRuntime::stream_device(void*) { return -1; }

DeviceProps GpuRuntime::props(int dev) {
  use(dev, "tk::Device::props");
  hipDeviceProp_t p{};
  TK_GPU_CHECK(hipGetDeviceProperties(&p, dev), "tk::Device::props", "hipGetDeviceProperties");
  DeviceProps d;
  d.name = p.name;
#if defined(__HIP_CPU_RT__)
  // HIP-CPU's device is this host's CPU. Modelled as a CDNA part where its own figures say nothing that
  // fits a kernel: a 64-lane wave (tk::warp_size of the HIP copy) and 64 KiB of LDS per block (HIP-CPU's
  // shared memory is the host's, of any size); no matrix units (arch "hip-cpu").
  d.arch = "hip-cpu";
  p.warpSize = 64;
  p.sharedMemPerBlock = 65536;
  p.maxSharedMemoryPerMultiProcessor = 65536;
#else
  d.arch = p.gcnArchName;
#endif
  d.multiprocessors = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_multiprocessor = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_multiprocessor = p.maxThreadsPerMultiProcessor / p.warpSize;
  d.regs_per_block = p.regsPerBlock;
  d.regs_per_multiprocessor = p.regsPerBlock;
  d.shared_per_block = static_cast<std::int64_t>(p.sharedMemPerBlock);
  d.shared_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlock);
  d.shared_per_multiprocessor = static_cast<std::int64_t>(p.maxSharedMemoryPerMultiProcessor);
  d.l2_bytes = p.l2CacheSize;
  d.global_mem_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  d.mem_bus_width_bits = p.memoryBusWidth;
  d.mem_clock_khz = p.memoryClockRate;
  d.clock_khz = p.clockRate;
  int driver = 0, runtime = 0;
  TK_GPU_CHECK(hipDriverGetVersion(&driver), "tk::Device::props", "hipDriverGetVersion");
  TK_GPU_CHECK(hipRuntimeGetVersion(&runtime), "tk::Device::props", "hipRuntimeGetVersion");
  d.driver = "HIP driver " + std::to_string(driver) + ", runtime " + std::to_string(runtime);
#if defined(__HIP_CPU_RT__)
  d.driver = "HIP-CPU (AMD's header-only HIP runtime for CPUs)";
#if defined(__clang_version__)
  d.compiler = std::string("clang ") + __clang_version__ + " with HIP-CPU";
#else
  d.compiler = std::string("g++ ") + __VERSION__ + " with HIP-CPU";
#endif
#elif defined(__clang_version__)
  d.compiler = std::string("clang ") + __clang_version__;
#else
  d.compiler = "HIP " + std::to_string(HIP_VERSION_MAJOR) + "." + std::to_string(HIP_VERSION_MINOR);
#endif
  return d;
}

PointerInfo GpuRuntime::locate(const void* p) {
#if defined(__HIP_CPU_RT__)
  // no pointer attributes in HIP-CPU: the blocks this runtime handed out are the device's memory
  // (HIP-CPU has one device, 0)
  return allocated_here(p) ? PointerInfo{PointerInfo::Kind::device, 0} : PointerInfo{PointerInfo::Kind::host, -1};
#else
  hipPointerAttribute_t a{};
  if (hipPointerGetAttributes(&a, p) != hipSuccess) {
    (void)hipGetLastError();
    return {};
  }
  if (a.isManaged) return {PointerInfo::Kind::managed, a.device};
  if (a.memoryType == hipMemoryTypeDevice) return {PointerInfo::Kind::device, a.device};
  return {PointerInfo::Kind::host, -1};
#endif
}

Runtime* hip_runtime() { return &gpu_runtime(); }

}  // namespace tk::detail
