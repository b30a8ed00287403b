// common/src/dispatch.hpp — TK_DISPATCH: hands a checked public call to the launcher of dev's backend.
#pragma once

#include <mutex>

#include "tilekit/error.hpp"

namespace tk::detail {
// Kokkos calls are serialised: an execution-space instance is not safe to dispatch to from several host
// threads at once, and the Kokkos device exists as a cross-check, not for throughput.
std::mutex& kokkos_mutex();
}  // namespace tk::detail

// Calls launchers::<backend>::op(args...) for dev's backend; a backend not built cannot reach here,
// since no tk::Device of it can be made.
#define TK_DISPATCH(dev, op, ...)                                                     \
  switch ((dev).backend()) {                                                          \
    case Backend::cpu: return launchers::cpu::op(__VA_ARGS__);                        \
    case Backend::cuda: TK_IF_CUDA(return launchers::cuda::op(__VA_ARGS__);) break;   \
    case Backend::hip: TK_IF_HIP(return launchers::hip::op(__VA_ARGS__);) break;      \
    case Backend::kokkos:                                                             \
      TK_IF_KOKKOS({                                                                  \
        const std::lock_guard<std::mutex> tk_lock_(detail::kokkos_mutex());           \
        return launchers::kokkos::op(__VA_ARGS__);                                    \
      })                                                                              \
      break;                                                                          \
  }                                                                                   \
  detail::fail(#op, ": the ", to_string((dev).backend()), " backend is not built in")

#if defined(TK_HAVE_CUDA)
#define TK_IF_CUDA(...) __VA_ARGS__
#else
#define TK_IF_CUDA(...)
#endif
#if defined(TK_HAVE_HIP)
#define TK_IF_HIP(...) __VA_ARGS__
#else
#define TK_IF_HIP(...)
#endif
#if defined(TK_HAVE_KOKKOS)
#define TK_IF_KOKKOS(...) __VA_ARGS__
#else
#define TK_IF_KOKKOS(...)
#endif
