// The CUDA backend's runtime glue: the shared GPU glue with CUDA's names, device properties, pointers.
#include <cuda_runtime.h>

#define TK_GPU_API(name) cuda##name
#define TK_GPU_API_NAME "cuda"
#define TK_GPU_NAME "cuda"
#define TK_GPU_NAME_UPPER "CUDA"
#define TK_GPU_BACKEND ::tk::Backend::cuda
#define TK_GPU_PREPARE_LAUNCH cuda_prepare_launch
#define TK_GPU_CHECK_LAUNCH cuda_check_launch
#define TK_GPU_DESCRIBE cuda_describe
#define TK_GPU_ATTR_MEMORY_POOLS cudaDevAttrMemoryPoolsSupported
#include "../gpu/runtime_impl.hpp"

namespace tk::detail {

int GpuRuntime::stream_device(void* s) {
#if CUDART_VERSION >= 12080
  const auto stream = static_cast<cudaStream_t>(s);
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return -1;
  int d = -1;
  TK_GPU_CHECK(cudaStreamGetDevice(stream, &d), "tk::Queue::wrap", "cudaStreamGetDevice");
  return d;
#else
  (void)s;
  return -1;  // cudaStreamGetDevice came with CUDA 12.8
#endif
}

DeviceProps GpuRuntime::props(int dev) {
  use(dev, "tk::Device::props");
  cudaDeviceProp p{};
  TK_GPU_CHECK(cudaGetDeviceProperties(&p, dev), "tk::Device::props", "cudaGetDeviceProperties");
  DeviceProps d;
  d.name = p.name;
  d.arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
  d.multiprocessors = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_multiprocessor = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_multiprocessor = p.maxBlocksPerMultiProcessor;
  d.regs_per_block = p.regsPerBlock;
  d.regs_per_multiprocessor = p.regsPerMultiprocessor;
  d.shared_per_block = static_cast<std::int64_t>(p.sharedMemPerBlock);
  d.shared_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
  d.shared_per_multiprocessor = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor);
  d.l2_bytes = p.l2CacheSize;
  d.global_mem_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  d.mem_bus_width_bits = p.memoryBusWidth;
  int clock_khz = 0;  // no longer a cudaDeviceProp field in CUDA 13
  TK_GPU_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev), "tk::Device::props",
               "cudaDeviceGetAttribute(cudaDevAttrMemoryClockRate)");
  d.mem_clock_khz = clock_khz;
  int sm_clock_khz = 0;
  TK_GPU_CHECK(cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, dev), "tk::Device::props",
               "cudaDeviceGetAttribute(cudaDevAttrClockRate)");
  d.clock_khz = sm_clock_khz;
  int driver = 0, runtime = 0;
  TK_GPU_CHECK(cudaDriverGetVersion(&driver), "tk::Device::props", "cudaDriverGetVersion");
  TK_GPU_CHECK(cudaRuntimeGetVersion(&runtime), "tk::Device::props", "cudaRuntimeGetVersion");
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  d.driver = "CUDA driver " + version(driver) + ", runtime " + version(runtime);
  d.compiler = "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
               std::to_string(__CUDACC_VER_BUILD__);
  return d;
}

PointerInfo GpuRuntime::locate(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  switch (a.type) {
    case cudaMemoryTypeDevice: return {PointerInfo::Kind::device, a.device};
    case cudaMemoryTypeManaged: return {PointerInfo::Kind::managed, a.device};
    default: return {PointerInfo::Kind::host, -1};  // unregistered or pinned host memory
  }
}

Runtime* cuda_runtime() { return &gpu_runtime(); }

}  // namespace tk::detail
