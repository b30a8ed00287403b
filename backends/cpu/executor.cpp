// The CPU executor's out-of-line parts: the per-OS-thread block context and arena, launch checks.
#include "tilekit/cpu/executor.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <pthread.h>

#include <cstdlib>

#include "tilekit/detail/cpu_threads.hpp"
#include "tilekit/error.hpp"

namespace tk::cpu {

thread_local BlockContext tls_block{};

namespace {
// The arena's memory is freed when its thread ends. The main thread's ends before the program's static
// destructors and atexit handlers run, which may still call tilekit: the arena then takes a new block, which
// the process's end reclaims. Both thread-locals below are trivially destructible, so reading them is defined
// until the thread itself is gone; only the owner has a destructor.
thread_local Arena tls_arena;
thread_local bool tls_arena_owner_gone = false;
struct ArenaOwner {
  ~ArenaOwner() {
    std::free(tls_arena.base());
    tls_arena = Arena{};
    tls_arena_owner_gone = true;
  }
};
thread_local ArenaOwner tls_arena_owner;
}  // namespace

Arena& arena() { return tls_arena; }

void* Arena::push(std::size_t bytes) {
  if (base_ == nullptr) {
    base_ = static_cast<unsigned char*>(std::aligned_alloc(alignment, capacity));
    if (base_ == nullptr)
      tk::detail::fail("tk::launch: the CPU executor could not reserve its ", capacity, "-byte arena");
    if (!tls_arena_owner_gone) (void)&tls_arena_owner;  // frees it when the thread ends (constructed on first use)
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

namespace {
std::size_t this_thread_stack_bytes() {  // 0: unknown
#if defined(__GLIBC__)
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  std::size_t size = 0;
  if (pthread_attr_getstacksize(&attr, &size) != 0) size = 0;
  pthread_attr_destroy(&attr);
  return size;
#else
  return 0;
#endif
}
}  // namespace

void require_stack(const char* kernel, const char* call) {
  thread_local const std::size_t size = this_thread_stack_bytes();
  if (size == 0 || size >= cpu_min_stack_bytes) return;
  tk::detail::fail("tk::", call ? call : "launch", ": kernel ", kernel ? kernel : "?",
                   " would run on a thread whose stack is ", size / 1024, " KiB; tilekit's CPU kernels need at least ",
                   cpu_min_stack_bytes / 1024,
                   " KiB (a block's shared arrays live on the stack of the thread that runs it): raise OMP_STACKSIZE "
                   "(OpenMP's threads) or the calling thread's stack size");
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
