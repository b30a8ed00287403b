// tilekit/error.hpp — the one exception type of tilekit, and the checks that raise it.
//
// Every public call validates its arguments and every runtime call's status. A failure throws tk::Error
// whose message names the call, the argument (or runtime function) and the offending value, e.g.
//   tk::vector_add: argument 'n' is -3; expected n >= 0
//   tk::Buffer: cudaMalloc(1099511627776 bytes) failed: out of memory (cudaErrorMemoryAllocation)
#pragma once

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tk {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

namespace detail {

template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  throw Error(os.str());
}

// Throws "<call>: argument '<name>' is <value>; expected <rule>" unless ok.
template <class V>
void require(bool ok, const char* call, const char* name, const V& value, const char* rule) {
  if (!ok) fail(call, ": argument '", name, "' is ", value, "; expected ", rule);
}

inline void require_ptr(const void* p, const char* call, const char* name) {
  if (p == nullptr) fail(call, ": argument '", name, "' is a null pointer");
}

}  // namespace detail
}  // namespace tk
