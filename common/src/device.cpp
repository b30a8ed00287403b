// Devices, events and memory calls: backend-neutral, dispatched to backends/<name>/runtime.*.
#include <chrono>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tilekit/detail/runtime.hpp"
#include "tilekit/error.hpp"

#if defined(TK_HAVE_KOKKOS)
namespace tk::launchers::kokkos {  // backends/kokkos/elementwise.cpp
std::string execution_space();
int cuda_device();
bool on_host();
}  // namespace tk::launchers::kokkos
#endif

namespace tk {

const char* to_string(Backend b) {
  switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::hip: return "hip";
    case Backend::kokkos: return "kokkos";
  }
  return "unknown";
}

bool backend_built(Backend b) {
  switch (b) {
    case Backend::cpu: return true;
    case Backend::cuda: return detail::cuda_runtime() != nullptr;
    case Backend::hip: return detail::hip_runtime() != nullptr;
    case Backend::kokkos:
#if defined(TK_HAVE_KOKKOS)
      return true;
#else
      return false;
#endif
  }
  return false;
}

bool reads_host_memory(Backend b) {
  if (b == Backend::cpu) return true;
#if defined(TK_HAVE_KOKKOS)
  if (b == Backend::kokkos) return launchers::kokkos::on_host();
#endif
  return false;
}

int device_count(Backend b) {
  if (!backend_built(b)) return 0;
  if (b == Backend::kokkos && !reads_host_memory(b)) return device_count(Backend::cuda) > 0 ? 1 : 0;  // on a GPU
  if (b == Backend::cpu || b == Backend::kokkos) return 1;
  return detail::runtime(b).device_count();
}

std::string unavailable_reason(Backend b) {
  if (!backend_built(b))
    return std::string("the ") + to_string(b) + " backend is not built in (TK_ENABLE_" +
           (b == Backend::cuda  ? "CUDA"
            : b == Backend::hip ? "HIP"
                                : "KOKKOS") +
           ")";
  if (b == Backend::kokkos && !reads_host_memory(b))
    return device_count(Backend::cuda) > 0 ? "" : "Kokkos was built for CUDA, and " + unavailable_reason(Backend::cuda);
  if (b == Backend::cpu || b == Backend::kokkos) return "";
  return detail::runtime(b).unavailable_reason();
}

Device default_device() {
  if (device_count(Backend::cuda) > 0) return Device::cuda(0);
  if (device_count(Backend::hip) > 0) return Device::hip(0);
  return Device::cpu();
}

std::vector<Device> devices() {
  std::vector<Device> out{Device::cpu()};
  for (int i = 0; i < device_count(Backend::cuda); ++i) out.push_back(Device::cuda(i));
  for (int i = 0; i < device_count(Backend::hip); ++i) out.push_back(Device::hip(i));
  if (device_count(Backend::kokkos) > 0) out.push_back(Device::kokkos());
  return out;
}

namespace {
Device gpu_device(Backend b, int index, const char* call) {
  const int n = device_count(b);
  if (n == 0) detail::fail(call, ": no ", to_string(b), " device: ", unavailable_reason(b));
  detail::require(index >= 0 && index < n, call, "index", index,
                  ("0 <= index < " + std::to_string(n) + " (the " + to_string(b) + " devices present)").c_str());
  return {};
}
}  // namespace

Device Device::cuda(int index) {
  gpu_device(Backend::cuda, index, "tk::Device::cuda");
  return Device(Backend::cuda, index);
}
Device Device::hip(int index) {
  gpu_device(Backend::hip, index, "tk::Device::hip");
  return Device(Backend::hip, index);
}
Device Device::kokkos() {
  if (device_count(Backend::kokkos) == 0) detail::fail("tk::Device::kokkos: ", unavailable_reason(Backend::kokkos));
  return Device(Backend::kokkos, 0);
}

std::string Device::name() const {
  if (backend_ == Backend::cpu || backend_ == Backend::kokkos) return to_string(backend_);
  return std::string(to_string(backend_)) + ":" + std::to_string(index_);
}

const DeviceProps& Device::props() const {
  // A deque never moves its elements when it grows: a reference handed out stays valid for the life of the
  // program, whatever other devices are queried later, from any thread. Entries are never removed.
  // Never destroyed: the reference holds during the program's exit too (static destructors, atexit handlers).
  static std::mutex& m = *new std::mutex;
  static auto& cache = *new std::deque<std::pair<Device, DeviceProps>>;
  std::lock_guard<std::mutex> lock(m);
  for (auto& [d, p] : cache)
    if (d == *this) return p;
  DeviceProps p = detail::runtime(backend_).props(index_);
#if defined(TK_HAVE_KOKKOS)
  // the host's figures (the GPU's where Kokkos runs on CUDA), and where the Kokkos versions run: "Kokkos 4.6.99:
  // OpenMP, 2 threads", or "Kokkos 4.6.99: Cuda, device 0; CUDA driver 13.0, runtime 13.0"
  if (backend_ == Backend::kokkos)
    p.driver = launchers::kokkos::execution_space() + (p.driver.empty() ? "" : "; " + p.driver);
#endif
  cache.emplace_back(*this, std::move(p));
  return cache.back().second;
}

void Device::synchronize() const { detail::runtime(backend_).synchronize(index_); }

Event::Event(const Device& dev) : dev_(dev) {
  if (dev.backend() == Backend::cuda || dev.backend() == Backend::hip)
    handle_ = detail::runtime(dev.backend()).event_create(dev.index());
}

Event::~Event() {
  if (handle_ != nullptr) detail::runtime(dev_.backend()).event_destroy(handle_);
}

namespace {
bool is_gpu(const Device& d) { return d.backend() == Backend::cuda || d.backend() == Backend::hip; }
}  // namespace

Queue::Queue(const Device& dev) : dev_(dev) {}

Queue Queue::create(const Device& dev) {
  if (!is_gpu(dev)) return Queue(dev);  // synchronous: every queue of a CPU or Kokkos device is alike
  detail::Runtime& rt = detail::runtime(dev.backend());
  void* s = rt.stream_create(dev.index());
  return Queue(dev, std::shared_ptr<void>(s, [&rt, i = dev.index()](void* p) { rt.stream_destroy(i, p); }));
}

Queue Queue::wrap(const Device& dev, void* native_stream) {
  if (native_stream != nullptr && !is_gpu(dev))
    detail::fail("tk::Queue::wrap: argument 'native_stream' is ", native_stream, "; ", dev.name(),
                 " has no streams (its calls are synchronous): pass nullptr or a GPU device");
  if (native_stream != nullptr) {
    const int owner = detail::runtime(dev.backend()).stream_device(native_stream);
    if (owner >= 0 && owner != dev.index())
      detail::fail("tk::Queue::wrap: argument 'native_stream' is ", native_stream, ", a stream of ",
                   to_string(dev.backend()), ":", owner, "; expected a stream of ", dev.name());
  }
  return Queue(dev, std::shared_ptr<void>(native_stream, [](void*) {}));
}

void Queue::synchronize() const {
  if (is_gpu(dev_)) detail::runtime(dev_.backend()).stream_synchronize(dev_.index(), native());
}

void Queue::wait(const Event& e) const {
  if (e.dev_.backend() != dev_.backend())
    detail::fail("tk::Queue::wait: argument 'e' is an event of ", e.dev_.name(), "; expected one of a ",
                 to_string(dev_.backend()), " device like this queue's, ", dev_.name());
  if (e.handle_ != nullptr) detail::runtime(dev_.backend()).stream_wait_event(dev_.index(), native(), e.handle_);
}

void Event::record() { record(Queue(dev_)); }

void Event::record(const Queue& q) {
  if (q.device() != dev_)
    detail::fail("tk::Event::record: argument 'q' is a queue of ", q.device().name(), "; expected one of ", dev_.name(),
                 ", the event's device");
  if (handle_ != nullptr) {
    detail::runtime(dev_.backend()).event_record(dev_.index(), handle_, q.native());
  } else {
    using namespace std::chrono;
    host_ms_ = duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
  }
}

double Event::elapsed_ms(const Event& start, const Event& stop) {
  if (start.dev_ != stop.dev_)
    detail::fail("tk::Event::elapsed_ms: argument 'stop' is an event of ", stop.dev_.name(), "; expected one of ",
                 start.dev_.name());
  if (start.handle_ == nullptr) return stop.host_ms_ - start.host_ms_;
  return detail::runtime(start.dev_.backend()).event_elapsed_ms(start.handle_, stop.handle_);
}

namespace detail {

#if !defined(TK_HAVE_CUDA)
Runtime* cuda_runtime() { return nullptr; }
#endif
#if !defined(TK_HAVE_HIP)
Runtime* hip_runtime() { return nullptr; }
#endif

namespace {
#if defined(TK_HAVE_KOKKOS) && defined(TK_HAVE_CUDA)
// The Kokkos device where Kokkos runs on a CUDA GPU: its memory, copies and properties are that GPU's (the
// Kokkos device's index 0 is CUDA device `gpu`); its calls stay synchronous (each Kokkos version fences), so
// it has no streams or events of its own, as a host device.
class KokkosOnCuda final : public Runtime {
 public:
  KokkosOnCuda(Runtime& cuda, int gpu) : cuda_(cuda), gpu_(gpu) {}
  int device_count() override { return 1; }
  std::string unavailable_reason() override { return ""; }
  DeviceProps props(int) override { return cuda_.props(gpu_); }
  void* alloc(int, std::size_t bytes) override { return cuda_.alloc(gpu_, bytes); }
  void free(int, void* p) noexcept override { cuda_.free(gpu_, p); }
  void copy(int, void* dst, const void* src, std::size_t bytes, CopyKind kind) override {
    cuda_.copy(gpu_, dst, src, bytes, kind);
  }
  void synchronize(int) override { cuda_.synchronize(gpu_); }
  PointerInfo locate(const void* p) override { return cuda_.locate(p); }
  void* stream_create(int) override { return nullptr; }
  void stream_destroy(int, void*) noexcept override {}
  void stream_synchronize(int, void*) override {}
  void stream_wait_event(int, void*, void*) override {}
  int stream_device(void*) override { return -1; }
  void* scratch_alloc(int, std::size_t bytes, void*) override { return alloc(0, bytes); }
  void scratch_free(int, void* p, void*) noexcept override { free(0, p); }
  void* event_create(int) override { return nullptr; }
  void event_record(int, void*, void*) override {}
  double event_elapsed_ms(void*, void*) override { return 0; }
  void event_destroy(void*) noexcept override {}

 private:
  Runtime& cuda_;
  int gpu_;
};
#endif

// The CUDA device the Kokkos device runs on, or -1 (a host execution space, or no Kokkos).
int kokkos_gpu() {
#if defined(TK_HAVE_KOKKOS) && defined(TK_HAVE_CUDA)
  if (!launchers::kokkos::on_host()) {
    static const int gpu = launchers::kokkos::cuda_device();
    return gpu;
  }
#endif
  return -1;
}
}  // namespace

Runtime& runtime(Backend b) {
  switch (b) {
    case Backend::kokkos:
#if defined(TK_HAVE_KOKKOS) && defined(TK_HAVE_CUDA)
      if (kokkos_gpu() >= 0) {
        static KokkosOnCuda& on_cuda = *new KokkosOnCuda(*cuda_runtime(), kokkos_gpu());  // never destroyed
        return on_cuda;
      }
#endif
      return cpu_runtime();
    case Backend::cpu: return cpu_runtime();
    case Backend::cuda:
      if (Runtime* r = cuda_runtime()) return *r;
      break;
    case Backend::hip:
      if (Runtime* r = hip_runtime()) return *r;
      break;
  }
  fail("tilekit: ", unavailable_reason(b));
}

std::mutex& kokkos_mutex() {
  static std::mutex& m = *new std::mutex;  // never destroyed: usable during exit
  return m;
}

void* device_alloc(const Device& dev, std::size_t bytes) { return runtime(dev.backend()).alloc(dev.index(), bytes); }
void device_free(const Device& dev, void* p) noexcept { runtime(dev.backend()).free(dev.index(), p); }
void copy_bytes(const Device& dev, void* dst, const void* src, std::size_t bytes, CopyKind kind) {
  runtime(dev.backend()).copy(dev.index(), dst, src, bytes, kind);
}

namespace {
// Scratch blocks of the host devices (CPU, Kokkos), each either lent to one call or free. A call takes a
// block of its own (the smallest free one that is large enough), so calls from several host threads never
// share scratch memory. A block goes back when the call's Workspace is destroyed, when the (synchronous) call
// is done. A call that no free block fits first frees the free blocks of its device (all smaller than it
// needs), then allocates its own: so the pool never holds more blocks than calls were ever lent blocks at
// once, and never more bytes than that many times the largest workspace. (Keeping every outgrown block made
// a growing series of products, as an iterative solver's growing basis makes, grow memory without bound.)
class ScratchPool {
 public:
  struct Block {
    Device dev;
    void* p;
    std::size_t bytes;
    bool lent;
  };
  void* take(const Device& dev, std::size_t bytes) {
    std::vector<Block> outgrown;
    {
      std::lock_guard<std::mutex> lock(m_);
      Block* best = nullptr;
      for (Block& b : blocks_)
        if (!b.lent && b.dev == dev && b.bytes >= bytes && (best == nullptr || b.bytes < best->bytes)) best = &b;
      if (best != nullptr) {
        best->lent = true;
        return best->p;
      }
      for (auto it = blocks_.begin(); it != blocks_.end();) {
        if (!it->lent && it->dev == dev) {
          outgrown.push_back(*it);
          it = blocks_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (const Block& b : outgrown) device_free(b.dev, b.p);  // outside the lock, as the allocation
    void* p = device_alloc(dev, bytes);
    std::lock_guard<std::mutex> lock(m_);
    blocks_.push_back({dev, p, bytes, true});
    return p;
  }
  void give_back(void* p) noexcept {
    std::lock_guard<std::mutex> lock(m_);
    for (Block& b : blocks_)
      if (b.p == p) b.lent = false;
  }
  // Blocks and bytes held, lent or free (tests: the pool's bound).
  std::pair<std::size_t, std::size_t> held() {
    std::lock_guard<std::mutex> lock(m_);
    std::size_t bytes = 0;
    for (const Block& b : blocks_) bytes += b.bytes;
    return {blocks_.size(), bytes};
  }

 private:
  std::mutex m_;
  std::list<Block> blocks_;
};

// Never destroyed: a call during the program's exit still gets scratch (the process's end reclaims it).
ScratchPool& scratch_pool() {
  static ScratchPool* pool = new ScratchPool;
  return *pool;
}
}  // namespace

namespace {
thread_local void* current_stream_ = nullptr;
thread_local const char* current_call_ = nullptr;
}  // namespace

void* current_stream() noexcept { return current_stream_; }
const char* current_call() noexcept { return current_call_; }
// The outermost public call names the op (a public call made inside another keeps the first's name).
OnQueue::OnQueue(const Queue& q, const char* call) noexcept
    : previous_(std::exchange(current_stream_, q.native())),
      previous_call_(std::exchange(current_call_, current_call_ ? current_call_ : call)) {}
OnQueue::~OnQueue() {
  current_stream_ = previous_;
  current_call_ = previous_call_;
}

ScratchHeld host_scratch_held() {
  const auto [blocks, bytes] = scratch_pool().held();
  return {blocks, bytes};
}

// On a GPU, scratch comes from the runtime's stream-ordered pool on the call's stream: allocated and freed
// in the stream's order, so it is never reused before the work that used it is done, whatever the queue.
Workspace::Workspace(const Device& dev, std::size_t bytes) : dev_(dev), stream_(current_stream()) {
  if (bytes == 0) return;
  p_ =
      is_gpu(dev) ? runtime(dev.backend()).scratch_alloc(dev.index(), bytes, stream_) : scratch_pool().take(dev, bytes);
}
Workspace::~Workspace() {
  if (p_ == nullptr) return;
  if (is_gpu(dev_)) {
    runtime(dev_.backend()).scratch_free(dev_.index(), p_, stream_);
  } else {
    scratch_pool().give_back(p_);
  }
}

void check_pointer(const Device& dev, const void* p, const char* call, const char* name, std::size_t align) {
  require_ptr(p, call, name);
  if (reinterpret_cast<std::uintptr_t>(p) % align != 0)
    fail(call, ": argument '", name, "' is ", p, "; expected an address aligned to ", align,
         " bytes, the alignment of its element type");
  // the GPU whose memory the call needs: dev's own, or the one Kokkos runs on
  Backend on = dev.backend();
  int index = dev.index();
  if (on == Backend::kokkos && kokkos_gpu() >= 0) {
    on = Backend::cuda;
    index = kokkos_gpu();
  }
  const bool gpu = on == Backend::cuda || on == Backend::hip;
  const std::string where = on == dev.backend() ? dev.name() : dev.name() + " (on cuda:" + std::to_string(index) + ")";
  for (Backend b : {Backend::cuda, Backend::hip}) {
    if (device_count(b) == 0) continue;
    const PointerInfo info = runtime(b).locate(p);
    if (info.kind == PointerInfo::Kind::device || info.kind == PointerInfo::Kind::managed) {
      if (info.kind == PointerInfo::Kind::managed && (!gpu || on == b)) return;  // reachable
      if (on == b && index == info.device) return;
      fail(call, ": argument '", name, "' points to memory of ", to_string(b), ":", info.device, ", not to memory of ",
           where);
    }
    if (info.kind == PointerInfo::Kind::host && on == b)
      fail(call, ": argument '", name, "' points to host memory, not to memory of ", where);
  }
}

}  // namespace detail
}  // namespace tk
