// tilekit/detail/memory.hpp — the byte-level memory calls under tk::Buffer (implemented per backend).
#pragma once

#include <cstddef>

#include "tilekit/device.hpp"

namespace tk::detail {

enum class CopyKind { host_to_device, device_to_host, device_to_device };

void* device_alloc(const Device& dev, std::size_t bytes);
void device_free(const Device& dev, void* p) noexcept;
// Synchronous with respect to the host; ordered after work already queued on dev.
void copy_bytes(const Device& dev, void* dst, const void* src, std::size_t bytes, CopyKind kind);

// Scratch memory on dev of at least `bytes` for one call, on the call's queue (detail::current_stream()),
// and for no other call meanwhile: calls from several host threads or queues at once each get their own.
// Destroy it once the work that uses it is queued: on a GPU it is freed in the queue's order (after that
// work); on the CPU the call is done by then.
class Workspace {
 public:
  Workspace(const Device& dev, std::size_t bytes);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  void* get() const { return p_; }

 private:
  Device dev_;
  void* stream_;
  void* p_ = nullptr;
};

// The host devices' scratch pool as it stands: its blocks (lent or free) and their bytes. It never holds more
// blocks than calls held workspaces at once (device.cpp, ScratchPool).
struct ScratchHeld {
  std::size_t blocks, bytes;
};
ScratchHeld host_scratch_held();

// Throws tk::Error "<call>: argument '<name>' points to <where>, not to memory of <dev>" when the pointer
// can be told to live elsewhere (another GPU, host memory for a GPU call, GPU memory for a CPU call).
// Pointers the runtimes cannot place (e.g. plain host memory in a CPU call) pass. A null pointer, or one
// not aligned to `align` (its element type's alignment), throws too.
void check_pointer(const Device& dev, const void* p, const char* call, const char* name,
                   std::size_t align = alignof(float));

}  // namespace tk::detail
