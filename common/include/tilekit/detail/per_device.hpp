// tilekit/detail/per_device.hpp — a value worked out once per device and kept, such as a kernel's resident
// blocks per multiprocessor, which the runtime is asked once and which differs between GPU models (a
// program may drive an H100 and an A100 at once). One object serves the devices of one backend (a
// launcher's target), by index.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

namespace tk::detail {

template <class T>
class PerDevice {
 public:
  // The value for device index `dev`: make() at the first request for that device, the kept value after.
  // Thread-safe; make() runs under the object's lock, so it runs once per device.
  template <class F>
  T get(int dev, F&& make) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (static_cast<std::size_t>(dev) >= values_.size()) values_.resize(static_cast<std::size_t>(dev) + 1);
    std::optional<T>& v = values_[static_cast<std::size_t>(dev)];
    if (!v) v = make();
    return *v;
  }

 private:
  std::mutex mutex_;
  std::vector<std::optional<T>> values_;
};

}  // namespace tk::detail
