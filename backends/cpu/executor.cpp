// The CPU executor's out-of-line parts: the per-OS-thread block context and arena, launch checks.
#include "tilekit/cpu/executor.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <cstdlib>
#include <memory>

#include "tilekit/detail/cpu_threads.hpp"
#include "tilekit/error.hpp"

namespace tk::cpu {

thread_local BlockContext tls_block{};

namespace {
struct FreeDeleter {
  void operator()(unsigned char* p) const { std::free(p); }
};
thread_local std::unique_ptr<unsigned char, FreeDeleter> tls_arena_memory;
thread_local Arena tls_arena;
}  // namespace

Arena& arena() { return tls_arena; }

void* Arena::push(std::size_t bytes) {
  if (base_ == nullptr) {
    tls_arena_memory.reset(static_cast<unsigned char*>(std::aligned_alloc(alignment, capacity)));
    if (!tls_arena_memory) tk::detail::fail("tk::launch: the CPU executor could not reserve its ", capacity, "-byte arena");
    base_ = tls_arena_memory.get();
  }
  const std::size_t start = (top_ + alignment - 1) / alignment * alignment;
  if (bytes > capacity || start > capacity - bytes)
    tk::detail::fail("tk::launch(", tls_block.kernel_name ? tls_block.kernel_name : "kernel",
                     "): a block needs more than ", capacity,
                     " bytes of shared and private storage on the CPU (asked for ", bytes, " more)");
  top_ = start + bytes;
  return base_ + start;
}

namespace detail {

bool prepare_launch(const Device& dev, const LaunchSpec& spec) {
  const char* call = "tk::launch";
  if (dev.backend() != Backend::cpu && dev.backend() != Backend::kokkos)
    tk::detail::fail(call, "(", spec.name, "): argument 'dev' is ", dev.name(),
                     "; this kernel was compiled for the CPU target");
  for (const auto& [d, what] : {std::pair{spec.grid, "grid"}, std::pair{spec.block, "block"}}) {
    if (d.x < 0 || d.y < 0 || d.z < 0)
      tk::detail::fail(call, "(", spec.name, "): argument '", what, "' is (", d.x, ", ", d.y, ", ", d.z,
                       "); expected no negative extent");
  }
  if (spec.grid.x == 0 || spec.grid.y == 0 || spec.grid.z == 0) return false;
  const std::int64_t threads = std::int64_t{spec.block.x} * spec.block.y * spec.block.z;
  if (threads <= 0 || threads > (std::int64_t{1} << 24))
    tk::detail::fail(call, "(", spec.name, "): argument 'block' is (", spec.block.x, ", ", spec.block.y, ", ",
                     spec.block.z, "); expected 1 to 2^24 threads per block");
  return true;
}

void record_error(std::exception_ptr& slot, bool& failed) {
#if defined(_OPENMP)
#pragma omp critical(tk_cpu_record_error)
#endif
  {
    if (!slot) slot = std::current_exception();
    failed = true;
  }
}

}  // namespace detail
}  // namespace tk::cpu

namespace tk::detail {
int cpu_executor_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads() > 1 ? omp_get_max_threads() : 1;
#else
  return 1;
#endif
}
}  // namespace tk::detail
