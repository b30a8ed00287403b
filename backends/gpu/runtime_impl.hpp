// The GPU runtime glue, written once for CUDA and HIP. backends/cuda/runtime.cu and
// backends/hip/runtime.hip include it after mapping the vendor's names (TK_GPU_API(Malloc) ->
// cudaMalloc / hipMalloc). HIP-CPU (the hip-cpu preset, __HIP_CPU_RT__) lacks stream-ordered pools and
// function attributes to set: those places say so.
//
// Every runtime call is checked: a failure throws tk::Error naming tilekit's call, the runtime
// function, its argument and the runtime's error string.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tilekit/detail/runtime.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel_info.hpp"
#include "tilekit/kernel_types.hpp"

#define TK_GPU_CHECK(expr, call, what) ::tk::detail::gpu_check((expr), (call), (what))

namespace tk::detail {
#if defined(__HIP_CPU_RT__)
void* hip_cpu_stream(void* s);  // runtime.hip
#endif
namespace {

constexpr const char* gpu_backend = TK_GPU_NAME;

inline void gpu_check(TK_GPU_API(Error_t) status, const char* call, const std::string& what) {
  if (status != TK_GPU_API(Success))
    fail(call, ": ", what, " failed: ", TK_GPU_API(GetErrorString)(status), " (", TK_GPU_API(GetErrorName)(status),
         ")");
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
    allocated(p, bytes, "tk::Buffer");
    return p;
  }
  void free(int dev, void* p) noexcept override {
    if (TK_GPU_API(SetDevice)(dev) == TK_GPU_API(Success)) {
      freed(p);
      (void)TK_GPU_API(Free)(p);
    }
  }
  void copy(int dev, void* dst, const void* src, std::size_t bytes, CopyKind kind) override {
    use(dev, "tk::Buffer copy");
    const auto k = kind == CopyKind::host_to_device   ? TK_GPU_API(MemcpyHostToDevice)
                   : kind == CopyKind::device_to_host ? TK_GPU_API(MemcpyDeviceToHost)
                                                      : TK_GPU_API(MemcpyDeviceToDevice);
    TK_GPU_CHECK(TK_GPU_API(Memcpy)(dst, src, bytes, k), "tk::Buffer copy",
                 std::string(TK_GPU_API_NAME "Memcpy(") + std::to_string(bytes) + " bytes)");
    // From pageable host memory the copy may return before its data has landed, ordered only before later
    // default-stream (and blocking-stream) work: wait for it, so that work on any queue, a wrapped
    // non-blocking stream included, sees the data.
    if (kind == CopyKind::host_to_device)
      TK_GPU_CHECK(TK_GPU_API(StreamSynchronize)(nullptr), "tk::Buffer copy", TK_GPU_API_NAME "StreamSynchronize");
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
  void event_record(int dev, void* e, void* stream) override {
    use(dev, "tk::Event::record");
    TK_GPU_CHECK(TK_GPU_API(EventRecord)(static_cast<TK_GPU_API(Event_t)>(e), as_stream(stream)), "tk::Event::record",
                 TK_GPU_API_NAME "EventRecord");
  }

  void* stream_create(int dev) override {
    use(dev, "tk::Queue::create");
    TK_GPU_API(Stream_t) s = nullptr;
    TK_GPU_CHECK(TK_GPU_API(StreamCreate)(&s), "tk::Queue::create", TK_GPU_API_NAME "StreamCreate");
    return s;
  }
  void stream_destroy(int dev, void* s) noexcept override {
    if (TK_GPU_API(SetDevice)(dev) == TK_GPU_API(Success))
      (void)TK_GPU_API(StreamDestroy)(static_cast<TK_GPU_API(Stream_t)>(s));  // (a queue's own: never null)
  }
  void stream_synchronize(int dev, void* s) override {
    use(dev, "tk::Queue::synchronize");
#if defined(__HIP_CPU_RT__)
    // the default queue (tilekit's own stream there, runtime.hip) waits for every stream, as the legacy stream would
    if (s == nullptr) {
      TK_GPU_CHECK(TK_GPU_API(DeviceSynchronize)(), "tk::Queue::synchronize",
                   TK_GPU_API_NAME "DeviceSynchronize (HIP-CPU's default queue)");
      return;
    }
#endif
    TK_GPU_CHECK(TK_GPU_API(StreamSynchronize)(as_stream(s)), "tk::Queue::synchronize",
                 TK_GPU_API_NAME "StreamSynchronize");
  }
  int stream_device(void* s) override;  // per backend (runtime.cu, runtime.hip)
  void stream_wait_event(int dev, void* s, void* e) override {
    use(dev, "tk::Queue::wait");
#if defined(__HIP_CPU_RT__)
    // HIP-CPU runs its streams one after another in one thread (its parallel for_each over a std::list of
    // streams runs in order), so a stream told to wait for a later stream's event waits for ever: the host
    // waits instead, which orders the work the same, a little later.
    (void)s;
    TK_GPU_CHECK(TK_GPU_API(EventSynchronize)(static_cast<TK_GPU_API(Event_t)>(e)), "tk::Queue::wait",
                 TK_GPU_API_NAME "EventSynchronize (HIP-CPU: in place of hipStreamWaitEvent)");
#else
    TK_GPU_CHECK(TK_GPU_API(StreamWaitEvent)(as_stream(s), static_cast<TK_GPU_API(Event_t)>(e), 0), "tk::Queue::wait",
                 TK_GPU_API_NAME "StreamWaitEvent");
#endif
  }

  // Scratch from a pool of tilekit's own per device (not the application's default pool, whose settings
  // it leaves alone), which keeps what it has allocated (release threshold: all), so that a call's scratch
  // is reused by later calls without going back to the driver. Stream-ordered: a block freed on one stream
  // is reused on another only after the freeing stream's earlier work is done (the runtime's rule).
  // A device without stream-ordered pools gets plain allocations, freed once the stream's work is done.
  void* scratch_alloc(int dev, std::size_t bytes, void* stream) override {
    const char* call = "tilekit scratch memory";
    use(dev, call);
    void* p = nullptr;
#if defined(__HIP_CPU_RT__)
    (void)stream;
#else
    if (Pool pool = scratch_pool(dev)) {
      TK_GPU_CHECK(TK_GPU_API(MallocFromPoolAsync)(&p, bytes, pool, as_stream(stream)), call,
                   std::string(TK_GPU_API_NAME "MallocFromPoolAsync(") + std::to_string(bytes) + " bytes)");
    } else
#endif
    {
      TK_GPU_CHECK(TK_GPU_API(Malloc)(&p, bytes), call,
                   std::string(TK_GPU_API_NAME "Malloc(") + std::to_string(bytes) + " bytes)");
      allocated(p, bytes, call);
    }
    return p;
  }
  void scratch_free(int dev, void* p, void* stream) noexcept override {
    if (TK_GPU_API(SetDevice)(dev) != TK_GPU_API(Success)) return;
#if !defined(__HIP_CPU_RT__)
    if (scratch_pool(dev) != nullptr) {
      (void)TK_GPU_API(FreeAsync)(p, as_stream(stream));
    } else
#endif
    {
      (void)TK_GPU_API(StreamSynchronize)(as_stream(stream));
      freed(p);
      (void)TK_GPU_API(Free)(p);
    }
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
#if defined(__HIP_CPU_RT__)
  static TK_GPU_API(Stream_t) as_stream(void* s) { return static_cast<TK_GPU_API(Stream_t)>(hip_cpu_stream(s)); }
#else
  static TK_GPU_API(Stream_t) as_stream(void* s) { return static_cast<TK_GPU_API(Stream_t)>(s); }
#endif

#if defined(__HIP_CPU_RT__)
  // HIP-CPU's memory is the host's, and it has no pointer attributes: the runtime keeps the blocks it
  // handed out, so that locate() tells them from other host memory (the checks a GPU's pointers get).
  // Its hipMalloc reports success when malloc fails: a null block is out of memory.
 public:
  bool allocated_here(const void* p) {  // within a block this runtime handed out
    std::lock_guard<std::mutex> lock(blocks_mutex_);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = blocks_.upper_bound(a);
    return it != blocks_.begin() && a < std::prev(it)->first + std::prev(it)->second;
  }

 private:
  void allocated(void* p, std::size_t bytes, const char* call) {
    if (p == nullptr && bytes > 0)
      fail(call, ": " TK_GPU_API_NAME "Malloc(", bytes, " bytes) failed: out of memory (HIP-CPU)");
    std::lock_guard<std::mutex> lock(blocks_mutex_);
    blocks_[reinterpret_cast<std::uintptr_t>(p)] = bytes == 0 ? 1 : bytes;
  }
  void freed(void* p) noexcept {
    std::lock_guard<std::mutex> lock(blocks_mutex_);
    blocks_.erase(reinterpret_cast<std::uintptr_t>(p));
  }
  std::mutex blocks_mutex_;
  std::map<std::uintptr_t, std::size_t> blocks_;
#else
  void allocated(void*, std::size_t, const char*) {}
  void freed(void*) noexcept {}
#endif

  // Created on first use, for the life of the program (the driver reclaims it at exit; destroying it from a
  // static destructor could run after the runtime has shut down); nullptr where the device has no pools.
  // No reuse through internal dependencies: a block freed on one queue is not handed to another by making
  // it wait for the first, which would order two independent queues behind each other unseen.
#if defined(__HIP_CPU_RT__)
  using Pool = void*;
  Pool scratch_pool(int) { return nullptr; }  // HIP-CPU has no stream-ordered pools
#else
  using Pool = TK_GPU_API(MemPool_t);
  Pool scratch_pool(int dev) {
    std::lock_guard<std::mutex> lock(pools_mutex_);
    if (pools_.empty()) pools_.resize(static_cast<std::size_t>(count_), {false, nullptr});
    auto& [made, pool] = pools_[static_cast<std::size_t>(dev)];
    if (!made) {
      const char* call = "tilekit scratch memory";
      int supported = 0;
      TK_GPU_CHECK(TK_GPU_API(DeviceGetAttribute)(&supported, TK_GPU_ATTR_MEMORY_POOLS, dev), call,
                   TK_GPU_API_NAME "DeviceGetAttribute(MemoryPoolsSupported)");
      if (supported != 0) {
        TK_GPU_API(MemPoolProps) props{};
        props.allocType = TK_GPU_API(MemAllocationTypePinned);
        props.location.type = TK_GPU_API(MemLocationTypeDevice);
        props.location.id = dev;
        TK_GPU_CHECK(TK_GPU_API(MemPoolCreate)(&pool, &props), call, TK_GPU_API_NAME "MemPoolCreate");
        std::uint64_t keep = ~std::uint64_t{0};
        TK_GPU_CHECK(TK_GPU_API(MemPoolSetAttribute)(pool, TK_GPU_API(MemPoolAttrReleaseThreshold), &keep), call,
                     TK_GPU_API_NAME "MemPoolSetAttribute(ReleaseThreshold)");
        int no = 0;
        TK_GPU_CHECK(TK_GPU_API(MemPoolSetAttribute)(pool, TK_GPU_API(MemPoolReuseAllowInternalDependencies), &no),
                     call, TK_GPU_API_NAME "MemPoolSetAttribute(ReuseAllowInternalDependencies)");
      }
      made = true;
    }
    return pool;
  }
#endif

  int count_ = 0;
  std::string reason_;
  std::mutex pools_mutex_;
  std::vector<std::pair<bool, Pool>> pools_;  // (asked, the pool or nullptr)
};

// Never destroyed: a tk::Queue, Buffer or Event in static storage may be destroyed after any function-local
// static, and its deleter still needs the runtime (the process's end reclaims it).
GpuRuntime& gpu_runtime() {
  static GpuRuntime* r = new GpuRuntime;
  return *r;
}

}  // namespace

// Launch checks shared by every kernel of this target (see tilekit/portability/cuda.hpp, hip.hpp).
bool TK_GPU_PREPARE_LAUNCH(const Device& dev, const LaunchSpec& spec, const void* kernel) {
  const char* call = "tk::launch";
  if (dev.backend() != TK_GPU_BACKEND)
    fail(call, "(", spec.name, "): argument 'dev' is ", dev.name(), "; this kernel was compiled for the ", gpu_backend,
         " target");
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
#if defined(__HIP_CPU_RT__)  // HIP-CPU: a block's dynamic shared memory is a buffer of any size
  (void)kernel;
#else
  if (static_cast<std::int64_t>(spec.dynamic_shared) > p.shared_per_block)
    TK_GPU_CHECK(TK_GPU_API(FuncSetAttribute)(kernel, TK_GPU_API(FuncAttributeMaxDynamicSharedMemorySize),
                                              static_cast<int>(spec.dynamic_shared)),
                 call, TK_GPU_API_NAME "FuncSetAttribute(MaxDynamicSharedMemorySize)");
#endif
  return true;
}

KernelResources TK_GPU_DESCRIBE(const Device& dev, const LaunchSpec& spec, const void* kernel) {
  const char* call = "tk::kernel_resources";
  gpu_runtime().use(dev.index(), call);
  TK_GPU_API(FuncAttributes) fa{};
  TK_GPU_CHECK(TK_GPU_API(FuncGetAttributes)(&fa, kernel), call,
               std::string(TK_GPU_API_NAME "FuncGetAttributes(") + spec.name + ")");
  KernelResources r;
  r.kernel = spec.name;
  r.block_threads = spec.block.x * spec.block.y * spec.block.z;
  r.dynamic_shared = static_cast<std::int64_t>(spec.dynamic_shared);
  r.registers_per_thread = fa.numRegs;
  r.static_shared = static_cast<std::int64_t>(fa.sharedSizeBytes);
  r.max_threads_per_block = fa.maxThreadsPerBlock;
  int blocks = 0;
  TK_GPU_CHECK(
      TK_GPU_API(OccupancyMaxActiveBlocksPerMultiprocessor)(&blocks, kernel, r.block_threads, spec.dynamic_shared),
      call, std::string(TK_GPU_API_NAME "OccupancyMaxActiveBlocksPerMultiprocessor(") + spec.name + ")");
  r.runtime_blocks_per_multiprocessor = blocks;
  return r;
}

void TK_GPU_CHECK_LAUNCH(const LaunchSpec& spec) {
  TK_GPU_CHECK(TK_GPU_API(GetLastError)(), "tk::launch", std::string("launching ") + spec.name);
}

}  // namespace tk::detail
