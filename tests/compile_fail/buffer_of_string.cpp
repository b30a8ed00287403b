// Must not compile: tk::Buffer<T> holds raw device memory, copied as bytes, so T must be trivially
// copyable (tests/CMakeLists.txt expects the static_assert's message).
#include <string>

#include "tilekit/buffer.hpp"

void make(const tk::Device& dev) { tk::Buffer<std::string> b(dev, 4); }
