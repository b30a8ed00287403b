// The GPU runtime glue, written once for CUDA and HIP. backends/cuda/runtime.cu and
// backends/hip/runtime.hip include it after mapping the vendor's names (TK_GPU_API(Malloc) ->
// cudaMalloc / hipMalloc); the few places where the two APIs differ are marked TK_GPU_IS_HIP.
//
// Every runtime call is checked: a failure throws tk::Error naming tilekit's call, the runtime
// function, its argument and the runtime's error string.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "tilekit/detail/runtime.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel_info.hpp"
#include "tilekit/kernel_types.hpp"

#define TK_GPU_CHECK(expr, call, what) ::tk::detail::gpu_check((expr), (call), (what))

namespace tk::detail {
namespace {

constexpr const char* gpu_backend = TK_GPU_NAME;

inline void gpu_check(TK_GPU_API(Error_t) status, const char* call, const std::string& what) {
  if (status != TK_GPU_API(Success))
    fail(call, ": ", what, " failed: ", TK_GPU_API(GetErrorString)(status), " (", TK_GPU_API(GetErrorName)(status), ")");
}

class GpuRuntime final : public Runtime {
 public:
  GpuRuntime() {
    int n = 0;
    const TK_GPU_API(Error_t) s = TK_GPU_API(GetDeviceCount)(&n);
    if (s != TK_GPU_API(Success)) {
      // No driver or no device (HIP on a machine without an AMD GPU answers hipErrorInvalidDevice,
      // CUDA without a GPU cudaErrorNoDevice): the backend is present but has no device to run on.
      (void)TK_GPU_API(GetLastError)();
      reason_ = std::string(TK_GPU_NAME_UPPER) + " runtime reports " + TK_GPU_API(GetErrorName)(s) + ": " +
                TK_GPU_API(GetErrorString)(s);
      n = 0;
    } else if (n == 0) {
      reason_ = std::string("no ") + TK_GPU_NAME_UPPER + " device is present";
    }
    count_ = n;
  }

  int device_count() override { return count_; }
  std::string unavailable_reason() override { return reason_; }

  DeviceProps props(int dev) override;

  void* alloc(int dev, std::size_t bytes) override {
    use(dev, "tk::Buffer");
    void* p = nullptr;
    TK_GPU_CHECK(TK_GPU_API(Malloc)(&p, bytes), "tk::Buffer",
                 std::string(TK_GPU_API_NAME "Malloc(") + std::to_string(bytes) + " bytes)");
    return p;
  }
  void free(int dev, void* p) noexcept override {
    if (TK_GPU_API(SetDevice)(dev) == TK_GPU_API(Success)) (void)TK_GPU_API(Free)(p);
  }
  void copy(int dev, void* dst, const void* src, std::size_t bytes, CopyKind kind) override {
    use(dev, "tk::Buffer copy");
    const auto k = kind == CopyKind::host_to_device   ? TK_GPU_API(MemcpyHostToDevice)
                   : kind == CopyKind::device_to_host ? TK_GPU_API(MemcpyDeviceToHost)
                                                      : TK_GPU_API(MemcpyDeviceToDevice);
    TK_GPU_CHECK(TK_GPU_API(Memcpy)(dst, src, bytes, k), "tk::Buffer copy",
                 std::string(TK_GPU_API_NAME "Memcpy(") + std::to_string(bytes) + " bytes)");
  }
  void synchronize(int dev) override {
    use(dev, "tk::Device::synchronize");
    TK_GPU_CHECK(TK_GPU_API(DeviceSynchronize)(), "tk::Device::synchronize", TK_GPU_API_NAME "DeviceSynchronize");
  }
  PointerInfo locate(const void* p) override;

  void* event_create(int dev) override {
    use(dev, "tk::Event");
    TK_GPU_API(Event_t) e = nullptr;
    TK_GPU_CHECK(TK_GPU_API(EventCreate)(&e), "tk::Event", TK_GPU_API_NAME "EventCreate");
    return e;
  }
  void event_record(int dev, void* e) override {
    use(dev, "tk::Event::record");
    TK_GPU_CHECK(TK_GPU_API(EventRecord)(static_cast<TK_GPU_API(Event_t)>(e), 0), "tk::Event::record",
                 TK_GPU_API_NAME "EventRecord");
  }
  double event_elapsed_ms(void* start, void* stop) override {
    auto b = static_cast<TK_GPU_API(Event_t)>(start), e = static_cast<TK_GPU_API(Event_t)>(stop);
    TK_GPU_CHECK(TK_GPU_API(EventSynchronize)(e), "tk::Event::elapsed_ms", TK_GPU_API_NAME "EventSynchronize");
    float ms = 0.f;
    TK_GPU_CHECK(TK_GPU_API(EventElapsedTime)(&ms, b, e), "tk::Event::elapsed_ms", TK_GPU_API_NAME "EventElapsedTime");
    return ms;
  }
  void event_destroy(void* e) noexcept override { (void)TK_GPU_API(EventDestroy)(static_cast<TK_GPU_API(Event_t)>(e)); }

  // Makes dev current; throws if it is not a device of this runtime.
  void use(int dev, const char* call) {
    if (dev < 0 || dev >= count_)
      fail(call, ": argument 'device' is ", gpu_backend, ":", dev, "; ", count_, " ", gpu_backend,
           " devices are present", reason_.empty() ? "" : " (" + reason_ + ")");
    TK_GPU_CHECK(TK_GPU_API(SetDevice)(dev), call, TK_GPU_API_NAME "SetDevice(" + std::to_string(dev) + ")");
  }

 private:
  int count_ = 0;
  std::string reason_;
};

GpuRuntime& gpu_runtime() {
  static GpuRuntime r;
  return r;
}

}  // namespace

// Launch checks shared by every kernel of this target (see tilekit/target/cuda.hpp, hip.hpp).
bool TK_GPU_PREPARE_LAUNCH(const Device& dev, const LaunchSpec& spec, const void* kernel) {
  const char* call = "tk::launch";
  if (dev.backend() != TK_GPU_BACKEND)
    fail(call, "(", spec.name, "): argument 'dev' is ", dev.name(), "; this kernel was compiled for the ",
         gpu_backend, " target");
  GpuRuntime& rt = gpu_runtime();
  rt.use(dev.index(), call);
  for (const auto& [d, what] : {std::pair{spec.grid, "grid"}, std::pair{spec.block, "block"}})
    if (d.x < 0 || d.y < 0 || d.z < 0)
      fail(call, "(", spec.name, "): argument '", what, "' is (", d.x, ", ", d.y, ", ", d.z,
           "); expected no negative extent");
  if (spec.grid.x == 0 || spec.grid.y == 0 || spec.grid.z == 0) return false;
  const DeviceProps& p = dev.props();
  const long long threads = 1LL * spec.block.x * spec.block.y * spec.block.z;
  if (threads <= 0 || threads > p.max_threads_per_block)
    fail(call, "(", spec.name, "): argument 'block' is (", spec.block.x, ", ", spec.block.y, ", ", spec.block.z,
         "); expected 1 to ", p.max_threads_per_block, " threads per block on ", dev.name());
  if (spec.grid.y > 65535 || spec.grid.z > 65535)
    fail(call, "(", spec.name, "): argument 'grid' is (", spec.grid.x, ", ", spec.grid.y, ", ", spec.grid.z,
         "); expected grid.y and grid.z <= 65535");
  if (static_cast<std::int64_t>(spec.dynamic_shared) > p.shared_per_block_optin)
    fail(call, "(", spec.name, "): argument 'dynamic_shared' is ", spec.dynamic_shared, " bytes; expected at most ",
         p.shared_per_block_optin, " on ", dev.name());
  if (static_cast<std::int64_t>(spec.dynamic_shared) > p.shared_per_block)
    TK_GPU_CHECK(TK_GPU_API(FuncSetAttribute)(kernel, TK_GPU_API(FuncAttributeMaxDynamicSharedMemorySize),
                                              static_cast<int>(spec.dynamic_shared)),
                 call, TK_GPU_API_NAME "FuncSetAttribute(MaxDynamicSharedMemorySize)");
  return true;
}

KernelResources TK_GPU_DESCRIBE(const Device& dev, const LaunchSpec& spec, const void* kernel) {
  const char* call = "tk::kernel_resources";
  gpu_runtime().use(dev.index(), call);
  TK_GPU_API(FuncAttributes) fa{};
  TK_GPU_CHECK(TK_GPU_API(FuncGetAttributes)(&fa, kernel), call, std::string(TK_GPU_API_NAME "FuncGetAttributes(") + spec.name + ")");
  KernelResources r;
  r.kernel = spec.name;
  r.block_threads = spec.block.x * spec.block.y * spec.block.z;
  r.dynamic_shared = static_cast<std::int64_t>(spec.dynamic_shared);
  r.registers_per_thread = fa.numRegs;
  r.static_shared = static_cast<std::int64_t>(fa.sharedSizeBytes);
  r.max_threads_per_block = fa.maxThreadsPerBlock;
  int blocks = 0;
  TK_GPU_CHECK(TK_GPU_API(OccupancyMaxActiveBlocksPerMultiprocessor)(&blocks, kernel, r.block_threads, spec.dynamic_shared),
               call, std::string(TK_GPU_API_NAME "OccupancyMaxActiveBlocksPerMultiprocessor(") + spec.name + ")");
  r.runtime_blocks_per_multiprocessor = blocks;
  return r;
}

void TK_GPU_CHECK_LAUNCH(const LaunchSpec& spec) {
  TK_GPU_CHECK(TK_GPU_API(GetLastError)(), "tk::launch", std::string("launching ") + spec.name);
}

}  // namespace tk::detail
