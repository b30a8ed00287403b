// tilekit/cpu/executor.hpp — runs a tilekit kernel on the CPU.
//
// One OS thread per block at a time: the grid's blocks are spread over an OpenMP team (static schedule,
// x fastest), and the kernel function runs once per block. Inside, TK_THREADS loops over the block's
// threads (portability/cpu.hpp). There are no fibers and no OS thread per GPU thread, so any block size works.
//
// Per OS thread, an arena holds the block's dynamic shared memory and its tk::Private arrays, 64-byte
// aligned; Privates are released in reverse order of creation, as the scopes of the kernel close.
// An exception thrown by a block is caught inside the parallel region (it may not leave it) and the first
// one is rethrown to the caller after the grid has stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <type_traits>

#include "tilekit/device.hpp"
#include "tilekit/kernel_types.hpp"
#if defined(TK_CHECKED)
#include "tilekit/cpu/checked.hpp"
#endif

namespace tk::cpu {

// The block being run by this OS thread. Trivial, so thread-local access needs no init guard.
struct BlockContext {
  Dim3 block_idx;
  Dim3 block_dim;
  Dim3 grid_dim;
  int threads;  // block_dim.x * block_dim.y * block_dim.z
  unsigned char* dynamic_shared;
  const char* kernel_name;
};
extern thread_local BlockContext tls_block;

// A bump allocator, one per OS thread, reserved once (the pages are committed as they are touched).
class Arena {
 public:
  static constexpr std::size_t capacity = std::size_t{64} << 20;
  static constexpr std::size_t alignment = 64;
  // Throws tk::Error naming the kernel when a block needs more than `capacity` bytes.
  void* push(std::size_t bytes);
  void pop_to(std::size_t mark) { top_ = mark; }
  std::size_t mark() const { return top_; }
  unsigned char* base() const { return base_; }
  std::size_t offset_of(const void* p) const {
    return static_cast<std::size_t>(static_cast<const unsigned char*>(p) - base_);
  }

 private:
  unsigned char* base_ = nullptr;
  std::size_t top_ = 0;
};
Arena& arena();

// The extents a phase loops over (copied out of tls_block once per phase).
struct Phase {
  int nx, ny, nz;
  bool once;
  static Phase begin() {
    const BlockContext& c = tls_block;
    return {c.block_dim.x, c.block_dim.y, c.block_dim.z, true};
  }
};

// N values of T per thread of the block; element (thread, i) sits at [i * stride + thread.id], so a
// phase's simd loop over threads touches consecutive elements. The stride is the block's threads rounded up
// to an odd number of 64-byte lines: a thread's N values then fall in different sets of a cache (at 1024
// float threads, a stride of exactly 4 KiB put a register tile's 24 accumulators in one 8-way set of L1).
template <class T, int N = 1>
class Private {
  static_assert(N >= 1, "a Private holds at least one value per thread");
  static_assert(std::is_trivially_destructible_v<T>, "Private values live in an arena and are not destroyed");

 public:
#if defined(TK_CHECKED)
  Private()
      : n_(tls_block.threads),
        d_(static_cast<T*>(checked::private_storage(sizeof(T) * N * static_cast<std::size_t>(n_), N, type_name()))) {}
#else
  Private() : n_(stride(tls_block.threads)), d_(static_cast<T*>(arena().push(sizeof(T) * N * n_))) {}
#endif
  explicit Private(const T& init) : Private() {
    for (std::int64_t i = 0; i < std::int64_t{N} * n_; ++i) d_[i] = init;
  }
#if defined(TK_CHECKED)
  ~Private() { checked::private_release(d_); }
#else
  ~Private() { arena().pop_to(arena().offset_of(d_)); }
#endif
  Private(const Private&) = delete;
  Private& operator=(const Private&) = delete;

  // Indexed by the thread's linear id (th.id), an int: a struct passed to a call inside an `omp simd`
  // loop is kept in memory per lane, which stops the loop from vectorising.
#if defined(TK_CHECKED)
  T& operator()(int id, int i = 0) const {
    checked::private_access(d_, id, i, N);
    return d_[std::int64_t{i} * n_ + id];
  }
#else
  __attribute__((always_inline)) T& operator()(int id, int i = 0) const { return d_[std::int64_t{i} * n_ + id]; }
#endif
  // Any thread's value, unchecked: for the layer's warp-collective calls (tk::mma::mma_sync), which run between
  // phases for every lane at once and do their own checks.
  T& unchecked(int id, int i) const { return d_[std::int64_t{i} * n_ + id]; }

 private:
  static int stride(int threads) {
    if constexpr (N == 1 || 64 % sizeof(T) != 0) {
      return threads;
    } else {
      constexpr int per_line = 64 / static_cast<int>(sizeof(T));
      const int lines = (threads + per_line - 1) / per_line;
      return (lines | 1) * per_line;
    }
  }
  static const char* type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    if constexpr (std::is_same_v<T, double>) return "double";
    if constexpr (std::is_same_v<T, int>) return "int";
    return "T";
  }
  int n_;
  T* d_;
};

namespace detail {
// Validates the device (a CPU) and the launch shape; false for an empty grid.
bool prepare_launch(const Device& dev, const LaunchSpec& spec);
// Keeps the first exception thrown by any block (thread-safe) and raises the flag that stops the others.
void record_error(std::exception_ptr& slot, bool& failed);
// Throws tk::Error when the calling thread's stack is under cpu_min_stack_bytes (measured once per thread where
// the C library tells: glibc's pthread_getattr_np): a block's shared arrays live on the stack of the thread
// that runs it, so a small stack (OMP_STACKSIZE=256K, a thread made with a small stack, musl's default) would
// overflow it.
inline constexpr std::size_t cpu_min_stack_bytes = std::size_t{1} << 20;
void require_stack(const char* kernel, const char* call);  // call: the public op (nullptr: tk::launch)
inline bool read_flag(const bool& flag) {
  bool v;
#if defined(_OPENMP)
#pragma omp atomic read
#endif
  v = flag;
  return v;
}
}  // namespace detail

#if defined(TK_CHECKED)
// Checked mode (tilekit/cpu/checked.hpp): one block at a time, each run twice, everything checked. Not
// instrumented itself: its own stores are the executor's, not the kernel's.
template <class... P, class... A>
__attribute__((no_sanitize("thread"), noinline)) void run_grid(const Device& dev, const LaunchSpec& spec,
                                                               void (*kernel)(P...), A&... args) {
  if (!detail::prepare_launch(dev, spec)) return;
  detail::require_stack(spec.name, tk::detail::current_call());
  const void* pointers[sizeof...(A) + 1] = {checked::pointer_arg(args)..., nullptr};
  checked::Launch launch(spec, pointers, static_cast<int>(sizeof...(A)), __builtin_frame_address(0));
  const std::int64_t gx = spec.grid.x, gy = spec.grid.y;
  const std::int64_t blocks = gx * gy * spec.grid.z;
  for (std::int64_t b = 0; b < blocks; ++b) {
    const Dim3 idx{static_cast<int>(b % gx), static_cast<int>((b / gx) % gy), static_cast<int>(b / (gx * gy))};
    for (int run = 0; run < 2; ++run) {
      launch.begin_block(idx, run);
      kernel(static_cast<P>(args)...);
      launch.end_block(run);
    }
  }
}
#else
template <class... P, class... A>
void run_grid(const Device& dev, const LaunchSpec& spec, void (*kernel)(P...), A&... args) {
  if (!detail::prepare_launch(dev, spec)) return;
  const std::int64_t gx = spec.grid.x, gy = spec.grid.y;
  const std::int64_t blocks = gx * gy * spec.grid.z;
  std::exception_ptr error;
  bool failed = false;
  const char* call = tk::detail::current_call();  // the caller's thread's: named in errors of any thread
#if defined(_OPENMP)
#pragma omp parallel if (blocks > 1)
#endif
  {
    BlockContext& c = tls_block;
    const BlockContext saved = c;
    c.block_dim = spec.block;
    c.grid_dim = spec.grid;
    c.threads = spec.block.x * spec.block.y * spec.block.z;
    c.kernel_name = spec.name;
    Arena& a = arena();
    const std::size_t mark = a.mark();
    c.dynamic_shared = nullptr;
    try {
      detail::require_stack(spec.name, call);
      if (spec.dynamic_shared > 0) c.dynamic_shared = static_cast<unsigned char*>(a.push(spec.dynamic_shared));
    } catch (...) {
      detail::record_error(error, failed);
    }
#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
    for (std::int64_t b = 0; b < blocks; ++b) {
      if (detail::read_flag(failed)) continue;
      c.block_idx = {static_cast<int>(b % gx), static_cast<int>((b / gx) % gy), static_cast<int>(b / (gx * gy))};
      try {
        kernel(static_cast<P>(args)...);
      } catch (...) {
        detail::record_error(error, failed);
      }
    }
    a.pop_to(mark);
    c = saved;
  }
  if (error) std::rethrow_exception(error);
}
#endif

}  // namespace tk::cpu
