// tilekit/buffer.hpp — tk::Buffer<T>: n elements of T in one device's memory, owned (RAII, move-only).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilekit/detail/memory.hpp"
#include "tilekit/device.hpp"
#include "tilekit/error.hpp"

namespace tk {

// T must be trivially copyable: a buffer's elements are moved between host and device as bytes, and are
// neither constructed nor destroyed.
template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "tk::Buffer<T> holds raw device memory: T must be trivially copyable");

 public:
  Buffer() = default;
  Buffer(const Device& dev, std::size_t n) : dev_(dev), n_(n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T))
      detail::fail("tk::Buffer: argument 'n' is ", n, "; expected n * sizeof(T) to fit in size_t");
    if (n > 0) p_ = static_cast<T*>(detail::device_alloc(dev, n * sizeof(T)));
  }
  Buffer(const Device& dev, const std::vector<T>& host) : Buffer(dev, host.size()) {
    copy_from_host(host.data(), host.size());
  }
  ~Buffer() { release(); }
  Buffer(Buffer&& o) noexcept : dev_(o.dev_), p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      release();
      dev_ = o.dev_;
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  T* data() { return p_; }
  const T* data() const { return p_; }
  std::size_t size() const { return n_; }
  const Device& device() const { return dev_; }

  // Copies n elements from the host into the buffer, starting at element `offset` of the buffer.
  void copy_from_host(const T* src, std::size_t n, std::size_t offset = 0) {
    check_range("tk::Buffer::copy_from_host", n, offset);
    if (n == 0) return;
    detail::require_ptr(src, "tk::Buffer::copy_from_host", "src");
    detail::copy_bytes(dev_, p_ + offset, src, n * sizeof(T), detail::CopyKind::host_to_device);
  }
  // Copies n elements of the buffer, starting at element `offset`, to the host.
  void copy_to_host(T* dst, std::size_t n, std::size_t offset = 0) const {
    check_range("tk::Buffer::copy_to_host", n, offset);
    if (n == 0) return;
    detail::require_ptr(dst, "tk::Buffer::copy_to_host", "dst");
    detail::copy_bytes(dev_, dst, p_ + offset, n * sizeof(T), detail::CopyKind::device_to_host);
  }
  std::vector<T> to_host() const {
    std::vector<T> v(n_);
    copy_to_host(v.data(), n_);
    return v;
  }

 private:
  void check_range(const char* call, std::size_t n, std::size_t offset) const {
    detail::require(offset <= n_, call, "offset", offset, "offset <= size() of the buffer");
    detail::require(n <= n_ - offset, call, "n", n, "offset + n <= size() of the buffer");
  }
  void release() noexcept {
    if (p_ != nullptr) detail::device_free(dev_, p_);
    p_ = nullptr;
    n_ = 0;
  }
  Device dev_;
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace tk
