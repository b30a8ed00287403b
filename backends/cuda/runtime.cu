// The CUDA backend's runtime glue: the shared GPU glue with CUDA's names, device properties, pointers.
#include <cuda.h>  // CUtensorMap and its enums only: the driver is reached through the runtime
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
#include "tilekit/async_copy.hpp"

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

// tk::tensor_map on CUDA: cuTensorMapEncodeTiled, looked up once through the runtime (cudaGetDriverEntryPointByVersion,
// the 12.0 signature; cudaGetDriverEntryPoint before CUDA 12.5), so libtilekit needs no link to libcuda. The box was checked against the rules
// (detail::check_tensor_box); the driver's own refusal throws naming its code.
void cuda_encode_tensor_map(const TensorBox& b, void* out) {
  using Encode = decltype(&cuTensorMapEncodeTiled);
  static const Encode encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    TK_GPU_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found),
                 "tk::tensor_map", "cudaGetDriverEntryPointByVersion");
#else
    TK_GPU_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found), "tk::tensor_map",
                 "cudaGetDriverEntryPoint");
#endif
    if (found != cudaDriverEntryPointSuccess || fn == nullptr)
      fail("tk::tensor_map: the driver has no cuTensorMapEncodeTiled (query result ", static_cast<int>(found), ")");
    return reinterpret_cast<Encode>(fn);
  }();
  const CUtensorMapDataType type = b.elem_bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : b.elem_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : b.elem_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                       : CU_TENSOR_MAP_DATA_TYPE_UINT64;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(b.dims[0]), static_cast<cuuint64_t>(b.dims[1]),
                              static_cast<cuuint64_t>(b.dims[2])};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(b.strides[0]), static_cast<cuuint64_t>(b.strides[1])};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(b.box[0]), static_cast<cuuint32_t>(b.box[1]), 1};
  const cuuint32_t unit[3] = {1, 1, 1};
  const CUresult r = encode(static_cast<CUtensorMap*>(out), type, 3, const_cast<void*>(b.base), dims, strides, box,
                            unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            b.swizzle ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    fail("tk::tensor_map: cuTensorMapEncodeTiled failed with CUresult ", static_cast<int>(r), " (", b.dims[0], " x ",
         b.dims[1], " x ", b.dims[2], " values of ", b.elem_bytes, " bytes, strides ", b.strides[0], " and ",
         b.strides[1], " bytes, box ", b.box[0], " x ", b.box[1], ")");
}

}  // namespace tk::detail
