// tilekit/cpu/checked.hpp — the CPU target's checked mode (a tilekit built with TK_CHECKED=ON, the
// `checked` preset): the executor and the layer find the bugs that a GPU has and the plain CPU run hides.
//
// How it sees a kernel's memory accesses: the kernel files are compiled with the compiler's
// ThreadSanitizer instrumentation (-fsanitize=thread, compile only), whose calls (__tsan_read4(p), ...)
// tilekit's own runtime answers instead of libtsan (the approach of the Linux kernel's KCSAN), and with
// -fsanitize=bounds, whose out-of-range handler tilekit answers too. Shared arrays (TK_SHARED_ARRAY),
// dynamic shared memory and tk::Private values live in the executor's arena, each followed by a red
// zone, with a shadow cell per 4 bytes. Then, for each block:
//   1. race: an element of shared memory touched by two threads of the block, one of them writing, in
//      the same barrier interval (an epoch per TK_BARRIER(): what the GPU does, whatever order the CPU
//      runs the threads in);
//   2. divergent barrier: a TK_BARRIER() inside a phase (TK_THREADS), reached by some threads and not
//      others, or by all (the CPU cannot honour a barrier inside a phase either way);
//   3. thread state: a tk::Private read or written for another thread or outside a phase; and a result that
//      depends on the order in which a phase's threads run, which is what a per-thread value kept in a
//      plain local across phases gives (each block runs twice, its threads forward and then in reverse
//      order in every phase, its writes to memory undone between the runs, and the two results compared);
//   4. out of range: an index outside a shared array's bounds, an access in a red zone (past the end of
//      dynamic shared memory or of a shared array), a tk::Private value index outside [0, N);
//   5. uninitialised: a read of shared memory (or of a tk::Private value) that nothing has written since
//      the block started.
// The first finding stops the launch: it throws tk::KernelCheckError naming the kernel, the block, the
// thread(s), the array and the element. Checked launches run one block at a time, one launch at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "tilekit/error.hpp"
#include "tilekit/kernel_types.hpp"

namespace tk {

// The bug classes of checked mode.
enum class KernelBug { race, divergent_barrier, thread_state, out_of_range, uninitialized };
const char* to_string(KernelBug bug);

// What checked mode throws.
class KernelCheckError : public Error {
 public:
  KernelCheckError(KernelBug bug, const std::string& what) : Error(what), bug_(bug) {}
  KernelBug bug() const { return bug_; }

 private:
  KernelBug bug_;
};

namespace cpu::checked {

// A phase of a checked kernel: visits the block's threads in this run's order and checks, as each
// thread finishes, what the memory hooks found.
class PhaseLoop {
 public:
  PhaseLoop(const char* file, int line);
  ~PhaseLoop();
  PhaseLoop(const PhaseLoop&) = delete;
  PhaseLoop& operator=(const PhaseLoop&) = delete;
  bool next();
  Thread thread() const { return th_; }

 private:
  Thread th_{0, 0, 0, 0};
  int step_ = -1;
  int phase_ = -1;
};

// TK_BARRIER() in checked mode.
void barrier(const char* file, int line);

// A tk::barrier_wait that found its phase complete (tilekit/async_copy.hpp): the accesses before it count as
// separated from those after it, as by a TK_BARRIER(). Coarser than the GPU's order, which holds only between the
// barrier's arrivals and its waits: races between threads that meet only at such barriers are not reported.
void async_barrier_waited();

// tk::copy_async in checked mode (tilekit/async_copy.hpp): the copy of `bytes` bytes from src (src_bytes of them
// read, at the call, into `data`) is held, and its destination counts as a store of the calling thread that stays in
// flight: a read or a store of it, or another copy into it, is a race, until a tk::copy_async_wait completes the
// copy's group (tk::copy_async_commit closes a group for every thread of the block: its copies since the last
// commit). Then it lands, written by the issuing thread as the wait returns (other threads see it after a barrier).
// So a wait that leaves the group of the strip a kernel reads in flight is reported, as is a ring whose stage is
// refilled before its copy is waited for. A destination or source off a multiple of `bytes`, or src_bytes outside
// 0..bytes or not a multiple of 4, is out of range, as is a destination in a tk::Private. Commits and waits stand
// between phases. A destination checked mode cannot place (a TK_SHARED array of a program without its symbol table)
// lands at the call. Each commit closes a group for every thread, so in a kernel whose roles (tk::split_roles) commit
// apart the other role's threads get empty groups: their waits then complete at least what a GPU's would (a bug
// there may go unreported, never a correct kernel reported).
void copy_async_issue(void* dst, const void* src, int src_bytes, const void* data, int bytes);
void copy_async_commit();
void copy_async_wait(int n);

// A shared array of `bytes` in the arena, for this run of the block (TK_SHARED_ARRAY).
void* shared_array(std::size_t bytes, std::size_t align, std::size_t elem, const std::size_t* extents, int rank,
                   const char* name, const char* type, const char* file, int line);

template <class A, std::size_t... I>
void extents_of(std::size_t* ext, std::index_sequence<I...>) {
  ((ext[I] = std::extent_v<A, I>), ...);
}

template <class A>
A& shared_array_of(const char* name, const char* type, const char* file, int line) {
  static_assert(std::is_array_v<A> && std::is_trivially_destructible_v<A>, "TK_SHARED_ARRAY declares an array");
  constexpr int rank = static_cast<int>(std::rank_v<A>);
  std::size_t ext[rank > 0 ? rank : 1] = {};
  extents_of<A>(ext, std::make_index_sequence<rank>{});
  return *static_cast<A*>(shared_array(sizeof(A), alignof(A) < 64 ? 64 : alignof(A),
                                       sizeof(std::remove_all_extents_t<A>), ext, rank, name, type, file, line));
}

// The arena storage of a tk::Private<T, N> for every thread of the block, and its release.
void* private_storage(std::size_t bytes, int values, const char* type);
void private_release(void* p);
// Checks one access v(id, i) of a Private: inside a phase, for the thread running, i in [0, values).
void private_access(const void* storage, int id, int i, int values);

// A warp-collective call of the layer (tk::mma::mma_sync): it stands between phases, where every lane reaches it
// (inside a phase it is reported as a divergent barrier), and the block is whole warps of `lanes`.
void warp_collective(const char* what, int lanes);

// A launch: one block at a time, each run twice (threads forward, then reversed), writes undone between.
class Launch {
 public:
  Launch(const LaunchSpec& spec, const void* const* pointer_args, int nargs, void* stack_top);
  ~Launch();
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;
  void begin_block(Dim3 block, int run);
  void end_block(int run);
};

template <class T>
const void* pointer_arg(const T& v) {
  if constexpr (std::is_pointer_v<T>) {
    return static_cast<const void*>(v);
  } else {
    return nullptr;
  }
}

}  // namespace cpu::checked
}  // namespace tk
