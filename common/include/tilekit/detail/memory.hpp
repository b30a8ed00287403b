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

// Scratch memory on dev of at least `bytes`, kept and reused by later calls (grown when too small).
// Safe to reuse because a device's work runs in issue order on its one queue; valid until the next call
// that asks for more.
void* workspace(const Device& dev, std::size_t bytes);

// Throws tk::Error "<call>: argument '<name>' points to <where>, not to memory of <dev>" when the pointer
// can be told to live elsewhere (another GPU, host memory for a GPU call, GPU memory for a CPU call).
// Pointers the runtimes cannot place (e.g. plain host memory in a CPU call) pass.
void check_pointer(const Device& dev, const void* p, const char* call, const char* name);

}  // namespace tk::detail
