// tilekit/detail/runtime.hpp — what each backend's runtime glue provides (backends/<name>/runtime.*).
// Internal: the public face of it is tk::Device, tk::Buffer and tk::Event.
#pragma once

#include <cstddef>
#include <string>

#include "tilekit/detail/memory.hpp"
#include "tilekit/device.hpp"

namespace tk::detail {

struct PointerInfo {
  enum class Kind { unknown, host, device, managed } kind = Kind::unknown;
  int device = -1;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual int device_count() = 0;
  virtual std::string unavailable_reason() = 0;
  virtual DeviceProps props(int dev) = 0;
  virtual void* alloc(int dev, std::size_t bytes) = 0;
  virtual void free(int dev, void* p) noexcept = 0;
  virtual void copy(int dev, void* dst, const void* src, std::size_t bytes, CopyKind kind) = 0;
  virtual void synchronize(int dev) = 0;
  virtual PointerInfo locate(const void* p) = 0;
  // Streams (GPUs; the CPU runtime has none: create returns nullptr, the rest do nothing).
  virtual void* stream_create(int dev) = 0;
  virtual void stream_destroy(int dev, void* stream) noexcept = 0;
  virtual void stream_synchronize(int dev, void* stream) = 0;
  virtual void stream_wait_event(int dev, void* stream, void* event) = 0;
  // The device a stream belongs to, or -1 where the runtime cannot tell (the CPU; HIP before hipStreamGetDevice;
  // CUDA's legacy and per-thread default streams, which are every device's).
  virtual int stream_device(void* stream) = 0;
  // Scratch memory allocated and freed in a stream's order.
  virtual void* scratch_alloc(int dev, std::size_t bytes, void* stream) = 0;
  virtual void scratch_free(int dev, void* p, void* stream) noexcept = 0;
  virtual void* event_create(int dev) = 0;
  virtual void event_record(int dev, void* event, void* stream) = 0;
  virtual double event_elapsed_ms(void* start, void* stop) = 0;
  virtual void event_destroy(void* event) noexcept = 0;
};

Runtime& cpu_runtime();
Runtime* cuda_runtime();  // nullptr when the CUDA backend is not built
Runtime* hip_runtime();   // nullptr when the HIP backend is not built
// The runtime behind a backend (Kokkos's: the CPU's on a host execution space, else that of the CUDA device
// Kokkos runs on). Throws if not built.
Runtime& runtime(Backend b);

}  // namespace tk::detail
