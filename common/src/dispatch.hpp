// common/src/dispatch.hpp — TK_DISPATCH: hands a checked public call to the launcher of dev's backend.
#pragma once

#include <mutex>

#include "tilekit/error.hpp"

namespace tk::detail {
// Kokkos calls are serialised: an execution-space instance is not safe to dispatch to from several host
// threads at once, and the Kokkos device exists as a cross-check, not for throughput.
std::mutex& kokkos_mutex();
// The CPU kernels' copy that runs (2, 3 or 4: x86-64-v2, -v3, -v4) in a build with runtime dispatch; throws
// tk::Error naming `call` when none can (a bad TK_CPU_ISA). common/src/cpu_isa.cpp.
int cpu_kernel_level(const char* call);
}  // namespace tk::detail

// The CPU launcher: with runtime dispatch (TK_CPU_DISPATCH, cmake/TkKernelSources.cmake) the copy compiled for
// the best instruction set this CPU runs, otherwise the one copy.
#if defined(TK_CPU_DISPATCH)
#define TK_CPU_CALL(op, ...)                            \
  switch (detail::cpu_kernel_level(#op)) {              \
    case 4: return launchers::cpu_v4::op(__VA_ARGS__);  \
    case 3: return launchers::cpu_v3::op(__VA_ARGS__);  \
    default: return launchers::cpu_v2::op(__VA_ARGS__); \
  }
#else
#define TK_CPU_CALL(op, ...) return launchers::cpu::op(__VA_ARGS__);
#endif

// Calls launchers::<backend>::op(args...) for dev's backend; a backend not built cannot reach here,
// since no tk::Device of it can be made.
#define TK_DISPATCH(dev, op, ...)                                                   \
  switch ((dev).backend()) {                                                        \
    case Backend::cpu: {                                                            \
      TK_CPU_CALL(op, __VA_ARGS__)                                                  \
    }                                                                               \
    case Backend::cuda: TK_IF_CUDA(return launchers::cuda::op(__VA_ARGS__);) break; \
    case Backend::hip: TK_IF_HIP(return launchers::hip::op(__VA_ARGS__);) break;    \
    case Backend::kokkos:                                                           \
      TK_IF_KOKKOS({                                                                \
        const std::lock_guard<std::mutex> tk_lock_(detail::kokkos_mutex());         \
        return launchers::kokkos::op(__VA_ARGS__);                                  \
      })                                                                            \
      break;                                                                        \
  }                                                                                 \
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
